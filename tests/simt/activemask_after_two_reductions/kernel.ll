; Written for kperf (adversarial test, 2026-11-27), compiled by clang 22 from:
; // Minimal repro: lanes l%3==0 read __activemask() while the other lanes of
; // the warp do two rounds of half-masked reductions. On a GPU the result for
; // every lane with l%3==0 is 0x49249249 (all such lanes are converged there).
; #include "helpers.h"
; extern "C" __global__ void am(const int *in, int *out) {
;   int lane = threadIdx.x & 31;
;   int v = in[threadIdx.x];
;   int r;
;   if (lane % 2 == 0) r = __reduce_add_sync(0x55555555u, v);     // every even lane
;   else               r = __reduce_add_sync(0xAAAAAAAAu, v);     // every odd lane
;   if (lane % 3 == 0) out[blockIdx.x * 64 + threadIdx.x] = __activemask();
;   else out[blockIdx.x * 64 + threadIdx.x] = __reduce_or_sync(0xB6DB6DB6u, r) * 0 - 1;
; }
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: convergent mustprogress noinline norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite)
define dso_local ptx_kernel void @am(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1) local_unnamed_addr #0 {
  %3 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %4 = zext nneg i32 %3 to i64
  %5 = getelementptr inbounds nuw i32, ptr %0, i64 %4
  %6 = load i32, ptr %5, align 4, !tbaa !4
  %7 = and i32 %3, 1
  %8 = icmp eq i32 %7, 0
  br i1 %8, label %9, label %11

9:                                                ; preds = %2
  %10 = tail call i32 @llvm.nvvm.redux.sync.add(i32 %6, i32 1431655765)
  br label %13

11:                                               ; preds = %2
  %12 = tail call i32 @llvm.nvvm.redux.sync.add(i32 %6, i32 -1431655766)
  br label %13

13:                                               ; preds = %11, %9
  %14 = phi i32 [ %10, %9 ], [ %12, %11 ]
  %15 = trunc i32 %3 to i8
  %16 = and i8 %15, 31
  %17 = urem i8 %16, 3
  %18 = icmp eq i8 %17, 0
  br i1 %18, label %19, label %21

19:                                               ; preds = %13
  %20 = tail call i32 @llvm.nvvm.activemask()
  br label %23

21:                                               ; preds = %13
  %22 = tail call i32 @llvm.nvvm.redux.sync.or(i32 %14, i32 -1227133514)
  br label %23

23:                                               ; preds = %21, %19
  %24 = phi i32 [ -1, %21 ], [ %20, %19 ]
  %25 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %26 = shl i32 %25, 6
  %27 = add i32 %26, %3
  %28 = zext i32 %27 to i64
  %29 = getelementptr inbounds nuw i32, ptr %1, i64 %28
  store i32 %24, ptr %29, align 4, !tbaa !4
  ret void
}

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.redux.sync.add(i32, i32) #1

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.activemask() #1

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.redux.sync.or(i32, i32) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

attributes #0 = { convergent mustprogress noinline norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.ident = !{!3}
!llvm.errno.tbaa = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!2 = !{i32 7, !"frame-pointer", i32 2}
!3 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!4 = !{!5, !5, i64 0}
!5 = !{!"int", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C++ TBAA"}
