; A Triton kernel (debug info from the "triton" producer, two hidden
; trailing pointers) records into Triton's profile-scratch parameter: no new
; parameter, and the parameter loses Triton's readnone.
; RUN: kperf instrument %s --regions kernel --emit llvm
target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %0, i32 %1, ptr addrspace(1) nofree readnone captures(none) %2, ptr addrspace(1) nofree readnone captures(none) %3) #0 !dbg !4 {
  %v = load float, ptr addrspace(1) %0, align 4, !dbg !7
  ret void, !dbg !8
}
attributes #0 = { "nvvm.reqntid"="128" }

!llvm.module.flags = !{!0}
!llvm.dbg.cu = !{!1}
!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = distinct !DICompileUnit(language: DW_LANG_C, file: !2, producer: "triton", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!2 = !DIFile(filename: "kernel.py", directory: "/src")
!4 = distinct !DISubprogram(name: "k", linkageName: "k", scope: !2, file: !2, line: 10, type: !5, scopeLine: 10, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !1)
!5 = !DISubroutineType(cc: DW_CC_normal, types: !6)
!6 = !{}
!7 = !DILocation(line: 12, column: 8, scope: !4)
!8 = !DILocation(line: 13, column: 4, scope: !4)

; CHECK: define ptx_kernel void @k(ptr addrspace(1) %0, i32 %1, ptr addrspace(1) nofree readnone captures(none) %2, ptr addrspace(1) {{[^,]*}}%3)
; CHECK-NOT: readnone{{.*}} %3)
; CHECK: icmp ne ptr addrspace(1) %3, null
