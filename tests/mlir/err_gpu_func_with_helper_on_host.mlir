// A gpu.func kernel calling a func.func helper, given to --target host: the
// error said every public function is called by another ("`helper` by
// ``": the caller, a gpu.func, printed empty) and pointed at the helper
// (adversarial test, 2026-11-27). It now names the GPU kernel.
// RUN: kperf instrument %s --target host --regions kernel
// ERROR: `k` is a GPU kernel (gpu.func), and the host target runs `func.func` kernels
module attributes {gpu.container_module} {
  gpu.module @m {
    func.func @helper(%x: f32) -> f32 {
      %y = arith.addf %x, %x : f32
      return %y : f32
    }
    gpu.func @k(%o: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %tid = gpu.thread_id x
      %f = arith.constant 1.0 : f32
      %g = func.call @helper(%f) : (f32) -> f32
      memref.store %g, %o[%tid] : memref<4xf32>
      gpu.return
    }
  }
}
