// Written for kperf: two gpu.all_reduce in a hand-outlined gpu.func (no host
// code: the block size comes from known_block_size), one with a region (the
// reducer block: signed max) and one built-in (add), over 40 threads:
// out = [max, sum] of the thread ids = [39, 780].
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sum_ids(%out: memref<2xi32>) kernel attributes {known_block_size = array<i32: 40, 1, 1>} {
      %tx = gpu.thread_id x
      %t = arith.index_cast %tx : index to i32
      %max = gpu.all_reduce %t uniform {
      ^bb(%lhs : i32, %rhs : i32):
        %r = arith.maxsi %lhs, %rhs : i32
        gpu.yield %r : i32
      } : (i32) -> (i32)
      %sum = gpu.all_reduce add %t uniform {} : (i32) -> (i32)
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : index
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        memref.store %max, %out[%c0] : memref<2xi32>
        memref.store %sum, %out[%one] : memref<2xi32>
      }
      gpu.return
    }
  }
}
