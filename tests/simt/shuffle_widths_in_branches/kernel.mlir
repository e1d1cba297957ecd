// Written for adversarial testing: gpu.shuffle xor/down/up/idx with widths 16 and 8 on
// the threads below the width (lanes >= width skip them), gpu.subgroup_reduce (full and
// uniform maxsi), gpu.all_reduce with custom regions (or, min) on 64 threads x 2 CTAs.
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @shf(%out: memref<?xi32>) kernel
        attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %c64 = arith.constant 64 : index
      %c8i = arith.constant 8 : index
      %base = arith.muli %bid, %c64 : index
      %g = arith.addi %base, %tid : index
      %t = arith.index_cast %g : index to i32
      %c32 = arith.constant 32 : i32
      %lane = arith.remui %t, %c32 : i32
      %w16 = arith.constant 16 : i32
      %w8 = arith.constant 8 : i32
      %o1 = arith.constant 1 : i32
      %o3 = arith.constant 3 : i32
      %o5 = arith.constant 5 : i32
      %m1 = arith.constant -1 : i32
      %in16 = arith.cmpi ult, %lane, %w16 : i32
      %in8 = arith.cmpi ult, %lane, %w8 : i32
      %sq = arith.muli %t, %t : i32
      // slot 0..3: shuffles of width 16 (lanes < 16), -1 if invalid or skipped
      %r:4 = scf.if %in16 -> (i32, i32, i32, i32) {
        %a, %av = gpu.shuffle xor %sq, %o5, %w16 : i32
        %b, %bv = gpu.shuffle down %sq, %o3, %w16 : i32
        %c, %cv = gpu.shuffle up %sq, %o3, %w16 : i32
        %d, %dv = gpu.shuffle idx %sq, %o5, %w16 : i32
        %a2 = arith.select %av, %a, %m1 : i32
        %b2 = arith.select %bv, %b, %m1 : i32
        %c2 = arith.select %cv, %c, %m1 : i32
        %d2 = arith.select %dv, %d, %m1 : i32
        scf.yield %a2, %b2, %c2, %d2 : i32, i32, i32, i32
      } else {
        scf.yield %m1, %m1, %m1, %m1 : i32, i32, i32, i32
      }
      %s:2 = scf.if %in8 -> (i32, i32) {
        %a, %av = gpu.shuffle xor %sq, %o1, %w8 : i32
        %b, %bv = gpu.shuffle down %sq, %o5, %w8 : i32
        %a2 = arith.select %av, %a, %m1 : i32
        %b2 = arith.select %bv, %b, %m1 : i32
        scf.yield %a2, %b2 : i32, i32
      } else {
        scf.yield %m1, %m1 : i32, i32
      }
      %sr = arith.constant 0 : i32
      %sc = arith.constant 0 : i32
      %ar = gpu.all_reduce %sq uniform {
      ^bb(%lhs : i32, %rhs : i32):
        %x = arith.ori %lhs, %rhs : i32
        gpu.yield %x : i32
      } : (i32) -> (i32)
      %neg = arith.subi %m1, %sq : i32
      %am = gpu.all_reduce %neg uniform {
      ^bb(%lhs : i32, %rhs : i32):
        %x = arith.minsi %lhs, %rhs : i32
        gpu.yield %x : i32
      } : (i32) -> (i32)
      %o = arith.muli %g, %c8i : index
      %i1 = arith.constant 1 : index
      %i2 = arith.constant 2 : index
      %i3 = arith.constant 3 : index
      %i4 = arith.constant 4 : index
      %i5 = arith.constant 5 : index
      %i6 = arith.constant 6 : index
      %i7 = arith.constant 7 : index
      %o1x = arith.addi %o, %i1 : index
      %o2x = arith.addi %o, %i2 : index
      %o3x = arith.addi %o, %i3 : index
      %o4x = arith.addi %o, %i4 : index
      %o5x = arith.addi %o, %i5 : index
      %o6x = arith.addi %o, %i6 : index
      %o7x = arith.addi %o, %i7 : index
      memref.store %r#0, %out[%o] : memref<?xi32>
      memref.store %r#1, %out[%o1x] : memref<?xi32>
      memref.store %r#2, %out[%o2x] : memref<?xi32>
      memref.store %r#3, %out[%o3x] : memref<?xi32>
      memref.store %s#0, %out[%o4x] : memref<?xi32>
      memref.store %s#1, %out[%o5x] : memref<?xi32>
      %sum2 = arith.addi %sr, %sc : i32
      memref.store %sum2, %out[%o6x] : memref<?xi32>
      %ar2 = arith.xori %ar, %am : i32
      memref.store %ar2, %out[%o7x] : memref<?xi32>
      gpu.return
    }
  }
}
