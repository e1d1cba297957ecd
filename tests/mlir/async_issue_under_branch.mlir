// Issue 16 case 7: TMA issued by one thread under `scf.if` and waited on by
// every thread after the branch, as upstream's sm_90 tests do. Each load is
// paired with the try_wait on its own mbarrier (the wait on %bar_b comes
// first and retires only the second load); the records go in the wait's
// block, START(issue) before the branch, so every thread writes all three.
// Written for kperf.
// RUN: kperf instrument %s --target nvptx:sm_90a --regions async --emit kperf
// CHECK: gpu.func @main_kernel(
// CHECK: "kperf.record"() {is_start = true, kind = "asyncissue", name = "async:tma.async.load"}
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncissue", name = "async:tma.async.load#1"}
// CHECK-NEXT: scf.if
// CHECK: nvgpu.tma.async.load %{{[0-9]+}}[%c0, %c0], [[BAR_A:%[0-9]+]][%c0]
// CHECK: nvgpu.tma.async.load %{{[0-9]+}}[%c0, %c0], [[BAR_B:%[0-9]+]][%c0]
// CHECK-NOT: kperf.record
// CHECK: }
// CHECK: "kperf.record"() {is_start = false, kind = "asyncissue", name = "async:tma.async.load#1"}
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity [[BAR_B]][%c0]
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncwait", name = "wait:tma.async.load#1", pairs_with = "async:tma.async.load#1"}
// CHECK: "kperf.record"() {is_start = false, kind = "asyncissue", name = "async:tma.async.load"}
// CHECK-NEXT: nvgpu.mbarrier.try_wait.parity [[BAR_A]][%c0]
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncwait", name = "wait:tma.async.load", pairs_with = "async:tma.async.load"}
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!tile = memref<32x64xf16, #gpu.address_space<workgroup>>
!tmap = !nvgpu.tensormap.descriptor<tensor = !tile, swizzle = none, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  memref.global "private" @a_tile : !tile
  memref.global "private" @b_tile : !tile
  func.func @main(%a: memref<32x64xf16>, %b: memref<32x64xf16>, %out: memref<32x64xf16>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %ua = memref.cast %a : memref<32x64xf16> to memref<*xf16>
    %ub = memref.cast %b : memref<32x64xf16> to memref<*xf16>
    %da = nvgpu.tma.create.descriptor %ua box[%c32, %c64] : memref<*xf16> -> !tmap
    %db = nvgpu.tma.create.descriptor %ub box[%c32, %c64] : memref<*xf16> -> !tmap
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : index
      %bytes = arith.constant 4096 : index
      %phase = arith.constant false
      %ticks = arith.constant 10000000 : index
      %sa = memref.get_global @a_tile : !tile
      %sb = memref.get_global @b_tile : !tile
      %bar_a = nvgpu.mbarrier.create -> !bars
      %bar_b = nvgpu.mbarrier.create -> !bars
      %leader = arith.cmpi eq, %tx, %c0 : index
      scf.if %leader {
        nvgpu.mbarrier.init %bar_a[%c0], %one : !bars
        nvgpu.mbarrier.init %bar_b[%c0], %one : !bars
        nvgpu.tma.async.load %da[%c0, %c0], %bar_a[%c0] to %sa : !tmap, !bars -> !tile
        nvgpu.mbarrier.arrive.expect_tx %bar_a[%c0], %bytes : !bars
        nvgpu.tma.async.load %db[%c0, %c0], %bar_b[%c0] to %sb : !tmap, !bars -> !tile
        nvgpu.mbarrier.arrive.expect_tx %bar_b[%c0], %bytes : !bars
      }
      %row = arith.divui %tx, %c64 : index
      %col = arith.remui %tx, %c64 : index
      nvgpu.mbarrier.try_wait.parity %bar_b[%c0], %phase, %ticks : !bars
      %vb = memref.load %sb[%row, %col] : !tile
      nvgpu.mbarrier.try_wait.parity %bar_a[%c0], %phase, %ticks : !bars
      %va = memref.load %sa[%row, %col] : !tile
      %s = arith.addf %va, %vb : f16
      memref.store %s, %out[%row, %col] : memref<32x64xf16>
      gpu.terminator
    }
    return
  }
}
