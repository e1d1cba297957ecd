// gpu.printf of an i8 followed by an f32 inside a device function the kernel calls (inlined, its buffer gets lifetime markers). Written for kperf (adversarial pass, 2026-11-28); modelled on upstream MLIR's Integration/GPU/CUDA/indirect-device-func-call.mlir (Apache-2.0 WITH LLVM-exception).
gpu.module @kernels {
  func.func @hello(%arg0 : f32) {
    %tid_x = gpu.thread_id x
    %csti8 = arith.constant 2 : i8
    gpu.printf "Hello from %lld, %d, %f\n", %tid_x, %csti8, %arg0  : index, i8, f32
    return
  }
  gpu.func @direct() kernel attributes {known_block_size = array<i32: 2, 1, 1>} {
    %cstf32 = arith.constant 3.0 : f32
    func.call @hello(%cstf32) : (f32) -> ()
    gpu.return
  }
  gpu.func @indirect() kernel attributes {known_block_size = array<i32: 2, 1, 1>} {
    %cstf32 = arith.constant 3.0 : f32
    %func_ref = func.constant @hello : (f32) -> ()
    func.call_indirect %func_ref(%cstf32) : (f32) -> ()
    gpu.return
  }
}
