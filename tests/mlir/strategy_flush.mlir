// strategy=flush: a full ring is written through to a larger global segment.
// RUN: kperf instrument %s --regions kernel,iterations --strategy flush --slots 8 --flush-slots 64 --emit kperfgpu
// CHECK: global_slots = 64 : i32{{.*}}slots = 8 : i32{{.*}}strategy = "flush"
// CHECK: "kperfgpu.store_counter"
// CHECK-NOT: circular_store
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      scf.for %i = %c0 to %n step %c1 {
        memref.store %f, %buf[%i] : memref<1024xf32>
      }
      gpu.return
    }
  }
}
