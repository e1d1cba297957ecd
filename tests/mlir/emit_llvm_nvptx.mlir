// --emit llvm for NVPTX: the optimized device module as LLVM IR (from the bitcode the
// serializer produces), with the profile pointer as the last kernel parameter.
// RUN: kperf instrument %s --regions kernel --emit llvm
// CHECK: target triple = "nvptx64-nvidia-cuda"
// CHECK: define ptx_kernel void @k({{.*}}, ptr addrspace(1) {{.*}}%6)
// CHECK: call i32 @llvm.nvvm.read.ptx.sreg.clock()
// CHECK: st.shared.v2.b32
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%buf: memref<1024xf32>, %n: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      %v = memref.load %buf[%c0] : memref<1024xf32>
      %w = arith.mulf %v, %f {kperf.region = "scale"} : f32
      memref.store %w, %buf[%c0] : memref<1024xf32>
      gpu.return
    }
  }
}
