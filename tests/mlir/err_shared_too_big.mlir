// ERROR: need 265216 bytes of shared memory but only 49152 are allowed
// RUN: kperf instrument %s --regions kernel --granularity thread --slots 256 --buffer shared
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      memref.store %f, %buf[%c0] : memref<1024xf32>
      gpu.return
    }
  }
}
