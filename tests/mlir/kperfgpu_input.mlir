// Hand-editable kperfgpu input (the output of --emit kperfgpu, here with a
// region renamed by hand) continues through the lowering; the metadata comes
// from the ops themselves.
// RUN: kperf instrument %s --emit mlir
// CHECK: llvm.mlir.global internal @__kperf_smem_reduce() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<1408 x i64>
// CHECK: gpu.func @reduce({{.*}}, %{{.*}}: !llvm.ptr<1>) kernel
// CHECK-NOT: kperfgpu.
// CHECK: nvvm.read.ptx.sreg.clock : i32
// CHECK-NOT: nvvm.barrier0
// CHECK: gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reduce(%arg0: memref<?xf32>, %arg1: memref<?xf32>, %arg2: index) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      "kperfgpu.local_alloc"() {bytes = 8192 : i64, space = "shared"} : () -> ()
      "kperfgpu.init"() {block = "128,1,1", buffer = "shared", counter = "clock32", global_slots = 256 : i32, granularity = "warp", sample_ctas = "all", sample_units = "", slots = 256 : i32, strategy = "circular", units = 4 : i32} : () -> ()
      %0 = "kperfgpu.read_counter"() {counter = "clock32"} : () -> i32
      "kperfgpu.circular_store"(%0) {is_start = true, kind = "kernel", name = "kernel", region_id = 0 : i32, src = "examples/reduce.mlir:6:5"} : (i32) -> ()
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %cst = arith.constant 0.000000e+00 : f32
      %thread_id_x = gpu.thread_id  x
      %block_id_x = gpu.block_id  x
      %1 = arith.muli %block_id_x, %c1024 : index
      %2 = "kperfgpu.read_counter"() {counter = "clock32"} : () -> i32
      "kperfgpu.circular_store"(%2) {is_start = true, kind = "loop", name = "hand_named_loop", parent = 0 : i32, region_id = 1 : i32, src = "examples/reduce.mlir:16:14"} : (i32) -> ()
      %3 = scf.for %arg3 = %thread_id_x to %c1024 step %c128 iter_args(%arg4 = %cst) -> (f32) {
        %11 = arith.addi %1, %arg3 : index
        %12 = memref.load %arg0[%11] : memref<?xf32>
        %13 = arith.addf %arg4, %12 : f32
        scf.yield %13 : f32
      }
      %4 = "kperfgpu.read_counter"() {counter = "clock32"} : () -> i32
      "kperfgpu.circular_store"(%4) {is_start = false, kind = "loop", name = "hand_named_loop", parent = 0 : i32, region_id = 1 : i32, src = "examples/reduce.mlir:16:14"} : (i32) -> ()
      %5 = arith.addi %block_id_x, %c0 : index
      %6 = memref.load %arg1[%5] : memref<?xf32>
      %7 = "kperfgpu.read_counter"() {counter = "clock32"} : () -> i32
      "kperfgpu.circular_store"(%7) {is_start = true, kind = "attribute", name = "accumulate", parent = 0 : i32, region_id = 2 : i32, src = "examples/reduce.mlir:24:14"} : (i32) -> ()
      %8 = arith.addf %6, %3 : f32
      %9 = "kperfgpu.read_counter"() {counter = "clock32"} : () -> i32
      "kperfgpu.circular_store"(%9) {is_start = false, kind = "attribute", name = "accumulate", parent = 0 : i32, region_id = 2 : i32, src = "examples/reduce.mlir:24:14"} : (i32) -> ()
      memref.store %8, %arg1[%5] : memref<?xf32>
      %10 = "kperfgpu.read_counter"() {counter = "clock32"} : () -> i32
      "kperfgpu.circular_store"(%10) {is_start = false, kind = "kernel", name = "kernel", region_id = 0 : i32, src = "examples/reduce.mlir:26:7"} : (i32) -> ()
      "kperfgpu.finalize"() {strategy = "circular"} : () -> ()
      gpu.return
    }
  }
}
