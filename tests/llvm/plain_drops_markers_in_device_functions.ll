; The plain build (and --ignore-markers) drops region markers in device
; functions as in kernels: the calls were left in a noinline helper, and
; ptxas failed on the undefined kperf_region_start (2026-11-27).
; RUN: kperf instrument %s --plain --emit ptx
; CHECK: .func
; CHECK-NOT: kperf_region
; CHECK: .entry k(
; CHECK-NOT: kperf_region
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare void @kperf_region_start(ptr)
declare void @kperf_region_end(ptr)
@.tile = private unnamed_addr constant [5 x i8] c"tile\00"

define internal float @tile(float %v) #1 {
entry:
  call void @kperf_region_start(ptr @.tile)
  %w = fmul float %v, 2.0
  call void @kperf_region_end(ptr @.tile)
  ret float %w
}

define ptx_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  %v = load float, ptr addrspace(1) %out, align 4
  %w = call float @tile(float %v)
  store float %w, ptr addrspace(1) %out, align 4
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }
attributes #1 = { noinline }
