; Natural loops from the CFG: a loop region on the entering and exit edges,
; iterations from the header's edge into the body (the header of this
; unrotated loop only tests) to the back edge.
; RUN: kperf instrument %s --regions loops,iterations --emit llvm
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %out, i32 %n) #0 {
entry:
  br label %header
header:
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %p = getelementptr float, ptr addrspace(1) %out, i32 %i
  store float 1.0, ptr addrspace(1) %p, align 4
  %i1 = add i32 %i, 1
  br label %header
exit:
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }

; CHECK-LABEL: entry:
; CHECK: read.ptx.sreg.clock()
; CHECK: header:
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: body:
; CHECK: read.ptx.sreg.clock()
; CHECK: store float 1.0
; CHECK: read.ptx.sreg.clock()
; CHECK: br label %header
; CHECK: exit:
; CHECK: read.ptx.sreg.clock()
