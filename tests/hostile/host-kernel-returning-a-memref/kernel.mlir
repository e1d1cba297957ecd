// A host kernel returning one of its buffers, as bufferizing a tensor function
// leaves it (adversarial test s7h4, 2026-11-27; written for kperf).
func.func @k(%A: memref<4x4xf32>, %C: memref<4x4xf32>) -> (memref<4x4xf32> {llvm.noalias}) attributes {kperf.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %A[%i, %j] : memref<4x4xf32>
      memref.store %v, %C[%j, %i] : memref<4x4xf32>
    }
  }
  return %C : memref<4x4xf32>
}
