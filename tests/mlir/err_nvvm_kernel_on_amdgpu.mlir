// A kernel already lowered to NVVM given --target amdgpu: LLVM stopped
// kperf with a bare "LLVM ERROR: unsupported calling convention", no file
// or line (adversarial test, 2026-11-27).
// RUN: kperf instrument %s --target amdgpu:gfx942 --regions kernel --emit isa
// ERROR: kernel `lowered` is already lowered for NVIDIA (NVVM) (`nvvm.kernel`), and --target amdgpu:gfx942 builds for the other vendor
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @lowered(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel, nvvm.reqntid = array<i32: 32, 1, 1>} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
