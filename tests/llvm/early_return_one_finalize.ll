; A kernel that leaves early (`if (i >= n) return;` as clang -O0/-O1 keep
; it: a second `ret`) finalizes once: its returns become branches to one
; exit block, where the kernel region's END and finalize go. Before, each
; `ret` got its own END and its own copy-out.
; RUN: kperf instrument %s --regions kernel --emit llvm
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @scale(ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %tid, %n
  br i1 %in, label %work, label %early

early:
  ret void

work:
  %p = getelementptr float, ptr addrspace(1) %out, i32 %tid
  %v = load float, ptr addrspace(1) %p, align 4
  %w = fmul float %v, 2.0
  store float %w, ptr addrspace(1) %p, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
attributes #0 = { "nvvm.reqntid"="128" }

; CHECK-LABEL: define ptx_kernel void @scale(
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: early:
; CHECK-NEXT: br label %kperf.exit
; CHECK: work:
; CHECK: store float
; CHECK-NEXT: br label %kperf.exit
; CHECK: kperf.exit:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: ret void
; CHECK-NOT: ret void
; CHECK: }
