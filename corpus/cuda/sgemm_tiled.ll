; ModuleID = 'sgemm_tiled.cu'
source_filename = "sgemm_tiled.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@_ZZ11sgemm_tiledE2As = internal unnamed_addr addrspace(3) global [64 x [17 x float]] undef, align 4
@_ZZ11sgemm_tiledE2Bs = internal unnamed_addr addrspace(3) global [16 x [16 x float]] undef, align 4
@.str = private unnamed_addr constant [10 x i8] c"load_tile\00", align 1
@.str1 = private unnamed_addr constant [13 x i8] c"compute_tile\00", align 1
@.str2 = private unnamed_addr constant [8 x i8] c"store_c\00", align 1

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @sgemm_tiled(i32 noundef %0, i32 noundef %1, i32 noundef %2, float noundef %3, ptr noalias noundef readonly captures(none) %4, ptr noalias noundef readonly captures(none) %5, float noundef %6, ptr noalias noundef captures(none) %7) local_unnamed_addr #0 {
  %9 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %10 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %11 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %12 = shl i32 %11, 4
  %13 = add i32 %12, %9
  %14 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %15 = shl nuw nsw i32 %14, 6
  %16 = add nuw nsw i32 %15, %10
  %17 = icmp sgt i32 %2, 0
  br i1 %17, label %21, label %18

18:                                               ; preds = %8
  %19 = sext i32 %1 to i64
  %20 = sext i32 %13 to i64
  br label %137

21:                                               ; preds = %8
  %22 = zext nneg i32 %9 to i64
  %23 = getelementptr inbounds nuw float, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 %22
  %24 = zext nneg i32 %2 to i64
  %25 = icmp slt i32 %13, %1
  %26 = sext i32 %1 to i64
  %27 = sext i32 %13 to i64
  %28 = getelementptr float, ptr %5, i64 %27
  %29 = zext nneg i32 %10 to i64
  %30 = getelementptr inbounds nuw [16 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2Bs to ptr), i64 %29
  %31 = getelementptr inbounds nuw float, ptr %30, i64 %22
  %32 = getelementptr inbounds nuw float, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2Bs to ptr), i64 %22
  %33 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 60), i64 %29
  %34 = icmp slt i32 %16, %0
  %35 = zext nneg i32 %16 to i64
  %36 = mul nuw nsw i64 %35, %24
  %37 = getelementptr inbounds nuw [17 x float], ptr %23, i64 %29
  %38 = add nuw nsw i32 %16, 16
  %39 = icmp slt i32 %38, %0
  %40 = zext nneg i32 %38 to i64
  %41 = mul nuw nsw i64 %40, %24
  %42 = add nuw nsw i32 %10, 16
  %43 = zext nneg i32 %42 to i64
  %44 = getelementptr inbounds nuw [17 x float], ptr %23, i64 %43
  %45 = add nuw nsw i32 %16, 32
  %46 = icmp slt i32 %45, %0
  %47 = zext nneg i32 %45 to i64
  %48 = mul nuw nsw i64 %47, %24
  %49 = add nuw nsw i32 %10, 32
  %50 = zext nneg i32 %49 to i64
  %51 = getelementptr inbounds nuw [17 x float], ptr %23, i64 %50
  %52 = add nuw nsw i32 %16, 48
  %53 = icmp slt i32 %52, %0
  %54 = zext nneg i32 %52 to i64
  %55 = mul nuw nsw i64 %54, %24
  %56 = add nuw nsw i32 %10, 48
  %57 = zext nneg i32 %56 to i64
  %58 = getelementptr inbounds nuw [17 x float], ptr %23, i64 %57
  %59 = getelementptr inbounds nuw [17 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 %29
  %60 = getelementptr inbounds nuw [17 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 %43
  %61 = getelementptr inbounds nuw [17 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 %50
  %62 = getelementptr inbounds nuw [17 x float], ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 %57
  %63 = getelementptr inbounds nuw i8, ptr %32, i64 64
  %64 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 4), i64 %29
  %65 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 4), i64 %43
  %66 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 4), i64 %50
  %67 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 4), i64 %57
  %68 = getelementptr inbounds nuw i8, ptr %32, i64 128
  %69 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 8), i64 %29
  %70 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 8), i64 %43
  %71 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 8), i64 %50
  %72 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 8), i64 %57
  %73 = getelementptr inbounds nuw i8, ptr %32, i64 192
  %74 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 12), i64 %29
  %75 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 12), i64 %43
  %76 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 12), i64 %50
  %77 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 12), i64 %57
  %78 = getelementptr inbounds nuw i8, ptr %32, i64 256
  %79 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 16), i64 %29
  %80 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 16), i64 %43
  %81 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 16), i64 %50
  %82 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 16), i64 %57
  %83 = getelementptr inbounds nuw i8, ptr %32, i64 320
  %84 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 20), i64 %29
  %85 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 20), i64 %43
  %86 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 20), i64 %50
  %87 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 20), i64 %57
  %88 = getelementptr inbounds nuw i8, ptr %32, i64 384
  %89 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 24), i64 %29
  %90 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 24), i64 %43
  %91 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 24), i64 %50
  %92 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 24), i64 %57
  %93 = getelementptr inbounds nuw i8, ptr %32, i64 448
  %94 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 28), i64 %29
  %95 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 28), i64 %43
  %96 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 28), i64 %50
  %97 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 28), i64 %57
  %98 = getelementptr inbounds nuw i8, ptr %32, i64 512
  %99 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 32), i64 %29
  %100 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 32), i64 %43
  %101 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 32), i64 %50
  %102 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 32), i64 %57
  %103 = getelementptr inbounds nuw i8, ptr %32, i64 576
  %104 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 36), i64 %29
  %105 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 36), i64 %43
  %106 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 36), i64 %50
  %107 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 36), i64 %57
  %108 = getelementptr inbounds nuw i8, ptr %32, i64 640
  %109 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 40), i64 %29
  %110 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 40), i64 %43
  %111 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 40), i64 %50
  %112 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 40), i64 %57
  %113 = getelementptr inbounds nuw i8, ptr %32, i64 704
  %114 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 44), i64 %29
  %115 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 44), i64 %43
  %116 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 44), i64 %50
  %117 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 44), i64 %57
  %118 = getelementptr inbounds nuw i8, ptr %32, i64 768
  %119 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 48), i64 %29
  %120 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 48), i64 %43
  %121 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 48), i64 %50
  %122 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 48), i64 %57
  %123 = getelementptr inbounds nuw i8, ptr %32, i64 832
  %124 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 52), i64 %29
  %125 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 52), i64 %43
  %126 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 52), i64 %50
  %127 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 52), i64 %57
  %128 = getelementptr inbounds nuw i8, ptr %32, i64 896
  %129 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 56), i64 %29
  %130 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 56), i64 %43
  %131 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 56), i64 %50
  %132 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 56), i64 %57
  %133 = getelementptr inbounds nuw i8, ptr %32, i64 960
  %134 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 60), i64 %43
  %135 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 60), i64 %50
  %136 = getelementptr inbounds nuw [17 x float], ptr getelementptr inbounds nuw (i8, ptr addrspacecast (ptr addrspace(3) @_ZZ11sgemm_tiledE2As to ptr), i64 60), i64 %57
  br label %149

