// --ordering relaxed: records only, no pins (the GPU default; ptxas keeps
// program order around its clock reads).
// RUN: kperf instrument %s --target host --ordering relaxed --emit mlir
// CHECK: llvm.inline_asm has_side_effects "rdtscp; lfence"
// CHECK-NOT: asm_dialect = att ""
// CHECK: arith.mulf
// CHECK-NOT: asm_dialect = att ""
// CHECK: llvm.inline_asm has_side_effects "rdtscp; lfence"
module {
  func.func @k(%x: memref<?xf32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %m = arith.constant 0.5 : f32
    %v0 = memref.load %x[%c0] : memref<?xf32>
    "kperf.record"() {name = "scale", is_start = 1 : i1} : () -> ()
    %v1 = arith.mulf %v0, %m : f32
    %v2 = arith.addf %v1, %m : f32
    "kperf.record"() {name = "scale", is_start = 0 : i1} : () -> ()
    memref.store %v2, %x[%c0] : memref<?xf32>
    return
  }
}
