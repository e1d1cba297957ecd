// The spec names the kernel's host-computed m (m = 2n) beside the host's a.
// (adversarial test s9h7, 2026-11-27; written for kperf).
// The host passes the kernel a value it computes from its own argument
// (m = 2 * n); the spec lists the host function's arguments, by their names
// (adversarial test s7h4, 2026-11-27; written for kperf).
func.func @host(%a: memref<32xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %m = arith.muli %n, %c2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%tx] : memref<32xf32>
    %mi = arith.index_cast %m : index to i32
    %mf = arith.sitofp %mi : i32 to f32
    %w = arith.addf %v, %mf : f32
    memref.store %w, %a[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
