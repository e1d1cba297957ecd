// Issue 16 case 2: a lone top-level gpu.module (no builtin.module around
// it) is accepted as mlir-opt accepts it, and assembles to PTX.
// RUN: kperf instrument %s --regions kernel --emit ptx
// CHECK: .entry k(
// CHECK: %globaltimer
// CHECK-NOT: bar.sync
// CHECK: ret;
gpu.module @kernels {
  gpu.func @k(%buf: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %v = memref.load %buf[%c0] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %buf[%c0] : memref<64xf32>
    gpu.return
  }
}
