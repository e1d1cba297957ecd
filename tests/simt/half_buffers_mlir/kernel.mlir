// f16 and bf16 buffers in a launch spec (adversarial test s7h4, 2026-11-27;
// written for kperf): the spec's f16 input doubled into an f16 output, an
// f32 input rounded to f16 and to bf16, and the sum widened back to f32.
// Before, the spec refused dtype f16 ("unknown dtype") and a kernel taking
// memref<..xf16> could not run.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%hin: memref<32xf16>, %x: memref<32xf32>, %hout: memref<32xf16>,
                %h: memref<32xf16>, %b: memref<32xbf16>, %sum: memref<32xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %tid = gpu.thread_id x
      %hv = memref.load %hin[%tid] : memref<32xf16>
      %h2 = arith.addf %hv, %hv : f16
      memref.store %h2, %hout[%tid] : memref<32xf16>
      %xv = memref.load %x[%tid] : memref<32xf32>
      %xh = arith.truncf %xv : f32 to f16
      %xb = arith.truncf %xv : f32 to bf16
      memref.store %xh, %h[%tid] : memref<32xf16>
      memref.store %xb, %b[%tid] : memref<32xbf16>
      %wh = arith.extf %xh : f16 to f32
      %wb = arith.extf %xb : bf16 to f32
      %s = arith.addf %wh, %wb : f32
      memref.store %s, %sum[%tid] : memref<32xf32>
      gpu.return
    }
  }
}
