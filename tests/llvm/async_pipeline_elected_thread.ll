; Issue 16 case 7 on the LLVM path: a two-stage TMA pipeline as clang
; compiles an elected-thread CUDA kernel. Thread 0 issues both stages under
; `if (tid == 0)` before the K loop; each iteration spins on the stage's
; mbarrier (a loop of its own around try_wait), computes, and thread 0
; refills the stage under `if (tid == 0 && k + 2 < n)`.
;
; One pipeline region, the two-START pattern: START(issue) for each
; prologue stage before the branch around them (every warp writes it),
; START(issue) for the refill before the branch inside the loop, END(issue)
; on the edge into the spin loop and START(wait) on its exit. Before, each
; prologue copy paired with the first try_wait after it, inside the loop:
; one START and an END every iteration.
; Written for kperf.
; RUN: kperf instrument %s --regions async --emit llvm
; CHECK-LABEL: entry:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: br i1 %leader, label %prologue, label %preheader
; CHECK-LABEL: prologue:
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK-LABEL: loop:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK-LABEL: spin:
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK-LABEL: body:
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: %v = load float
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: br i1 %refill, label %issue, label %latch
; CHECK-LABEL: issue:
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK-LABEL: latch:
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@smem = internal addrspace(3) global [32768 x i8] undef, align 128
@bars = internal addrspace(3) global [2 x i64] undef, align 8

define ptx_kernel void @k(ptr %desc, ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %prologue, label %preheader

prologue:
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {0, 0}], [$2];", "r,l,r"(ptr addrspace(3) @smem, ptr %desc, ptr addrspace(3) @bars)
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {0, 64}], [$2];", "r,l,r"(ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @smem, i32 16384), ptr %desc, ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @bars, i32 8))
  br label %preheader

preheader:
  br label %loop

loop:
  %k = phi i32 [ 0, %preheader ], [ %k.next, %latch ]
  %acc = phi float [ 0.0, %preheader ], [ %acc.next, %latch ]
  %slot = and i32 %k, 1
  %bar.off = shl i32 %slot, 3
  %bar = getelementptr i8, ptr addrspace(3) @bars, i32 %bar.off
  %buf.off = shl i32 %slot, 14
  %buf = getelementptr i8, ptr addrspace(3) @smem, i32 %buf.off
  %phase = lshr i32 %k, 1
  %parity = and i32 %phase, 1
  br label %spin

spin:
  %ready = call i32 asm sideeffect "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }", "=r,r,r"(ptr addrspace(3) %bar, i32 %parity)
  %done = icmp ne i32 %ready, 0
  br i1 %done, label %body, label %spin

body:
  %v = load float, ptr addrspace(3) %buf, align 4
  %acc.next = fadd float %acc, %v
  %k.next = add nuw nsw i32 %k, 1
  %ahead = add nuw nsw i32 %k, 2
  %more = icmp slt i32 %ahead, %n
  %refill = and i1 %leader, %more
  br i1 %refill, label %issue, label %latch

issue:
  %col = shl i32 %ahead, 6
  call void asm sideeffect "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {0, $3}], [$2];", "r,l,r,r"(ptr addrspace(3) %buf, ptr %desc, ptr addrspace(3) %bar, i32 %col)
  br label %latch

latch:
  %again = icmp slt i32 %k.next, %n
  br i1 %again, label %loop, label %exit

exit:
  store float %acc.next, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
attributes #0 = { "nvvm.reqntid"="128" }
