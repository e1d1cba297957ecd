; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@_ZZ10k_overreadE1a = internal unnamed_addr addrspace(3) global [33 x i32] undef, align 4
@_ZZ10k_overreadE1b = internal unnamed_addr addrspace(3) global [33 x i32] undef, align 4

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @k_overread(ptr noundef writeonly captures(none) %0, i32 noundef %1) local_unnamed_addr #0 {
  %3 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %4 = icmp samesign ult i32 %3, 33
  br i1 %4, label %5, label %10

5:                                                ; preds = %2
  %6 = zext nneg i32 %3 to i64
  %7 = getelementptr inbounds nuw i32, ptr addrspacecast (ptr addrspace(3) @_ZZ10k_overreadE1b to ptr), i64 %6
  %8 = add nuw nsw i32 %3, 100
  %9 = getelementptr inbounds nuw i32, ptr addrspacecast (ptr addrspace(3) @_ZZ10k_overreadE1a to ptr), i64 %6
  store i32 %3, ptr %9, align 4, !tbaa !4
  store i32 %8, ptr %7, align 4, !tbaa !4
  br label %10

10:                                               ; preds = %5, %2
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %11 = icmp slt i32 %3, %1
  br i1 %11, label %12, label %21

12:                                               ; preds = %10
  %13 = zext nneg i32 %3 to i64
  %14 = getelementptr inbounds nuw i32, ptr addrspacecast (ptr addrspace(3) @_ZZ10k_overreadE1a to ptr), i64 %13
  %15 = load i32, ptr %14, align 4, !tbaa !4
  %16 = icmp eq i32 %3, 0
  %17 = load i32, ptr addrspacecast (ptr addrspace(3) @_ZZ10k_overreadE1b to ptr), align 4
  %18 = select i1 %16, i32 %17, i32 0
  %19 = add nsw i32 %18, %15
  %20 = getelementptr inbounds nuw i32, ptr %0, i64 %13
  store i32 %19, ptr %20, align 4, !tbaa !4
  br label %21

21:                                               ; preds = %12, %10
  ret void
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
