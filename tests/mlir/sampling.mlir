// Sampling: only warps 0 and 2 of every 4th CTA record; segments are compact. (the rings take 352 bytes; the profile is padded to a multiple of 1024, see SHARED_ALIGN)
// RUN: kperf instrument %s --regions kernel --sample-units 0,2 --sample-ctas every:4 --slots 8 --emit mlir
// CHECK: !llvm.array<128 x i64>
// CHECK: llvm.mlir.constant(4 : i32)
// CHECK: llvm.urem
// CHECK: llvm.select
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      memref.store %f, %buf[%c0] : memref<1024xf32>
      gpu.return
    }
  }
}
