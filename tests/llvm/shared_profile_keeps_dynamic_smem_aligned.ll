; Dynamic shared memory starts where static shared memory ends. Triton
; declares its `@global_smem` with `align 16` but lays its swizzled wgmma
; and TMA tiles out assuming a 1024-byte aligned start, which it has with
; no static shared memory. On an H200 (2026-11-28) a 9376-byte ring moved
; that start and an instrumented 4096^3 Triton matmul computed wrong
; results (max error 519; plain 0). kperf's shared memory is a multiple of
; 1024 bytes, aligned to 1024, so the start moves by whole kilobytes.
; Hand-written after Triton 3.6's LLVM IR (its @global_smem declaration).
; RUN: kperf instrument %s --regions kernel --block 256 --buffer shared --emit llvm
; CHECK: @global_smem = external addrspace(3) global [0 x i8], align 16
; CHECK: @__kperf_smem_tile_copy = internal addrspace(3) global [1280 x i64] undef, align 1024
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
