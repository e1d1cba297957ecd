// A block-wise sum reduction in upstream dialects: each CTA of 128 threads
// sums a 1024-element chunk with a strided loop, then adds the 128
// partials in shared memory by a tree of barriers, and thread 0 writes the
// CTA's sum to out[block].
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reduce(%in: memref<?xf32>, %out: memref<?xf32>, %n: index)
        workgroup(%partial : memref<128xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c7 = arith.constant 7 : index
      %c64 = arith.constant 64 : index
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
      memref.store %sum, %partial[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      // Strides 64, 32, …, 1: thread t < s adds partial[t + s].
      scf.for %k = %c0 to %c7 step %c1 {
        %s = arith.shrui %c64, %k : index
        %active = arith.cmpi ult, %tid, %s : index
        scf.if %active {
          %j = arith.addi %tid, %s : index
          %x = memref.load %partial[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
          %y = memref.load %partial[%j] : memref<128xf32, #gpu.address_space<workgroup>>
          %xy = arith.addf %x, %y : f32
          memref.store %xy, %partial[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
        }
        gpu.barrier
      } {kperf.region = "tree"}
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %total = memref.load %partial[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
        memref.store %total, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
}
