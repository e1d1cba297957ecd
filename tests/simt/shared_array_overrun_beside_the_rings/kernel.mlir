// Every thread writes one past a 32-float workgroup array (a one-past-the-end
// overrun; adversarial test s7h3, 2026-11-27, written for kperf).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @shm(%out: memref<?xf32>, %off: index, %cnt: index)
        workgroup(%partial : memref<32xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %junk = arith.constant 3.0e+09 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      memref.store %junk, %partial[%tid] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      scf.for %i = %c0 to %cnt step %c1 {
        %j = arith.addi %tid, %i : index
        %k = arith.addi %j, %off : index
        memref.store %junk, %partial[%k] : memref<32xf32, #gpu.address_space<workgroup>>
      } {kperf.region = "scribble"}
      gpu.barrier
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %t = memref.load %partial[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
        memref.store %t, %out[%bid] : memref<?xf32>
      }
      gpu.return
    }
  }
}
