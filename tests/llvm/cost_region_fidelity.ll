; kperf cost's region fidelity: each region's own instructions (the lines
; of the input inside it, kept apart from kperf's by line tags) are found in
; the SASS between its START and END clock reads. ptxas keeps program order
; around S2UR/CS2R SR_CLOCKLO, so straight-line regions hold all their work;
; `math` holds its four float operations (two FFMA-free FMUL/FADD pairs:
; contraction is off as the input says nothing about it).
; RUN: kperf cost %s --json
; CHECK: "region_fidelity": [
; CHECK: "region": "load",
; CHECK-NEXT: "own": [[LOAD:[0-9]+]],
; CHECK-NEXT: "inside": [[LOAD]],
; CHECK-NEXT: "share": 1.0,
; CHECK: "region": "math",
; CHECK-NEXT: "own": 4,
; CHECK-NEXT: "inside": 4,
; CHECK-NEXT: "share": 1.0,
; CHECK: "region": "store",
; CHECK-NEXT: "own": [[STORE:[0-9]+]],
; CHECK-NEXT: "inside": [[STORE]],
; CHECK-NEXT: "share": 1.0,
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare void @kperf_region_start(ptr)
declare void @kperf_region_end(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
@.load = private unnamed_addr constant [5 x i8] c"load\00"
@.math = private unnamed_addr constant [5 x i8] c"math\00"
@.store = private unnamed_addr constant [6 x i8] c"store\00"

define ptx_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr float, ptr addrspace(1) %out, i32 %tid
  call void @kperf_region_start(ptr @.load)
  %v = load float, ptr addrspace(1) %p, align 4
  call void @kperf_region_end(ptr @.load)
  call void @kperf_region_start(ptr @.math)
  %a = fmul float %v, 3.0
  %b = fadd float %a, 1.0
  %c = fmul float %b, 3.0
  %d = fadd float %c, 1.0
  call void @kperf_region_end(ptr @.math)
  call void @kperf_region_start(ptr @.store)
  store float %d, ptr addrspace(1) %p, align 4
  call void @kperf_region_end(ptr @.store)
  ret void
}
attributes #0 = { "nvvm.reqntid"="128" }
