// Issue 16 case 7, cp.async by token: a wait retires the copies whose
// tokens it consumes (directly, or through device_async_create_group), not
// the oldest copy in program order. Here the first wait consumes the second
// group, so it pairs with copy B; the second wait pairs with copy A.
// Written for kperf.
// RUN: kperf instrument %s --emit kperf --regions async
// CHECK: "kperf.record"() {is_start = true, kind = "asyncissue", name = "async:device_async_copy"}
// CHECK-NEXT: %[[A:[0-9]+]] = nvgpu.device_async_copy %arg0[%c0]
// CHECK: "kperf.record"() {is_start = true, kind = "asyncissue", name = "async:device_async_copy#1"}
// CHECK-NEXT: %[[B:[0-9]+]] = nvgpu.device_async_copy %arg0[%c128]
// CHECK: %[[GB:[0-9]+]] = nvgpu.device_async_create_group %[[B]]
// CHECK: "kperf.record"() {is_start = false, kind = "asyncissue", name = "async:device_async_copy#1"}
// CHECK-NEXT: nvgpu.device_async_wait %[[GB]]
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncwait", name = "wait:device_async_copy#1", pairs_with = "async:device_async_copy#1"}
// CHECK: "kperf.record"() {is_start = false, kind = "asyncissue", name = "async:device_async_copy"}
// CHECK-NEXT: nvgpu.device_async_wait %[[A]]
// CHECK-NEXT: "kperf.record"() {is_start = true, kind = "asyncwait", name = "wait:device_async_copy", pairs_with = "async:device_async_copy"}
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %sa = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
      %sb = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
      %ta = nvgpu.device_async_copy %buf[%c0], %sa[%c0], 4 : memref<1024xf32> to memref<128xf32, #gpu.address_space<workgroup>>
      %tb = nvgpu.device_async_copy %buf[%c128], %sb[%c0], 4 : memref<1024xf32> to memref<128xf32, #gpu.address_space<workgroup>>
      %gb = nvgpu.device_async_create_group %tb
      nvgpu.device_async_wait %gb {numGroups = 1 : i32}
      %vb = memref.load %sb[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %vb, %out[%c128] : memref<256xf32>
      nvgpu.device_async_wait %ta {numGroups = 0 : i32}
      %va = memref.load %sa[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %va, %out[%c0] : memref<256xf32>
      gpu.return
    }
  }
}
