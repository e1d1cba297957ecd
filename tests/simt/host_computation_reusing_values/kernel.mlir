// The host computes the launch's value by a chain that reuses each step
// (x1 = x0 + x0, ..., x25): 2^25 with n = 0 (adversarial review, 2026-11-27;
// written for kperf).
func.func @host(%a: memref<32xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %x0 = arith.addi %n, %c1 : index
  %x1 = arith.addi %x0, %x0 : index
  %x2 = arith.addi %x1, %x1 : index
  %x3 = arith.addi %x2, %x2 : index
  %x4 = arith.addi %x3, %x3 : index
  %x5 = arith.addi %x4, %x4 : index
  %x6 = arith.addi %x5, %x5 : index
  %x7 = arith.addi %x6, %x6 : index
  %x8 = arith.addi %x7, %x7 : index
  %x9 = arith.addi %x8, %x8 : index
  %x10 = arith.addi %x9, %x9 : index
  %x11 = arith.addi %x10, %x10 : index
  %x12 = arith.addi %x11, %x11 : index
  %x13 = arith.addi %x12, %x12 : index
  %x14 = arith.addi %x13, %x13 : index
  %x15 = arith.addi %x14, %x14 : index
  %x16 = arith.addi %x15, %x15 : index
  %x17 = arith.addi %x16, %x16 : index
  %x18 = arith.addi %x17, %x17 : index
  %x19 = arith.addi %x18, %x18 : index
  %x20 = arith.addi %x19, %x19 : index
  %x21 = arith.addi %x20, %x20 : index
  %x22 = arith.addi %x21, %x21 : index
  %x23 = arith.addi %x22, %x22 : index
  %x24 = arith.addi %x23, %x23 : index
  %x25 = arith.addi %x24, %x24 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %x25 : index to i32
    %f = arith.sitofp %i : i32 to f32
    memref.store %f, %a[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}
