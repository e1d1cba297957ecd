; Issue 16 case 11: in a kernel that calls a function (here vprintf), ptxas
; compiles init and finalize under the call ABI. Uniform registers below
; UR36 do not survive a call, so where the kernel has not loaded the global
; memory descriptor before its first call, every store of finalize's
; copy-out in divergent code takes it through two R2UR: the fixed cost
; rises (71 in print_only; 97 while finalize copied in a loop, before
; 2026-11-26: these kernels have no loops, so their two records are copied
; straight-line). Where the kernel touched global memory before the call,
; ptxas keeps the descriptor in a callee-saved UR36 and finalize pays
; less (scale_and_print, 59). The hollow reference that `fixed` is checked
; against takes the kernel's shape, so both agree within a few
; instructions. Written for kperf.
; RUN: kperf cost %s --regions kernel --json
; CHECK: "kernel": "print_only",
; CHECK: "fixed": {{(6[6-9]|7[0-6])}}.0,
; CHECK: "fixed_reference": {{(6[6-9]|7[0-9])}}.0,
; CHECK-NEXT: "calls_functions": true,
; CHECK: "kernel": "scale_and_print",
; CHECK: "fixed": {{(5[4-9]|6[0-4])}}.0,
; CHECK: "fixed_reference": {{(5[4-9]|6[0-6])}}.0,
; CHECK-NEXT: "calls_functions": true,
target triple = "nvptx64-nvidia-cuda"

@fmt = private unnamed_addr addrspace(1) constant [12 x i8] c"tid %d: %f\0A\00"
@fmt2 = private unnamed_addr addrspace(1) constant [8 x i8] c"tid %d\0A\00"

declare i32 @vprintf(ptr, ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define ptx_kernel void @print_only() #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %args = alloca i32, align 4
  store i32 %tid, ptr %args
  %fp = addrspacecast ptr addrspace(1) @fmt2 to ptr
  %r = call i32 @vprintf(ptr %fp, ptr %args)
  ret void
}

define ptx_kernel void @scale_and_print(ptr addrspace(1) %x, float %a) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %tid to i64
  %p = getelementptr float, ptr addrspace(1) %x, i64 %i
  %v = load float, ptr addrspace(1) %p
  %w = fmul float %v, %a
  store float %w, ptr addrspace(1) %p
  %args = alloca { i32, double }, align 8
  store i32 %tid, ptr %args
  %d = fpext float %w to double
  %f1 = getelementptr { i32, double }, ptr %args, i32 0, i32 1
  store double %d, ptr %f1
  %fp = addrspacecast ptr addrspace(1) @fmt to ptr
  %r = call i32 @vprintf(ptr %fp, ptr %args)
  ret void
}

attributes #0 = { "nvvm.reqntid"="128,1,1" }
