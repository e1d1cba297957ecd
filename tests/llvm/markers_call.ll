; Region markers as calls (what a CUDA C++ user writes): each becomes a clock
; read and a predicated shared-memory store; the calls and their
; declarations are gone from the output.
; RUN: kperf instrument %s --emit llvm
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare void @kperf_region_start(ptr)
declare void @kperf_region_end(ptr)
@.load = private unnamed_addr constant [5 x i8] c"load\00"

define ptx_kernel void @k(ptr addrspace(1) %out, i32 %n) #0 {
entry:
  call void @kperf_region_start(ptr @.load)
  %v = load float, ptr addrspace(1) %out, align 4
  %w = fmul float %v, 2.0
  store float %w, ptr addrspace(1) %out, align 4
  call void @kperf_region_end(ptr @.load)
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }

; The profile pointer is a new trailing parameter.
; CHECK: define ptx_kernel void @k(ptr addrspace(1) %out, i32 %n, ptr addrspace(1) %0)
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: st.shared.v2.b32
; CHECK: load float
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
; CHECK: st.shared.v2.b32
; CHECK-NOT: @llvm.nvvm.barrier
; CHECK: ret void
; CHECK-NOT: kperf_region_start
; CHECK-NOT: kperf_region_end