137:                                              ; preds = %191, %18
  %138 = phi i64 [ %20, %18 ], [ %27, %191 ]
  %139 = phi i64 [ %19, %18 ], [ %26, %191 ]
  %140 = phi float [ 0.000000e+00, %18 ], [ %400, %191 ]
  %141 = phi float [ 0.000000e+00, %18 ], [ %397, %191 ]
  %142 = phi float [ 0.000000e+00, %18 ], [ %394, %191 ]
  %143 = phi float [ 0.000000e+00, %18 ], [ %391, %191 ]
  tail call void @kperf_region_start(ptr noundef nonnull @.str2) #4
  %144 = icmp slt i32 %13, %1
  %145 = getelementptr float, ptr %7, i64 %138
  %146 = fcmp contract une float %6, 0.000000e+00
  %147 = icmp slt i32 %16, %0
  %148 = and i1 %144, %147
  br i1 %148, label %403, label %414

149:                                              ; preds = %21, %191
  %150 = phi float [ 0.000000e+00, %21 ], [ %400, %191 ]
  %151 = phi float [ 0.000000e+00, %21 ], [ %397, %191 ]
  %152 = phi float [ 0.000000e+00, %21 ], [ %394, %191 ]
  %153 = phi float [ 0.000000e+00, %21 ], [ %391, %191 ]
  %154 = phi i32 [ 0, %21 ], [ %401, %191 ]
  tail call void @kperf_region_start(ptr noundef nonnull @.str) #4
  %155 = add nuw nsw i32 %154, %9
  %156 = icmp slt i32 %155, %2
  %157 = zext nneg i32 %155 to i64
  %158 = getelementptr float, ptr %4, i64 %157
  %159 = select i1 %34, i1 %156, i1 false
  br i1 %159, label %160, label %163

