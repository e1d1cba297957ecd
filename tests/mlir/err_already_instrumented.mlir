// A kernel kperf instrumented already (`kperf opt`'s output carries
// `kperf.instrumented`) given to `kperf instrument`: "no kernel found
// (looked for gpu.func kernels ...)" denied the kernel in the file
// (adversarial test, 2026-11-27).
// RUN: kperf instrument %s --regions kernel
// ERROR: kernel `k` is instrumented already
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%o: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>, kperf.instrumented} {
      %tid = gpu.thread_id x
      %f = arith.constant 1.0 : f32
      memref.store %f, %o[%tid] : memref<4xf32>
      gpu.return
    }
  }
}
