// A memref.subview in a kernel for --target amdgpu: kperf's ROCDL pipeline
// had no expand-strided-metadata, and the build failed with "LLVM
// Translation failed for operation: builtin.unrealized_conversion_cast"
// (adversarial test s7h4, 2026-11-27; the NVVM build was fine).
// RUN: kperf instrument %s --target amdgpu:gfx942 --regions kernel --emit isa
// CHECK: s_memtime
// CHECK: global_load_dword
// CHECK: global_store_dword
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%in: memref<16x16xf32>, %out: memref<16xf32>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %row = memref.subview %in[%tid, 4] [1, 8] [1, 1] : memref<16x16xf32> to memref<8xf32, strided<[1], offset: ?>>
      %v = memref.load %row[%c0] : memref<8xf32, strided<[1], offset: ?>>
      memref.store %v, %out[%tid] : memref<16xf32>
      gpu.return
    }
  }
}
