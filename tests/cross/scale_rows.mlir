// One small host kernel taken through both instrumentation paths (see
// tests/tests/cross_path.rs): each CTA scales its 16-element row of `x` by
// `a` in a loop, then accumulates the row sum into out[block].
// Parameters are raw pointers so the same launch spec fits the MLIR kernel
// and its LLVM IR (memrefs would expand into descriptors in LLVM IR).
module {
  func.func @scale_rows(%x: !llvm.ptr, %out: !llvm.ptr, %a: f32) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c16 : index
    %sum = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
      %k = arith.addi %base, %i : index
      %k64 = arith.index_cast %k : index to i64
      %p = llvm.getelementptr %x[%k64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
      %v = llvm.load %p : !llvm.ptr -> f32
      %s = arith.mulf %v, %a : f32
      llvm.store %s, %p : f32, !llvm.ptr
      %n = arith.addf %acc, %s : f32
      scf.yield %n : f32
    }
    %b64 = arith.index_cast %bid : index to i64
    %q = llvm.getelementptr %out[%b64] : (!llvm.ptr, i64) -> !llvm.ptr, f32
    llvm.store %sum, %q : f32, !llvm.ptr
    return
  }
}
