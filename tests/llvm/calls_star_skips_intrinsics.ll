; calls=* brackets the kernel's calls, not LLVM's intrinsics: a special
; register read is one instruction, and `calls=*` (and `ops=*`, its alias on
; LLVM IR) bracketed each `tid.x` read (adversarial test s7h2,
; 2026-11-27). A glob that spells part of a name (`*sqrt*`) still matches them.
; RUN: kperf instrument %s --regions calls=* --emit llvm
; CHECK: %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: load float
; CHECK: read.ptx.sreg.clock()
; CHECK: call float @dev_work
; CHECK: read.ptx.sreg.clock()
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare float @dev_work(float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr float, ptr addrspace(1) %out, i32 %t
  %v = load float, ptr addrspace(1) %p, align 4
  %a = call float @dev_work(float %v)
  store float %a, ptr addrspace(1) %p, align 4
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }
