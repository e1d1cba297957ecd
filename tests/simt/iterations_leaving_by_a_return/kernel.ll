; A loop whose header is its body (s += x*k, then a test that returns
; early) and whose latch tests the trip count (written for kperf by an
; adversarial retest, 2026-11-27). The header does no memory work, so it
; was taken for a test-only header: iterations started at the latch, and
; the 23 passes that left by the return were in none (131 of 154).
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @tails(ptr addrspace(1) %x, ptr addrspace(1) %y, i32 %n) #0 !dbg !5 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !10
  %in = icmp slt i32 %tid, %n, !dbg !10
  br i1 %in, label %load, label %leave, !dbg !10

leave:
  ret void, !dbg !11

load:
  %px = getelementptr float, ptr addrspace(1) %x, i32 %tid, !dbg !12
  %v = load float, ptr addrspace(1) %px, align 4, !dbg !12
  br label %loop, !dbg !12

loop:
  %k = phi i32 [ 0, %load ], [ %k1, %latch ]
  %s = phi float [ 0.0, %load ], [ %s1, %latch ]
  %kf = sitofp i32 %k to float, !dbg !13
  %t = fmul float %v, %kf, !dbg !13
  %s1 = fadd float %s, %t, !dbg !13
  %big = fcmp ogt float %s1, 100.0, !dbg !13
  br i1 %big, label %inloopret, label %latch, !dbg !13

inloopret:
  %py0 = getelementptr float, ptr addrspace(1) %y, i32 %tid, !dbg !14
  store float -1.0, ptr addrspace(1) %py0, align 4, !dbg !14
  ret void, !dbg !14

latch:
  %k1 = add i32 %k, 1, !dbg !13
  %more = icmp slt i32 %k1, 4, !dbg !13
  br i1 %more, label %loop, label %after, !dbg !13

after:
  %py = getelementptr float, ptr addrspace(1) %y, i32 %tid, !dbg !15
  %odd = and i32 %tid, 1, !dbg !15
  %isodd = icmp ne i32 %odd, 0, !dbg !15
  br i1 %isodd, label %store_pos, label %store_neg, !dbg !15

store_pos:
  store float %s1, ptr addrspace(1) %py, align 4, !dbg !16
  ret void, !dbg !16

store_neg:
  %neg = fneg float %s1, !dbg !17
  store float %neg, ptr addrspace(1) %py, align 4, !dbg !17
  ret void, !dbg !17

dead:
  ret void, !dbg !18
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
attributes #0 = { convergent nounwind "target-cpu"="sm_90" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "hand", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "k.cu", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "tails", scope: !1, file: !1, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!10 = !DILocation(line: 2, column: 3, scope: !5)
!11 = !DILocation(line: 3, column: 5, scope: !5)
!12 = !DILocation(line: 4, column: 3, scope: !5)
!13 = !DILocation(line: 5, column: 3, scope: !5)
!14 = !DILocation(line: 6, column: 7, scope: !5)
!15 = !DILocation(line: 8, column: 3, scope: !5)
!16 = !DILocation(line: 9, column: 5, scope: !5)
!17 = !DILocation(line: 10, column: 5, scope: !5)
!18 = !DILocation(line: 12, column: 1, scope: !5)
