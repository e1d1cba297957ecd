; Written for kperf (2026-11-27): 128 threads arrive once each at barrier 1
; with a count of 32 and count the threads below 40 (bar.red.popc): four
; rounds, formed in arrival order, whose results the waiters may read
; after later rounds were released. Whatever the rounds, the sum over all
; threads of their round's count is 32 x 40 = 1280.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define dso_local ptx_kernel void @rounds(ptr noalias noundef %sum) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = icmp ult i32 %tid, 40
  %n = tail call i32 @llvm.nvvm.barrier.cta.red.popc.count(i32 1, i32 32, i1 %p)
  %old = atomicrmw add ptr %sum, i32 %n monotonic, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.barrier.cta.red.popc.count(i32, i32, i1) #1
attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
