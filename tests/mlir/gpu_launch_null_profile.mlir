// A host program that launches the kernel passes a null profile pointer at
// gpu.launch_func (kperf launches kernels itself); the whole module lowers.
// RUN: kperf instrument %s --regions kernel --emit mlir
// CHECK: [[Z:%[0-9]+]] = llvm.mlir.zero : !llvm.ptr<1>
// CHECK-NEXT: gpu.launch_func @host_kernel::@host_kernel {{.*}} args({{.*}}, [[Z]] : !llvm.ptr<1>)
// CHECK: gpu.func @host_kernel({{.*}}, %{{.*}}: !llvm.ptr<1>) kernel
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
