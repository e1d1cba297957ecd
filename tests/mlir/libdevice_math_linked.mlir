// math dialect ops in a kernel: the NVVM lowering calls libdevice
// (__nv_rsqrtf, __nv_sqrtf, __nv_fmaf, ...), which upstream's serializer
// links only from a CUDA toolkit. Without one the PTX named __nv_rsqrtf
// unresolved and ptxas refused the cubin (adversarial test s7h4,
// 2026-11-27); kperf links the libdevice it finds (here Triton's, under
// .tools/).
// RUN: kperf instrument %s --target nvptx:sm_90a --regions kernel --emit ptx
// CHECK-NOT: .extern .func {{.*}}__nv_
// CHECK: .entry k(
// CHECK: rsqrt.approx
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%in: memref<32xf32>, %out: memref<32xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %tid = gpu.thread_id x
      %x = memref.load %in[%tid] : memref<32xf32>
      %one = arith.constant 1.0 : f32
      %x1 = arith.addf %x, %one : f32
      %r = math.rsqrt %x1 : f32
      %f = math.fma %x, %r, %one : f32
      %sq = math.sqrt %x1 : f32
      %ab = math.absf %f : f32
      %cp = math.copysign %ab, %sq : f32
      %c = complex.create %x, %one : complex<f32>
      %cc = complex.mul %c, %c : complex<f32>
      %re = complex.re %cc : complex<f32>
      %i1 = index.constant 3
      %i2 = index.mul %tid, %i1
      %i3 = index.remu %i2, %i1
      %ic = index.casts %i3 : index to i32
      %icf = arith.sitofp %ic : i32 to f32
      %s1 = arith.addf %cp, %re : f32
      %s2 = arith.addf %s1, %icf : f32
      memref.store %s2, %out[%tid] : memref<32xf32>
      gpu.return
    }
  }
}
