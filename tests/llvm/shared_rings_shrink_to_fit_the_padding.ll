; Rings sized automatically shrink until the padded profile fits. The slot
; budget counts the rings and init stamps only; the trash ring and the
; padding to a multiple of 1024 bytes (SHARED_ALIGN) come on top. With
; 9948 bytes of shared memory left (an H200's 232448 less 222500 of dynamic
; shared memory), 128 slots for 8 warps need 10240 bytes: that was an error
; with --buffer shared (and global memory with --buffer auto), where 64
; slots (5120 bytes) fit. Found in review, 2026-11-28.
; RUN: kperf instrument %s --regions kernel --block 256 --buffer shared --dynamic-shared 222500 --target nvptx:sm_90a --emit llvm
; CHECK: @__kperf_smem_tile_copy = internal addrspace(3) global [640 x i64] undef, align 1024
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define ptx_kernel void @tile_copy(ptr addrspace(1) %in, ptr addrspace(1) %out) #0 {
  %tid = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %src = getelementptr inbounds float, ptr addrspace(1) %in, i32 %tid
  %v = load float, ptr addrspace(1) %src, align 4
  %slot = getelementptr inbounds float, ptr addrspace(3) @global_smem, i32 %tid
  store float %v, ptr addrspace(3) %slot, align 4
  tail call void @llvm.nvvm.barrier0()
  %rev = sub i32 255, %tid
  %from = getelementptr inbounds float, ptr addrspace(3) @global_smem, i32 %rev
  %w = load float, ptr addrspace(3) %from, align 4
  %dst = getelementptr inbounds float, ptr addrspace(1) %out, i32 %tid
  store float %w, ptr addrspace(1) %dst, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

attributes #0 = { "nvvm.reqntid"="256" }
