; Written for kperf adversarial testing (h5): minimal loop whose header and latch both exit
; to one block (the shape clang -O3 gives an unrolled loop with an early return).
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %in, ptr %out) {
entry:
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i2, %latch ]
  %s = phi i32 [ 0, %entry ], [ %s2, %latch ]
  %p = getelementptr i32, ptr %in, i32 %i
  %v = load i32, ptr %p
  %s1 = add i32 %s, %v
  %c1 = icmp sgt i32 %s1, %t
  br i1 %c1, label %exit, label %latch
latch:
  %s2 = add i32 %s1, 1
  %i2 = add i32 %i, 1
  %c2 = icmp sgt i32 %s2, 1000
  %c3 = icmp eq i32 %i2, 64
  br i1 %c2, label %exit, label %cont
cont:
  br i1 %c3, label %done, label %h
exit:
  %r = phi i32 [ %s1, %h ], [ %s2, %latch ]
  store i32 %r, ptr %out
  br label %done
done:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
!llvm.module.flags = !{!0}
!0 = !{i32 2, !"Debug Info Version", i32 3}
