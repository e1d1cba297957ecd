; Issue 16 case 6: kperf cost on a module with several kernels reports each
; kernel on its own: its own record count and its own cost per record. The
; second kernel's entry block is a lone branch into its loop; the probes
; that measure a record's cost used to find no anchor there, so its cost
; per record read 0.
; RUN: kperf cost %s --regions kernel,loops --json
; CHECK: "kernel": "scale",
; CHECK: "record_sites": 2,
; CHECK-NEXT: "per_record": {{[1-9]}}
; CHECK: "kernel": "sum",
; CHECK: "record_sites": 4,
; CHECK-NEXT: "per_record": {{[1-9]}}
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @scale(ptr addrspace(1) %out, i32 %n) #0 {
entry:
  %v = load float, ptr addrspace(1) %out, align 4
  %w = fmul float %v, 2.0
  store float %w, ptr addrspace(1) %out, align 4
  ret void
}

define ptx_kernel void @sum(ptr addrspace(1) %out, i32 %n) #0 {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %p = getelementptr float, ptr addrspace(1) %out, i32 %i
  %x = load float, ptr addrspace(1) %p, align 4
  %acc1 = fadd float %acc, %x
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  store float %acc1, ptr addrspace(1) %out, align 4
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }
