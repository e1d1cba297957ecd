; async: START before the issue (cp.async), END before the first wait that
; follows, START of the wait region right after it.
; RUN: kperf instrument %s --regions async --emit llvm
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@smem = internal addrspace(3) global [256 x i8] undef, align 16

define ptx_kernel void @k(ptr addrspace(1) %in) #0 {
entry:
  call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) @smem, ptr addrspace(1) %in)
  call void asm sideeffect "cp.async.commit_group;", ""()
  %x = add i32 1, 2
  call void asm sideeffect "cp.async.wait_group 0;", ""()
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }

; CHECK: read.ptx.sreg.clock()
; CHECK: cp.async.cg.shared.global
; CHECK: cp.async.commit_group
; CHECK: read.ptx.sreg.clock()
; CHECK: cp.async.wait_group 0
; CHECK: read.ptx.sreg.clock()