160:                                              ; preds = %149
  %161 = getelementptr float, ptr %158, i64 %36
  %162 = load float, ptr %161, align 4, !tbaa !8
  br label %163

163:                                              ; preds = %149, %160
  %164 = phi contract float [ %162, %160 ], [ 0.000000e+00, %149 ]
  store float %164, ptr %37, align 4, !tbaa !8
  %165 = select i1 %39, i1 %156, i1 false
  br i1 %165, label %166, label %169

166:                                              ; preds = %163
  %167 = getelementptr float, ptr %158, i64 %41
  %168 = load float, ptr %167, align 4, !tbaa !8
  br label %169

169:                                              ; preds = %166, %163
  %170 = phi contract float [ %168, %166 ], [ 0.000000e+00, %163 ]
  store float %170, ptr %44, align 4, !tbaa !8
  %171 = select i1 %46, i1 %156, i1 false
  br i1 %171, label %172, label %175

172:                                              ; preds = %169
  %173 = getelementptr float, ptr %158, i64 %48
  %174 = load float, ptr %173, align 4, !tbaa !8
  br label %175

175:                                              ; preds = %172, %169
  %176 = phi contract float [ %174, %172 ], [ 0.000000e+00, %169 ]
  store float %176, ptr %51, align 4, !tbaa !8
  %177 = select i1 %53, i1 %156, i1 false
  br i1 %177, label %178, label %181

178:                                              ; preds = %175
  %179 = getelementptr float, ptr %158, i64 %55
  %180 = load float, ptr %179, align 4, !tbaa !8
  br label %181

181:                                              ; preds = %178, %175
  %182 = phi contract float [ %180, %178 ], [ 0.000000e+00, %175 ]
  store float %182, ptr %58, align 4, !tbaa !8
  %183 = add nuw nsw i32 %154, %10
  %184 = icmp slt i32 %183, %2
  %185 = and i1 %25, %184
  br i1 %185, label %186, label %191

186:                                              ; preds = %181
  %187 = zext nneg i32 %183 to i64
  %188 = mul nsw i64 %187, %26
  %189 = getelementptr float, ptr %28, i64 %188
  %190 = load float, ptr %189, align 4, !tbaa !8
  br label %191

