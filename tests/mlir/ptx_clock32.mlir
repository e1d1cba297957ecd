// A record is a clock read and one unpredicated 8-byte shared store of {clock, tag}
// (threads that do not record store into the trash ring), with no branch; START of region 0 has tag 0, its END tag 65536 (bit 16).
// Finalize (from its thread-id read on) adds no barrier.
// RUN: kperf instrument %s --regions kernel --emit ptx
// CHECK: .entry k(
// CHECK: .shared .align 1024 .b8 __kperf_smem_k[11264];
// The tag is a constant inside the asm block, never a register LLVM could
// share with the kernel's own equal constant.
// CHECK: mov.u32 [[C0:%r[0-9]+]], %clock;
// CHECK: { .reg .b32 tag; mov.b32 tag, 0; st.shared.v2.b32 [{{%rd[0-9]+}}], {[[C0]], tag}; }
// CHECK: mov.u32 [[C1:%r[0-9]+]], %clock;
// CHECK: { .reg .b32 tag; mov.b32 tag, 65536; st.shared.v2.b32 [{{%rd[0-9]+}}], {[[C1]], tag}; }
// CHECK-NOT: bra
// CHECK: mov.u32 {{%r[0-9]+}}, %tid.x;
// CHECK-NOT: bar.sync
// CHECK: ret;
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
