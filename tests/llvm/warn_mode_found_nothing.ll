; --regions kernel,loops on a loop-free kernel: the kernel region is recorded
; and the loops mode says it found nothing (it said nothing before).
; RUN: kperf instrument %s --regions kernel,loops,calls=foo* --emit llvm
; WARNING: --regions loops found nothing in `k`: the kernel has no natural loop of its own: its loops may be in a function it calls
; WARNING: --regions calls=foo* found nothing in `k`: no direct call's callee matches
; CHECK: define ptx_kernel void @k(
; CHECK: llvm.nvvm.read.ptx.sreg
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  %v = load float, ptr addrspace(1) %out, align 4
  %w = fmul float %v, 2.0
  store float %w, ptr addrspace(1) %out, align 4
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }
