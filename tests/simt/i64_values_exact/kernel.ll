; out[i] = in[i] + s in 64-bit integers (written for kperf, 2026-11-27): a
; spec's integers and the outputs must be exact past 2^53, where f64 is not
; (2^53 + 1 reached the kernel as 2^53, and outputs of (1 << 62) + k came
; back as one float).
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @add_i64(ptr addrspace(1) %in, i64 %s, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pi = getelementptr i64, ptr addrspace(1) %in, i32 %tid
  %v = load i64, ptr addrspace(1) %pi, align 8
  %w = add i64 %v, %s
  %po = getelementptr i64, ptr addrspace(1) %out, i32 %tid
  store i64 %w, ptr addrspace(1) %po, align 8
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
attributes #0 = { nounwind "target-cpu"="sm_90" }
