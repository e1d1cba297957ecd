// --ignore-markers: the regions the author placed (explicit kperf.record ops,
// kperf.region attributes) are stripped, and only the automatic regions
// record (what `kperf cost` measures init and finalize with).
// RUN: kperf instrument %s --regions kernel --ignore-markers --emit kperfgpu
// CHECK-NOT: kperf.region
// CHECK-NOT: "kperf.record"
// CHECK: "kperfgpu.circular_store"({{.*}}is_start = true, kind = "kernel", name = "kernel"
// CHECK-NOT: kind = "explicit"
// CHECK-NOT: kind = "attribute"
// CHECK: "kperfgpu.circular_store"({{.*}}is_start = false, kind = "kernel", name = "kernel"
// CHECK-NOT: kind = "explicit"
// CHECK-NOT: kind = "attribute"
// CHECK: "kperfgpu.finalize"
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
