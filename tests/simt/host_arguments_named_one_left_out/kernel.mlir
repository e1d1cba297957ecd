// The host's arguments (in, out, unused) named in the spec without the one the kernel never uses.
// (adversarial test s9h7, 2026-11-27; written for kperf).
func.func @host(%in: memref<32xf32>, %out: memref<32xf32>, %unused: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0.0 : f32
    memref.store %z, %out[%tx] : memref<32xf32>
    %v = memref.load %in[%tx] : memref<32xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
