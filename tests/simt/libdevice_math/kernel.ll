; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @math(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, ptr noundef writeonly captures(none) %2, ptr noundef writeonly captures(none) %3, ptr noundef writeonly captures(none) %4, ptr noundef writeonly captures(none) %5, ptr noundef writeonly captures(none) %6, ptr noundef writeonly captures(none) %7, ptr noundef writeonly captures(none) %8, ptr noundef writeonly captures(none) %9, ptr noundef writeonly captures(none) %10, ptr noundef writeonly captures(none) %11, ptr noundef writeonly captures(none) %12, ptr noundef writeonly captures(none) %13, ptr noundef writeonly captures(none) %14) local_unnamed_addr #0 {
  %16 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %17 = zext nneg i32 %16 to i64
  %18 = getelementptr inbounds nuw float, ptr %0, i64 %17
  %19 = load float, ptr %18, align 4, !tbaa !8
  %20 = tail call contract float @__nv_expf(float noundef %19) #3
  %21 = getelementptr inbounds nuw float, ptr %1, i64 %17
  store float %20, ptr %21, align 4, !tbaa !8
  %22 = tail call contract float @__nv_tanhf(float noundef %19) #3
  %23 = getelementptr inbounds nuw float, ptr %2, i64 %17
  store float %22, ptr %23, align 4, !tbaa !8
  %24 = tail call contract float @__nv_erff(float noundef %19) #3
  %25 = getelementptr inbounds nuw float, ptr %3, i64 %17
  store float %24, ptr %25, align 4, !tbaa !8
  %26 = fadd contract float %19, 5.000000e+00
  %27 = tail call contract float @__nv_logf(float noundef %26) #3
  %28 = getelementptr inbounds nuw float, ptr %4, i64 %17
  store float %27, ptr %28, align 4, !tbaa !8
  %29 = fmul contract float %19, 1.000000e+01
  %30 = tail call contract float @__nv_sinf(float noundef %29) #3
  %31 = getelementptr inbounds nuw float, ptr %5, i64 %17
  store float %30, ptr %31, align 4, !tbaa !8
  %32 = tail call contract float @__nv_powf(float noundef %26, float noundef 1.500000e+00) #3
  %33 = getelementptr inbounds nuw float, ptr %6, i64 %17
  store float %32, ptr %33, align 4, !tbaa !8
  %34 = tail call contract float @__nv_rsqrtf(float noundef %26) #3
  %35 = getelementptr inbounds nuw float, ptr %7, i64 %17
  store float %34, ptr %35, align 4, !tbaa !8
  %36 = fmul contract float %19, 4.000000e+00
  %37 = fadd contract float %36, 5.000000e-01
  %38 = tail call contract float @__nv_roundf(float noundef %37) #3
  %39 = getelementptr inbounds nuw float, ptr %8, i64 %17
  store float %38, ptr %39, align 4, !tbaa !8
  %40 = fpext contract float %19 to double
  %41 = tail call contract double @__nv_exp(double noundef %40) #3
  %42 = getelementptr inbounds nuw double, ptr %9, i64 %17
  store double %41, ptr %42, align 8, !tbaa !10
  %43 = fmul contract double %40, 1.000000e+20
  %44 = tail call contract double @__nv_sin(double noundef %43) #3
  %45 = getelementptr inbounds nuw double, ptr %10, i64 %17
  store double %44, ptr %45, align 8, !tbaa !10
  %46 = mul nuw nsw i32 %16, 3
  %47 = add nuw nsw i32 %46, 16777217
  %48 = tail call contract float @__nv_int2float_rz(i32 noundef %47) #3
  %49 = getelementptr inbounds nuw float, ptr %11, i64 %17
  store float %48, ptr %49, align 4, !tbaa !8
  %50 = mul nsw i64 %17, -12345
  %51 = add nsw i64 %50, -1
  %52 = tail call contract float @__nv_ull2float_ru(i64 noundef %51) #3
  %53 = getelementptr inbounds nuw float, ptr %12, i64 %17
  store float %52, ptr %53, align 4, !tbaa !8
  %54 = uitofp nneg i32 %16 to double
  %55 = fadd contract double %54, 0x3FD5555555555555
  %56 = tail call contract float @__nv_double2float_rd(double noundef %55) #3
  %57 = getelementptr inbounds nuw float, ptr %13, i64 %17
  store float %56, ptr %57, align 4, !tbaa !8
  %58 = fmul contract float %19, 0x3FF19999A0000000
  %59 = tail call zeroext i16 @__nv_float2half_rn(float noundef %58) #3
  %60 = zext i16 %59 to i32
  %61 = getelementptr inbounds nuw i32, ptr %14, i64 %17
  store i32 %60, ptr %61, align 4, !tbaa !4
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

; Function Attrs: convergent nounwind
declare dso_local float @__nv_int2float_rz(i32 noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_ull2float_ru(i64 noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local float @__nv_double2float_rd(double noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local zeroext i16 @__nv_float2half_rn(float noundef) local_unnamed_addr #1

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
