; Issue 16 case 7 on the LLVM path: a TMA copy pairs with the wait on its
; own mbarrier. Two copies complete on two barriers of one array (the
; second at byte 8: LLVM's canonical `getelementptr i8`), then the kernel
; waits on the first and the second in turn. Each copy's END goes before
; the wait on its barrier: the second copy does not end at the first wait,
; the first wait of its family, as it did when waits were told apart by
; family only.
; Written for kperf.
; RUN: kperf instrument %s --regions async --emit llvm
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: cp.async.bulk.tensor.2d{{.*}}{0, 0}
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: cp.async.bulk.tensor.2d{{.*}}{0, 64}
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: %d0 = call i32 asm sideeffect
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: %v0 = load float
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: %d1 = call i32 asm sideeffect
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@smem = internal addrspace(3) global [32768 x i8] undef, align 128
@bars = internal addrspace(3) global [2 x i64] undef, align 8

define ptx_kernel void @k(ptr %desc, ptr addrspace(1) %out) #0 {
entry:
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {0, 0}], [$2];", "r,l,r"(ptr addrspace(3) @smem, ptr %desc, ptr addrspace(3) @bars)
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {0, 64}], [$2];", "r,l,r"(ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 16384), ptr %desc, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @bars, i32 8))
  %d0 = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], 0; selp.u32 $0, 1, 0, p; }", "=r,r"(ptr addrspace(3) @bars)
  %v0 = load float, ptr addrspace(3) @smem, align 4
  %d1 = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], 0; selp.u32 $0, 1, 0, p; }", "=r,r"(ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @bars, i32 8))
  %v1 = load float, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 16384), align 4
  %s = fadd float %v0, %v1
  store float %s, ptr addrspace(1) %out, align 4
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }
