// 40 KiB of workgroup memory and 256 threads: 5 CTAs per SM on sm_90a.
// kperf's default rings here (64 slots × 8 warps) took the CTA to 45728
// bytes, 4 CTAs per SM, and the MLIR path never read ptxas's shared memory.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>) workgroup(%w: memref<10240xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      %v = memref.load %buf[%t] : memref<1024xf32>
      memref.store %v, %w[%t] : memref<10240xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c1 = arith.constant 1 : index
      %t1 = arith.addi %t, %c1 : index
      %u = memref.load %w[%t1] : memref<10240xf32, #gpu.address_space<workgroup>>
      memref.store %u, %buf[%t] : memref<1024xf32>
      gpu.return
    }
  }
}
