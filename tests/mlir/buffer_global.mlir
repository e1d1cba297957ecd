// buffer=global: records go straight to the global block (no shared ring, no copy loop).
// RUN: kperf instrument %s --regions kernel --buffer global --slots 8 --emit ptx
// CHECK-NOT: .shared
// CHECK: mov.u32 [[C:%r[0-9]+]], %clock;
// CHECK: @%p{{[0-9]+}} st.global.v2.b32 [{{%rd[0-9]+}}], {[[C]], tag};
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
