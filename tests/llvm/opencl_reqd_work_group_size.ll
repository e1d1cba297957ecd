; An OpenCL kernel as clang-22 writes it for NVPTX (`-x cl -target
; nvptx64-nvidia-cuda`): its block size is `reqd_work_group_size(64, 1, 1)`,
; metadata on the kernel, which kperf did not read ("does not say its block
; size"). Written for kperf (adversarial pass, 2026-11-28).
; RUN: kperf instrument %s --regions kernel --emit llvm
; CHECK-LABEL: define ptx_kernel void @wg_sum(
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @wg_sum(ptr addrspace(1) %out) !reqd_work_group_size !0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %tid, ptr addrspace(1) %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!0 = !{i32 64, i32 1, i32 1}
