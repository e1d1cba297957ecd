; Issue 16 case 7, software pipelines: a Triton-style two-stage cp.async
; pipeline (two prologue stages; each iteration waits for the oldest stage,
; then issues the next). No wait follows an issue in its own iteration, so
; the async mode records the paper's two-START pattern: START(issue) before
; each prologue stage (two copies each, as one iteration issues), END(issue)
; before the loop's wait, START(wait) after it, START(issue) before the
; loop's first copy. Replay pairs waits with stages first in, first out.
; The epilogue's wait_group 0 drains the last stages and gets no record.
; Written for kperf.
; RUN: kperf instrument %s --regions async --emit llvm
; CHECK: entry:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) @smem, ptr addrspace(1) %in)
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: call void @llvm.nvvm.cp.async.commit.group()
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: call void @llvm.nvvm.cp.async.commit.group()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: loop:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: call void @llvm.nvvm.cp.async.wait.group(i32 1)
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) @smem, ptr addrspace(1) %src)
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: done:
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: call void @llvm.nvvm.cp.async.wait.group(i32 0)
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@smem = internal addrspace(3) global [1024 x i8] undef, align 16

define ptx_kernel void @pipe(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %s1 = getelementptr i8, ptr addrspace(3) @smem, i32 256
  %s2 = getelementptr i8, ptr addrspace(3) @smem, i32 512
  %s3 = getelementptr i8, ptr addrspace(3) @smem, i32 768
  %in1 = getelementptr i8, ptr addrspace(1) %in, i64 16
  call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) @smem, ptr addrspace(1) %in)
  call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) %s1, ptr addrspace(1) %in1)
  call void @llvm.nvvm.cp.async.commit.group()
  call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) %s2, ptr addrspace(1) %in)
  call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) %s3, ptr addrspace(1) %in1)
  call void @llvm.nvvm.cp.async.commit.group()
  %go = icmp sgt i32 %n, 0
  br i1 %go, label %loop, label %done

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %sum, %loop ]
  call void @llvm.nvvm.cp.async.wait.group(i32 1)
  %v = load float, ptr addrspace(3) @smem, align 4
  %sum = fadd float %acc, %v
  %off = sext i32 %i to i64
  %src = getelementptr float, ptr addrspace(1) %in, i64 %off
  call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) @smem, ptr addrspace(1) %src)
  call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) %s1, ptr addrspace(1) %src)
  call void @llvm.nvvm.cp.async.commit.group()
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %done

done:
  %r = phi float [ 0.0, %entry ], [ %sum, %loop ]
  call void @llvm.nvvm.cp.async.wait.group(i32 0)
  store float %r, ptr addrspace(1) %out, align 4
  ret void
}

declare void @llvm.nvvm.cp.async.commit.group()
declare void @llvm.nvvm.cp.async.wait.group(i32 immarg)
attributes #0 = { "nvvm.reqntid"="128" }
