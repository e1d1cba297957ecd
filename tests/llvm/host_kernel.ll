; The host target: a host-ABI function (six trailing i64 grid parameters)
; gets the profile pointer before its grid parameters.
; RUN: kperf instrument %s --target host --regions kernel --emit llvm

define void @k(ptr %x, float %a, i64 %bx, i64 %by, i64 %bz, i64 %gx, i64 %gy, i64 %gz) {
  %v = load float, ptr %x, align 4
  %w = fmul float %v, %a
  store float %w, ptr %x, align 4
  ret void
}

; CHECK: define void @k(ptr %x, float %a, ptr %0, i64 %bx, i64 %by, i64 %bz, i64 %gx, i64 %gy, i64 %gz)
; CHECK: call i64 @kperf_host_now_ns()
; CHECK: call { i32, i32 } asm sideeffect "rdtscp; lfence", "={eax},={edx},~{ecx}"()
