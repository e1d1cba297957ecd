// A compute-bound host kernel: every element of x runs 100 dependent
// multiply-adds. The work scales exactly with that count, so the same file
// with 110 is a 10% slowdown of the same code: scripts/bench-demo.sh makes
// that change and checks that `kperf bench --baseline` flags it.
module {
  func.func @fma_chain(%x: memref<?xf32>, %n: index) attributes {kperf.kernel} {
    %iters = arith.constant 100 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %chunk = arith.constant 256 : index
    %m = arith.constant 0.999 : f32
    %b = arith.constant 0.001 : f32
    %bid = gpu.block_id x
    %lo = arith.muli %bid, %chunk : index
    %hi0 = arith.addi %lo, %chunk : index
    %hi = arith.minui %hi0, %n : index
    scf.for %i = %lo to %hi step %c1 {
      %v0 = memref.load %x[%i] : memref<?xf32>
      %v = scf.for %k = %c0 to %iters step %c1 iter_args(%acc = %v0) -> (f32) {
        %p = arith.mulf %acc, %m : f32
        %s = arith.addf %p, %b : f32
        scf.yield %s : f32
      }
      memref.store %v, %x[%i] : memref<?xf32>
    }
    return
  }
}
