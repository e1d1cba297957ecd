// A spin loop (upstream's concurrent-kernels): all its work is in the
// condition region of scf.while, the body is empty. Its iteration records
// go around the condition's work, so the loop stays one block; in the body
// they made a second block, and LLVM's loop rotation copied the condition
// (its atomic) in front of the loop: ATOMG 1 -> 2 in SASS.
// RUN: kperf instrument %s --regions iterations --emit kperf
// CHECK: scf.while
// CHECK-NEXT: "kperf.record"() {{.*}}is_start = true{{.*}}kind = "iteration"
// CHECK-NEXT: memref.atomic_rmw addi
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: "kperf.record"() {{.*}}is_start = false{{.*}}kind = "iteration"
// CHECK-NEXT: scf.condition
// CHECK-NEXT: } do {
// CHECK-NEXT: scf.yield
gpu.module @kernels {
  gpu.func @spin(%flag: memref<i32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    scf.while : () -> () {
      %v = memref.atomic_rmw addi %c0, %flag[] : (i32, memref<i32>) -> i32
      %wait = arith.cmpi slt, %v, %c2 : i32
      scf.condition(%wait)
    } do {
      scf.yield
    }
    gpu.return
  }
}
