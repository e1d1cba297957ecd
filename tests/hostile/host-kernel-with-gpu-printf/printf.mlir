// A host kernel that calls gpu.printf, which the host lowering cannot lower.
module {
  func.func @k(%A: memref<4xf32>) attributes {kperf.kernel} {
    %bx = gpu.block_id x
    gpu.printf "hello from CTA %d\n", %bx : index
    %c0 = arith.constant 0 : index
    %v = memref.load %A[%c0] : memref<4xf32>
    %one = arith.constant 1.0 : f32
    %w = arith.addf %v, %one : f32
    memref.store %w, %A[%c0] : memref<4xf32>
    return
  }
}
