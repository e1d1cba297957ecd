// Issue 16 case 3: a gpu.launch that captures a host-built TMA descriptor
// (as every upstream sm_90 TMA test does). Upstream converts nvgpu before
// outlining, so the kernel takes a pointer; kperf outlines first to see the
// nvgpu ops, and passes the descriptor across the launch as `!llvm.ptr`
// (cast there and back) so the outlined kernel still legalizes. The TMA op
// keeps its name for `ops=`, is bracketed, and reads the descriptor from
// the kernel's first parameter. Written for kperf.
// RUN: kperf instrument %s --target nvptx:sm_90a --regions ops=nvgpu.tma.* --emit ptx
// CHECK: .entry main_kernel(
// CHECK-NEXT: .param .u64 .ptr .align 1 main_kernel_param_0,
// CHECK: ld.param.b64 [[DESC:%rd[0-9]+]], [main_kernel_param_0];
// CHECK: mbarrier.init.shared.b64
// CHECK: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [[[DESC]], {{.*}}], [__mbarrier];
// CHECK-NEXT: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK: mbarrier.try_wait.parity.shared.b64
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!tmap = !nvgpu.tensormap.descriptor<tensor = memref<32x64xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
module attributes {gpu.container_module} {
  memref.global "private" @tile : memref<32x64xf16, #gpu.address_space<workgroup>>
  func.func @main(%src: memref<32x64xf16>, %dst: memref<32x64xf16>) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %u = memref.cast %src : memref<32x64xf16> to memref<*xf16>
    %desc = nvgpu.tma.create.descriptor %u box[%c32, %c64] : memref<*xf16> -> !tmap
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : index
      %bytes = arith.constant 4096 : index
      %phase = arith.constant false
      %ticks = arith.constant 10000000 : index
      %smem = memref.get_global @tile : memref<32x64xf16, #gpu.address_space<workgroup>>
      %bar = nvgpu.mbarrier.create -> !bars
      %leader = arith.cmpi eq, %tx, %c0 : index
      scf.if %leader {
        nvgpu.mbarrier.init %bar[%c0], %one : !bars
        nvgpu.tma.async.load %desc[%c0, %c0], %bar[%c0] to %smem : !tmap, !bars -> memref<32x64xf16, #gpu.address_space<workgroup>>
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !bars
      }
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase, %ticks : !bars
      %row = arith.divui %tx, %c64 : index
      %col = arith.remui %tx, %c64 : index
      %v = memref.load %smem[%row, %col] : memref<32x64xf16, #gpu.address_space<workgroup>>
      memref.store %v, %dst[%row, %col] : memref<32x64xf16>
      gpu.terminator
    }
    return
  }
}
