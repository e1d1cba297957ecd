// kernel + loops + iterations: the loop is bracketed outside, each iteration inside, with lexical parents.
// RUN: kperf instrument %s --emit kperfgpu --regions kernel,loops,iterations
// CHECK: name = "kernel", region_id = 0
// CHECK: kind = "loop", name = "loop@[[L:[0-9]+:[0-9]+]]", parent = 0 : i32, region_id = 1
// CHECK-NEXT: scf.for
// CHECK: kind = "iteration", name = "iter@[[L]]", parent = 1 : i32, region_id = 2
// CHECK: memref.load
// CHECK: is_start = false, kind = "iteration"
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK: is_start = false, kind = "loop"
// CHECK: is_start = false, kind = "kernel"
// CHECK-NEXT: "kperfgpu.finalize"
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      scf.for %i = %c0 to %n step %c1 {
        %v = memref.load %buf[%i] : memref<1024xf32>
        memref.store %v, %buf[%i] : memref<1024xf32>
      }
      gpu.return
    }
  }
}
