// Two public host functions that call each other (mutual recursion): neither
// is a kernel by kperf's rule (a called public function is a helper), so the
// module has no kernel, and the error must say why instead of "not found".
module {
  func.func @even(%A: memref<4xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.cmpi eq, %n, %c0 : index
    scf.if %z {
    } else {
      %m = arith.subi %n, %c1 : index
      func.call @odd(%A, %m) : (memref<4xf32>, index) -> ()
    }
    return
  }
  func.func @odd(%A: memref<4xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.cmpi eq, %n, %c0 : index
    scf.if %z {
    } else {
      %m = arith.subi %n, %c1 : index
      func.call @even(%A, %m) : (memref<4xf32>, index) -> ()
    }
    return
  }
}
