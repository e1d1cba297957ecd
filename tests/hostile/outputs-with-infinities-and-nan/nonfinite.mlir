// Writes +inf, -inf and NaN: --outputs must tell them apart (serde_json
// wrote all three as null).
module {
  func.func @nonfinite(%out: memref<4xf32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %m = arith.constant -1.0 : f32
    %inf = arith.divf %one, %zero : f32
    %ninf = arith.divf %m, %zero : f32
    %nan = arith.divf %zero, %zero : f32
    memref.store %inf, %out[%c0] : memref<4xf32>
    memref.store %ninf, %out[%c1] : memref<4xf32>
    memref.store %nan, %out[%c2] : memref<4xf32>
    memref.store %one, %out[%c3] : memref<4xf32>
    return
  }
}
