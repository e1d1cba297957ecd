// The host target: a func.func kernel gets the profile pointer after its own
// arguments and six index arguments (block x,y,z, grid x,y,z) replacing
// gpu.block_id/gpu.grid_dim; records read the cycle counter (`rdtscp; lfence` on x86).
// RUN: kperf instrument %s --target host --regions kernel --emit llvm
// CHECK: define void @k(ptr {{.*}}, ptr {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}}, ptr {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}}, i64 {{.*}})
// CHECK: call i64 @kperf_host_now_ns()
// CHECK: call { i32, i32 } asm sideeffect "rdtscp; lfence", "={eax},={edx},~{ecx}"()
// CHECK: define void @_mlir_ciface_k(
module {
  func.func @k(%buf: memref<16xf32>) attributes {kperf.kernel} {
    %b = gpu.block_id x
    %f = arith.index_cast %b : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %buf[%b] : memref<16xf32>
    return
  }
}
