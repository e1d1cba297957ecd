; tests/simt/narrow_int_params: compiled by clang 22 from kernel.cu beside it.
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: write)
define dso_local ptx_kernel void @params(i1 noundef zeroext %0, i8 noundef signext %1, i16 noundef signext %2, i8 noundef zeroext %3, i32 noundef %4, i64 noundef %5, float noundef %6, double noundef %7, ptr noundef writeonly captures(none) %8) local_unnamed_addr #0 {
  %10 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %11 = icmp eq i32 %10, 0
  br i1 %11, label %12, label %27

12:                                               ; preds = %9
  %13 = uitofp i1 %0 to double
  store double %13, ptr %8, align 8, !tbaa !8
  %14 = sitofp i8 %1 to double
  %15 = getelementptr inbounds nuw i8, ptr %8, i64 8
  store double %14, ptr %15, align 8, !tbaa !8
  %16 = sitofp i16 %2 to double
  %17 = getelementptr inbounds nuw i8, ptr %8, i64 16
  store double %16, ptr %17, align 8, !tbaa !8
  %18 = uitofp i8 %3 to double
  %19 = getelementptr inbounds nuw i8, ptr %8, i64 24
  store double %18, ptr %19, align 8, !tbaa !8
  %20 = uitofp i32 %4 to double
  %21 = getelementptr inbounds nuw i8, ptr %8, i64 32
  store double %20, ptr %21, align 8, !tbaa !8
  %22 = sitofp i64 %5 to double
  %23 = getelementptr inbounds nuw i8, ptr %8, i64 40
  store double %22, ptr %23, align 8, !tbaa !8
  %24 = fpext contract float %6 to double
  %25 = getelementptr inbounds nuw i8, ptr %8, i64 48
  store double %24, ptr %25, align 8, !tbaa !8
  %26 = getelementptr inbounds nuw i8, ptr %8, i64 56
  store double %7, ptr %26, align 8, !tbaa !8
  br label %27

27:                                               ; preds = %12, %9
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: write) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
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
!8 = !{!9, !9, i64 0}
!9 = !{!"double", !6, i64 0}
