// async: START before the issue, END right before the wait, START(wait) right after it.
// RUN: kperf instrument %s --emit kperfgpu --regions async
// CHECK: is_start = true, kind = "asyncissue", name = "async:[[N:[a-z_.]+]]", region_id = 0
// CHECK-NEXT: nvgpu.device_async_copy
// CHECK: is_start = false, kind = "asyncissue"{{.*}}region_id = 0
// CHECK-NEXT: nvgpu.device_async_wait
// CHECK-NEXT: kperfgpu.read_counter
// CHECK-NEXT: is_start = true, kind = "asyncwait", name = "wait:[[N]]", pairs_with = 0 : i32, region_id = 1
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      %s = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
      %t = nvgpu.device_async_copy %buf[%c0], %s[%c0], 4 : memref<1024xf32> to memref<128xf32, #gpu.address_space<workgroup>>
      %v = memref.load %buf[%c1] : memref<1024xf32>
      nvgpu.device_async_wait %t
      gpu.return
    }
  }
}
