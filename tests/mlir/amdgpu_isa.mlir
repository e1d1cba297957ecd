// AMDGPU (gfx942, wave64): records read s_memtime and store to LDS; units are 64-thread waves.
// Init parks its stamps in LDS after the rings; finalize (no barrier) writes the header (CU id from HW_ID).
// RUN: kperf instrument %s --target amdgpu:gfx942 --regions kernel --emit isa
// CHECK: s_memtime
// CHECK: ds_write_b128 {{.*}} offset:8192
// CHECK: s_memtime
// CHECK: ds_write_b64
// CHECK: s_memtime
// CHECK: ds_write_b64
// CHECK-NOT: s_barrier
// CHECK: s_getreg_b32
// CHECK: ds_read_b128 {{.*}} offset:8192
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      %v = memref.load %buf[%c0] : memref<1024xf32>
      %w = arith.mulf %v, %f {kperf.region = "scale"} : f32
      memref.store %w, %buf[%c0] : memref<1024xf32>
      gpu.return
    }
  }
}
