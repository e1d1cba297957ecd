; tests/simt/device_intrinsics: compiled by clang 22 from kernel.cu beside it
; (clang++-22 -x cuda --cuda-gpu-arch=sm_90a --cuda-device-only -nocudainc -nocudalib -O3 -S -emit-llvm).
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@_ZZ10intrinsicsE7s_count = internal addrspace(3) global i32 undef, align 4

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @intrinsics(ptr noundef writeonly captures(none) %0, ptr noundef writeonly captures(none) %1, ptr noundef %2, ptr noundef captures(none) %3, ptr noundef captures(none) %4, ptr noundef captures(none) %5, ptr noundef captures(none) %6) local_unnamed_addr #0 {
  %8 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = icmp eq i32 %8, 0
  br i1 %9, label %10, label %11

10:                                               ; preds = %7
  store i32 0, ptr addrspacecast (ptr addrspace(3) @_ZZ10intrinsicsE7s_count to ptr), align 4, !tbaa !4
  br label %11

11:                                               ; preds = %10, %7
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %12 = mul nuw nsw i32 %8, 123456789
  %13 = add nsw i32 %12, -987654321
  %14 = mul nsw i32 %8, -7654321
  %15 = add nsw i32 %14, 55555
  %16 = sext i32 %13 to i64
  %17 = mul nsw i64 %16, 3000000001
  %18 = zext nneg i32 %8 to i64
  %19 = add nsw i64 %17, %18
  %20 = sext i32 %15 to i64
  %21 = mul nsw i64 %20, -4000000003
  %22 = add nsw i32 %8, -32
  %23 = sitofp i32 %22 to float
  %24 = fmul contract float %23, 7.500000e-01
  %25 = icmp eq i32 %8, 61
  %26 = select i1 %25, float -3.000000e+09, float %24
  %27 = icmp eq i32 %8, 62
  %28 = select i1 %27, float 3.000000e+09, float %26
  %29 = icmp eq i32 %8, 63
  %30 = select i1 %29, float 0x7FF8000000000000, float %28
  %31 = tail call i32 @llvm.nvvm.mulhi.i(i32 %13, i32 %15)
  %32 = getelementptr inbounds nuw i32, ptr %0, i64 %18
  store i32 %31, ptr %32, align 4, !tbaa !4
  %33 = tail call i32 @llvm.nvvm.mulhi.ui(i32 %13, i32 %15)
  %34 = add nuw nsw i32 %8, 64
  %35 = zext nneg i32 %34 to i64
  %36 = getelementptr inbounds nuw i32, ptr %0, i64 %35
  store i32 %33, ptr %36, align 4, !tbaa !4
  %37 = mul nuw nsw i32 %8, 37175
  %38 = and i32 %37, 65535
  %39 = tail call i32 @llvm.nvvm.prmt(i32 %13, i32 %15, i32 %38)
  %40 = add nuw nsw i32 %8, 128
  %41 = zext nneg i32 %40 to i64
  %42 = getelementptr inbounds nuw i32, ptr %0, i64 %41
  store i32 %39, ptr %42, align 4, !tbaa !4
  %43 = ashr i32 %13, 8
  %44 = ashr i32 %15, 8
  %45 = tail call i32 @llvm.nvvm.sad.i(i32 %43, i32 %44, i32 %8)
  %46 = getelementptr i8, ptr %32, i64 768
  store i32 %45, ptr %46, align 4, !tbaa !4
  %47 = tail call i32 @llvm.nvvm.sad.ui(i32 %13, i32 %15, i32 %8)
  %48 = getelementptr i8, ptr %32, i64 1024
  store i32 %47, ptr %48, align 4, !tbaa !4
  %49 = tail call i32 @llvm.nvvm.f2i.rn(float %30)
  %50 = getelementptr i8, ptr %32, i64 1280
  store i32 %49, ptr %50, align 4, !tbaa !4
  %51 = tail call i32 @llvm.nvvm.f2i.rz(float %30)
  %52 = getelementptr i8, ptr %32, i64 1536
  store i32 %51, ptr %52, align 4, !tbaa !4
  %53 = tail call i32 @llvm.nvvm.f2i.rm(float %30)
  %54 = getelementptr i8, ptr %32, i64 1792
  store i32 %53, ptr %54, align 4, !tbaa !4
  %55 = tail call i32 @llvm.nvvm.f2i.rp(float %30)
  %56 = getelementptr i8, ptr %32, i64 2048
  store i32 %55, ptr %56, align 4, !tbaa !4
  %57 = tail call i32 @llvm.nvvm.f2ui.rn(float %30)
  %58 = getelementptr i8, ptr %32, i64 2304
  store i32 %57, ptr %58, align 4, !tbaa !4
  %59 = fmul contract float %30, 0x3FA99999A0000000
  %60 = tail call contract float @llvm.nvvm.saturate.f(float %59)
  %61 = getelementptr i8, ptr %32, i64 2560
  store float %60, ptr %61, align 4, !tbaa !4
  %62 = tail call contract float @llvm.nvvm.div.approx.f(float %30, float 4.000000e+00)
  %63 = getelementptr i8, ptr %32, i64 2816
  store float %62, ptr %63, align 4, !tbaa !4
  %64 = add nuw nsw i32 %8, 1
  %65 = uitofp nneg i32 %64 to float
  %66 = shl nuw nsw i32 %64, 2
  %67 = mul nuw nsw i32 %66, %64
  %68 = uitofp nneg i32 %67 to float
  %69 = tail call contract float @llvm.nvvm.rsqrt.approx.f(float %68)
  %70 = getelementptr i8, ptr %32, i64 3072
  store float %69, ptr %70, align 4, !tbaa !4
  %71 = trunc nuw nsw i32 %8 to i16
  %72 = urem i16 %71, 10
  %73 = uitofp nneg i16 %72 to float
  %74 = tail call contract float @llvm.nvvm.ex2.approx.f32(float %73)
  %75 = getelementptr i8, ptr %32, i64 3328
  store float %74, ptr %75, align 4, !tbaa !4
  %76 = urem i16 %71, 20
  %77 = zext nneg i16 %76 to i32
  %78 = shl nuw nsw i32 1, %77
  %79 = uitofp nneg i32 %78 to float
  %80 = tail call contract float @llvm.nvvm.lg2.approx.f(float %79)
  %81 = getelementptr i8, ptr %32, i64 3584
  store float %80, ptr %81, align 4, !tbaa !4
  %82 = tail call contract float @llvm.nvvm.rcp.rn.f(float %65)
  %83 = getelementptr i8, ptr %32, i64 3840
  store float %82, ptr %83, align 4, !tbaa !4
  %84 = urem i16 %71, 5
  %85 = zext nneg i16 %84 to i32
  %86 = tail call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %85)
  %87 = getelementptr i8, ptr %32, i64 4096
  store i32 %86, ptr %87, align 4, !tbaa !4
  %88 = lshr i32 %8, 5
  %89 = tail call { i32, i1 } @llvm.nvvm.match.all.sync.i32p(i32 -1, i32 %88)
  %90 = extractvalue { i32, i1 } %89, 1
  %91 = zext i1 %90 to i32
  %92 = extractvalue { i32, i1 } %89, 0
  %93 = getelementptr i8, ptr %32, i64 4352
  store i32 %92, ptr %93, align 4, !tbaa !4
  %94 = getelementptr i8, ptr %32, i64 4608
  store i32 %91, ptr %94, align 4, !tbaa !4
  %95 = urem i16 %71, 3
  %96 = zext nneg i16 %95 to i64
  %97 = shl nuw nsw i64 %96, 33
  %98 = or disjoint i64 %97, 7
  %99 = tail call i32 @llvm.nvvm.match.any.sync.i64(i32 -1, i64 %98)
  %100 = getelementptr i8, ptr %32, i64 4864
  store i32 %99, ptr %100, align 4, !tbaa !4
  %101 = tail call i64 @llvm.nvvm.mulhi.ll(i64 %19, i64 %21)
  %102 = getelementptr inbounds nuw i64, ptr %1, i64 %18
  store i64 %101, ptr %102, align 8, !tbaa !8
  %103 = tail call i64 @llvm.nvvm.mulhi.ull(i64 %19, i64 %21)
  %104 = getelementptr inbounds nuw i64, ptr %1, i64 %35
  store i64 %103, ptr %104, align 8, !tbaa !8
  %105 = tail call i64 @llvm.nvvm.f2ll.rn(float %30)
  %106 = getelementptr inbounds nuw i64, ptr %1, i64 %41
  store i64 %105, ptr %106, align 8, !tbaa !8
  %107 = tail call i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr addrspacecast (ptr addrspace(3) @_ZZ10intrinsicsE7s_count to ptr), i32 1)
  %108 = tail call i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr %2, i32 1)
  %109 = getelementptr inbounds nuw i8, ptr %2, i64 4
  %110 = tail call i32 @llvm.nvvm.atomic.add.gen.i.sys.i32.p0(ptr nonnull %109, i32 %8)
  %111 = getelementptr inbounds nuw i8, ptr %2, i64 8
  %112 = mul nuw nsw i16 %71, 7
  %113 = urem i16 %112, 50
  %114 = zext nneg i16 %113 to i32
  %115 = tail call i32 @llvm.nvvm.atomic.max.gen.i.cta.i32.p0(ptr nonnull %111, i32 %114)
  %116 = getelementptr inbounds nuw i8, ptr %2, i64 12
  %117 = tail call i32 @llvm.nvvm.atomic.exch.gen.i.cta.i32.p0(ptr nonnull %116, i32 5)
  %118 = getelementptr inbounds nuw i8, ptr %2, i64 16
  br label %119

