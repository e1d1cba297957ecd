// Written for kperf adversarial testing, reduced from llvm-project
// mlir/test/Integration/Dialect/Vector/GPU/CUDA/test-reduction-distribute.mlir (Apache-2.0 WITH LLVM-exception):
// a gpu.launch body that uses a vector constant defined in the host function.
// Before (2026-11-27): upstream outlining left the vector constant a kernel
// parameter, which no launcher of kperf's passes; constants are now sunk.
// Expected: out[i] = 2 * in[i] (in = iota: out = 0, 2, 4, ..., 62).
func.func @host(%in: memref<32xf32>, %out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant dense<2.0> : vector<1xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = vector.load %in[%tx] : memref<32xf32>, vector<1xf32>
    %w = arith.mulf %v, %two : vector<1xf32>
    vector.store %w, %out[%tx] : memref<32xf32>, vector<1xf32>
    gpu.terminator
  }
  return
}
