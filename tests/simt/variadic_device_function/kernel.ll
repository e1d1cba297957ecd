; A variadic device function summing its i32 arguments (va_start/va_arg), called from a kernel. Written for kperf (adversarial pass, 2026-11-28).
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define internal i32 @vsum(i32 %n, ...) noinline {
entry:
  %ap = alloca ptr, align 8
  call void @llvm.va_start.p0(ptr %ap)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %s = phi i32 [ 0, %entry ], [ %s1, %loop ]
  %v = va_arg ptr %ap, i32
  %s1 = add i32 %s, %v
  %i1 = add i32 %i, 1
  %done = icmp eq i32 %i1, %n
  br i1 %done, label %exit, label %loop
exit:
  call void @llvm.va_end.p0(ptr %ap)
  ret i32 %s1
}
define ptx_kernel void @va(ptr addrspace(1) %out) "nvvm.reqntid"="32,1,1" {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %v = call i32 (i32, ...) @vsum(i32 3, i32 %tid, i32 10, i32 100)
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
