; Region markers inside a noinline device function (cuda-samples' matrixMul
; with its tile product in a helper, found by an adversarial pass,
; 2026-11-27): kperf wrote the kernel saying "1 region" and left the marker
; calls in the helper, which ptxas could not resolve. Refused by name.
; RUN: kperf instrument %s --emit ptx
; ERROR: region markers in `tile`, which is not a kernel
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
