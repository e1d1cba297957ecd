// Written for adversarial testing: gpu.dynamic_shared_memory block reversal.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rev(%in: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 96, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c96 = arith.constant 96 : index
      %c95 = arith.constant 95 : index
      %c0 = arith.constant 0 : index
      %base = arith.muli %bid, %c96 : index
      %g = arith.addi %base, %tid : index
      %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sh = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<96xf32, #gpu.address_space<workgroup>>
      %v = memref.load %in[%g] : memref<?xf32>
      memref.store %v, %sh[%tid] : memref<96xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c95, %tid : index
      %w = memref.load %sh[%r] : memref<96xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%g] : memref<?xf32>
      gpu.return
    }
  }
}
