// Explicit kperf.record ops, overlapping without nesting: ids by first appearance, pairing by name.
// RUN: kperf instrument %s --emit kperfgpu
// CHECK: "kperfgpu.init"() {{.*}}granularity = "warp"{{.*}}slots = 256 : i32{{.*}}units = 4 : i32
// CHECK: "kperfgpu.circular_store"({{.*}}is_start = true, kind = "explicit", name = "a"{{.*}}region_id = 0
// CHECK: "kperfgpu.circular_store"({{.*}}is_start = true, kind = "explicit", name = "b"{{.*}}region_id = 1
// CHECK: "kperfgpu.circular_store"({{.*}}is_start = false, kind = "explicit", name = "a"{{.*}}region_id = 0
// CHECK: "kperfgpu.circular_store"({{.*}}is_start = false, kind = "explicit", name = "b"{{.*}}region_id = 1
// CHECK: "kperfgpu.finalize"
// CHECK-NEXT: gpu.return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      "kperf.record"() {name = "a", is_start = 1 : i1} : () -> ()
      "kperf.record"() {name = "b", is_start = 1 : i1} : () -> ()
      "kperf.record"() {name = "a", is_start = 0 : i1} : () -> ()
      "kperf.record"() {name = "b", is_start = 0 : i1} : () -> ()
      gpu.return
    }
  }
}
