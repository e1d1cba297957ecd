// Issue 16 case 7, software pipelines that only consume: upstream's sm_90
// GEMMs (gemm_f32_f16_f16_128x128x128, gemm_pred_...) issue both TMA stages
// before the K loop, and iteration k only waits for stage k and multiplies.
// No wait follows an issue in the issue's own block, so pairing in program
// order finds nothing. The two-START pattern: START(issue) before each
// prologue stage, END(issue) before the loop's try_wait, START(wait) after it;
// replay pairs the k-th wait with the k-th stage, first in, first out. A
// stage is a branch that issues, or predicated issues in a row on one
// mbarrier slot. The loop must run once per stage: its trip count comes from
// constants in the kernel or, as upstream's tests are outlined, from the
// constants every gpu.launch_func passes. Three waits over two stages are no
// pipeline kperf can pair: that kernel gets no async records.
// Written for kperf.
// RUN: kperf instrument %s --target nvptx:sm_90a --regions async --emit kperf
// CHECK-LABEL: gpu.func @main_kernel(
// CHECK: "kperf.record"() {is_start = true, kind = "asyncissue", name = "async:tma.async.load"}
// CHECK-NEXT: scf.if
// CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx
// CHECK-NEXT: nvgpu.tma.async.load
// CHECK-NEXT: }
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncissue", name = "async:tma.async.load"}
// CHECK-NEXT: scf.if
// CHECK-NOT: kperf.record
// CHECK: scf.for
// CHECK-NEXT: "kperf.record"() {is_start = false, kind = "asyncissue", name = "async:tma.async.load"}
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncwait", name = "wait:tma.async.load", pairs_with = "async:tma.async.load"}
// CHECK-NOT: kperf.record
// CHECK-LABEL: gpu.func @main_kernel_0(
// CHECK: "kperf.record"() {is_start = true, kind = "asyncissue", name = "async:tma.async.load"}
// CHECK-NEXT: nvgpu.tma.async.load {{.*}}[[BAR:%[0-9]+]][%c0]
// CHECK-NEXT: nvgpu.tma.async.load {{.*}}[[BAR]][%c0]
// CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncissue", name = "async:tma.async.load"}
// CHECK-NEXT: nvgpu.tma.async.load {{.*}}[[BAR]][%c1]
// CHECK-NEXT: nvgpu.tma.async.load {{.*}}[[BAR]][%c1]
// CHECK-NOT: kperf.record
// CHECK: scf.for
// CHECK-NEXT: "kperf.record"() {is_start = false, kind = "asyncissue", name = "async:tma.async.load"}
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncwait", name = "wait:tma.async.load", pairs_with = "async:tma.async.load"}
// CHECK-LABEL: gpu.func @main_kernel_1(
// CHECK-NOT: kperf.record
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
!tile = memref<32x64xf16, #gpu.address_space<workgroup>>
!tmap = !nvgpu.tensormap.descriptor<tensor = !tile, swizzle = none, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  memref.global "private" @s0 : !tile
  memref.global "private" @s1 : !tile
  func.func @main(%a: memref<64x64xf16>, %out: memref<32x64xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %ua = memref.cast %a : memref<64x64xf16> to memref<*xf16>
    %da = nvgpu.tma.create.descriptor %ua box[%c32, %c64] : memref<*xf16> -> !tmap
    // Stages under branches; the K loop's bounds are host constants the
    // launch passes in.
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %bytes = arith.constant 4096 : index
      %phase = arith.constant false
      %ticks = arith.constant 10000000 : index
      %zero = arith.constant 0.0 : f16
      %t0 = memref.get_global @s0 : !tile
      %t1 = memref.get_global @s1 : !tile
      %bar = nvgpu.mbarrier.create -> !bars
      %leader = arith.cmpi eq, %tx, %c0 : index
      scf.if %leader {
        nvgpu.mbarrier.init %bar[%c0], %c1 : !bars
        nvgpu.mbarrier.init %bar[%c1], %c1 : !bars
      }
      gpu.barrier
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bars
        nvgpu.tma.async.load %da[%c0, %c0], %bar[%c0] to %t0 : !tmap, !bars -> !tile
      }
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %bar[%c1], %bytes : !bars
        nvgpu.tma.async.load %da[%c0, %c32], %bar[%c1] to %t1 : !tmap, !bars -> !tile
      }
      %row = arith.divui %tx, %c64 : index
      %col = arith.remui %tx, %c64 : index
      %sum = scf.for %k = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f16) {
        nvgpu.mbarrier.try_wait.parity %bar[%k], %phase, %ticks : !bars
        %v = memref.load %t0[%row, %col] : !tile
        %n = arith.addf %acc, %v : f16
        scf.yield %n : f16
      }
      memref.store %sum, %out[%row, %col] : memref<32x64xf16>
      gpu.terminator
    }
    // Stages as predicated issues in a row, one mbarrier slot each.
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %k0 = arith.constant 0 : index
      %k1 = arith.constant 1 : index
      %k2 = arith.constant 2 : index
      %bytes = arith.constant 8192 : index
      %phase = arith.constant false
      %ticks = arith.constant 10000000 : index
      %zero = arith.constant 0.0 : f16
      %t0 = memref.get_global @s0 : !tile
      %t1 = memref.get_global @s1 : !tile
      %bar = nvgpu.mbarrier.create -> !bars
      %leader = arith.cmpi eq, %tx, %k0 : index
      nvgpu.mbarrier.init %bar[%k0], %k1, predicate = %leader : !bars
      nvgpu.mbarrier.init %bar[%k1], %k1, predicate = %leader : !bars
      gpu.barrier
      nvgpu.mbarrier.arrive.expect_tx %bar[%k0], %bytes, predicate = %leader : !bars
      nvgpu.tma.async.load %da[%k0, %k0], %bar[%k0] to %t0, predicate = %leader : !tmap, !bars -> !tile
      nvgpu.tma.async.load %da[%k0, %c32], %bar[%k0] to %t1, predicate = %leader : !tmap, !bars -> !tile
      nvgpu.mbarrier.arrive.expect_tx %bar[%k1], %bytes, predicate = %leader : !bars
      nvgpu.tma.async.load %da[%c32, %k0], %bar[%k1] to %t0, predicate = %leader : !tmap, !bars -> !tile
      nvgpu.tma.async.load %da[%c32, %c32], %bar[%k1] to %t1, predicate = %leader : !tmap, !bars -> !tile
      %row = arith.divui %tx, %c64 : index
      %col = arith.remui %tx, %c64 : index
      %sum = scf.for %k = %k0 to %k2 step %k1 iter_args(%acc = %zero) -> (f16) {
        nvgpu.mbarrier.try_wait.parity %bar[%k], %phase, %ticks : !bars
        %v = memref.load %t1[%row, %col] : !tile
        %n = arith.addf %acc, %v : f16
        scf.yield %n : f16
      }
      memref.store %sum, %out[%row, %col] : memref<32x64xf16>
      gpu.terminator
    }
    // Three iterations over two stages: not a pipeline kperf can pair
    // (the third wait retires nothing issued), so no async records.
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %bytes = arith.constant 4096 : index
      %phase = arith.constant false
      %ticks = arith.constant 10000000 : index
      %zero = arith.constant 0.0 : f16
      %t0 = memref.get_global @s0 : !tile
      %bar = nvgpu.mbarrier.create -> !bars
      %leader = arith.cmpi eq, %tx, %c0 : index
      scf.if %leader {
        nvgpu.mbarrier.init %bar[%c0], %c1 : !bars
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bars
        nvgpu.tma.async.load %da[%c0, %c0], %bar[%c0] to %t0 : !tmap, !bars -> !tile
      }
      scf.if %leader {
        nvgpu.mbarrier.init %bar[%c1], %c1 : !bars
        nvgpu.mbarrier.arrive.expect_tx %bar[%c1], %bytes : !bars
        nvgpu.tma.async.load %da[%c0, %c32], %bar[%c1] to %t0 : !tmap, !bars -> !tile
      }
      %row = arith.divui %tx, %c64 : index
      %col = arith.remui %tx, %c64 : index
      %sum = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f16) {
        %slot = arith.remui %k, %c2 : index
        nvgpu.mbarrier.try_wait.parity %bar[%slot], %phase, %ticks : !bars
        %v = memref.load %t0[%row, %col] : !tile
        %n = arith.addf %acc, %v : f16
        scf.yield %n : f16
      }
      memref.store %sum, %out[%row, %col] : memref<32x64xf16>
      gpu.terminator
    }
    return
  }
}
