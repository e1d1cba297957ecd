// Host code that upstream's RUN lines lower first (`mlir-opt
// -convert-linalg-to-loops`, as in the sm_90 gemm tests): `--pre-pipeline`
// runs those passes on the input in the plain and instrumented builds
// alike, before kperf's own. Without it the host `linalg.matmul` reaches
// the upstream lowering as it is, which fails.
// RUN: kperf instrument %s --pre-pipeline convert-linalg-to-loops --regions kernel --emit ptx
// CHECK: .entry main_kernel(
// CHECK: mov.u32 {{.*}}%clock;
// CHECK: ld.global.b32
module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f32
    %m = memref.alloc() : memref<64xf32>
    %a = memref.alloc() : memref<8x8xf32>
    %c = memref.alloc() : memref<8x8xf32>
    linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      %v = memref.load %m[%tx] : memref<64xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%tx] : memref<64xf32>
      gpu.terminator
    }
    return
  }
}
