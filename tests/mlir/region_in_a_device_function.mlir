// A kperf.region attribute on a loop in a device function the kernel calls:
// regions are recorded in kernels only, and the attribute vanished without
// a word (adversarial test s7h4, 2026-11-27). A warning names it.
// RUN: kperf instrument %s --regions kernel --emit ptx
// WARNING: `kperf.region = "rowsum_loop"` on `scf.for` is in `rowsum`, not in a kernel: it is not recorded
// CHECK: .entry k(
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @rowsum(%A: memref<32x8xf32>, %i: index) -> f32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %z = arith.constant 0.0 : f32
      %s = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %z) -> (f32) {
        %v = memref.load %A[%i, %j] : memref<32x8xf32>
        %n = arith.addf %a, %v : f32
        scf.yield %n : f32
      } {kperf.region = "rowsum_loop"}
      return %s : f32
    }
    gpu.func @k(%A: memref<32x8xf32>, %out: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %tid = gpu.thread_id x
      %a = func.call @rowsum(%A, %tid) : (memref<32x8xf32>, index) -> f32
      %b = func.call @rowsum(%A, %tid) : (memref<32x8xf32>, index) -> f32
      %s = arith.addf %a, %b : f32
      memref.store %s, %out[%tid] : memref<32xf32>
      gpu.return
    }
  }
}
