// y[i] = 2 x[i] for i < n, in CTAs of 64 threads; the threads past n leave
// through a second gpu.return. With n = 150 and 3 CTAs, CTA 2 has 22
// working threads and 42 that return at once: the profile must still be
// finalized exactly once per thread, and the run must finish.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @tail(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c64 = arith.constant 64 : index
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %tid : index
      %past = arith.cmpi uge, %i, %n : index
      cf.cond_br %past, ^leave, ^work
    ^leave:
      gpu.return
    ^work:
      %v = memref.load %x[%i] : memref<?xf32>
      %two = arith.constant 2.0 : f32
      %w = arith.mulf %v, %two : f32
      memref.store %w, %y[%i] : memref<?xf32>
      gpu.return
    }
  }
}
