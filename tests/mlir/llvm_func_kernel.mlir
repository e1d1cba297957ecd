// Kernels already lowered to the LLVM/NVVM dialects (after convert-gpu-to-nvvm) are instrumented too.
// RUN: kperf instrument %s --regions kernel --emit ptx
// CHECK: .entry lowered(
// CHECK: .param .u64 .ptr .global .align 1 lowered_param_1
// CHECK: %clock
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @lowered(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel, nvvm.reqntid = array<i32: 32, 1, 1>} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
