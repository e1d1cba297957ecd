module {
  func.func @k(%A: memref<4xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.cmpi eq, %n, %c0 : index
    scf.if %z {
    } else {
      %m = arith.subi %n, %c1 : index
      %f = func.constant @k : (memref<4xf32>, index) -> ()
      func.call_indirect %f(%A, %m) : (memref<4xf32>, index) -> ()
    }
    return
  }
}
