; A kernel whose every path ends in `unreachable` (a trap; found by an
; adversarial pass, 2026-11-27): finalize goes before a return, so kperf
; wrote a START, no END and no copy-out, and said it held a region. Refused.
; RUN: kperf instrument %s --regions kernel --emit llvm
; ERROR: the kernel never returns
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @tails(ptr addrspace(1) %x, ptr addrspace(1) %y, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %py = getelementptr float, ptr addrspace(1) %y, i32 %tid
  store float 1.0, ptr addrspace(1) %py, align 4
  call void @llvm.trap()
  unreachable
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.trap()
attributes #0 = { convergent nounwind "target-cpu"="sm_90" "nvvm.reqntid"="64" }
