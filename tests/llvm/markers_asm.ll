; Region markers as inline-asm comments (what Triton can emit): repeats of
; one marker in a block (one asm per tensor element) count once.
; RUN: kperf instrument %s --emit ptx
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  call void asm sideeffect "// kperf:start tile", ""()
  call void asm sideeffect "// kperf:start tile", ""()
  %v = load float, ptr addrspace(1) %out, align 4
  %w = fadd float %v, 1.0
  store float %w, ptr addrspace(1) %out, align 4
  call void asm sideeffect "// kperf:end tile", ""()
  call void asm sideeffect "// kperf:end tile", ""()
  ret void
}
attributes #0 = { "nvvm.reqntid"="64" }

; Init's clock64, two records, finalize's clock64.
; CHECK: %clock64
; CHECK-COUNT-2: mov.u32 {{.*}}, %clock;
; CHECK-NOT: mov.u32 {{.*}}, %clock;
; CHECK-NOT: kperf:start
