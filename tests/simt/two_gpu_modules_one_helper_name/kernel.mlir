// Two gpu.modules each defining a device function @helper (x + x in @m1,
// x * x in @m2), as upstream's Conversion/GPUToNVVM/gpu-to-nvvm-target-attr.mlir
// defines @kernel_0 in both. Written for kperf (adversarial pass, 2026-11-28).
gpu.module @m1 {
  func.func @helper(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
  gpu.func @k1(%o: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %v = arith.sitofp %ti : i32 to f32
    %r = func.call @helper(%v) : (f32) -> f32
    memref.store %r, %o[%t] : memref<32xf32>
    gpu.return
  }
}
gpu.module @m2 {
  func.func @helper(%x: f32) -> f32 {
    %y = arith.mulf %x, %x : f32
    return %y : f32
  }
  gpu.func @k2(%o: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %v = arith.sitofp %ti : i32 to f32
    %r = func.call @helper(%v) : (f32) -> f32
    memref.store %r, %o[%t] : memref<32xf32>
    gpu.return
  }
}
