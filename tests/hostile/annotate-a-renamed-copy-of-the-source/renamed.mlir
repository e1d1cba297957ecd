// A tiled matmul C = A·B (64×64, f32) for the host target: each CTA
// computes one 16×16 tile of C, selected by gpu.block_id; the k loop walks
// the tiles of A and B. Instrument with --regions kernel,loops,iterations.
module {
  func.func @matmul(%A: memref<64x64xf32>, %B: memref<64x64xf32>, %C: memref<64x64xf32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %row0 = arith.muli %by, %c16 : index
    %col0 = arith.muli %bx, %c16 : index
    scf.for %kt = %c0 to %c64 step %c16 {
      scf.for %i = %c0 to %c16 step %c1 {
        scf.for %j = %c0 to %c16 step %c1 {
          %r = arith.addi %row0, %i : index
          %c = arith.addi %col0, %j : index
          %acc0 = memref.load %C[%r, %c] : memref<64x64xf32>
          %acc = scf.for %k = %c0 to %c16 step %c1 iter_args(%s = %acc0) -> (f32) {
            %kk = arith.addi %kt, %k : index
            %a = memref.load %A[%r, %kk] : memref<64x64xf32>
            %b = memref.load %B[%kk, %c] : memref<64x64xf32>
            %p = arith.mulf %a, %b : f32
            %s2 = arith.addf %s, %p : f32
            scf.yield %s2 : f32
          }
          memref.store %acc, %C[%r, %c] : memref<64x64xf32>
        }
      }
    }
    return
  }
}
