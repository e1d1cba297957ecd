// The host's signature holds an affine map type (its '->') and a comment between arguments.
// (adversarial test s9h7, 2026-11-27; written for kperf).
func.func @host(%out: memref<32xf32, affine_map<(d0) -> (d0)>>, // written, 32 (floats)
                %in: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %in[%tx] : memref<32xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %out[%tx] : memref<32xf32, affine_map<(d0) -> (d0)>>
    gpu.terminator
  }
  return
}
