; Three `ret`s, as a front end that does not merge returns leaves them
; (written for kperf, 2026-11-27): threads at or past n leave at once;
; the others sum a 4-trip loop, meet at a barrier (which the leavers no
; longer count), and leave by one of two returns by the parity of i.
; y[i] = 6·x[i] for odd i, −6·x[i] for even i, below n.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @tails(ptr addrspace(1) %x, ptr addrspace(1) %y, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %tid, %n
  br i1 %in, label %load, label %leave

leave:
  ret void

load:
  %px = getelementptr float, ptr addrspace(1) %x, i32 %tid
  %v = load float, ptr addrspace(1) %px, align 4
  br label %loop

loop:
  %k = phi i32 [ 0, %load ], [ %k1, %loop ]
  %s = phi float [ 0.0, %load ], [ %s1, %loop ]
  %kf = sitofp i32 %k to float
  %t = fmul float %v, %kf
  %s1 = fadd float %s, %t
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, 4
  br i1 %more, label %loop, label %after

after:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %py = getelementptr float, ptr addrspace(1) %y, i32 %tid
  %odd = and i32 %tid, 1
  %isodd = icmp ne i32 %odd, 0
  br i1 %isodd, label %store_pos, label %store_neg

store_pos:
  store float %s1, ptr addrspace(1) %py, align 4
  ret void

store_neg:
  %neg = fneg float %s1
  store float %neg, ptr addrspace(1) %py, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1
attributes #0 = { convergent nounwind "target-cpu"="sm_90" }
attributes #1 = { convergent nocallback nounwind }
