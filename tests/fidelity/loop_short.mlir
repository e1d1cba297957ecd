// 499 iterations of 4 dependent float operations: an iteration is shorter than a record.
// Truth: the same launch run uninstrumented (`kperf run` times it unless --no-check).
module {
  func.func @loop_short(%x: memref<?xf32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 499 : index
    %m = arith.constant 0.999 : f32
    %b = arith.constant 0.001 : f32
    %bid = gpu.block_id x
    %v0 = memref.load %x[%bid] : memref<?xf32>
    %v = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v0) -> (f32) {
      %t0 = arith.mulf %acc, %m : f32
      %t1 = arith.addf %t0, %b : f32
      %t2 = arith.mulf %t1, %m : f32
      %t3 = arith.addf %t2, %b : f32
      scf.yield %t3 : f32
    }
    memref.store %v, %x[%bid] : memref<?xf32>
    return
  }
}
