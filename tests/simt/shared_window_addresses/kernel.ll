; ModuleID = 'kernel.cu'
source_filename = "kernel.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@_ZZ2cvE1a = internal addrspace(3) global [64 x i32] undef, align 4
@_ZZ2cvE1b = internal addrspace(3) global [64 x i32] undef, align 4

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @cv(ptr noundef writeonly captures(none) %0) local_unnamed_addr #0 {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = zext nneg i32 %2 to i64
  %4 = getelementptr inbounds nuw i32, ptr addrspacecast (ptr addrspace(3) @_ZZ2cvE1a to ptr), i64 %3
  %5 = addrspacecast ptr %4 to ptr addrspace(3)
  %6 = ptrtoint ptr addrspace(3) %5 to i64
  %7 = trunc i64 %6 to i32
  %8 = getelementptr inbounds nuw i32, ptr addrspacecast (ptr addrspace(3) @_ZZ2cvE1b to ptr), i64 %3
  %9 = addrspacecast ptr %8 to ptr addrspace(3)
  %10 = ptrtoint ptr addrspace(3) %9 to i64
  %11 = trunc i64 %10 to i32
  %12 = and i64 %6, 4294967295
  %13 = inttoptr i64 %12 to ptr addrspace(3)
  store i32 %2, ptr addrspace(3) %13, align 4, !tbaa !4
  %14 = add nuw nsw i32 %2, 100
  %15 = and i64 %10, 4294967295
  %16 = inttoptr i64 %15 to ptr addrspace(3)
  store i32 %14, ptr addrspace(3) %16, align 4, !tbaa !4
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %17 = add nuw nsw i32 %2, 1
  %18 = and i32 %17, 63
  %19 = zext nneg i32 %18 to i64
  %20 = getelementptr inbounds nuw i32, ptr addrspacecast (ptr addrspace(3) @_ZZ2cvE1a to ptr), i64 %19
  %21 = load i32, ptr %20, align 4, !tbaa !4
  %22 = load i32, ptr %8, align 4, !tbaa !4
  %23 = add nsw i32 %22, %21
  %24 = getelementptr inbounds nuw i32, ptr %0, i64 %3
  store i32 %23, ptr %24, align 4, !tbaa !4
  %25 = sub i32 %11, %7
  %26 = getelementptr i8, ptr %24, i64 256
  store i32 %25, ptr %26, align 4, !tbaa !4
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
