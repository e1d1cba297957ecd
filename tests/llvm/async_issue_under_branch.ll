; Issue 16 case 7 on the LLVM path: one thread issues the TMA load under
; `if (tid == 0)` and every thread waits on the mbarrier after the branch
; joins, as clang compiles CUDA's elected-thread TMA. START(issue) must run
; on every path that reaches the wait, so it goes before the branch (in the
; block that dominates both the issue and the wait), not inside it; END
; before the spin loop around the try_wait, START(wait) on its exit.
; Written for kperf.
; RUN: kperf instrument %s --regions async --emit llvm
; CHECK-LABEL: entry:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: br i1 %leader, label %issue, label %join
; CHECK-LABEL: issue:
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: cp.async.bulk.tensor.2d
; CHECK-LABEL: join:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-LABEL: spin:
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK-LABEL: after:
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@smem = internal addrspace(3) global [16384 x i8] undef, align 128
@bar = internal addrspace(3) global i64 undef, align 8

define ptx_kernel void @k(ptr %desc, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %issue, label %join

issue:
  call void asm sideeffect "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], 16384;", "r"(ptr addrspace(3) @bar)
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {0, 0}], [$2];", "r,l,r"(ptr addrspace(3) @smem, ptr %desc, ptr addrspace(3) @bar)
  br label %join

join:
  br label %spin

spin:
  %done = call i1 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], 0; selp.u32 $0, 1, 0, p; }", "=r,r"(ptr addrspace(3) @bar)
  br i1 %done, label %after, label %spin

after:
  %v = load float, ptr addrspace(3) @smem, align 4
  store float %v, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
attributes #0 = { "nvvm.reqntid"="128" }
