; A start marker whose end is missing names the region.
; RUN: kperf instrument %s
; ERROR: region `load`: start without an end
target triple = "nvptx64-nvidia-cuda"
declare void @kperf_region_start(ptr)
@.load = private unnamed_addr constant [5 x i8] c"load\00"
define ptx_kernel void @k() #0 {
  call void @kperf_region_start(ptr @.load)
  ret void
}
attributes #0 = { "nvvm.reqntid"="32" }
