; A marker's name must be a constant string.
; RUN: kperf instrument %s
; ERROR: kperf_region_start needs a constant, non-empty string naming the region
target triple = "nvptx64-nvidia-cuda"
declare void @kperf_region_start(ptr)
define ptx_kernel void @k(ptr %name) #0 {
  call void @kperf_region_start(ptr %name)
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }
