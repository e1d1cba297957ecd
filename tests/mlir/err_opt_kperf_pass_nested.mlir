// kperf's passes inside an op's nested pipeline are refused by name: they
// run on the whole module (adversarial test s7h4, 2026-11-27).
// RUN: kperf opt %s -p gpu.module(canonicalize,kperf-instrument)
// ERROR: kperf's passes run on the whole module, at the pipeline's top level
module attributes {gpu.container_module} {
  func.func @host(%m: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<64xf32>
      memref.store %v, %m[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}
