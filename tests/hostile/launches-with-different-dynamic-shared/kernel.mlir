// One kernel launched twice, with 384 and 768 B of dynamic shared memory
// (adversarial test s9h7, 2026-11-27; written for kperf).
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%in: memref<96xf32>, %out: memref<96xf32>) kernel attributes {known_block_size = array<i32: 96, 1, 1>} {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c95 = arith.constant 95 : index
      %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sh = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<96xf32, #gpu.address_space<workgroup>>
      %v = memref.load %in[%tx] : memref<96xf32>
      memref.store %v, %sh[%tx] : memref<96xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c95, %tx : index
      %w = memref.load %sh[%r] : memref<96xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%tx] : memref<96xf32>
      gpu.return
    }
  }
  func.func @main(%in: memref<96xf32>, %out: memref<96xf32>) {
    %c1 = arith.constant 1 : index
    %c96 = arith.constant 96 : index
    %b = arith.constant 384 : i32
    %b2 = arith.constant 768 : i32
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1) dynamic_shared_memory_size %b args(%in : memref<96xf32>, %out : memref<96xf32>)
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1) dynamic_shared_memory_size %b2 args(%in : memref<96xf32>, %out : memref<96xf32>)
    return
  }
}
