; An end marker without a start names the region.
; RUN: kperf instrument %s
; ERROR: region `tile`: end without a start
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k() #0 {
  call void asm sideeffect "// kperf:end tile", ""()
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }
