// ERROR: err_end_without_start.mlir:9:7: region `b`: end with no start
// RUN: kperf instrument %s --emit kperfgpu
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      "kperf.record"() {name = "b", is_start = 0 : i1} : () -> ()
      gpu.return
    }
  }
}
