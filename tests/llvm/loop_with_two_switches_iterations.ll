; A loop holding two switches, unrolled by 2 (clang -O3 of tests' three_switches kernel,
; adversarial test s9h7, 2026-11-27): with loops and iterations together, the
; iteration records' edges appear only on the CFG the loop records' splits make.
; One round of splitting left one: "no place for a record on the edge". Split until
; every record has a place.
; RUN: kperf instrument %s --regions loops,iterations --block 256 --emit llvm
; CHECK: define ptx_kernel void @three_switches
; CHECK: read.ptx.sreg.clock()
; CHECK: kperf.edge
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree noinline norecurse nosync nounwind memory(argmem: readwrite)
define dso_local ptx_kernel void @three_switches(ptr noundef readonly captures(none) %0, ptr noundef captures(none) %1, i32 noundef %2) local_unnamed_addr #0 {
  %4 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = add i32 %7, %4
  %9 = sext i32 %8 to i64
  %10 = getelementptr inbounds float, ptr %1, i64 %9
  %11 = load float, ptr %10, align 4, !tbaa !8
  %12 = icmp sgt i32 %2, 0
  br i1 %12, label %13, label %15

13:                                               ; preds = %3
  %14 = and i32 %8, 1
  br label %41

15:                                               ; preds = %86, %133, %3
  %16 = phi float [ %11, %3 ], [ %87, %86 ], [ %134, %133 ]
  %17 = and i32 %8, 15
  %18 = zext nneg i32 %17 to i64
  %19 = getelementptr inbounds nuw i32, ptr %0, i64 %18
  %20 = load i32, ptr %19, align 4, !tbaa !4
  %21 = lshr i32 %20, 6
  %22 = and i32 %21, 7
  switch i32 %22, label %38 [
    i32 0, label %23
    i32 1, label %25
    i32 2, label %27
    i32 3, label %29
    i32 4, label %31
    i32 5, label %33
    i32 6, label %36
    i32 7, label %39
  ]

23:                                               ; preds = %15
  %24 = fadd contract float %16, 3.000000e+00
  br label %39

25:                                               ; preds = %15
  %26 = fmul contract float %16, 3.000000e+00
  br label %39

27:                                               ; preds = %15
  %28 = fadd contract float %16, -3.000000e+00
  br label %39

29:                                               ; preds = %15
  %30 = fdiv contract float %16, 3.000000e+00
  br label %39

31:                                               ; preds = %15
  %32 = fadd contract float %16, 6.000000e+00
  br label %39

33:                                               ; preds = %15
  %34 = fmul contract float %16, %16
  %35 = fadd contract float %34, -3.000000e+00
  br label %39

36:                                               ; preds = %15
  %37 = fsub contract float 3.000000e+00, %16
  br label %39

38:                                               ; preds = %67, %41, %90, %114, %15
  unreachable

39:                                               ; preds = %15, %23, %25, %27, %29, %31, %33, %36
  %40 = phi float [ %24, %23 ], [ %26, %25 ], [ %28, %27 ], [ %30, %29 ], [ %32, %31 ], [ %35, %33 ], [ %37, %36 ], [ %16, %15 ]
  store float %40, ptr %10, align 4, !tbaa !8
  ret void

41:                                               ; preds = %133, %13
  %42 = phi float [ %11, %13 ], [ %134, %133 ]
  %43 = phi i32 [ 0, %13 ], [ %135, %133 ]
  %44 = mul nuw nsw i32 %43, 3
  %45 = or disjoint i32 %44, %14
  %46 = zext nneg i32 %45 to i64
  %47 = getelementptr inbounds nuw i32, ptr %0, i64 %46
  %48 = load i32, ptr %47, align 4, !tbaa !4
  %49 = uitofp nneg i32 %43 to float
  %50 = and i32 %48, 7
  switch i32 %50, label %38 [
    i32 0, label %51
    i32 1, label %53
    i32 2, label %55
    i32 3, label %57
    i32 4, label %59
    i32 5, label %62
    i32 6, label %65
    i32 7, label %67
  ]

51:                                               ; preds = %41
  %52 = fadd contract float %42, %49
  br label %67

53:                                               ; preds = %41
  %54 = fmul contract float %42, %49
  br label %67

55:                                               ; preds = %41
  %56 = fsub contract float %42, %49
  br label %67

57:                                               ; preds = %41
  %58 = fdiv contract float %42, %49
  br label %67

59:                                               ; preds = %41
  %60 = fmul contract float %49, 2.000000e+00
  %61 = fadd contract float %42, %60
  br label %67

62:                                               ; preds = %41
  %63 = fmul contract float %42, %42
  %64 = fsub contract float %63, %49
  br label %67

65:                                               ; preds = %41
  %66 = fsub contract float %49, %42
  br label %67

67:                                               ; preds = %41, %51, %53, %55, %57, %59, %62, %65
  %68 = phi float [ %52, %51 ], [ %54, %53 ], [ %56, %55 ], [ %58, %57 ], [ %61, %59 ], [ %64, %62 ], [ %66, %65 ], [ %42, %41 ]
  %69 = lshr i32 %48, 3
  %70 = and i32 %69, 7
  switch i32 %70, label %38 [
    i32 0, label %71
    i32 1, label %73
    i32 2, label %75
    i32 3, label %77
    i32 4, label %79
    i32 5, label %81
    i32 6, label %84
    i32 7, label %86
  ]

