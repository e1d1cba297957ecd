// Written for kperf adversarial testing: a kernel argument whose layout has a static stride of 2.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @gather(%in: memref<8xf32, strided<[2]>>, %out: memref<8xf32>) kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<8xf32, strided<[2]>>
      memref.store %v, %out[%tid] : memref<8xf32>
      gpu.return
    }
  }
}
