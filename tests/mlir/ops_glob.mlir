// ops=<glob> brackets every matching op; repeated sites get numbered names.
// RUN: kperf instrument %s --emit kperfgpu --regions ops=memref.*
// CHECK: name = "memref.load", region_id = 0
// CHECK-NEXT: memref.load
// CHECK: name = "memref.store", region_id = 1
// CHECK: name = "memref.load#1", region_id = 2
// CHECK-NOT: arith.mulf{{.*}}kperf
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      %v = memref.load %buf[%c0] : memref<1024xf32>
      memref.store %v, %buf[%c1] : memref<1024xf32>
      %w = memref.load %buf[%c1] : memref<1024xf32>
      %x = arith.mulf %w, %f : f32
      gpu.return
    }
  }
}
