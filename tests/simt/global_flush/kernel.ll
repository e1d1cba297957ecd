; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @loop(ptr noundef writeonly captures(none) %0, i32 noundef %1) local_unnamed_addr #0 {
  %3 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %4 = uitofp nneg i32 %3 to float
  %5 = icmp sgt i32 %1, 0
  br i1 %5, label %10, label %6

6:                                                ; preds = %10, %2
  %7 = phi float [ %4, %2 ], [ %14, %10 ]
  %8 = zext nneg i32 %3 to i64
  %9 = getelementptr inbounds nuw float, ptr %0, i64 %8
  store float %7, ptr %9, align 4, !tbaa !8
  ret void

10:                                               ; preds = %2, %10
  %11 = phi i32 [ %15, %10 ], [ 0, %2 ]
  %12 = phi float [ %14, %10 ], [ %4, %2 ]
  %13 = fmul contract float %12, 5.000000e-01
  %14 = fadd contract float %13, 1.000000e+00
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %15 = add nuw nsw i32 %11, 1
  %16 = icmp eq i32 %15, %1
  br i1 %16, label %6, label %10, !llvm.loop !10
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { convergent mustprogress noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind }
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
!8 = !{!9, !9, i64 0}
!9 = !{!"float", !6, i64 0}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.mustprogress"}
