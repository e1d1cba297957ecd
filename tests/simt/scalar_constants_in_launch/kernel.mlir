// Written for kperf adversarial testing (h5): a gpu.launch body using scalar constants
// (f32, i32, index) defined in the host function, as a vector constant was before.
// Expected: out[t] = in[t] * 3.0 + 7 + 2  (in = iota: out = 9, 12, 15, ...)
// Before (2026-11-27): the constants became kernel parameters that the spec (the
// host function's two arguments) did not give: refused, or run with guessed
// values and exit 0. kperf run sinks every constant into the launch body.
func.func @host(%in: memref<32xf32>, %out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %three = arith.constant 3.0 : f32
  %seven = arith.constant 7 : i32
  %two = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %in[%tx] : memref<32xf32>
    %w = arith.mulf %v, %three : f32
    %s = arith.sitofp %seven : i32 to f32
    %ti = arith.index_cast %two : index to i32
    %tf = arith.sitofp %ti : i32 to f32
    %a = arith.addf %w, %s : f32
    %b = arith.addf %a, %tf : f32
    memref.store %b, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
