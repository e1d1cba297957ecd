// Granularity warp on AMD means a 64-thread wavefront: 128 threads are 2 units.
// RUN: kperf instrument %s --target amdgpu:gfx942 --regions kernel --slots 16 --emit kperfgpu
// CHECK: slots = 16 : i32{{.*}}units = 2 : i32
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
