; lanes 0-15 spin on a shared flag; lanes 16-31 take __activemask(), store it, lane 16 sets the flag.
; GPU (ITS): must finish. out[lane<16]=100, out[lane>=16]=activemask (0xffff0000 expected = -65536)
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
@flag = internal addrspace(3) global i32 undef, align 4

define dso_local ptx_kernel void @spin(ptr noalias noundef %out) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %ti = zext i32 %tid to i64
  %o = getelementptr inbounds i32, ptr %out, i64 %ti
  %z = icmp eq i32 %tid, 0
  br i1 %z, label %init, label %s0
init:
  store volatile i32 0, ptr addrspace(3) @flag, align 4
  br label %s0
s0:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %lo = icmp ult i32 %lane, 16
  br i1 %lo, label %spin, label %act
spin:
  %f = load atomic volatile i32, ptr addrspace(3) @flag acquire, align 4
  %zz = icmp eq i32 %f, 0
  br i1 %zz, label %spin, label %spun
spun:
  store i32 100, ptr %o, align 4
  br label %done
act:
  %m = tail call i32 @llvm.nvvm.activemask()
  store i32 %m, ptr %o, align 4
  %l16 = icmp eq i32 %lane, 16
  br i1 %l16, label %set, label %done
set:
  store atomic volatile i32 1, ptr addrspace(3) @flag release, align 4
  br label %done
done:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.activemask() #1
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1
attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
