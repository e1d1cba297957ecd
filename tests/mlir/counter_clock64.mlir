// clock64 keeps clock bits 46..32 in tag bits 31..17: a shift and an or, no mask.
// RUN: kperf instrument %s --regions kernel --counter clock64 --emit mlir
// CHECK: nvvm.read.ptx.sreg.clock64 : i64
// CHECK: llvm.lshr
// CHECK: llvm.mlir.constant(17 : i32)
// CHECK: llvm.shl
// CHECK: llvm.or
// CHECK: llvm.store {{.*}} : vector<2xi32>, !llvm.ptr<3>
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
