// ERROR: an `llvm.func` marked only `gpu.kernel` is a device function, emitted as `.func`
// RUN: kperf instrument %s --target nvptx:sm_80 --block 32 --regions kernel --emit ptx
// An llvm.func marked `gpu.kernel` without `nvvm.kernel` (upstream's
// dump-ptx integration test): NVVM emits it as `.func kernel_a()`, a device
// function no launch can start. kperf used to instrument it as a kernel,
// append a profile parameter and list it in the metadata; it must refuse
// the file as having no kernel, and say why.
// From LLVM 22.1.8 mlir/test/Integration/GPU/CUDA/dump-ptx.mlir
// (Apache-2.0 WITH LLVM-exception), trimmed to its first module.
gpu.module @bar {
  llvm.func @kernel_a()
    attributes  { gpu.kernel } {
    llvm.return
  }
}
