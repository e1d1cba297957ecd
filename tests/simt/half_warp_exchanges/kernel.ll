; Written for adversarial testing (clang-CUDA shape): one full-warp __shfl_sync, then the
; low half-warp alone runs ITERS __shfl_xor_sync(0x0000ffff, ...) while the high half exits.
;  v = __shfl_sync(~0u, tid, 0) + tid;
;  if (lane < 16) for (k = 0; k < iters; k++) v = v*3 + __shfl_xor_sync(0xffff, v, 1 << (k & 3));
;  out[gid] = v;
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define dso_local ptx_kernel void @halfwarp(ptr noalias noundef %out, i32 noundef %iters) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %m = mul i32 %bid, %ntid
  %gid = add i32 %m, %tid
  %s0 = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %tid, i32 0, i32 31)
  %v0 = add i32 %s0, %tid
  %lane = and i32 %tid, 31
  %lo = icmp ult i32 %lane, 16
  %go = icmp sgt i32 %iters, 0
  %both = and i1 %lo, %go
  br i1 %both, label %loop, label %done

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %v = phi i32 [ %v0, %entry ], [ %vn, %loop ]
  %k3 = and i32 %k, 3
  %off = shl i32 1, %k3
  %x = tail call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 65535, i32 %v, i32 %off, i32 31)
  %v3 = mul i32 %v, 3
  %vn = add i32 %v3, %x
  %k1 = add nuw nsw i32 %k, 1
  %c = icmp slt i32 %k1, %iters
  br i1 %c, label %loop, label %done

done:
  %r = phi i32 [ %v0, %entry ], [ %vn, %loop ]
  %gi = sext i32 %gid to i64
  %p = getelementptr inbounds i32, ptr %out, i64 %gi
  store i32 %r, ptr %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32) #1
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32) #1
attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
