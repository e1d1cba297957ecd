// A file whose top-level module holds one named module with the kernels
// (a dump of one module of a larger program). MLIR's GPU passes serialize
// the gpu.modules of the top-level body only: the build failed with "no
// gpu.binary object was produced" (adversarial test, 2026-11-27). The inner
// module is compiled as the file's module, its attributes kept.
// RUN: kperf instrument %s --target nvptx:sm_90a --regions kernel --emit ptx
// CHECK: .target sm_90a
// CHECK: .entry k(
// CHECK: mov.u32 {{.*}}, %clock;
module {
  module @inner attributes {gpu.container_module} {
    gpu.module @m {
      gpu.func @k(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
        %tid = gpu.thread_id x
        %f = arith.index_cast %tid : index to i32
        %v = arith.sitofp %f : i32 to f32
        memref.store %v, %out[%tid] : memref<?xf32>
        gpu.return
      }
    }
  }
}
