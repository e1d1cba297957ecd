// Doubles an i32 buffer in place; its spec fills it with `value:3.7`.
module {
  func.func @twice(%x: memref<4xi32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<4xi32>
    %w = arith.addi %v, %v : i32
    memref.store %w, %x[%c0] : memref<4xi32>
    return
  }
}
