// f32 and f64 rounded to bf16 (PTX's cvt.rn.bf16.f32 / .f64): ties to
// even, just above a tie, NaN and overflow, and from f64 a value whose
// rounding through f32 first would be a double rounding (1 + 2^-8 + 2^-30
// is 1.0078125, not 1.0). On x86-64 without AVX-512 BF16 the host compiles
// the rounding as a call of __truncsfbf2, which nothing here defines: the
// run jumped to address 0 (an AMD EPYC host, 2026-11-28). Written for kperf.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%x: memref<8xf32>, %d: memref<8xf64>, %bx: memref<8xbf16>, %bd: memref<8xbf16>) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>} {
      %tid = gpu.thread_id x
      %xv = memref.load %x[%tid] : memref<8xf32>
      %xb = arith.truncf %xv : f32 to bf16
      memref.store %xb, %bx[%tid] : memref<8xbf16>
      %dv = memref.load %d[%tid] : memref<8xf64>
      %db = arith.truncf %dv : f64 to bf16
      memref.store %db, %bd[%tid] : memref<8xbf16>
      gpu.return
    }
  }
}
