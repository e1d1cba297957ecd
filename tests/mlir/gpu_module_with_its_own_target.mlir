// A dump taken after `nvvm-attach-target` (a bare `#nvvm.target`: sm_50,
// PTX 4.0) given to kperf: the module got a second target, PTX for the
// first (sm_50, whatever --target said), and a cubin or SIMT build failed
// with duplicate definitions (adversarial test, 2026-11-27). The build is
// --target's.
// RUN: kperf instrument %s --target nvptx:sm_80 --regions kernel --emit ptx
// CHECK: .version 8.0
// CHECK: .target sm_80
// CHECK-NOT: .target
// CHECK: .entry lowered(
// CHECK-NOT: .entry lowered(
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target] {
    llvm.func @lowered(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel, nvvm.reqntid = array<i32: 32, 1, 1>} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
