; Written for kperf (2026-11-27): producer/consumer warps on named barriers,
; the shape CUTLASS's NamedBarrier and warp-specialized kernels emit.
;   warp 0 (producer): buf[lane] = 10 * (lane + 1); bar.arrive 1, 64;
;   warp 1 (consumer): bar.sync 1, 64; out[lane] = buf[31 - lane];
;   then both: bar.sync 2 (all threads), count[tid] = __syncthreads_count(tid < 40) on barrier 3.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@buf = internal addrspace(3) global [32 x i32] undef, align 4

define dso_local ptx_kernel void @pc(ptr noalias noundef %out, ptr noalias noundef %count) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %w = lshr i32 %tid, 5
  %li = zext i32 %lane to i64
  %producer = icmp eq i32 %w, 0
  br i1 %producer, label %produce, label %consume
produce:
  %l1 = add i32 %lane, 1
  %v = mul i32 %l1, 10
  %s = getelementptr inbounds [32 x i32], ptr addrspace(3) @buf, i64 0, i64 %li
  store i32 %v, ptr addrspace(3) %s, align 4
  tail call void @llvm.nvvm.barrier.cta.arrive.count(i32 1, i32 64)
  br label %join
consume:
  tail call void @llvm.nvvm.barrier.cta.sync.count(i32 1, i32 64)
  %r = sub i32 31, %lane
  %ri = zext i32 %r to i64
  %s2 = getelementptr inbounds [32 x i32], ptr addrspace(3) @buf, i64 0, i64 %ri
  %x = load i32, ptr addrspace(3) %s2, align 4
  %o = getelementptr inbounds i32, ptr %out, i64 %li
  store i32 %x, ptr %o, align 4
  br label %join
join:
  tail call void @llvm.nvvm.barrier.cta.sync.all(i32 2)
  %p = icmp ult i32 %tid, 40
  %n = tail call i32 @llvm.nvvm.barrier.cta.red.popc.all(i32 3, i1 %p)
  %ti = zext i32 %tid to i64
  %c = getelementptr inbounds i32, ptr %count, i64 %ti
  store i32 %n, ptr %c, align 4
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.arrive.count(i32, i32) #1
declare void @llvm.nvvm.barrier.cta.sync.count(i32, i32) #1
declare void @llvm.nvvm.barrier.cta.sync.all(i32) #1
declare i32 @llvm.nvvm.barrier.cta.red.popc.all(i32, i1) #1
attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
