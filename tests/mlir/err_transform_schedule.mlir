// A transform schedule beside its payload (upstream's transform-dialect
// tests): the payload is not the kernel the file describes until the
// schedule has run, so kperf refuses it and names the option its RUN line
// implies; with `--pre-pipeline transform-interpreter` it runs the schedule
// and erases it (corpus/mlir-upstream/CUDA/sm90/transform-dialect).
// RUN: kperf instrument %s --regions kernel --emit kperfgpu
// ERROR: err_transform_schedule.mlir:17:3: the file holds a transform schedule (`transform.named_sequence`) for its payload: run it first as the file's RUN line does (--pre-pipeline transform-interpreter)
gpu.module @kernels {
  gpu.func @k(%buf: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %v = memref.load %buf[%c0] : memref<64xf32>
    memref.store %v, %buf[%c0] : memref<64xf32>
    gpu.return
  }
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    transform.yield
  }
}