71:                                               ; preds = %67
  %72 = fadd contract float %68, 1.500000e+00
  br label %86

73:                                               ; preds = %67
  %74 = fmul contract float %68, 1.500000e+00
  br label %86

75:                                               ; preds = %67
  %76 = fadd contract float %68, -1.500000e+00
  br label %86

77:                                               ; preds = %67
  %78 = fdiv contract float %68, 1.500000e+00
  br label %86

79:                                               ; preds = %67
  %80 = fadd contract float %68, 3.000000e+00
  br label %86

81:                                               ; preds = %67
  %82 = fmul contract float %68, %68
  %83 = fadd contract float %82, -1.500000e+00
  br label %86

84:                                               ; preds = %67
  %85 = fsub contract float 1.500000e+00, %68
  br label %86

86:                                               ; preds = %67, %71, %73, %75, %77, %79, %81, %84
  %87 = phi float [ %72, %71 ], [ %74, %73 ], [ %76, %75 ], [ %78, %77 ], [ %80, %79 ], [ %83, %81 ], [ %85, %84 ], [ %68, %67 ]
  %88 = or disjoint i32 %43, 1
  %89 = icmp eq i32 %88, %2
  br i1 %89, label %15, label %90, !llvm.loop !10

90:                                               ; preds = %86
  %91 = mul nuw nsw i32 %88, 3
  %92 = add nuw nsw i32 %91, %14
  %93 = zext nneg i32 %92 to i64
  %94 = getelementptr inbounds nuw i32, ptr %0, i64 %93
  %95 = load i32, ptr %94, align 4, !tbaa !4
  %96 = uitofp nneg i32 %88 to float
  %97 = and i32 %95, 7
  switch i32 %97, label %38 [
    i32 0, label %112
    i32 1, label %110
    i32 2, label %108
    i32 3, label %106
    i32 4, label %103
    i32 5, label %100
    i32 6, label %98
    i32 7, label %114
  ]

98:                                               ; preds = %90
  %99 = fsub contract float %96, %87
  br label %114

100:                                              ; preds = %90
  %101 = fmul contract float %87, %87
  %102 = fsub contract float %101, %96
  br label %114

103:                                              ; preds = %90
  %104 = fmul contract float %96, 2.000000e+00
  %105 = fadd contract float %87, %104
  br label %114

106:                                              ; preds = %90
  %107 = fdiv contract float %87, %96
  br label %114

108:                                              ; preds = %90
  %109 = fsub contract float %87, %96
  br label %114

110:                                              ; preds = %90
  %111 = fmul contract float %87, %96
  br label %114

112:                                              ; preds = %90
  %113 = fadd contract float %87, %96
  br label %114

114:                                              ; preds = %112, %110, %108, %106, %103, %100, %98, %90
  %115 = phi float [ %113, %112 ], [ %111, %110 ], [ %109, %108 ], [ %107, %106 ], [ %105, %103 ], [ %102, %100 ], [ %99, %98 ], [ %87, %90 ]
  %116 = lshr i32 %95, 3
  %117 = and i32 %116, 7
  switch i32 %117, label %38 [
    i32 0, label %131
    i32 1, label %129
    i32 2, label %127
    i32 3, label %125
    i32 4, label %123
    i32 5, label %120
    i32 6, label %118
    i32 7, label %133
  ]

118:                                              ; preds = %114
  %119 = fsub contract float 1.500000e+00, %115
  br label %133

120:                                              ; preds = %114
  %121 = fmul contract float %115, %115
  %122 = fadd contract float %121, -1.500000e+00
  br label %133

123:                                              ; preds = %114
  %124 = fadd contract float %115, 3.000000e+00
  br label %133

125:                                              ; preds = %114
  %126 = fdiv contract float %115, 1.500000e+00
  br label %133

127:                                              ; preds = %114
  %128 = fadd contract float %115, -1.500000e+00
  br label %133

129:                                              ; preds = %114
  %130 = fmul contract float %115, 1.500000e+00
  br label %133

131:                                              ; preds = %114
  %132 = fadd contract float %115, 1.500000e+00
  br label %133

133:                                              ; preds = %131, %129, %127, %125, %123, %120, %118, %114
  %134 = phi float [ %132, %131 ], [ %130, %129 ], [ %128, %127 ], [ %126, %125 ], [ %124, %123 ], [ %122, %120 ], [ %119, %118 ], [ %115, %114 ]
  %135 = add nuw nsw i32 %43, 2
  %136 = icmp eq i32 %135, %2
  br i1 %136, label %15, label %41, !llvm.loop !13
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

attributes #0 = { mustprogress nofree noinline norecurse nosync nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
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
!10 = distinct !{!10, !11, !12}
!11 = !{!"llvm.loop.mustprogress"}
!12 = !{!"llvm.loop.unroll.count", i32 2}
!13 = distinct !{!13, !11, !14}
!14 = !{!"llvm.loop.unroll.disable"}
