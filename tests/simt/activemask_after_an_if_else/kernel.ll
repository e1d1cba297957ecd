; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: convergent mustprogress noinline norecurse nounwind memory(argmem: readwrite, inaccessiblemem: readwrite)
define dso_local ptx_kernel void @am(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1) local_unnamed_addr #0 {
  %3 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %5 = mul i32 %3, %4
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %7 = add i32 %5, %6
  %8 = trunc i32 %6 to i8
  %9 = and i8 %8, 31
  %10 = urem i8 %9, 3
  switch i8 %10, label %15 [
    i8 0, label %11
    i8 1, label %13
  ]

11:                                               ; preds = %2
  %12 = tail call i32 @llvm.nvvm.activemask()
  br label %34

13:                                               ; preds = %2
  %14 = tail call i32 @llvm.nvvm.activemask()
  br label %34

15:                                               ; preds = %2
  %16 = sext i32 %7 to i64
  %17 = getelementptr inbounds i32, ptr %0, i64 %16
  %18 = load i32, ptr %17, align 4, !tbaa !4
  %19 = and i32 %18, 7
  %20 = icmp eq i32 %19, 0
  br i1 %20, label %21, label %25

21:                                               ; preds = %25, %15
  %22 = phi i32 [ %18, %15 ], [ %29, %25 ]
  %23 = and i32 %22, 1
  %24 = tail call i32 @llvm.nvvm.redux.sync.add(i32 %23, i32 613566756)
  br label %34

25:                                               ; preds = %15, %25
  %26 = phi i32 [ %30, %25 ], [ 0, %15 ]
  %27 = phi i32 [ %29, %25 ], [ %18, %15 ]
  %28 = mul nsw i32 %27, 1103515245
  %29 = add nsw i32 %28, 12345
  %30 = add nuw nsw i32 %26, 1
  %31 = and i32 %29, 7
  %32 = mul nuw nsw i32 %31, 50
  %33 = icmp samesign ult i32 %30, %32
  br i1 %33, label %25, label %21, !llvm.loop !8

34:                                               ; preds = %13, %21, %11
  %35 = phi i32 [ 0, %11 ], [ 0, %13 ], [ %24, %21 ]
  %36 = phi i32 [ %12, %11 ], [ %14, %13 ], [ 613566756, %21 ]
  %37 = tail call i32 @llvm.nvvm.activemask()
  %38 = mul nsw i32 %7, 3
  %39 = sext i32 %38 to i64
  %40 = getelementptr inbounds i32, ptr %1, i64 %39
  store i32 %36, ptr %40, align 4, !tbaa !4
  %41 = getelementptr i8, ptr %40, i64 4
  store i32 %37, ptr %41, align 4, !tbaa !4
  %42 = getelementptr i8, ptr %40, i64 8
  store i32 %35, ptr %42, align 4, !tbaa !4
  ret void
}

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.activemask() #1

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.redux.sync.add(i32, i32) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

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
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.mustprogress"}
