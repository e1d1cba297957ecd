// kperf cost on a kernel whose author placed records (explicit kperf.record
// ops, a kperf.region attribute): the plain baseline compiles without them
// (it used to fail in translation), the fixed cost is measured with them
// stripped, and a kernel without loops has none (ptxas's closing `BRA` to
// itself is not a loop).
// RUN: kperf cost %s --json
// CHECK: "kernel": "k"
// CHECK: "record_sites": 4
// CHECK: "per_record": 2.5
// CHECK: "added_spill_bytes": 0
// CHECK: "loops_plain": 0,
// CHECK-NEXT: "loops_instrumented": 0,
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %f = arith.constant 2.0 : f32
      "kperf.record"() {name = "load", is_start = 1 : i1} : () -> ()
      %v = memref.load %buf[%c0] : memref<1024xf32>
      "kperf.record"() {name = "load", is_start = 0 : i1} : () -> ()
      %w = arith.mulf %v, %f {kperf.region = "scale"} : f32
      memref.store %w, %buf[%c0] : memref<1024xf32>
      gpu.return
    }
  }
}
