// 230000 B of dynamic shared memory, near sm_90a's 227 KiB: kperf's rings go to
// global memory (adversarial test s9h7, 2026-11-27; written for kperf).
module attributes {gpu.container_module} {
  func.func @main(%in: memref<288xf32>, %out: memref<288xf32>) {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c96 = arith.constant 96 : index
    %bytes = arith.constant 230000 : i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c96, %sy = %c1, %sz = %c1)
               dynamic_shared_memory_size %bytes {
      %c0 = arith.constant 0 : index
      %c95 = arith.constant 95 : index
      %base = arith.muli %bx, %c96 : index
      %g = arith.addi %base, %tx : index
      %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %sh = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<96xf32, #gpu.address_space<workgroup>>
      %v = memref.load %in[%g] : memref<288xf32>
      memref.store %v, %sh[%tx] : memref<96xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c95, %tx : index
      %w = memref.load %sh[%r] : memref<96xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%g] : memref<288xf32>
      gpu.terminator
    }
    return
  }
}
