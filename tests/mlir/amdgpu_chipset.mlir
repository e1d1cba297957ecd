// Issue 16 case 5: the chip reaches convert-gpu-to-rocdl as its chipset, so
// AMDGPU raw buffer ops lower (they failed with "require GCN or higher").
// RUN: kperf instrument %s --target amdgpu:gfx942 --regions kernel --emit isa
// CHECK: s_memtime
// CHECK: buffer_load_dword
// CHECK: s_memtime
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<64xf32>, %out: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %i = arith.constant 3 : i32
      %v = amdgpu.raw_buffer_load {boundsCheck = true} %buf[%i] : memref<64xf32>, i32 -> f32
      memref.store %v, %out[%c0] : memref<64xf32>
      gpu.return
    }
  }
}