119:                                              ; preds = %119, %11
  %120 = load volatile i32, ptr %118, align 4, !tbaa !4
  %121 = add nsw i32 %120, 2
  %122 = tail call i32 @llvm.nvvm.atomic.cas.gen.i.cta.i32.p0(ptr nonnull %118, i32 %120, i32 %121)
  %123 = icmp eq i32 %122, %120
  br i1 %123, label %124, label %119, !llvm.loop !10

124:                                              ; preds = %119
  %125 = getelementptr inbounds nuw i8, ptr %2, i64 20
  %126 = urem i16 %71, 31
  %127 = zext nneg i16 %126 to i32
  %128 = shl nuw nsw i32 1, %127
  %129 = xor i32 %128, -1
  %130 = tail call i32 @llvm.nvvm.atomic.and.gen.i.cta.i32.p0(ptr nonnull %125, i32 %129)
  %131 = getelementptr inbounds nuw i8, ptr %2, i64 24
  %132 = tail call i32 @llvm.nvvm.atomic.xor.gen.i.cta.i32.p0(ptr nonnull %131, i32 %8)
  %133 = tail call i32 @llvm.nvvm.atomic.inc.gen.i.cta.i32.p0(ptr %3, i32 9)
  %134 = getelementptr inbounds nuw i8, ptr %3, i64 4
  %135 = tail call i32 @llvm.nvvm.atomic.dec.gen.i.cta.i32.p0(ptr nonnull %134, i32 5)
  %136 = getelementptr inbounds nuw i8, ptr %3, i64 8
  %137 = select i1 %9, i32 -2147483648, i32 1
  %138 = tail call i32 @llvm.nvvm.atomic.max.gen.i.cta.i32.p0(ptr nonnull %136, i32 %137)
  %139 = mul nsw i64 %18, -1000000007
  %140 = tail call i64 @llvm.nvvm.atomic.min.gen.i.sys.i64.p0(ptr %4, i64 %139)
  %141 = getelementptr inbounds nuw i8, ptr %4, i64 8
  %142 = shl nuw i64 1, %18
  %143 = tail call i64 @llvm.nvvm.atomic.or.gen.i.sys.i64.p0(ptr nonnull %141, i64 %142)
  %144 = getelementptr inbounds nuw i8, ptr %4, i64 16
  %145 = tail call i64 @llvm.nvvm.atomic.cas.gen.i.sys.i64.p0(ptr nonnull %144, i64 0, i64 0)
  %146 = tail call contract float @llvm.nvvm.atomic.add.gen.f.cta.f32.p0(ptr %5, float 5.000000e-01)
  %147 = tail call contract double @llvm.nvvm.atomic.add.gen.f.sys.f64.p0(ptr %6, double 2.500000e-01)
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br i1 %9, label %148, label %151

