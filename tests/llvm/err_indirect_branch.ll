; A computed goto (`indirectbr` through `blockaddress`): NVPTX cannot
; compile it, and LLVM's instruction selection aborted kperf (exit 134,
; "Cannot select: brind") even for --emit llvm. Refused by name. Written
; for kperf (found by an adversarial pass, 2026-11-28).
; RUN: kperf instrument %s --regions kernel --emit llvm
; ERROR: @ibr, block %entry: `indirectbr` (a computed goto), which NVPTX cannot compile
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @ibr(ptr addrspace(1) %out) "nvvm.reqntid"="32,1,1" {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %odd = and i32 %tid, 1
  %c = icmp eq i32 %odd, 0
  %dst = select i1 %c, ptr blockaddress(@ibr, %a), ptr blockaddress(@ibr, %b)
  indirectbr ptr %dst, [label %a, label %b]
a:
  br label %j
b:
  br label %j
j:
  %v = phi i32 [ 1, %a ], [ 2, %b ]
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  store i32 %v, ptr addrspace(1) %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
