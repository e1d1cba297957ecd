// Issue 16 §8: the block size is the dimension of a buffer the host casts to
// a dynamic shape (upstream's shuffle test sizes its block this way): the
// static 13 of memref<13xf32> is read through the cast, no --block needed.
// RUN: kperf instrument %s --regions kernel --emit kperfgpu
// CHECK: gpu.func @host_kernel
// CHECK: "kperfgpu.init"
// CHECK: block = "13,1,1"
module attributes {gpu.container_module} {
  func.func @host(%m: memref<13xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %dyn = memref.cast %m : memref<13xf32> to memref<?xf32>
    %n = memref.dim %dyn, %c0 : memref<?xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
      %f = arith.constant 2.0 : f32
      memref.store %f, %dyn[%tx] : memref<?xf32>
      gpu.terminator
    }
    return
  }
}
