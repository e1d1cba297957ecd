// A linalg.generic on the host target without its lowering: the error
// advised --target simt, which runs GPU kernels only (adversarial test
// s7h4, 2026-11-27). It names the lowering the file needs.
// RUN: kperf instrument %s --target host --regions kernel --emit llvm
// ERROR: `linalg.generic` has no lowering for the host target (it is still there after the host lowering, and the JIT cannot compile it); lower it first with --pre-pipeline convert-linalg-to-loops
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @k(%A: memref<8x8xf32>, %B: memref<8x8xf32>) attributes {kperf.kernel} {
  linalg.generic {indexing_maps = [#id, #tr], iterator_types = ["parallel", "parallel"]} ins(%A : memref<8x8xf32>) outs(%B : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
