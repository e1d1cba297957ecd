// Issue 16 case 8: a kernel whose block size appears only as constants of
// the host's gpu.launch_func in the same file takes it from there instead
// of asking for --block.
// RUN: kperf instrument %s --regions kernel --emit kperfgpu
// CHECK: gpu.func @k
// CHECK: "kperfgpu.init"
// CHECK: block = "96,1,1"
module attributes {gpu.container_module} {
  func.func @main(%buf: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c96 = arith.constant 96 : index
    gpu.launch_func @m::@k blocks in (%c1, %c1, %c1) threads in (%c96, %c1, %c1) args(%buf : memref<64xf32>)
    return
  }
  gpu.module @m {
    gpu.func @k(%buf: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %buf[%c0] : memref<64xf32>
      memref.store %v, %buf[%c0] : memref<64xf32>
      gpu.return
    }
  }
}
