// A kernel already in the LLVM dialect: its loop is branches, which the
// loops and iterations modes do not look for. The kernel region is recorded
// and each mode that found nothing says so (it said nothing before).
// RUN: kperf instrument %s --regions kernel,loops,iterations --emit kperfgpu
// WARNING: --regions loops found nothing in `k`: kperf finds loops as `scf.for`
// WARNING: --regions iterations found nothing in `k`
// WARNING: instrument before `convert-scf-to-cf`
// CHECK: kperfgpu.init
// CHECK-COUNT-2: kperfgpu.circular_store
// CHECK-NOT: kperfgpu.circular_store
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.func @k(%out: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 32, 1, 1>} {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %f0 = llvm.mlir.constant(0.0 : f32) : f32
      llvm.br ^head(%c0, %f0 : i32, f32)
    ^head(%i: i32, %acc: f32):
      %done = llvm.icmp "sge" %i, %n : i32
      llvm.cond_br %done, ^exit, ^body
    ^body:
      %x = llvm.sitofp %i : i32 to f32
      %a2 = llvm.fadd %acc, %x : f32
      %i2 = llvm.add %i, %c1 : i32
      llvm.br ^head(%i2, %a2 : i32, f32)
    ^exit:
      llvm.store %acc, %out : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}
