; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local ptx_kernel void @gpu_results(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, ptr noundef writeonly captures(none) %2) local_unnamed_addr #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %5 = zext nneg i32 %4 to i64
  %6 = getelementptr inbounds nuw i32, ptr %0, i64 %5
  %7 = load float, ptr %6, align 4, !tbaa !8
  %8 = getelementptr inbounds nuw i32, ptr %1, i64 %5
  %9 = load i32, ptr %8, align 4, !tbaa !4
  %10 = getelementptr i8, ptr %8, i64 128
  %11 = load i32, ptr %10, align 4, !tbaa !4
  %12 = mul nuw nsw i32 %4, 10
  %13 = zext nneg i32 %12 to i64
  %14 = getelementptr inbounds nuw i32, ptr %2, i64 %13
  %15 = fptosi float %7 to i32
  store i32 %15, ptr %14, align 4, !tbaa !4
  %16 = fptoui float %7 to i32
  %17 = getelementptr inbounds nuw i8, ptr %14, i64 4
  store i32 %16, ptr %17, align 4, !tbaa !4
  %18 = fptosi float %7 to i64
  %19 = lshr i64 %18, 16
  %20 = trunc i64 %19 to i32
  %21 = getelementptr inbounds nuw i8, ptr %14, i64 8
  store i32 %20, ptr %21, align 4, !tbaa !4
  %22 = fmul contract float %7, 0x3F50624DE0000000
  %23 = fptrunc contract float %22 to half
  %24 = fptosi half %23 to i16
  %25 = sext i16 %24 to i32
  %26 = getelementptr inbounds nuw i8, ptr %14, i64 12
  store i32 %25, ptr %26, align 4, !tbaa !4
  %27 = and i32 %11, 63
  %28 = shl i32 %9, %27
  %29 = getelementptr inbounds nuw i8, ptr %14, i64 16
  store i32 %28, ptr %29, align 4, !tbaa !4
  %30 = ashr i32 %9, %27
  %31 = getelementptr inbounds nuw i8, ptr %14, i64 20
  store i32 %30, ptr %31, align 4, !tbaa !4
  %32 = lshr i32 %9, %27
  %33 = getelementptr inbounds nuw i8, ptr %14, i64 24
  store i32 %32, ptr %33, align 4, !tbaa !4
  %34 = freeze i32 %9
  %35 = freeze i32 %11
  %36 = sdiv i32 %34, %35
  %37 = getelementptr inbounds nuw i8, ptr %14, i64 28
  store i32 %36, ptr %37, align 4, !tbaa !4
  %38 = mul i32 %36, %35
  %39 = sub i32 %34, %38
  %40 = getelementptr inbounds nuw i8, ptr %14, i64 32
  store i32 %39, ptr %40, align 4, !tbaa !4
  %41 = udiv i32 %9, %11
  %42 = getelementptr inbounds nuw i8, ptr %14, i64 36
  store i32 %41, ptr %42, align 4, !tbaa !4
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
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
!8 = !{!6, !6, i64 0}
