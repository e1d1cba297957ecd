// Warp 0 of every CTA leaves at once, before the first barrier; warps 1-3
// stage x in shared memory and, over 8 iterations with a barrier each, sum
// 8 neighbours: y[i] = sum over k < 8 of x[b·128 + 32 + (t - 32 + k) mod 96]
// for threads t >= 32 of block b; y stays 0 for warp 0.
//
// What it guards: the leaving threads finalize while the others still
// record. A finalize that waits at a CTA barrier (bar.sync 0) pairs with
// the workers' first gpu.barrier instead, and a copy-out shared by all
// threads then copies the workers' rings before they are written.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @rotate(%x: memref<?xf32>, %y: memref<?xf32>)
        workgroup(%sm: memref<128xf32, #gpu.address_space<workgroup>>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c32 = arith.constant 32 : index
      %early = arith.cmpi ult, %tid, %c32 : index
      cf.cond_br %early, ^leave, ^work
    ^leave:
      gpu.return
    ^work:
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c96 = arith.constant 96 : index
      %c128 = arith.constant 128 : index
      %zero = arith.constant 0.0 : f32
      %base = arith.muli %bid, %c128 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %x[%i] : memref<?xf32>
      memref.store %v, %sm[%tid] : memref<128xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = arith.subi %tid, %c32 : index
      %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
        %j0 = arith.addi %w, %k : index
        %j1 = arith.remui %j0, %c96 : index
        %j = arith.addi %j1, %c32 : index
        %e = memref.load %sm[%j] : memref<128xf32, #gpu.address_space<workgroup>>
        %a = arith.addf %acc, %e : f32
        gpu.barrier
        scf.yield %a : f32
      }
      memref.store %s, %y[%i] : memref<?xf32>
      gpu.return
    }
  }
}
