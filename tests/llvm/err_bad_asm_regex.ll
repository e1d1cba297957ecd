; A bad asm= regex is reported as such.
; RUN: kperf instrument %s --regions asm=wgmma(
; ERROR: bad asm regex `wgmma(`
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k() #0 {
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }
