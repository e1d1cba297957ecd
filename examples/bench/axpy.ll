; y = a·x + y over n floats, host ABI (kernel arguments, then block x,y,z
; and grid x,y,z as i64): the LLVM IR twin of axpy.mlir, written the way
; clang would emit it, so `kperf bench` compares the two side by side.
define void @axpy(ptr noalias %x, ptr noalias %y, float %a, i64 %n, i64 %bx, i64 %by, i64 %bz, i64 %gx, i64 %gy, i64 %gz) {
entry:
  %lo = mul i64 %bx, 4096
  %hi0 = add i64 %lo, 4096
  %short = icmp ult i64 %n, %hi0
  %hi = select i1 %short, i64 %n, i64 %hi0
  %any = icmp ult i64 %lo, %hi
  br i1 %any, label %loop, label %exit

loop:
  %i = phi i64 [ %lo, %entry ], [ %i1, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %xv = load float, ptr %px, align 4
  %yv = load float, ptr %py, align 4
  %s = call float @llvm.fmuladd.f32(float %a, float %xv, float %yv)
  store float %s, ptr %py, align 4
  %i1 = add nuw i64 %i, 1
  %done = icmp eq i64 %i1, %hi
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

declare float @llvm.fmuladd.f32(float, float, float)
