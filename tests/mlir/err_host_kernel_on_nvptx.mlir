// ERROR: no kernel found (looked for `gpu.func` kernels, `gpu.launch` bodies, `llvm.func`s marked `nvvm.kernel` or `rocdl.kernel`, or `func.func` on the host target
// RUN: kperf cost %s --target nvptx
// A host kernel (func.func marked kperf.kernel, as examples/matmul_host.mlir)
// given to a device target: the plain build kperf cost compares against
// used to fail in the pipeline's output ("the instrumented module does not
// verify: no gpu.binary object was produced"). Written for kperf.
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
