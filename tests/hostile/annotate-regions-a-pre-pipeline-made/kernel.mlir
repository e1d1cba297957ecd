// A transpose as linalg.generic: --pre-pipeline convert-linalg-to-loops makes
// its loops (adversarial test s7h4, 2026-11-27; written for kperf).
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @k(%A: memref<8x8xf32>, %B: memref<8x8xf32>) attributes {kperf.kernel} {
  linalg.generic {indexing_maps = [#id, #tr], iterator_types = ["parallel", "parallel"]} ins(%A : memref<8x8xf32>) outs(%B : memref<8x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}
