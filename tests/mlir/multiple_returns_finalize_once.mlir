// A cf-style kernel with three gpu.return: each path's store and return.
// Finalize (and the kernel region's END) ran before each return, so LLVM
// could no longer merge the paths' common stores as the plain build does:
// `kperf cost` read 133% of the kernel unexplained (STG 1 -> 3). The
// returns now branch to one exit block holding the END, finalize and the
// one return (found by an adversarial pass, 2026-11-27).
// RUN: kperf instrument %s --regions kernel --emit kperfgpu
// CHECK-COUNT-3: cf.br ^bb5
// CHECK-NOT: gpu.return
// CHECK: ^bb5: // 3 preds
// CHECK-NEXT: read_counter
// CHECK-NEXT: circular_store{{.*}}is_start = false
// CHECK-NEXT: kperfgpu.finalize
// CHECK-NEXT: gpu.return
// CHECK-NOT: kperfgpu.finalize
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k_branches(%out: memref<?xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %c10 = arith.constant 10 : i32
      %c20 = arith.constant 20 : i32
      %lt = arith.cmpi slt, %t, %c10 : i32
      cf.cond_br %lt, ^small, ^big
    ^small:
      %a = arith.addi %t, %c20 : i32
      memref.store %a, %out[%tid] : memref<?xi32>
      gpu.return
    ^big:
      %lt2 = arith.cmpi slt, %t, %c20 : i32
      cf.cond_br %lt2, ^mid, ^end
    ^mid:
      %b = arith.muli %t, %c10 : i32
      memref.store %b, %out[%tid] : memref<?xi32>
      gpu.return
    ^end:
      memref.store %t, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
}
