// Hopper async mode to PTX: a software pipeline (issue 16 case 7). Each
// iteration issues step k+1 and then waits for step k, so the wait retires the
// previous iteration's loads (or the prologue's), not the three just issued.
// The two-START pattern: START(issue) before the prologue's stage and before the
// loop's first TMA issue, END(issue) right before the mbarrier try_wait and
// START(wait) right after it; replay pairs waits with stages first in, first out.
// The warpgroup MMA is bracketed up to the wgmma wait_group 0 after it (retired
// in its own iteration). Records are predicated stores without branches, so no
// async op is duplicated.
// RUN: kperf instrument %s --target nvptx:sm_90a --regions kernel,loops,async --emit ptx
// CHECK: .entry matmul_tile(
// CHECK: .param .u64 .ptr .global .align 1 matmul_tile_param_10
// CHECK: .shared .align 1024 .b8 __kperf_smem_matmul_tile[11264];
// CHECK: mov.u32 [[K:%r[0-9]+]], %clock;
// CHECK: st.shared.v2.b32 [{{%rd[0-9]+}}], {[[K]], tag};
// CHECK: mbarrier.init.shared.b64
// CHECK-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK: [[LOOP:\$L__BB0_[0-9]+]]:
// CHECK: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK-NOT: %clock
// CHECK-COUNT-3: cp.async.bulk.tensor.2d
// CHECK-NEXT: // end inline asm
// CHECK-NEXT: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK-NOT: %clock
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK-NOT: %clock
// CHECK: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK-NOT: %clock
// CHECK: wgmma.fence.sync.aligned;
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK-NEXT: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-NEXT: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK: bra [[LOOP]];
// CHECK-NOT: cp.async.bulk.tensor
// CHECK-NOT: mbarrier.try_wait
// CHECK: mov.u64 {{%rd[0-9]+}}, %clock64;
// CHECK: ret;
!mbarriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!tmapA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmapB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!accum = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>
!wgA = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>
!wgB = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>
module attributes {gpu.container_module} {
  gpu.module @hopper {
    gpu.func @matmul_tile(%descA: !llvm.ptr, %descB: !llvm.ptr, %C: memref<?x?xf32>, %ktiles: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      // The tensor maps arrive as plain pointers: MLIR 22's gpu-to-nvvm
      // cannot convert a gpu.func whose signature has nvgpu types.
      %tmA = builtin.unrealized_conversion_cast %descA : !llvm.ptr to !tmapA
      %tmB = builtin.unrealized_conversion_cast %descB : !llvm.ptr to !tmapB
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c1023 = arith.constant 1023 : index
      %c1024 = arith.constant 1024 : index
      %stageBytes = arith.constant 32768 : index
      %bOffset = arith.constant 16384 : index
      %bHalf = arith.constant 8192 : index
      %spin = arith.constant 10000000 : index
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row0 = arith.muli %by, %c128 : index
      %col0 = arith.muli %bx, %c128 : index
      %col1 = arith.addi %col0, %c64 : index
      %leader = arith.cmpi eq, %tid, %c0 : index
      // The ring: dynamic shared memory, rounded up to 1024 bytes.
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %addr = memref.extract_aligned_pointer_as_index %smem : memref<?xi8, #gpu.address_space<workgroup>> -> index
      %up = arith.addi %addr, %c1023 : index
      %rounded = arith.divui %up, %c1024 : index
      %aligned = arith.muli %rounded, %c1024 : index
      %pad = arith.subi %aligned, %addr : index
      // One transaction barrier per stage, armed by thread 0.
      %bars = nvgpu.mbarrier.create -> !mbarriers
      nvgpu.mbarrier.init %bars[%c0], %c1, predicate = %leader : !mbarriers
      nvgpu.mbarrier.init %bars[%c1], %c1, predicate = %leader : !mbarriers
      nvvm.fence.mbarrier.init
      nvgpu.tma.prefetch.descriptor %tmA, predicate = %leader : !tmapA
      nvgpu.tma.prefetch.descriptor %tmB, predicate = %leader : !tmapB
      gpu.barrier
      // Prologue: step 0 into stage 0.
      %a0 = memref.view %smem[%pad][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
      %pb0 = arith.addi %pad, %bOffset : index
      %b0lo = memref.view %smem[%pb0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %pb0h = arith.addi %pb0, %bHalf : index
      %b0hi = memref.view %smem[%pb0h][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %haveK = arith.cmpi ugt, %ktiles, %c0 : index
      %issue0 = arith.andi %leader, %haveK : i1
      nvgpu.mbarrier.arrive.expect_tx %bars[%c0], %stageBytes, predicate = %issue0 : !mbarriers
      nvgpu.tma.async.load %tmA[%c0, %row0], %bars[%c0] to %a0, predicate = %issue0 : !tmapA, !mbarriers -> memref<128x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %tmB[%col0, %c0], %bars[%c0] to %b0lo, predicate = %issue0 : !tmapB, !mbarriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
      nvgpu.tma.async.load %tmB[%col1, %c0], %bars[%c0] to %b0hi, predicate = %issue0 : !tmapB, !mbarriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
      %zero = nvgpu.warpgroup.mma.init.accumulator -> !accum
      %acc = scf.for %k = %c0 to %ktiles step %c1 iter_args(%d = %zero) -> (!accum) {
        %stage = arith.remui %k, %c2 : index
        %kn = arith.addi %k, %c1 : index
        %next = arith.remui %kn, %c2 : index
        // Issue step k+1 into the other stage (its wgmma drained last step).
        %more = arith.cmpi ult, %kn, %ktiles : index
        %issue = arith.andi %leader, %more : i1
        %nOff = arith.muli %next, %stageBytes : index
        %pa = arith.addi %pad, %nOff : index
        %na = memref.view %smem[%pa][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
        %pb = arith.addi %pa, %bOffset : index
        %nblo = memref.view %smem[%pb][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
        %pbh = arith.addi %pb, %bHalf : index
        %nbhi = memref.view %smem[%pbh][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
        %kcol = arith.muli %kn, %c64 : index
        nvgpu.mbarrier.arrive.expect_tx %bars[%next], %stageBytes, predicate = %issue : !mbarriers
        nvgpu.tma.async.load %tmA[%kcol, %row0], %bars[%next] to %na, predicate = %issue : !tmapA, !mbarriers -> memref<128x64xf16, #gpu.address_space<workgroup>>
        nvgpu.tma.async.load %tmB[%col0, %kcol], %bars[%next] to %nblo, predicate = %issue : !tmapB, !mbarriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
        nvgpu.tma.async.load %tmB[%col1, %kcol], %bars[%next] to %nbhi, predicate = %issue : !tmapB, !mbarriers -> memref<64x64xf16, #gpu.address_space<workgroup>>
        // Wait for step k: stage k%2 completes its phase once every 2 steps.
        %round = arith.divui %k, %c2 : index
        %round32 = arith.index_cast %round : index to i32
        %parity = arith.trunci %round32 : i32 to i1
        nvgpu.mbarrier.try_wait.parity %bars[%stage], %parity, %spin : !mbarriers
        // 128x128x64 on the tensor cores from this stage.
        %sOff = arith.muli %stage, %stageBytes : index
        %sa = arith.addi %pad, %sOff : index
        %tileA = memref.view %smem[%sa][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
        %sb = arith.addi %sa, %bOffset : index
        %tileB = memref.view %smem[%sb][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x128xf16, #gpu.address_space<workgroup>>
        %dA = nvgpu.warpgroup.generate.descriptor %tileA, %tmA : memref<128x64xf16, #gpu.address_space<workgroup>>, !tmapA -> !wgA
        %dB = nvgpu.warpgroup.generate.descriptor %tileB, %tmB : memref<64x128xf16, #gpu.address_space<workgroup>>, !tmapB -> !wgB
        %dn = nvgpu.warpgroup.mma %dA, %dB, %d {transposeB} : !wgA, !wgB, !accum -> !accum
        nvvm.wgmma.wait.group.sync.aligned 0
        // Every warp is past its wgmma before thread 0 refills the stage.
        gpu.barrier
        scf.yield %dn : !accum
      }
      // Epilogue: the fragments straight to this CTA's tile of C.
      %tileC = memref.subview %C[%row0, %col0] [128, 128] [1, 1] : memref<?x?xf32> to memref<128x128xf32, strided<[?, 1], offset: ?>>
      nvgpu.warpgroup.mma.store %acc, %tileC : !accum to memref<128x128xf32, strided<[?, 1], offset: ?>>
      gpu.return
    }
  }
}
