// Issue 16 case 1 with alias definitions: upstream's sm_90 tests define
// type aliases (`!lhs = !nvgpu.tensormap.descriptor<...>`, over several
// lines) and `#map`s before their top-level ops. They must stay outside
// the implicit module; kperf moves them ahead of it on line 1, so every
// op keeps its line (the loop below is at line 23).
// RUN: kperf instrument %s --regions kernel,loops --emit kperfgpu
// CHECK: gpu.func @k(%{{.*}}: memref<64xf32>
// CHECK: "kperfgpu.init"
// CHECK: loop@23:5
!buf = memref<64xf32>
#id = affine_map<(d0) -> (d0)>
!wide = vector<
  4xf32>  // a comment inside a definition
func.func @main(%m: !buf) {
  return
}
gpu.module @kernels {
  gpu.func @k(%buf: !buf) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant dense<0.0> : !wide
    scf.for %i = %c0 to %c4 step %c1 {
      %j = affine.apply #id(%i)
      %v = memref.load %buf[%j] : !buf
      memref.store %v, %buf[%c0] : !buf
    }
    gpu.return
  }
}
