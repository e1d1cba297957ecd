// --regions ops=arith.maxsi matched the op inside a gpu.all_reduce body (a
// reduction run apart from the kernel's program order): records there used
// ring state from outside the region and the module failed to verify with an
// internal error (found by an adversarial pass, 2026-11-27). Only ops in the
// kernel's own control flow are bracketed; the one outside the body is.
// RUN: kperf instrument %s --regions ops=arith.maxsi --emit kperf
// CHECK: gpu.all_reduce
// CHECK-NOT: kperf.record
// CHECK: gpu.yield
// CHECK: "kperf.record"() {is_start = true, kind = "op", name = "arith.maxsi"}
// CHECK-NEXT: arith.maxsi
// CHECK-NEXT: "kperf.record"() {is_start = false, kind = "op", name = "arith.maxsi"}
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<2xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %max = gpu.all_reduce %t uniform {
      ^bb(%lhs : i32, %rhs : i32):
        %r = arith.maxsi %lhs, %rhs : i32
        gpu.yield %r : i32
      } : (i32) -> (i32)
      %outside = arith.maxsi %max, %t : i32
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        memref.store %outside, %out[%c0] : memref<2xi32>
      }
      gpu.return
    }
  }
}
