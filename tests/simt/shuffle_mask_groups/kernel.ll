; Written for adversarial testing (clang-CUDA shape): a half-warp shuffle in a branch,
; then a full-warp shuffle (PTX: shfl.sync waits for the threads of membermask executing
; shfl.sync with the same membermask).
;   v = tid; if (lane < 16) v += __shfl_xor_sync(0x0000ffff, v, 1);
;   v += __shfl_xor_sync(0xffffffff, v, 16); out[tid] = v;
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define dso_local ptx_kernel void @masks(ptr noalias noundef %out) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %lo = icmp ult i32 %lane, 16
  br i1 %lo, label %half, label %full
half:
  %x = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 65535, i32 %tid, i32 1, i32 31)
  %v1 = add i32 %tid, %x
  br label %full
full:
  %v = phi i32 [ %tid, %entry ], [ %v1, %half ]
  %y = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v, i32 16, i32 31)
  %r = add i32 %v, %y
  %ti = zext i32 %tid to i64
  %p = getelementptr inbounds i32, ptr %out, i64 %ti
  store i32 %r, ptr %p, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32) #1
attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
