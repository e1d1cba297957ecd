; Four kernels of one file, none with shared memory of its own (clang -O2
; of four one-line CUDA kernels; found by an adversarial pass,
; 2026-11-27): each kernel's rings are sized against its own shared
; memory. The rings of the kernels before it were counted as its static
; shared memory: with --buffer shared, 256 threads per-thread rings (16608
; bytes each) were refused for the third kernel ("the kernel uses 33216
; statically"), and --buffer auto chose global memory.
; RUN: kperf instrument %s --regions kernel --granularity thread --block 256 --buffer shared --emit llvm
; CHECK-COUNT-4: @__kperf_smem_{{[_A-Za-z0-9]+}} = internal addrspace(3) global [2176 x i64]
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: write)
define dso_local ptx_kernel void @_Z2k0Pf(ptr noundef writeonly captures(none) %0) local_unnamed_addr #0 {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = shl nuw nsw i32 %2, 1
  %4 = uitofp nneg i32 %3 to float
  %5 = zext nneg i32 %2 to i64
  %6 = getelementptr inbounds nuw float, ptr %0, i64 %5
  store float %4, ptr %6, align 4, !tbaa !8
  ret void
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: write)
define dso_local ptx_kernel void @_Z2k1Pf(ptr noundef writeonly captures(none) %0) local_unnamed_addr #0 {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = mul nuw nsw i32 %2, 3
  %4 = uitofp nneg i32 %3 to float
  %5 = zext nneg i32 %2 to i64
  %6 = getelementptr inbounds nuw float, ptr %0, i64 %5
  store float %4, ptr %6, align 4, !tbaa !8
  ret void
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: write)
define dso_local ptx_kernel void @_Z2k2Pf(ptr noundef writeonly captures(none) %0) local_unnamed_addr #0 {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = shl nuw nsw i32 %2, 2
  %4 = uitofp nneg i32 %3 to float
  %5 = zext nneg i32 %2 to i64
  %6 = getelementptr inbounds nuw float, ptr %0, i64 %5
  store float %4, ptr %6, align 4, !tbaa !8
  ret void
}

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: write)
define dso_local ptx_kernel void @_Z2k3Pf(ptr noundef writeonly captures(none) %0) local_unnamed_addr #0 {
  %2 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %3 = mul nuw nsw i32 %2, 5
  %4 = uitofp nneg i32 %3 to float
  %5 = zext nneg i32 %2 to i64
  %6 = getelementptr inbounds nuw float, ptr %0, i64 %5
  store float %4, ptr %6, align 4, !tbaa !8
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind willreturn memory(argmem: write) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx80,+sm_90" "uniform-work-group-size"="true" }
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
!9 = !{!"float", !6, i64 0}
