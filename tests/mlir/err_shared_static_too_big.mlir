// ERROR: the kernel uses 229376 statically and 0 dynamically
// RUN: kperf instrument %s --regions kernel --slots 256 --buffer shared
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>) workgroup(%w: memref<57344xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %w[%c0] : memref<57344xf32, #gpu.address_space<workgroup>>
      memref.store %v, %buf[%c0] : memref<1024xf32>
      gpu.return
    }
  }
}
