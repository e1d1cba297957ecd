// ERROR: `scale` is a host kernel (`func.func`), which runs on the host target only (`--target host`; `kperf bench` without `--target cuda`)
// RUN: kperf cost %s --target nvptx
// A host kernel (func.func marked kperf.kernel, as examples/matmul_host.mlir)
// given to a device target: the plain build kperf cost compares against
// used to fail in the pipeline's output ("the instrumented module does not
// verify: no gpu.binary object was produced"), then said only "no kernel
// found"; `kperf bench --target cuda` on examples/bench/axpy.toml said the
// same (2026-11-28). Written for kperf.
module {
  func.func @scale(%x: memref<64xf32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %two = arith.constant 2.0 : f32
    %v = memref.load %x[%c0] : memref<64xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%c0] : memref<64xf32>
    return
  }
}
