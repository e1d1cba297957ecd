// --target host --emit llvm on a file with a gpu.launch: the translation failed
// and kperf crashed printing a null module (SIGSEGV, found 2026-11-27); it is
// refused by name, as `kperf run --target host` refuses it.
// RUN: kperf instrument %s --target host --regions kernel --emit llvm
// ERROR: `gpu.launch` has no lowering for the host target
module attributes {gpu.container_module} {
  func.func @host(%m: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %f = arith.constant 2.0 : f32
      memref.store %f, %m[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}
