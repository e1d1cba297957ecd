; Issue 16 case 7 on the LLVM path: --regions loops in a kernel without a
; loop leaves it as it was (no profile parameter, no clock read).
; RUN: kperf instrument %s --regions loops --emit llvm
; CHECK: define ptx_kernel void @k(ptr addrspace(1) %out)
; CHECK-NOT: llvm.nvvm.read.ptx.sreg
; CHECK: ret void
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
