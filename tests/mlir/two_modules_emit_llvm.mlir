// Two gpu.launch outline to two gpu.modules; --emit llvm handed both modules' bitcode
// to llvm-dis as one file ("Invalid encoding", found 2026-11-27): the modules
// are now linked into one LLVM module holding both kernels.
// RUN: kperf instrument %s --regions kernel --emit llvm
// CHECK-DAG: define ptx_kernel void @main_kernel(
// CHECK-DAG: define ptx_kernel void @main_kernel_0(
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
