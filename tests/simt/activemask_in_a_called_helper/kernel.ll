; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: convergent mustprogress noinline norecurse nounwind memory(inaccessiblemem: readwrite)
define dso_local noundef i32 @_Z9mask_herev() local_unnamed_addr #0 {
  %1 = tail call i32 @llvm.nvvm.activemask()
  ret i32 %1
}

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.activemask() #1

; Function Attrs: convergent mustprogress noinline norecurse nounwind memory(inaccessiblemem: readwrite)
define dso_local noundef i32 @_Z15through_anotherv() local_unnamed_addr #0 {
  %1 = tail call noundef i32 @_Z9mask_herev() #4
  %2 = xor i32 %1, 1
  ret i32 %2
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind memory(argmem: write, inaccessiblemem: readwrite)
define dso_local ptx_kernel void @in_helpers(ptr noundef writeonly captures(none) %0) local_unnamed_addr #2 {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = trunc nuw nsw i32 %2 to i16
  %4 = urem i16 %3, 3
  %5 = icmp eq i16 %4, 0
  br i1 %5, label %6, label %8

6:                                                ; preds = %1
  %7 = tail call noundef i32 @_Z9mask_herev() #4
  br label %11

8:                                                ; preds = %1
  %9 = tail call noundef i32 @_Z9mask_herev() #4
  %10 = or i32 %9, -2147483648
  br label %11

11:                                               ; preds = %8, %6
  %12 = phi i32 [ %7, %6 ], [ %10, %8 ]
  %13 = tail call noundef i32 @_Z9mask_herev() #4
  %14 = and i32 %2, 30
  %15 = icmp samesign ult i32 %14, 10
  br i1 %15, label %16, label %18

16:                                               ; preds = %11
  %17 = tail call noundef i32 @_Z15through_anotherv() #4
  br label %18

18:                                               ; preds = %16, %11
  %19 = phi i32 [ %17, %16 ], [ 0, %11 ]
  %20 = mul nuw nsw i32 %2, 3
  %21 = zext nneg i32 %20 to i64
  %22 = getelementptr inbounds nuw i32, ptr %0, i64 %21
  store i32 %12, ptr %22, align 4, !tbaa !4
  %23 = getelementptr i8, ptr %22, i64 4
  store i32 %13, ptr %23, align 4, !tbaa !4
  %24 = getelementptr i8, ptr %22, i64 8
  store i32 %19, ptr %24, align 4, !tbaa !4
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

attributes #0 = { convergent mustprogress noinline norecurse nounwind memory(inaccessiblemem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #1 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #2 = { convergent mustprogress noinline norecurse nounwind memory(argmem: write, inaccessiblemem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { convergent nounwind }

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