191:                                              ; preds = %181, %186
  %192 = phi contract float [ %190, %186 ], [ 0.000000e+00, %181 ]
  store float %192, ptr %31, align 4, !tbaa !8
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  tail call void @kperf_region_end(ptr noundef nonnull @.str) #4
  tail call void @kperf_region_start(ptr noundef nonnull @.str1) #4
  %193 = load float, ptr %32, align 4, !tbaa !8
  %194 = load float, ptr %59, align 4, !tbaa !8
  %195 = fmul contract float %193, %194
  %196 = fadd contract float %153, %195
  %197 = load float, ptr %60, align 4, !tbaa !8
  %198 = fmul contract float %193, %197
  %199 = fadd contract float %152, %198
  %200 = load float, ptr %61, align 4, !tbaa !8
  %201 = fmul contract float %193, %200
  %202 = fadd contract float %151, %201
  %203 = load float, ptr %62, align 4, !tbaa !8
  %204 = fmul contract float %193, %203
  %205 = fadd contract float %150, %204
  %206 = load float, ptr %63, align 4, !tbaa !8
  %207 = load float, ptr %64, align 4, !tbaa !8
  %208 = fmul contract float %206, %207
  %209 = fadd contract float %196, %208
  %210 = load float, ptr %65, align 4, !tbaa !8
  %211 = fmul contract float %206, %210
  %212 = fadd contract float %199, %211
  %213 = load float, ptr %66, align 4, !tbaa !8
  %214 = fmul contract float %206, %213
  %215 = fadd contract float %202, %214
  %216 = load float, ptr %67, align 4, !tbaa !8
  %217 = fmul contract float %206, %216
  %218 = fadd contract float %205, %217
  %219 = load float, ptr %68, align 4, !tbaa !8
  %220 = load float, ptr %69, align 4, !tbaa !8
  %221 = fmul contract float %219, %220
  %222 = fadd contract float %209, %221
  %223 = load float, ptr %70, align 4, !tbaa !8
  %224 = fmul contract float %219, %223
  %225 = fadd contract float %212, %224
  %226 = load float, ptr %71, align 4, !tbaa !8
  %227 = fmul contract float %219, %226
  %228 = fadd contract float %215, %227
  %229 = load float, ptr %72, align 4, !tbaa !8
  %230 = fmul contract float %219, %229
  %231 = fadd contract float %218, %230
  %232 = load float, ptr %73, align 4, !tbaa !8
  %233 = load float, ptr %74, align 4, !tbaa !8
  %234 = fmul contract float %232, %233
  %235 = fadd contract float %222, %234
  %236 = load float, ptr %75, align 4, !tbaa !8
  %237 = fmul contract float %232, %236
  %238 = fadd contract float %225, %237
  %239 = load float, ptr %76, align 4, !tbaa !8
  %240 = fmul contract float %232, %239
  %241 = fadd contract float %228, %240
  %242 = load float, ptr %77, align 4, !tbaa !8
  %243 = fmul contract float %232, %242
  %244 = fadd contract float %231, %243
  %245 = load float, ptr %78, align 4, !tbaa !8
  %246 = load float, ptr %79, align 4, !tbaa !8
  %247 = fmul contract float %245, %246
  %248 = fadd contract float %235, %247
  %249 = load float, ptr %80, align 4, !tbaa !8
  %250 = fmul contract float %245, %249
  %251 = fadd contract float %238, %250
  %252 = load float, ptr %81, align 4, !tbaa !8
  %253 = fmul contract float %245, %252
  %254 = fadd contract float %241, %253
  %255 = load float, ptr %82, align 4, !tbaa !8
  %256 = fmul contract float %245, %255
  %257 = fadd contract float %244, %256
  %258 = load float, ptr %83, align 4, !tbaa !8
  %259 = load float, ptr %84, align 4, !tbaa !8
  %260 = fmul contract float %258, %259
  %261 = fadd contract float %248, %260
  %262 = load float, ptr %85, align 4, !tbaa !8
  %263 = fmul contract float %258, %262
  %264 = fadd contract float %251, %263
  %265 = load float, ptr %86, align 4, !tbaa !8
  %266 = fmul contract float %258, %265
  %267 = fadd contract float %254, %266
  %268 = load float, ptr %87, align 4, !tbaa !8
  %269 = fmul contract float %258, %268
  %270 = fadd contract float %257, %269
  %271 = load float, ptr %88, align 4, !tbaa !8
  %272 = load float, ptr %89, align 4, !tbaa !8
  %273 = fmul contract float %271, %272
  %274 = fadd contract float %261, %273
  %275 = load float, ptr %90, align 4, !tbaa !8
  %276 = fmul contract float %271, %275
  %277 = fadd contract float %264, %276
  %278 = load float, ptr %91, align 4, !tbaa !8
  %279 = fmul contract float %271, %278
  %280 = fadd contract float %267, %279
  %281 = load float, ptr %92, align 4, !tbaa !8
  %282 = fmul contract float %271, %281
  %283 = fadd contract float %270, %282
  %284 = load float, ptr %93, align 4, !tbaa !8
  %285 = load float, ptr %94, align 4, !tbaa !8
  %286 = fmul contract float %284, %285
  %287 = fadd contract float %274, %286
  %288 = load float, ptr %95, align 4, !tbaa !8
  %289 = fmul contract float %284, %288
  %290 = fadd contract float %277, %289
  %291 = load float, ptr %96, align 4, !tbaa !8
  %292 = fmul contract float %284, %291
  %293 = fadd contract float %280, %292
  %294 = load float, ptr %97, align 4, !tbaa !8
  %295 = fmul contract float %284, %294
  %296 = fadd contract float %283, %295
  %297 = load float, ptr %98, align 4, !tbaa !8
  %298 = load float, ptr %99, align 4, !tbaa !8
  %299 = fmul contract float %297, %298
  %300 = fadd contract float %287, %299
  %301 = load float, ptr %100, align 4, !tbaa !8
  %302 = fmul contract float %297, %301
  %303 = fadd contract float %290, %302
  %304 = load float, ptr %101, align 4, !tbaa !8
  %305 = fmul contract float %297, %304
  %306 = fadd contract float %293, %305
  %307 = load float, ptr %102, align 4, !tbaa !8
  %308 = fmul contract float %297, %307
  %309 = fadd contract float %296, %308
  %310 = load float, ptr %103, align 4, !tbaa !8
  %311 = load float, ptr %104, align 4, !tbaa !8
  %312 = fmul contract float %310, %311
  %313 = fadd contract float %300, %312
  %314 = load float, ptr %105, align 4, !tbaa !8
  %315 = fmul contract float %310, %314
  %316 = fadd contract float %303, %315
  %317 = load float, ptr %106, align 4, !tbaa !8
  %318 = fmul contract float %310, %317
  %319 = fadd contract float %306, %318
  %320 = load float, ptr %107, align 4, !tbaa !8
  %321 = fmul contract float %310, %320
  %322 = fadd contract float %309, %321
  %323 = load float, ptr %108, align 4, !tbaa !8
  %324 = load float, ptr %109, align 4, !tbaa !8
  %325 = fmul contract float %323, %324
  %326 = fadd contract float %313, %325
  %327 = load float, ptr %110, align 4, !tbaa !8
  %328 = fmul contract float %323, %327
  %329 = fadd contract float %316, %328
  %330 = load float, ptr %111, align 4, !tbaa !8
  %331 = fmul contract float %323, %330
  %332 = fadd contract float %319, %331
  %333 = load float, ptr %112, align 4, !tbaa !8
  %334 = fmul contract float %323, %333
  %335 = fadd contract float %322, %334
  %336 = load float, ptr %113, align 4, !tbaa !8
  %337 = load float, ptr %114, align 4, !tbaa !8
  %338 = fmul contract float %336, %337
  %339 = fadd contract float %326, %338
  %340 = load float, ptr %115, align 4, !tbaa !8
  %341 = fmul contract float %336, %340
  %342 = fadd contract float %329, %341
  %343 = load float, ptr %116, align 4, !tbaa !8
  %344 = fmul contract float %336, %343
  %345 = fadd contract float %332, %344
  %346 = load float, ptr %117, align 4, !tbaa !8
  %347 = fmul contract float %336, %346
  %348 = fadd contract float %335, %347
  %349 = load float, ptr %118, align 4, !tbaa !8
  %350 = load float, ptr %119, align 4, !tbaa !8
  %351 = fmul contract float %349, %350
  %352 = fadd contract float %339, %351
  %353 = load float, ptr %120, align 4, !tbaa !8
  %354 = fmul contract float %349, %353
  %355 = fadd contract float %342, %354
  %356 = load float, ptr %121, align 4, !tbaa !8
  %357 = fmul contract float %349, %356
  %358 = fadd contract float %345, %357
  %359 = load float, ptr %122, align 4, !tbaa !8
  %360 = fmul contract float %349, %359
  %361 = fadd contract float %348, %360
  %362 = load float, ptr %123, align 4, !tbaa !8
  %363 = load float, ptr %124, align 4, !tbaa !8
  %364 = fmul contract float %362, %363
  %365 = fadd contract float %352, %364
  %366 = load float, ptr %125, align 4, !tbaa !8
  %367 = fmul contract float %362, %366
  %368 = fadd contract float %355, %367
  %369 = load float, ptr %126, align 4, !tbaa !8
  %370 = fmul contract float %362, %369
  %371 = fadd contract float %358, %370
  %372 = load float, ptr %127, align 4, !tbaa !8
  %373 = fmul contract float %362, %372
  %374 = fadd contract float %361, %373
  %375 = load float, ptr %128, align 4, !tbaa !8
  %376 = load float, ptr %129, align 4, !tbaa !8
  %377 = fmul contract float %375, %376
  %378 = fadd contract float %365, %377
  %379 = load float, ptr %130, align 4, !tbaa !8
  %380 = fmul contract float %375, %379
  %381 = fadd contract float %368, %380
  %382 = load float, ptr %131, align 4, !tbaa !8
  %383 = fmul contract float %375, %382
  %384 = fadd contract float %371, %383
  %385 = load float, ptr %132, align 4, !tbaa !8
  %386 = fmul contract float %375, %385
  %387 = fadd contract float %374, %386
  %388 = load float, ptr %133, align 4, !tbaa !8
  %389 = load float, ptr %33, align 4, !tbaa !8
  %390 = fmul contract float %388, %389
  %391 = fadd contract float %378, %390
  %392 = load float, ptr %134, align 4, !tbaa !8
  %393 = fmul contract float %388, %392
  %394 = fadd contract float %381, %393
  %395 = load float, ptr %135, align 4, !tbaa !8
  %396 = fmul contract float %388, %395
  %397 = fadd contract float %384, %396
  %398 = load float, ptr %136, align 4, !tbaa !8
  %399 = fmul contract float %388, %398
  %400 = fadd contract float %387, %399
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  tail call void @kperf_region_end(ptr noundef nonnull @.str1) #4
  %401 = add nuw nsw i32 %154, 16
  %402 = icmp slt i32 %401, %2
  br i1 %402, label %149, label %137, !llvm.loop !10

