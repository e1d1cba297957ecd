; An unknown region mode lists the valid ones.
; RUN: kperf instrument %s --regions kernel,loopz
; ERROR: unknown region mode `loopz`
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k() #0 {
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }
