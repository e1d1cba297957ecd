// Granularity warpgroup: 128 threads per unit, one segment for this CTA.
// RUN: kperf instrument %s --regions kernel --granularity warpgroup --slots 16 --emit mlir
// CHECK: llvm.mlir.global internal @__kperf_smem_k() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<128 x i64>
// CHECK: llvm.mlir.constant(128 : i32) : i32
// CHECK: llvm.udiv
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
