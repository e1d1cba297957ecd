; A kernel with `invoke`/`landingpad` keeps its personality function when
; the profile parameter is added: the copy lost it, and kperf refused its
; own output ("LandingPadInst needs to be in a function with a
; personality"). Written for kperf (found by an adversarial pass, 2026-11-28).
; RUN: kperf instrument %s --regions kernel --registers free --emit llvm
; CHECK: define ptx_kernel void @inv(ptr addrspace(1) %out, ptr addrspace(1) {{.*}}) {{.*}}personality ptr @__gxx_personality_v0
; CHECK: invoke void @may_throw
; CHECK: landingpad { ptr, i32 }
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @__gxx_personality_v0(...)

define internal void @may_throw(ptr addrspace(1) %p) noinline {
  store i32 7, ptr addrspace(1) %p, align 4
  ret void
}

define ptx_kernel void @inv(ptr addrspace(1) %out) "nvvm.reqntid"="32,1,1" personality ptr @__gxx_personality_v0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr i32, ptr addrspace(1) %out, i32 %tid
  invoke void @may_throw(ptr addrspace(1) %p) to label %ok unwind label %lp
ok:
  ret void
lp:
  %e = landingpad { ptr, i32 } cleanup
  store i32 -1, ptr addrspace(1) %p, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
