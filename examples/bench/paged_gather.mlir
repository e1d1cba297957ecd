// Paged gather, as a serving engine reads a KV cache: `table` maps each
// logical page to a physical page of `pool` (64 floats per page); the kernel
// copies the pages into `out` in logical order, 64 pages per CTA. Where the
// table points (in order, or scattered) decides the memory locality.
module {
  func.func @paged_gather(%pool: memref<?xf32>, %table: memref<?xi64>, %out: memref<?xf32>, %pages: index) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %bid = gpu.block_id x
    %lo = arith.muli %bid, %c64 : index
    %hi0 = arith.addi %lo, %c64 : index
    %hi = arith.minui %hi0, %pages : index
    scf.for %p = %lo to %hi step %c1 {
      %phys64 = memref.load %table[%p] : memref<?xi64>
      %phys = arith.index_cast %phys64 : i64 to index
      %src = arith.muli %phys, %c64 : index
      %dst = arith.muli %p, %c64 : index
      scf.for %j = %c0 to %c64 step %c1 {
        %s = arith.addi %src, %j : index
        %d = arith.addi %dst, %j : index
        %v = memref.load %pool[%s] : memref<?xf32>
        memref.store %v, %out[%d] : memref<?xf32>
      }
    }
    return
  }
}
