// One ring per CTA (--granularity cta, or a block of one warp): records are
// unpredicated stores, and threads that do not record write into a trash
// ring (init selects the base once). With a single ring both bases are
// constant addresses, and LLVM used to fold every record's slot offset into
// both arms of that select: one selp and two adds per record, 4.9 SASS a
// record instead of 2.5 (upstream's all-reduce tests, sm_80). The selected
// base now passes through an opaque move; each record's slot is an
// immediate offset from it.
// Written for kperf.
// RUN: kperf instrument %s --target nvptx:sm_80 --granularity cta --regions probe=3 --emit ptx
// CHECK: .entry k(
// CHECK: selp.b64 [[SEL:%rd[0-9]+]],
// CHECK: mov.b64 [[RING:%rd[0-9]+]], [[SEL]];
// CHECK: mov.u32 [[C0:%r[0-9]+]], %clock;
// CHECK-NOT: selp
// CHECK: st.shared.v2.b32 [[[RING]]], {[[C0]],
// CHECK-NOT: selp
// CHECK: mov.u32 [[C1:%r[0-9]+]], %clock;
// CHECK-NOT: selp
// CHECK: add.s64 [[S1:%rd[0-9]+]], [[RING]], 8;
// CHECK-NOT: selp
// CHECK: st.shared.v2.b32 [[[S1]]], {[[C1]],
// CHECK-NOT: selp
// CHECK: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK-NOT: selp
// CHECK: add.s64 {{%rd[0-9]+}}, [[RING]], 16;
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %v = memref.load %buf[%tid] : memref<128xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %buf[%tid] : memref<128xf32>
      gpu.return
    }
  }
}
