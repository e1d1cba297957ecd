// clock64 keeps clock bits 46..32 in tag bits 31..17: a shift and an or, no mask.
// RUN: kperf instrument %s --regions kernel --counter clock64 --emit mlir
// On NVPTX the record is one PTX block: split the pair, shift-or the tag in place, store
// (unpredicated: threads that do not record store into the trash ring).
// CHECK: nvvm.read.ptx.sreg.clock64 : i64
// CHECK: llvm.inline_asm has_side_effects {{.*}}mov.b64 {lo, hi}, $2; shl.b32 hi, hi, 17; or.b32 hi, hi, 0; st.shared.v2.b32 [$1], {lo, hi};
// CHECK: nvvm.read.ptx.sreg.clock64 : i64
// CHECK: shl.b32 hi, hi, 17; or.b32 hi, hi, 65536;
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
