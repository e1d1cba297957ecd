// Issue 16 case 4: two gpu.launch in one function outline to two
// gpu.modules whose kernels were both named `main_kernel`. Kernel names are
// made unique (the second takes its module's name, and its launch_func
// follows), and the PTX of both modules is one file with one header, as
// ptxas accepts it.
// RUN: kperf instrument %s --regions kernel --emit ptx
// CHECK: .version
// CHECK-NOT: .version
// CHECK: .entry main_kernel(
// CHECK-NOT: .version
// CHECK: .entry main_kernel_0(
module attributes {gpu.container_module} {
  func.func @main(%m: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %m[%tx] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%tx] : memref<64xf32>
      gpu.terminator
    }
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %m[%tx] : memref<64xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %m[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}
