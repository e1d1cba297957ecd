// x[0] = 7 / d with d = 0 from the spec: x86-64's idiv raises SIGFPE.
module {
  func.func @div(%x: memref<?xi64>, %d: i64) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %v = arith.constant 7 : i64
    %q = arith.divsi %v, %d : i64
    memref.store %q, %x[%c0] : memref<?xi64>
    return
  }
}
