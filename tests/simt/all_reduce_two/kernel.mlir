// Written for kperf: two gpu.all_reduce in one kernel, one with a region
// (the reducer is the block's body: signed max) and one built-in (add),
// over a block of 40 threads (a full warp and a partial one), and a
// gpu.printf of the results by thread 0. Known answer: max 39, sum 780.
// (Not 3 warps: MLIR 22's lowering then has lanes 1..2 of warp 0 store
// partial results to the same word as lane 0; see docs/simt.md.)
module attributes {gpu.container_module} {
  func.func @host(%out: memref<2xi32>) {
    %c1 = arith.constant 1 : index
    %c40 = arith.constant 40 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c40, %sy = %c1, %sz = %c1) {
      %t = arith.index_cast %tx : index to i32
      %max = gpu.all_reduce %t uniform {
      ^bb(%lhs : i32, %rhs : i32):
        %r = arith.maxsi %lhs, %rhs : i32
        gpu.yield %r : i32
      } : (i32) -> (i32)
      %sum = gpu.all_reduce add %t uniform {} : (i32) -> (i32)
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : index
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        memref.store %max, %out[%c0] : memref<2xi32>
        memref.store %sum, %out[%one] : memref<2xi32>
        gpu.printf "max %d sum %d\n", %max, %sum : i32, i32
      }
      gpu.terminator
    }
    return
  }
}
