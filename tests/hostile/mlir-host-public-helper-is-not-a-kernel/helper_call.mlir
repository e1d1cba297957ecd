module {
  func.func @helper(%A: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %v = memref.load %A[%c0] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %A[%c0] : memref<4xf32>
    return
  }
  func.func @k(%A: memref<4xf32>) {
    func.call @helper(%A) : (memref<4xf32>) -> ()
    return
  }
}
