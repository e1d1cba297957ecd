// Records in a loop the plain build unrolls completely: the strided loop
// `for (i = tid; i < 1024; i += 128)` runs 8 times in a CTA of 128 threads,
// which LLVM only bounds, so it unrolls it completely only while the
// unrolled body stays small. Its iteration records (about ten of LLVM's
// size units each) kept it rolled: a peeled iteration and a loop unrolled
// by 4. kperf compiles both builds first and gives such a loop LLVM's
// unroll pragma: 8 straight-line loads, each between its iteration's
// records, with no branch among them.
// RUN: kperf instrument %s --regions iterations --emit llvm
// CHECK-LABEL: define ptx_kernel void @strided_sum
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: load float
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: load float
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: load float
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: load float
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: load float
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: load float
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: load float
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: br {{.*}}label
// CHECK: load float
// CHECK-NOT: br {{.*}}label
// CHECK: sreg.clock()
// CHECK-NOT: load float
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @strided_sum(%in: memref<?xf32>, %out: memref<?xf32>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c1024 : index
      %sum = scf.for %i = %tid to %c1024 step %c128 iter_args(%acc = %zero) -> (f32) {
        %idx = arith.addi %base, %i : index
        %v = memref.load %in[%idx] : memref<?xf32>
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      %o = arith.addi %base, %tid : index
      memref.store %sum, %out[%o] : memref<?xf32>
      gpu.return
    }
  }
}
