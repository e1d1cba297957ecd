; --regions iterations on a rotated loop whose header also leaves early (a
; grid-stride search that returns on a hit; clang -O3 puts the load and
; compare in the header, the exit test at the latch). The loop was taken
; for a test-first one: START on the header's edge into the body, so the
; header's work was outside every iteration and a pass that left through
; the header had no record (60 of 61 instances on the SIMT target; found
; by an adversarial pass, 2026-11-27). The iteration starts at the
; header's top.
; RUN: kperf instrument %s --regions iterations --block 64 --emit llvm
; CHECK: phi i32
; CHECK-NEXT: phi i32
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree noinline norecurse nounwind memory(argmem: readwrite)
define dso_local ptx_kernel void @find_sentinel(ptr noundef readonly captures(none) %0, i32 noundef %1, i32 noundef %2, ptr noundef captures(none) %3, ptr noundef writeonly captures(none) %4) local_unnamed_addr #0 {
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %8 = mul i32 %6, %7
  %9 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %10 = add i32 %8, %9
  %11 = icmp slt i32 %10, %1
  br i1 %11, label %12, label %29

12:                                               ; preds = %5
  %13 = tail call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %14 = mul i32 %7, %13
  br label %15

15:                                               ; preds = %12, %25
  %16 = phi i32 [ %10, %12 ], [ %27, %25 ]
  %17 = phi i32 [ 0, %12 ], [ %26, %25 ]
  %18 = sext i32 %16 to i64
  %19 = getelementptr inbounds i32, ptr %0, i64 %18
  %20 = load i32, ptr %19, align 4, !tbaa !4
  %21 = icmp eq i32 %20, %2
  br i1 %21, label %22, label %25

22:                                               ; preds = %15
  %23 = atomicrmw min ptr %3, i32 %16 seq_cst, align 4
  %24 = xor i32 %17, -1
  br label %29

25:                                               ; preds = %15
  %26 = add nuw nsw i32 %17, 1
  %27 = add i32 %16, %14
  %28 = icmp slt i32 %27, %1
  br i1 %28, label %15, label %29, !llvm.loop !8

29:                                               ; preds = %25, %5, %22
  %30 = phi i32 [ %24, %22 ], [ 0, %5 ], [ %26, %25 ]
  %31 = zext i32 %10 to i64
  %32 = getelementptr inbounds nuw i32, ptr %4, i64 %31
  store i32 %30, ptr %32, align 4, !tbaa !4
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #1

attributes #0 = { mustprogress nofree noinline norecurse nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

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
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.mustprogress"}