403:                                              ; preds = %137
  %404 = zext nneg i32 %16 to i64
  %405 = mul nsw i64 %139, %404
  %406 = getelementptr float, ptr %145, i64 %405
  %407 = fmul contract float %3, %143
  br i1 %146, label %408, label %411

408:                                              ; preds = %403
  %409 = load float, ptr %406, align 4, !tbaa !8
  %410 = fmul contract float %6, %409
  br label %411

411:                                              ; preds = %403, %408
  %412 = phi contract float [ %410, %408 ], [ 0.000000e+00, %403 ]
  %413 = fadd contract float %407, %412
  store float %413, ptr %406, align 4, !tbaa !8
  br label %414

414:                                              ; preds = %411, %137
  %415 = add nuw nsw i32 %16, 16
  %416 = icmp slt i32 %415, %0
  %417 = and i1 %144, %416
  br i1 %417, label %418, label %429

418:                                              ; preds = %414
  %419 = zext nneg i32 %415 to i64
  %420 = mul nsw i64 %139, %419
  %421 = getelementptr float, ptr %145, i64 %420
  %422 = fmul contract float %3, %142
  br i1 %146, label %423, label %426

423:                                              ; preds = %418
  %424 = load float, ptr %421, align 4, !tbaa !8
  %425 = fmul contract float %6, %424
  br label %426

