// gpu.shuffle idx of width 16 run by every lane of two warps, then a
// barrier (adversarial test s7h1, 2026-11-27; written for kperf). MLIR's
// gpu.shuffle lets lanes at or above `width` run it: they read "an
// unspecified value" and valid = false. Upstream's lowering passes mask
// 0xffff to every lane, so lanes 16-31 run shfl.sync outside their mask
// (undefined in PTX). Before, the run reported a deadlock in 3 of 6 runs.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%in: memref<64xi32>, %out: memref<64xi32>, %valid: memref<64xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tx = gpu.thread_id x
      %v = memref.load %in[%tx] : memref<64xi32>
      %c3 = arith.constant 3 : i32
      %c16 = arith.constant 16 : i32
      %x, %ok = gpu.shuffle idx %v, %c3, %c16 : i32
      gpu.barrier
      memref.store %x, %out[%tx] : memref<64xi32>
      %okw = arith.extui %ok : i1 to i32
      memref.store %okw, %valid[%tx] : memref<64xi32>
      gpu.return
    }
  }
}
