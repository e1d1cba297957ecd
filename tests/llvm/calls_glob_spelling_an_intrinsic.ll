; A calls= glob that spells part of a name brackets LLVM's intrinsics it
; matches: `calls=*sqrt*` brackets `llvm.sqrt.f32` (adversarial test
; s9h7, 2026-11-27: only globs starting `llvm.` did), while `calls=*` alone
; leaves intrinsics to the kernel (calls_star_skips_intrinsics.ll).
; RUN: kperf instrument %s --regions calls=*sqrt* --emit llvm
; CHECK: read.ptx.sreg.clock()
; CHECK: call float @llvm.sqrt.f32
; CHECK-NEXT: read.ptx.sreg.clock()
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare float @llvm.sqrt.f32(float)

define ptx_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  %v = load float, ptr addrspace(1) %out, align 4
  %s = call float @llvm.sqrt.f32(float %v)
  store float %s, ptr addrspace(1) %out, align 4
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }
