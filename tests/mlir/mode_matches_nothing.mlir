// Issue 16 case 7: a mode that finds nothing (no loop here) leaves the
// kernel exactly as it was: no init, finalize, ring or profile parameter
// (it used to add 9 registers, 8 KiB of shared memory and a barrier), and
// the metadata lists it as uninstrumented.
// RUN: kperf instrument %s --regions loops --emit kperfgpu
// CHECK: gpu.func @k(%arg0: memref<64xf32>) kernel
// CHECK-NOT: kperfgpu
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %buf[%c0] : memref<64xf32>
      memref.store %v, %buf[%c0] : memref<64xf32>
      gpu.return
    }
  }
}
