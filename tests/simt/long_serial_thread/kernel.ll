; Written for adversarial testing (clang-CUDA shape): thread 0 does a serial recurrence
; (a single-thread scan / setup phase) while the rest of the block waits at __syncthreads.
;  if (tid == 0) { double x = 0; for (long k = 0; k < n; k++) x = x*0.5 + 1.0; sh = x; }
;  __syncthreads(); out[tid] = sh;
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
@sh = internal addrspace(3) global double undef, align 8

define dso_local ptx_kernel void @serial(ptr noalias noundef %out, i64 noundef %n) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %z = icmp eq i32 %tid, 0
  br i1 %z, label %loop, label %sync
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %x = phi double [ 0.0, %entry ], [ %x2, %loop ]
  %x1 = fmul double %x, 5.000000e-01
  %x2 = fadd double %x1, 1.000000e+00
  %k1 = add nuw nsw i64 %k, 1
  %c = icmp slt i64 %k1, %n
  br i1 %c, label %loop, label %st
st:
  store double %x2, ptr addrspace(3) @sh, align 8
  br label %sync
sync:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %v = load double, ptr addrspace(3) @sh, align 8
  %ti = zext i32 %tid to i64
  %p = getelementptr inbounds double, ptr %out, i64 %ti
  store double %v, ptr %p, align 8
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1
attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
