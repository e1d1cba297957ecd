// A gpu.launch body is outlined first; only device code is instrumented.
// RUN: kperf instrument %s --regions kernel --emit kperfgpu
// CHECK: func.func @host
// CHECK-NOT: kperfgpu
// CHECK: gpu.func @host_kernel
// CHECK: "kperfgpu.init"
// CHECK: block = "64,1,1"
module attributes {gpu.container_module} {
  func.func @host(%m: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %f = arith.constant 2.0 : f32
      memref.store %f, %m[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}
