// Issue 16 case 11 on the MLIR path, in the shape of upstream MLIR's sm_90
// printf tests (a gpu.launch whose body prints special registers and does
// nothing else; written for kperf): the kernel calls vprintf without
// touching global memory before, so ptxas's call ABI makes finalize take
// the global memory descriptor through R2UR for each copy-out store. The
// hollow reference calls vprintf too and agrees with the kernel's fixed
// cost (85 against 88; a bare-return reference read 61).
// tools/tests/mlir_fidelity.rs also measures it in every region mode.
// RUN: kperf cost %s --regions kernel --json
// CHECK: "kernel": "main_kernel",
// CHECK: "fixed": {{8[0-9]}}.0,
// CHECK: "fixed_reference": {{(8[0-9]|9[0-5])}}.0,
// CHECK-NEXT: "calls_functions": true,
module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c4, %g1 = %c1, %g2 = %c1)
               threads(%t0, %t1, %t2) in (%s0 = %c4, %s1 = %c1, %s2 = %c1) {
      %n = nvvm.read.ptx.sreg.ntid.x : i32
      %t = nvvm.read.ptx.sreg.tid.x : i32
      %c = nvvm.read.ptx.sreg.clusterid.x : i32
      %d = nvvm.read.ptx.sreg.nclusterid.x : i32
      gpu.printf "ntid %d tid %d cluster %d of %d\n", %n, %t, %c, %d : i32, i32, i32, i32
      gpu.terminator
    }
    return
  }
}
