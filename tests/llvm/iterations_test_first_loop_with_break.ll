; A test-first loop (`while (i < 8) { ...; if (hit) break; }`): the header
; only tests, and the latch leaves too (the break). The header runs once
; more than the body, so an iteration starts on the header's edge into the
; body: 8 iterations for 8 passes. A first fix for rotated loops with an
; early exit in the header (iterations_rotated_loop_header_exit.ll) took
; every loop with an exiting latch for rotated and counted 9 (found in
; review, 2026-11-27).
; RUN: kperf instrument %s --regions iterations --emit llvm
; CHECK: h:
; CHECK-NEXT: phi i32
; CHECK-NEXT: icmp slt
; CHECK-NEXT: br i1
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr %a, ptr %out) #0 {
entry:
  br label %h
h:
  %i = phi i32 [ 0, %entry ], [ %i2, %body ]
  %c = icmp slt i32 %i, 8
  br i1 %c, label %body, label %exit
body:
  %p = getelementptr float, ptr %a, i32 %i
  %v = load float, ptr %p
  %hit = fcmp oeq float %v, 100.0
  %i2 = add i32 %i, 1
  br i1 %hit, label %exit, label %h
exit:
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %q = getelementptr i32, ptr %out, i32 %t
  store i32 %i, ptr %q
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
attributes #0 = { "nvvm.reqntid"="32" }
