// --buffer auto (the default): 128 thread rings of 256 slots (264352 bytes)
// cannot fit the 48 KiB of static shared memory ptxas allows, so the records
// go straight to global memory (err_shared_too_big.mlir: --buffer shared).
// RUN: kperf instrument %s --regions kernel --granularity thread --slots 256 --emit kperfgpu
// CHECK: "kperfgpu.init"() {{.*}}buffer = "global"{{.*}}slots = 256 : i32{{.*}}units = 128 : i32
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
