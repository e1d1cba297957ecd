; ModuleID = 'reduce_sum.cu'
source_filename = "reduce_sum.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.float4 = type { float, float, float, float }

@_ZZ10reduce_sumE7partial = internal unnamed_addr addrspace(3) global [8 x float] undef, align 4
@.str = private unnamed_addr constant [11 x i8] c"accumulate\00", align 1
@.str1 = private unnamed_addr constant [12 x i8] c"warp_reduce\00", align 1
@.str2 = private unnamed_addr constant [13 x i8] c"block_reduce\00", align 1

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @reduce_sum(ptr noalias noundef readonly captures(none) %0, i64 noundef %1, ptr noalias noundef captures(none) %2) local_unnamed_addr #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = zext nneg i32 %4 to i64
  %6 = shl nuw nsw i64 %5, 8
  %7 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %8 = zext nneg i32 %7 to i64
  %9 = add nuw nsw i64 %6, %8
  %10 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %11 = zext nneg i32 %10 to i64
  %12 = shl nuw nsw i64 %11, 8
  %13 = and i32 %7, 31
  %14 = lshr i32 %7, 5
  tail call void @kperf_region_start(ptr noundef nonnull @.str) #5
  %15 = sdiv i64 %1, 4
  %16 = icmp slt i64 %9, %15
  br i1 %16, label %22, label %17

17:                                               ; preds = %22, %3
  %18 = phi float [ 0.000000e+00, %3 ], [ %36, %22 ]
  %19 = shl nsw i64 %15, 2
  %20 = add nsw i64 %19, %9
  %21 = icmp slt i64 %20, %1
  br i1 %21, label %60, label %39

22:                                               ; preds = %3, %22
  %23 = phi float [ %36, %22 ], [ 0.000000e+00, %3 ]
  %24 = phi i64 [ %37, %22 ], [ %9, %3 ]
  %25 = getelementptr inbounds nuw %struct.float4, ptr %0, i64 %24
  %26 = load float, ptr %25, align 16, !tbaa !8
  %27 = getelementptr inbounds nuw i8, ptr %25, i64 4
  %28 = load float, ptr %27, align 4, !tbaa !8
  %29 = getelementptr inbounds nuw i8, ptr %25, i64 8
  %30 = load float, ptr %29, align 8, !tbaa !8
  %31 = getelementptr inbounds nuw i8, ptr %25, i64 12
  %32 = load float, ptr %31, align 4, !tbaa !8
  %33 = fadd contract float %26, %28
  %34 = fadd contract float %30, %32
  %35 = fadd contract float %33, %34
  %36 = fadd contract float %23, %35
  %37 = add nuw nsw i64 %24, %12
  %38 = icmp slt i64 %37, %15
  br i1 %38, label %22, label %17, !llvm.loop !10

39:                                               ; preds = %60, %17
  %40 = phi float [ %18, %17 ], [ %65, %60 ]
  tail call void @kperf_region_end(ptr noundef nonnull @.str) #5
  tail call void @kperf_region_start(ptr noundef nonnull @.str1) #5
  %41 = bitcast float %40 to i32
  %42 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %41, i32 16, i32 31)
  %43 = bitcast i32 %42 to float
  %44 = fadd contract float %40, %43
  %45 = bitcast float %44 to i32
  %46 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %45, i32 8, i32 31)
  %47 = bitcast i32 %46 to float
  %48 = fadd contract float %44, %47
  %49 = bitcast float %48 to i32
  %50 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %49, i32 4, i32 31)
  %51 = bitcast i32 %50 to float
  %52 = fadd contract float %48, %51
  %53 = bitcast float %52 to i32
  %54 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %53, i32 2, i32 31)
  %55 = bitcast i32 %54 to float
  %56 = fadd contract float %52, %55
  %57 = bitcast float %56 to i32
  %58 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %57, i32 1, i32 31)
  tail call void @kperf_region_end(ptr noundef nonnull @.str1) #5
  tail call void @kperf_region_start(ptr noundef nonnull @.str2) #5
  %59 = icmp eq i32 %13, 0
  br i1 %59, label %68, label %73

60:                                               ; preds = %17, %60
  %61 = phi i64 [ %66, %60 ], [ %20, %17 ]
  %62 = phi float [ %65, %60 ], [ %18, %17 ]
  %63 = getelementptr inbounds float, ptr %0, i64 %61
  %64 = load float, ptr %63, align 4, !tbaa !8
  %65 = fadd contract float %62, %64
  %66 = add nsw i64 %61, %12
  %67 = icmp slt i64 %66, %1
  br i1 %67, label %60, label %39, !llvm.loop !12

68:                                               ; preds = %39
  %69 = bitcast i32 %58 to float
  %70 = fadd contract float %56, %69
  %71 = zext nneg i32 %14 to i64
  %72 = getelementptr inbounds nuw float, ptr addrspacecast (ptr addrspace(3) @_ZZ10reduce_sumE7partial to ptr), i64 %71
  store float %70, ptr %72, align 4, !tbaa !8
  br label %73

73:                                               ; preds = %68, %39
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %74 = icmp eq i32 %14, 0
  br i1 %74, label %75, label %105

75:                                               ; preds = %73
  %76 = icmp samesign ult i32 %13, 8
  br i1 %76, label %77, label %81

77:                                               ; preds = %75
  %78 = zext nneg i32 %13 to i64
  %79 = getelementptr inbounds nuw float, ptr addrspacecast (ptr addrspace(3) @_ZZ10reduce_sumE7partial to ptr), i64 %78
  %80 = load float, ptr %79, align 4, !tbaa !8
  br label %81

81:                                               ; preds = %75, %77
  %82 = phi contract float [ %80, %77 ], [ 0.000000e+00, %75 ]
  %83 = bitcast float %82 to i32
  %84 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %83, i32 16, i32 31)
  %85 = bitcast i32 %84 to float
  %86 = fadd contract float %82, %85
  %87 = bitcast float %86 to i32
  %88 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %87, i32 8, i32 31)
  %89 = bitcast i32 %88 to float
  %90 = fadd contract float %86, %89
  %91 = bitcast float %90 to i32
  %92 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %91, i32 4, i32 31)
  %93 = bitcast i32 %92 to float
  %94 = fadd contract float %90, %93
  %95 = bitcast float %94 to i32
  %96 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %95, i32 2, i32 31)
  %97 = bitcast i32 %96 to float
  %98 = fadd contract float %94, %97
  %99 = bitcast float %98 to i32
  %100 = tail call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %99, i32 1, i32 31)
  br i1 %59, label %101, label %105

101:                                              ; preds = %81
  %102 = bitcast i32 %100 to float
  %103 = fadd contract float %98, %102
  %104 = atomicrmw fadd ptr %2, float %103 seq_cst, align 4
  br label %105

105:                                              ; preds = %81, %101, %73
  tail call void @kperf_region_end(ptr noundef nonnull @.str2) #5
  ret void
}

; Function Attrs: convergent nounwind
declare dso_local void @kperf_region_start(ptr noundef) local_unnamed_addr #1

; Function Attrs: convergent nounwind
declare dso_local void @kperf_region_end(ptr noundef) local_unnamed_addr #1

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, -2147483648) i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #3

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32) #4

attributes #0 = { convergent mustprogress noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "nvvm.maxntid"="256" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
attributes #1 = { convergent nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #2 = { convergent nocallback nounwind }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #5 = { convergent nounwind }

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
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.mustprogress"}
!12 = distinct !{!12, !11}
