// --ordering strict (the host's default): the region's inputs pass through an
// empty side-effecting asm after the START clock read, and its result through
// one before the END clock read, so no optimizer moves the work across them.
// RUN: kperf instrument %s --target host --emit mlir
// CHECK: %[[X:[0-9]+]] = memref.load
// CHECK: llvm.inline_asm has_side_effects "rdtscp; lfence"
// Constants (%m) are not pinned: no work hides in them, and a loop bound
// through the asm stopped LLVM vectorizing a streaming loop (+60 to +115%).
// CHECK: %[[IN:[0-9]+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=x,0" %[[X]] : (f32) -> f32
// CHECK-NEXT: %[[MUL:[0-9]+]] = arith.mulf %[[IN]], %cst
// CHECK: %[[ADD:[0-9]+]] = arith.addf %[[MUL]],
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "", "x" %[[ADD]] : (f32) -> ()
// CHECK-NEXT: llvm.inline_asm has_side_effects "rdtscp; lfence"
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
