// kperf opt with the pipeline inside builtin.module(...), as mlir-opt's
// --pass-pipeline spells it: kperf's passes in it were "not a registered
// pass" (adversarial test s7h4, 2026-11-27).
// RUN: kperf opt %s -p builtin.module(canonicalize,kperf-insert{regions=kernel}),kperf-lower-gpu
// CHECK: gpu.launch_func
// CHECK: gpu.func @host_kernel
// CHECK: kperfgpu.init
// CHECK: kperfgpu.finalize
module attributes {gpu.container_module} {
  func.func @host(%m: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<64xf32>
      memref.store %v, %m[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}
