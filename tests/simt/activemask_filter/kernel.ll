; Written for adversarial testing, in the shape clang 22 emits for CUDA:
; warp-aggregated atomic filter (NVIDIA blog "CUDA Pro Tip: Optimized Filtering
; with Warp-Aggregated Atomics", __activemask() form), followed by __syncthreads.
;   i = tid + bid*ntid; if (i < n && src[i] > 0) { active = __activemask();
;     leader = __ffs(active)-1; change = __popc(active); rank = __popc(active & lanemask_lt);
;     if (lane == leader) res = atomicAdd(nres, change); res = __shfl_sync(active, res, leader);
;     dst[res + rank] = src[i]; }  __syncthreads();
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define dso_local ptx_kernel void @filter(ptr noalias noundef %dst, ptr noalias noundef %nres, ptr noalias noundef readonly %src, i32 noundef %n) #0 {
entry:
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = tail call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %m = mul i32 %bid, %ntid
  %i = add i32 %m, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %load, label %sync

load:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %src, i64 %idx
  %v = load i32, ptr %p, align 4
  %pos = icmp sgt i32 %v, 0
  br i1 %pos, label %agg, label %sync

agg:
  %active = tail call i32 @llvm.nvvm.activemask()
  %lane = and i32 %tid, 31
  %cttz = tail call i32 @llvm.cttz.i32(i32 %active, i1 false)
  %change = tail call i32 @llvm.ctpop.i32(i32 %active)
  %lt = tail call i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
  %al = and i32 %active, %lt
  %rank = tail call i32 @llvm.ctpop.i32(i32 %al)
  %isl = icmp eq i32 %lane, %cttz
  br i1 %isl, label %atom, label %bcast

atom:
  %old = atomicrmw add ptr %nres, i32 %change monotonic, align 4
  br label %bcast

bcast:
  %r = phi i32 [ %old, %atom ], [ 0, %agg ]
  %res = tail call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 %active, i32 %r, i32 %cttz, i32 31)
  %o = add i32 %res, %rank
  %oi = sext i32 %o to i64
  %q = getelementptr inbounds i32, ptr %dst, i64 %oi
  store i32 %v, ptr %q, align 4
  br label %sync

sync:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
declare i32 @llvm.nvvm.activemask() #1
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32) #1
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1
declare i32 @llvm.cttz.i32(i32, i1)
declare i32 @llvm.ctpop.i32(i32)

attributes #0 = { convergent mustprogress noinline norecurse nounwind "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind }
