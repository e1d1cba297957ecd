// Issue 16 case 1: several top-level ops (an implicit module, as most
// upstream MLIR GPU tests are written) are wrapped like mlir-opt does; line
// numbers in locations stay the file's own.
// RUN: kperf instrument %s --regions kernel,loops --emit kperfgpu
// CHECK: module attributes {gpu.container_module}
// CHECK: func.func @main
// CHECK: gpu.func @k
// CHECK: "kperfgpu.init"
// CHECK: loop@18:5
func.func @main(%m: memref<64xf32>) {
  return
}
gpu.module @kernels {
  gpu.func @k(%buf: memref<64xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %buf[%i] : memref<64xf32>
      memref.store %v, %buf[%c0] : memref<64xf32>
    }
    gpu.return
  }
}
