// Triton's own IR (TTIR/TTGIR) given as MLIR: refused at its line, with
// where kperf takes Triton kernels from (adversarial test, 2026-11-28).
// RUN: kperf instrument %s --regions kernel
// ERROR: kperf takes the LLVM IR Triton lowers it to
module {
  tt.func public @k(%arg0: !tt.ptr<f32>) {
    tt.return
  }
}
