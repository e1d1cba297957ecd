; Triton's LLVM prints float literals LLVM 22 cannot parse (f0x…, -inf);
; kperf rewrites them to the legacy syntax with the same bits.
; RUN: kperf instrument %s --regions kernel --emit llvm
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %out) #0 {
  %v = load float, ptr addrspace(1) %out, align 4
  %w = fmul float %v, f0x3FB8AA3B
  %m = call float @llvm.maxnum.f32(float %w, float -inf)
  store float %m, ptr addrspace(1) %out, align 4
  ret void
}
declare float @llvm.maxnum.f32(float, float)
attributes #0 = { "nvvm.reqntid"="128" }

; CHECK: fmul float %v, 0x3FF7154760000000
; CHECK: float 0xFFF0000000000000
