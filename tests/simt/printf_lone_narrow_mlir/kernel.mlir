// gpu.printf of narrow integers with no wider argument after them: MLIR
// packs an i8 in 1 byte and an i16 in 2, and `%d` reads 4 from the
// argument buffer, past the struct: stack garbage came out (adversarial
// retest, 2026-11-27). The buffer now has zeroed room past the struct, as
// a GPU's fresh local memory: `%d` of i8 2 is 2, of i16 -300 is 65236 (its
// two bytes, zero-extended), and `%d %d` of i8 1, 2 is 513 and 0 (the two
// bytes read as one int, then the next 4 bytes).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hello() kernel {
      %a = arith.constant 2 : i8
      %b = arith.constant -300 : i16
      %c = arith.constant 1 : i8
      %d = arith.constant 2 : i8
      gpu.printf "A %d\n", %a : i8
      gpu.printf "B %d\n", %b : i16
      gpu.printf "C %d %d\n", %c, %d : i8, i8
      gpu.return
    }
  }
}
