; A clang-CUDA-shaped file with two kernels: `rev` (block reversal through
; dynamic shared memory) declares __launch_bounds__(256) as nvvm.maxntid and
; is launched with 96 threads; `other` requires exactly 64 threads
; (nvvm.reqntid). Before (2026-11-27): the spec's block was checked against
; every kernel of the file, and against maxntid as if it were exact, so
; `kperf run` refused both: "--block [96, 1, 1] disagrees". A bound now
; takes any smaller block, and the launch's block is the launched kernel's.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@buf = external dso_local addrspace(3) global [0 x float], align 4

define dso_local ptx_kernel void @rev(ptr noalias noundef readonly %in, ptr noalias noundef %out) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %m = mul i32 %bid, %ntid
  %gid = add i32 %m, %tid
  %gi = zext i32 %gid to i64
  %p = getelementptr inbounds float, ptr %in, i64 %gi
  %v = load float, ptr %p, align 4
  %ti = zext i32 %tid to i64
  %s = getelementptr inbounds [0 x float], ptr addrspace(3) @buf, i64 0, i64 %ti
  store float %v, ptr addrspace(3) %s, align 4
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %r0 = sub i32 %ntid, 1
  %r = sub i32 %r0, %tid
  %ri = zext i32 %r to i64
  %s2 = getelementptr inbounds [0 x float], ptr addrspace(3) @buf, i64 0, i64 %ri
  %w = load float, ptr addrspace(3) %s2, align 4
  %q = getelementptr inbounds float, ptr %out, i64 %gi
  store float %w, ptr %q, align 4
  ret void
}
define dso_local ptx_kernel void @other(ptr noalias noundef %out) #2 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ti = zext i32 %tid to i64
  %q = getelementptr inbounds float, ptr %out, i64 %ti
  store float 1.0, ptr %q, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1
attributes #0 = { convergent mustprogress noinline norecurse nounwind "nvvm.maxntid"="256" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #2 = { convergent mustprogress noinline norecurse nounwind "nvvm.reqntid"="64" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
