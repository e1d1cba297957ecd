; Written for kperf (2026-11-27), after an adversarial pass: a file with two
; kernels. `handoff`: thread 0 spins on a shared flag with __nanosleep
; backoff until thread 32 (another warp) sets it, then every thread writes
; tid + flag. `matcher` uses `fns` (find the nth set bit), which the SIMT
; target refuses, and `narrow` takes a half, which no launcher passes.
; Before: launching `handoff` was refused for `matcher`'s intrinsic, then
; for `narrow`'s parameter, and nanosleep was refused too. (They were
; __match_any_sync and an i16, both supported since.)
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@flag = internal addrspace(3) global i32 undef, align 4

define dso_local ptx_kernel void @handoff(ptr noundef %out) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %init, label %after_init
init:
  store volatile i32 0, ptr addrspace(3) @flag, align 4
  br label %after_init
after_init:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %is32 = icmp eq i32 %tid, 32
  br i1 %is32, label %set, label %check
set:
  store volatile i32 7, ptr addrspace(3) @flag, align 4
  br label %done
check:
  br i1 %is0, label %spin, label %done
spin:
  %f = load volatile i32, ptr addrspace(3) @flag, align 4
  %zero = icmp eq i32 %f, 0
  br i1 %zero, label %sleep, label %done
sleep:
  tail call void @llvm.nvvm.nanosleep(i32 100)
  br label %spin
done:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %v = load volatile i32, ptr addrspace(3) @flag, align 4
  %r = add i32 %v, %tid
  %ti = zext i32 %tid to i64
  %p = getelementptr inbounds i32, ptr %out, i64 %ti
  store i32 %r, ptr %p, align 4
  ret void
}

define dso_local ptx_kernel void @matcher(ptr noundef %out) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %m = tail call i32 @llvm.nvvm.fns(i32 -1, i32 %tid, i32 1)
  %ti = zext i32 %tid to i64
  %p = getelementptr inbounds i32, ptr %out, i64 %ti
  store i32 %m, ptr %p, align 4
  ret void
}

define dso_local ptx_kernel void @narrow(ptr noundef %out, half %x) #0 {
entry:
  %w = fpext half %x to float
  store float %w, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1
declare void @llvm.nvvm.nanosleep(i32) #1
declare i32 @llvm.nvvm.fns(i32, i32, i32)
attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
