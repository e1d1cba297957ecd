// A launch value the host selects between an argument and a buffer's dimension, under no loop.
// (adversarial test s9h7, 2026-11-27; written for kperf).
func.func @host(%a: memref<?xf32>, %n: index, %flag: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %d = memref.dim %a, %c0 : memref<?xf32>
  %n32 = arith.index_cast %n : index to i32
  %n64 = arith.extsi %n32 : i32 to i64
  %nn = arith.index_cast %n64 : i64 to index
  %z = arith.constant 0 : i32
  %p = arith.cmpi ne, %flag, %z : i32
  %s = arith.select %p, %nn, %d : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %si = arith.index_cast %s : index to i32
    %sf = arith.sitofp %si : i32 to f32
    memref.store %sf, %a[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}
