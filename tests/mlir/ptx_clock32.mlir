// Straight-line records are a clock read each plus predicated shared stores at constant offsets;
// two adjacent records (start 0, then end 0 = tag 65536) merge into one 16-byte store.
// RUN: kperf instrument %s --regions kernel --emit ptx
// CHECK: .entry k(
// CHECK: .shared .align 16 .b8 __kperf_smem_k[8192];
// CHECK: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK: mov.u32 {{%r[0-9]+}}, %clock;
// CHECK: st.shared.v4.b32 [{{%rd[0-9]+}}], {0, {{%r[0-9]+}}, 65536, {{%r[0-9]+}}};
// CHECK: bar.sync 0;
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
