; saxpy over a struct of parameters passed by value (clang's `byval` pointer
; for a CUDA `__global__ void k(Params p, float *y)`).
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.Params = type { float, i32 }

define dso_local ptx_kernel void @saxpy_params(ptr noundef byval(%struct.Params) align 4 %p, ptr noundef %y) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = load float, ptr %p, align 4
  %ti = zext i32 %tid to i64
  %q = getelementptr inbounds float, ptr %y, i64 %ti
  %v = load float, ptr %q, align 4
  %w = fmul float %v, %a
  store float %w, ptr %q, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
attributes #0 = { "nvvm.reqntid"="32" }
