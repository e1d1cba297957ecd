// Writes x[0], then traps (llvm.trap: ud2 on x86-64, SIGILL).
module {
  func.func @trap(%x: memref<?xi64>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %v = arith.constant 7 : i64
    memref.store %v, %x[%c0] : memref<?xi64>
    "llvm.intr.trap"() : () -> ()
    return
  }
}
