// Two gpu.modules in one file (from an adversarial pass, 2026-11-27): --emit llvm and
// the SIMT target handed the two modules' bitcode to llvm-dis concatenated
// ("Invalid encoding"); the modules are now linked into one.
module attributes {gpu.container_module} {
  gpu.module @ma {
    gpu.func @k_while(%out: memref<?xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      // collatz-ish: count halvings of t until 0
      %r:2 = scf.while (%x = %t, %n = %c0) : (i32, i32) -> (i32, i32) {
        %ne = arith.cmpi ne, %x, %c0 : i32
        scf.condition(%ne) %x, %n : i32, i32
      } do {
      ^bb0(%x2: i32, %n2: i32):
        %h = arith.shrui %x2, %c1 : i32
        %n3 = arith.addi %n2, %c1 : i32
        scf.yield %h, %n3 : i32, i32
      }
      memref.store %r#1, %out[%tid] : memref<?xi32>
      gpu.return
    }
    gpu.func @k_branches(%out: memref<?xi32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %c10 = arith.constant 10 : i32
      %c20 = arith.constant 20 : i32
      %lt = arith.cmpi slt, %t, %c10 : i32
      cf.cond_br %lt, ^small, ^big
    ^small:
      %a = arith.addi %t, %c20 : i32
      memref.store %a, %out[%tid] : memref<?xi32>
      gpu.return
    ^big:
      %lt2 = arith.cmpi slt, %t, %c20 : i32
      cf.cond_br %lt2, ^mid, ^end
    ^mid:
      %b = arith.muli %t, %c10 : i32
      memref.store %b, %out[%tid] : memref<?xi32>
      gpu.return
    ^end:
      memref.store %t, %out[%tid] : memref<?xi32>
      gpu.return
    }
  }
  gpu.module @mb {
    gpu.func @k_vec(%in: memref<256xf32>, %out: memref<256xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %tid = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %base = arith.muli %tid, %c8 : index
            %v = vector.load %in[%base] : memref<256xf32>, vector<8xf32>
      %two = arith.constant dense<2.0> : vector<8xf32>
      %m = arith.mulf %v, %two : vector<8xf32>
      %s = vector.reduction <add>, %m : vector<8xf32> into f32
      %b = vector.broadcast %s : f32 to vector<8xf32>
      %r = arith.addf %m, %b : vector<8xf32>
      vector.store %r, %out[%base] : memref<256xf32>, vector<8xf32>
      gpu.return
    }
  }
  func.func @main(%o1: memref<?xi32>, %o2: memref<?xi32>, %in: memref<256xf32>, %out: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @ma::@k_while blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%o1 : memref<?xi32>)
    gpu.launch_func @ma::@k_branches blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%o2 : memref<?xi32>)
    gpu.launch_func @mb::@k_vec blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%in : memref<256xf32>, %out : memref<256xf32>)
    return
  }
}
