// The default ring size fits what the kernel leaves free: it already uses
// 45 KiB of the 48 KiB of static shared memory ptxas allows (a workgroup
// attribution; the rings are static too), so the 4 warp segments get 64
// slots (2 KiB) instead of the 256 of the 8 KiB default budget.
// RUN: kperf instrument %s --regions kernel --emit kperfgpu
// CHECK: "kperfgpu.init"() {{.*}}slots = 64 : i32{{.*}}units = 4 : i32
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>) workgroup(%w: memref<11520xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %w[%c0] : memref<11520xf32, #gpu.address_space<workgroup>>
      memref.store %v, %buf[%c0] : memref<1024xf32>
      gpu.return
    }
  }
}
