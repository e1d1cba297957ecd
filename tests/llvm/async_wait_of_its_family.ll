; Issue 16 case 7 on the LLVM path: a wait retires only issues of its own
; family. Here a cp.async copy is followed by a wgmma wait_group (retiring
; the warpgroup MMA issued before it) and only then by the cp.async
; wait_group. The copy's END goes before the cp.async wait, not before the
; wgmma one; the MMA's before the wgmma wait. (Before the fix, both pairs
; ended at the first wait, whatever its family.)
; Written for kperf.
; RUN: kperf instrument %s --regions async --emit llvm
; CHECK: entry:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: cp.async.cg.shared.global
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: wgmma.wait_group.sync.aligned 0;
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: call void @llvm.nvvm.cp.async.commit.group()
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK-NOT: wgmma
; CHECK: call void @llvm.nvvm.cp.async.wait.group(i32 0)
; CHECK-NEXT: call i32 @llvm.nvvm.read.ptx.sreg.clock()
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@smem = internal addrspace(3) global [1024 x i8] undef, align 16

define ptx_kernel void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, i64 %da, i64 %db) #0 {
entry:
  call void asm sideeffect "cp.async.cg.shared.global [$0], [$1], 16;", "r,l"(ptr addrspace(3) @smem, ptr addrspace(1) %in)
  %acc = call { float, float, float, float } asm sideeffect "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $4, $5, 0, 1, 1, 0, 0;", "=f,=f,=f,=f,l,l"(i64 %da, i64 %db)
  call void asm sideeffect "wgmma.commit_group.sync.aligned;", ""()
  call void asm sideeffect "wgmma.wait_group.sync.aligned 0;", ""()
  %x = extractvalue { float, float, float, float } %acc, 0
  call void @llvm.nvvm.cp.async.commit.group()
  call void @llvm.nvvm.cp.async.wait.group(i32 0)
  %v = load float, ptr addrspace(3) @smem, align 4
  %s = fadd float %v, %x
  store float %s, ptr addrspace(1) %out, align 4
  ret void
}

declare void @llvm.nvvm.cp.async.commit.group()
declare void @llvm.nvvm.cp.async.wait.group(i32 immarg)
attributes #0 = { "nvvm.reqntid"="128" }
