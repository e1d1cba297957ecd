; Two kernels of one file (written for kperf, 2026-11-27): `scale` is
; launched; `other` calls the noinline helper `tile`, whose region markers
; cannot record (a device function has no ring). Refusing them is right
; for `other`, but it refused `kperf run` of `scale` too, which never
; reaches `tile`. Markers only a kernel that is not recorded reaches are
; dropped, as the plain build drops them.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
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

define ptx_kernel void @scale(ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %f = uitofp i32 %tid to float
  %w = fmul float %f, 3.0
  %p = getelementptr float, ptr addrspace(1) %out, i32 %tid
  store float %w, ptr addrspace(1) %p, align 4
  ret void
}

define ptx_kernel void @other(ptr addrspace(1) %out) #0 {
entry:
  %v = load float, ptr addrspace(1) %out, align 4
  %w = call float @tile(float %v)
  store float %w, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
attributes #0 = { nounwind "target-cpu"="sm_90" }
attributes #1 = { noinline nounwind "target-cpu"="sm_90" }
