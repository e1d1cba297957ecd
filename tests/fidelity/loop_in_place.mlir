// CTA b runs n[b] iterations of 8 dependent float operations, then sets
// n[b] = 0: a kernel that changes its own input. The uninstrumented check
// must time each of its launches from the inputs the profiled launch had;
// it timed near-empty launches after the first and called a correct
// profile +25000% off (found by an adversarial pass, 2026-11-28).
module {
  func.func @loop_in_place(%x: memref<?xf32>, %nn: memref<?xi32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0 : i32
    %m = arith.constant 0.999 : f32
    %b = arith.constant 0.001 : f32
    %bid = gpu.block_id x
    %ni = memref.load %nn[%bid] : memref<?xi32>
    %n = arith.index_cast %ni : i32 to index
    %v0 = memref.load %x[%bid] : memref<?xf32>
    %v = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v0) -> (f32) {
      %t0 = arith.mulf %acc, %m : f32
      %t1 = arith.addf %t0, %b : f32
      %t2 = arith.mulf %t1, %m : f32
      %t3 = arith.addf %t2, %b : f32
      %t4 = arith.mulf %t3, %m : f32
      %t5 = arith.addf %t4, %b : f32
      %t6 = arith.mulf %t5, %m : f32
      %t7 = arith.addf %t6, %b : f32
      scf.yield %t7 : f32
    }
    memref.store %v, %x[%bid] : memref<?xf32>
    memref.store %z, %nn[%bid] : memref<?xi32>
    return
  }
}
