// A host loop launching a kernel per step with the step as an argument
// (time stepping; adversarial test s7h4, 2026-11-27; written for kperf).
func.func @host(%a: memref<32xf32>, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %s = %c0 to %steps step %c1 {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
      %v = memref.load %a[%tx] : memref<32xf32>
      %si = arith.index_cast %s : index to i32
      %sf = arith.sitofp %si : i32 to f32
      %w = arith.addf %v, %sf : f32
      memref.store %w, %a[%tx] : memref<32xf32>
      gpu.terminator
    }
  }
  return
}