426:                                              ; preds = %423, %418
  %427 = phi contract float [ %425, %423 ], [ 0.000000e+00, %418 ]
  %428 = fadd contract float %422, %427
  store float %428, ptr %421, align 4, !tbaa !8
  br label %429

429:                                              ; preds = %426, %414
  %430 = add nuw nsw i32 %16, 32
  %431 = icmp slt i32 %430, %0
  %432 = and i1 %144, %431
  br i1 %432, label %433, label %444

433:                                              ; preds = %429
  %434 = zext nneg i32 %430 to i64
  %435 = mul nsw i64 %139, %434
  %436 = getelementptr float, ptr %145, i64 %435
  %437 = fmul contract float %3, %141
  br i1 %146, label %438, label %441

438:                                              ; preds = %433
  %439 = load float, ptr %436, align 4, !tbaa !8
  %440 = fmul contract float %6, %439
  br label %441

441:                                              ; preds = %438, %433
  %442 = phi contract float [ %440, %438 ], [ 0.000000e+00, %433 ]
  %443 = fadd contract float %437, %442
  store float %443, ptr %436, align 4, !tbaa !8
  br label %444

444:                                              ; preds = %441, %429
  %445 = add nuw nsw i32 %16, 48
  %446 = icmp slt i32 %445, %0
  %447 = and i1 %144, %446
  br i1 %447, label %448, label %459

448:                                              ; preds = %444
  %449 = zext nneg i32 %445 to i64
  %450 = mul nsw i64 %139, %449
  %451 = getelementptr float, ptr %145, i64 %450
  %452 = fmul contract float %3, %140
  br i1 %146, label %453, label %456

453:                                              ; preds = %448
  %454 = load float, ptr %451, align 4, !tbaa !8
  %455 = fmul contract float %6, %454
  br label %456

456:                                              ; preds = %453, %448
  %457 = phi contract float [ %455, %453 ], [ 0.000000e+00, %448 ]
  %458 = fadd contract float %452, %457
  store float %458, ptr %451, align 4, !tbaa !8
  br label %459

459:                                              ; preds = %456, %444
  tail call void @kperf_region_end(ptr noundef nonnull @.str2) #4
  ret void
}

; Function Attrs: convergent nounwind
declare dso_local void @kperf_region_start(ptr noundef) local_unnamed_addr #1

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #2

; Function Attrs: convergent nounwind
declare dso_local void @kperf_region_end(ptr noundef) local_unnamed_addr #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #3

attributes #0 = { convergent mustprogress noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "nvvm.maxntid"="256" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" "uniform-work-group-size"="true" }
attributes #1 = { convergent nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90a" "target-features"="+ptx80,+sm_90a" }
attributes #2 = { convergent nocallback nounwind }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { convergent nounwind }

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
