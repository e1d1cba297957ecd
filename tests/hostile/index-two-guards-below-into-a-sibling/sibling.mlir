// Stores 42 at x[i] of a two-buffer kernel: y is a sibling buffer.
module {
  func.func @poke(%x: memref<?xi64>, %i: index, %y: memref<?xi64>) attributes {kperf.kernel} {
    %v = arith.constant 42 : i64
    memref.store %v, %x[%i] : memref<?xi64>
    return
  }
}
