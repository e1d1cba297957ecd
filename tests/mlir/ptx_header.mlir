// The CTA header (ABI v2, dialects/src/abi.rs) as NVPTX writes it, for 128
// threads at warp granularity: 4 units × 256 slots, block stride 8288 =
// 64 (header) + 4·8 (unit entries) + 4·2048 (rings). Shared memory: the
// rings, 16 bytes of init stamps, one trash ring 32 bytes past the next
// 128-byte boundary (10400 bytes).
// - The constant words come from a .const table: "KPRF", version 2 with
//   flags 0, units 4, slots 256 (little-endian bytes).
// - Init: thread 0 (`tid < 1`, tested inside the asm so that it is not
//   finalize's `tid == 0`) parks {global timer, clock64} after the rings
//   (+8192).
// - Finalize derives the thread's state again (ids read through asm) and,
//   with no barrier, past the null-pointer check, thread 0 stores three
//   16-byte groups with predicated stores: identity (+0), the parked init
//   stamps (+16), finalize stamps (+32). Each warp leader then writes its
//   unit entry (+64 + 8·warp: 2 records) and copies its ring's records
//   to its segment (+96 + 2048·warp): the count is a constant here, so the
//   copy loop folds to its one trip, 4 chunks of 16 bytes loaded and then
//   stored (2 records and 6 unused slots); thread 0 writes the shape with
//   the end stamp (+48) last.
// RUN: kperf instrument %s --regions kernel --emit ptx
// CHECK: .const .align 16 .b8 __kperf_smem_k_hdr[16] = {75, 80, 82, 70, 2, 0, 0, 0, 4, 0, 0, 0, 0, 1};
// CHECK: .shared .align 1024 .b8 __kperf_smem_k[11264];
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: mov.u64 [[IT:%rd[0-9]+]], %globaltimer;
// CHECK-NEXT: mov.u64 [[IC:%rd[0-9]+]], %clock64;
// CHECK-NEXT: add.s64 [[SLOT:%rd[0-9]+]], {{%rd[0-9]+}}, 8192;
// CHECK: { .reg .pred p; setp.lt.u32 p, [[TID]], 1; @p st.shared.v2.b64 [[[SLOT]]], {[[IT]], [[IC]]}; }
// CHECK: mov.u32 [[FTID:%r[0-9]+]], %tid.x;
// CHECK: mov.u32 {{%r[0-9]+}}, %ctaid.x;
// CHECK-NOT: bar.sync
// CHECK: setp.eq.b64 [[NULL:%p[0-9]+]], {{%rd[0-9]+}}, 0;
// CHECK-NEXT: @[[NULL]] bra
// CHECK: mul.wide.u32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 8288;
// CHECK: setp.eq.b32 [[T0:%p[0-9]+]], [[FTID]], 0;
// CHECK: ld.const.v2.b32 {[[MAGIC:%r[0-9]+]], [[VERSION:%r[0-9]+]]}, [__kperf_smem_k_hdr];
// CHECK: @[[T0]] st.global.v4.b32 [[[BLK:%rd[0-9]+]]], {[[MAGIC]], [[VERSION]], {{%r[0-9]+}}, {{%r[0-9]+}}};
// CHECK: ld.shared.v2.b64 {[[ST:%rd[0-9]+]], [[SC:%rd[0-9]+]]}, [__kperf_smem_k+8192];
// CHECK-NEXT: add.s64 [[P16:%rd[0-9]+]], [[BLK]], 16;
// CHECK: @[[T0]] st.global.v2.b64 [[[P16]]], {[[ST]], [[SC]]};
// CHECK: mov.u64 [[FT:%rd[0-9]+]], %globaltimer;
// CHECK-NEXT: mov.u64 [[FC:%rd[0-9]+]], %clock64;
// CHECK-NEXT: add.s64 [[P32:%rd[0-9]+]], [[BLK]], 32;
// CHECK: @[[T0]] st.global.v2.b64 [[[P32]]], {[[FT]], [[FC]]};
// CHECK: or.b64 [[ENTRY:%rd[0-9]+]], {{%rd[0-9]+}}, 8589934592;
// CHECK: st.global.b64 [{{%rd[0-9]+}}+64], [[ENTRY]];
// CHECK: shl.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 11;
// CHECK: ld.shared.v2.b64 {[[R0:%rd[0-9]+]], [[R1:%rd[0-9]+]]}
// CHECK-NEXT: ld.shared.v2.b64 {[[R2:%rd[0-9]+]], [[R3:%rd[0-9]+]]}
// CHECK-NEXT: ld.shared.v2.b64 {[[R4:%rd[0-9]+]], [[R5:%rd[0-9]+]]}
// CHECK-NEXT: ld.shared.v2.b64 {[[R6:%rd[0-9]+]], [[R7:%rd[0-9]+]]}
// CHECK-NEXT: st.global.v2.b64 [[[SEG:%rd[0-9]+]]+96], {[[R0]], [[R1]]};
// CHECK-NEXT: st.global.v2.b64 [[[SEG]]+112], {[[R2]], [[R3]]};
// CHECK-NEXT: st.global.v2.b64 [[[SEG]]+128], {[[R4]], [[R5]]};
// CHECK-NEXT: st.global.v2.b64 [[[SEG]]+144], {[[R6]], [[R7]]};
// CHECK-NOT: st.global
// CHECK: ld.const.b64 [[SHAPE:%rd[0-9]+]], [__kperf_smem_k_hdr+8];
// CHECK-NEXT: mov.u64 [[END:%rd[0-9]+]], %globaltimer;
// CHECK-NEXT: add.s64 [[P48:%rd[0-9]+]], [[BLK]], 48;
// CHECK: @[[T0]] st.global.v2.b64 [[[P48]]], {[[SHAPE]], [[END]]};
// CHECK-NOT: st.global
// CHECK: ret;
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %f = arith.constant 1.0 : f32
      memref.store %f, %buf[%c0] : memref<1024xf32>
      gpu.return
    }
  }
}
