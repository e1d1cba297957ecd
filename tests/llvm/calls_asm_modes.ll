; calls=<glob> brackets matching direct calls; asm=<regex> brackets
; matching inline asm and names the region by the matched mnemonic.
; RUN: kperf instrument %s --regions calls=dev_*,asm=wgmma --emit llvm
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare float @dev_work(float)
declare float @other(float)

define ptx_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  %v = load float, ptr addrspace(1) %out, align 4
  %a = call float @dev_work(float %v)
  %b = call float @other(float %a)
  call void asm sideeffect "wgmma.fence.sync.aligned;", ""()
  store float %b, ptr addrspace(1) %out, align 4
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }

; CHECK: read.ptx.sreg.clock()
; CHECK: call float @dev_work
; CHECK: read.ptx.sreg.clock()
; CHECK-NOT: read.ptx.sreg.clock()
; CHECK: call float @other
; CHECK: read.ptx.sreg.clock()
; CHECK: wgmma.fence.sync.aligned
; CHECK: read.ptx.sreg.clock()
