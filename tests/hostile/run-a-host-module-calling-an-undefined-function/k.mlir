// A host kernel calling a function nothing defines (written for kperf).
module {
  func.func private @not_defined_anywhere(f32) -> f32
  func.func @k(%x: memref<4xf32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%c0] : memref<4xf32>
    %w = func.call @not_defined_anywhere(%v) : (f32) -> f32
    memref.store %w, %x[%c0] : memref<4xf32>
    return
  }
}
