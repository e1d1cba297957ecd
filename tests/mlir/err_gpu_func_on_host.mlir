// A gpu.func kernel given to --target host: the error listed gpu.func kernels
// among what it looked for, as if there were none (2026-11-27). It now names
// the kernel and the targets that take it.
// RUN: kperf instrument %s --target host --regions kernel
// ERROR: `k` is a GPU kernel (gpu.func), and the host target runs `func.func` kernels
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%o: memref<4xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %tid = gpu.thread_id x
      %f = arith.constant 1.0 : f32
      memref.store %f, %o[%tid] : memref<4xf32>
      gpu.return
    }
  }
}
