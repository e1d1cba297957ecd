; Written for adversarial testing: named barriers (bar.sync 1 / bar.sync 2, as
; __syncwarp-free producer/consumer code and CUTLASS's NamedBarrier emit them).
; Warp 0: bar.sync 1; bar.sync 2.   Warp 1: bar.sync 2; bar.sync 1.
; On a GPU barriers 1 and 2 are distinct hardware barriers: this deadlocks.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define dso_local ptx_kernel void @named(ptr noalias noundef %out) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %w = lshr i32 %tid, 5
  %w0 = icmp eq i32 %w, 0
  br i1 %w0, label %a, label %b
a:
  tail call void @llvm.nvvm.barrier.sync(i32 1)
  tail call void @llvm.nvvm.barrier.sync(i32 2)
  br label %e
b:
  tail call void @llvm.nvvm.barrier.sync(i32 2)
  tail call void @llvm.nvvm.barrier.sync(i32 1)
  br label %e
e:
  %ti = zext i32 %tid to i64
  %q = getelementptr inbounds i32, ptr %out, i64 %ti
  store i32 1, ptr %q, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.sync(i32) #1
attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
