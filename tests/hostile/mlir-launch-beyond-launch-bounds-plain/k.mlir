module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<128xi32>) kernel attributes {nvvm.maxntid = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %bd = gpu.block_dim x
      %t = arith.index_cast %bd : index to i32
      memref.store %t, %out[%tid] : memref<128xi32>
      gpu.return
    }
  }
}
