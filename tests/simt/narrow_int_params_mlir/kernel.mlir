// i1, i8 and i16 kernel parameters on the MLIR path (upstream's assert test
// takes two i1): refused before as "type i8, which the launcher does not
// support" (adversarial test, 2026-11-27), though the LLVM-IR path took them.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: i8, %y: i16, %b: i1, %o: memref<3xi32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %x32 = arith.extsi %x : i8 to i32
      %y32 = arith.extsi %y : i16 to i32
      %b32 = arith.extui %b : i1 to i32
      memref.store %x32, %o[%c0] : memref<3xi32>
      memref.store %y32, %o[%c1] : memref<3xi32>
      memref.store %b32, %o[%c2] : memref<3xi32>
      gpu.return
    }
  }
}
