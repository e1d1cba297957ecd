; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @math(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, ptr noundef writeonly captures(none) %2, ptr noundef writeonly captures(none) %3, ptr noundef writeonly captures(none) %4, ptr noundef writeonly captures(none) %5, ptr noundef writeonly captures(none) %6, ptr noundef writeonly captures(none) %7, ptr noundef writeonly captures(none) %8, ptr noundef writeonly captures(none) %9, ptr noundef writeonly captures(none) %10) local_unnamed_addr #0 {
  %12 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %13 = zext nneg i32 %12 to i64
  %14 = getelementptr inbounds nuw float, ptr %0, i64 %13
  %15 = load float, ptr %14, align 4, !tbaa !8
  %16 = tail call contract float @__nv_expf(float noundef %15) #3
  %17 = getelementptr inbounds nuw float, ptr %1, i64 %13
  store float %16, ptr %17, align 4, !tbaa !8
  %18 = tail call contract float @__nv_tanhf(float noundef %15) #3
  %19 = getelementptr inbounds nuw float, ptr %2, i64 %13
  store float %18, ptr %19, align 4, !tbaa !8
  %20 = tail call contract float @__nv_erff(float noundef %15) #3
  %21 = getelementptr inbounds nuw float, ptr %3, i64 %13
  store float %20, ptr %21, align 4, !tbaa !8
  %22 = fadd contract float %15, 5.000000e+00
  %23 = tail call contract float @__nv_logf(float noundef %22) #3
  %24 = getelementptr inbounds nuw float, ptr %4, i64 %13
  store float %23, ptr %24, align 4, !tbaa !8
  %25 = fmul contract float %15, 1.000000e+01
  %26 = tail call contract float @__nv_sinf(float noundef %25) #3
  %27 = getelementptr inbounds nuw float, ptr %5, i64 %13
  store float %26, ptr %27, align 4, !tbaa !8
  %28 = tail call contract float @__nv_powf(float noundef %22, float noundef 1.500000e+00) #3
  %29 = getelementptr inbounds nuw float, ptr %6, i64 %13
  store float %28, ptr %29, align 4, !tbaa !8
  %30 = tail call contract float @__nv_rsqrtf(float noundef %22) #3
  %31 = getelementptr inbounds nuw float, ptr %7, i64 %13
  store float %30, ptr %31, align 4, !tbaa !8
  %32 = fmul contract float %15, 4.000000e+00
  %33 = fadd contract float %32, 5.000000e-01
  %34 = tail call contract float @__nv_roundf(float noundef %33) #3
  %35 = getelementptr inbounds nuw float, ptr %8, i64 %13
  store float %34, ptr %35, align 4, !tbaa !8
  %36 = fpext contract float %15 to double
  %37 = tail call contract double @__nv_exp(double noundef %36) #3
  %38 = getelementptr inbounds nuw double, ptr %9, i64 %13
  store double %37, ptr %38, align 8, !tbaa !10
  %39 = fmul contract double %36, 1.000000e+06
  %40 = tail call contract double @__nv_sin(double noundef %39) #3
  %41 = getelementptr inbounds nuw double, ptr %10, i64 %13
  store double %40, ptr %41, align 8, !tbaa !10
  ret void
}

; Function Attrs: convergent nounwind
declare dso_local float @__nv_expf(float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_tanhf(float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_erff(float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_logf(float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_sinf(float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_powf(float noundef, float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_rsqrtf(float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_roundf(float noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local double @__nv_exp(double noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local double @__nv_sin(double noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { convergent mustprogress noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
attributes #1 = { convergent nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nounwind }

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
!9 = !{!"float", !6, i64 0}
!10 = !{!11, !11, i64 0}
!11 = !{!"double", !6, i64 0}
