// y = a·x + y over n floats for the host target; each CTA takes a chunk of
// 4096 elements (the last one may be partial, so unaligned n such as 127 or
// 513 exercise the tail). Benchmarked by examples/bench/axpy.toml next to
// its LLVM IR twin axpy.ll.
module {
  func.func @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %n: index) attributes {kperf.kernel} {
    %c1 = arith.constant 1 : index
    %chunk = arith.constant 4096 : index
    %bid = gpu.block_id x
    %lo = arith.muli %bid, %chunk : index
    %hi0 = arith.addi %lo, %chunk : index
    %hi = arith.minui %hi0, %n : index
    scf.for %i = %lo to %hi step %c1 {
      %xv = memref.load %x[%i] : memref<?xf32>
      %yv = memref.load %y[%i] : memref<?xf32>
      %p = arith.mulf %a, %xv : f32
      %s = arith.addf %p, %yv : f32
      memref.store %s, %y[%i] : memref<?xf32>
    }
    return
  }
}