148:                                              ; preds = %124
  %149 = getelementptr inbounds nuw i8, ptr %2, i64 28
  %150 = load i32, ptr addrspacecast (ptr addrspace(3) @_ZZ10intrinsicsE7s_count to ptr), align 4, !tbaa !4
  store i32 %150, ptr %149, align 4, !tbaa !4
  br label %151

151:                                              ; preds = %148, %124
  ret void
}

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.mulhi.i(i32, i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.mulhi.ui(i32, i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.prmt(i32, i32, i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.sad.i(i32, i32, i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.sad.ui(i32, i32, i32) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.f2i.rn(float) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.f2i.rz(float) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.f2i.rm(float) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.f2i.rp(float) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.nvvm.f2ui.rn(float) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.nvvm.saturate.f(float) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.div.approx.f(float, float) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.rsqrt.approx.f(float) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.ex2.approx.f32(float) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.lg2.approx.f(float) #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(none)
declare float @llvm.nvvm.rcp.rn.f(float) #3

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32) #4

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare { i32, i1 } @llvm.nvvm.match.all.sync.i32p(i32, i32) #4

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare i32 @llvm.nvvm.match.any.sync.i64(i32, i64) #4

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.nvvm.mulhi.ll(i64, i64) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.nvvm.mulhi.ull(i64, i64) #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.nvvm.f2ll.rn(float) #2

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr captures(none), i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.add.gen.i.sys.i32.p0(ptr captures(none), i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.max.gen.i.cta.i32.p0(ptr captures(none), i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.exch.gen.i.cta.i32.p0(ptr captures(none), i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.cas.gen.i.cta.i32.p0(ptr captures(none), i32, i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.and.gen.i.cta.i32.p0(ptr captures(none), i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.xor.gen.i.cta.i32.p0(ptr captures(none), i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.inc.gen.i.cta.i32.p0(ptr captures(none), i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.dec.gen.i.cta.i32.p0(ptr captures(none), i32) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i64 @llvm.nvvm.atomic.min.gen.i.sys.i64.p0(ptr captures(none), i64) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i64 @llvm.nvvm.atomic.or.gen.i.sys.i64.p0(ptr captures(none), i64) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i64 @llvm.nvvm.atomic.cas.gen.i.sys.i64.p0(ptr captures(none), i64, i64) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare float @llvm.nvvm.atomic.add.gen.f.cta.f32.p0(ptr captures(none), float) #5

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare double @llvm.nvvm.atomic.add.gen.f.sys.f64.p0(ptr captures(none), double) #5

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { convergent mustprogress noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { mustprogress nocallback nofree nosync nounwind willreturn memory(none) }
attributes #4 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #5 = { nocallback nounwind memory(argmem: readwrite) }

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
!9 = !{!"long long", !6, i64 0}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.mustprogress"}
