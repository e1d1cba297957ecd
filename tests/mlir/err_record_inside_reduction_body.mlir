// A kperf.record written by hand inside a gpu.all_reduce body: lowered, it
// used ring state from outside an isolated region, and --emit ptx failed
// with an internal verifier error (found in review, 2026-11-27).
// RUN: kperf instrument %s --regions kernel --emit kperfgpu
// ERROR: a `kperf.record` inside a `gpu.all_reduce` body
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%out: memref<2xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %max = gpu.all_reduce %t uniform {
      ^bb(%lhs : i32, %rhs : i32):
        "kperf.record"() {is_start = true, name = "r"} : () -> ()
        %r = arith.maxsi %lhs, %rhs : i32
        "kperf.record"() {is_start = false, name = "r"} : () -> ()
        gpu.yield %r : i32
      } : (i32) -> (i32)
      %c0 = arith.constant 0 : index
      memref.store %max, %out[%c0] : memref<2xi32>
      gpu.return
    }
  }
}
