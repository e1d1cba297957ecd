; A start on one branch only does not dominate the end after the join.
; RUN: kperf instrument %s
; ERROR: region `half`: end not dominated by a start
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(i1 %c) #0 {
entry:
  br i1 %c, label %a, label %b
a:
  call void asm sideeffect "// kperf:start half", ""()
  br label %join
b:
  br label %join
join:
  call void asm sideeffect "// kperf:end half", ""()
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }
