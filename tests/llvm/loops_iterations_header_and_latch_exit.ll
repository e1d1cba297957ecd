; --regions loops,iterations on a loop whose header and latch both leave to
; one block with a phi (clang -O3's shape for an unrolled loop with an early
; return): refused with "no place for a record on the edge from block 1 to
; block 4, even after splitting it" (found by an adversarial pass,
; 2026-11-27). Both exit edges now carry the loop's and the iteration's END.
; RUN: kperf instrument %s --regions loops,iterations --block 64 --emit llvm
; CHECK: define ptx_kernel void @k(
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %in, ptr %out) {
entry:
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i2, %cont ]
  %s = phi i32 [ 0, %entry ], [ %s2, %cont ]
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
