// --ordering strict on affine loop nests: the outer loop's induction
// variable `%i` is a live-in of the inner loops' regions, and passed through
// the pinning asm it was no longer a valid affine dimension: "'affine.load'
// op operand cannot be used as a dimension id" (adversarial test,
// 2026-11-27, on the first function of upstream's
// mlir/test/Conversion/SCFToGPU/reduction-loop.mlir, Apache-2.0 WITH
// LLVM-exception). Affine ops keep their operands; the rest is pinned.
// RUN: kperf instrument %s --target host --regions loops,iterations --emit mlir
// CHECK: affine.for %[[I:.*]] = 0 to 10 {
// CHECK: affine.for
// CHECK: affine.for
// CHECK: affine.load %{{.*}}[%[[I]], %{{.*}}, %{{.*}} - 1]
func.func @map_to_gpu_inner_dep_unmapped(%mem: memref<10x10x10xf32>) {
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      affine.for %k = 1 to 10 {
         %0 = affine.load %mem[%i, %j, %k - 1] : memref<10x10x10xf32>
         affine.store %0, %mem[%i, %j, %k] : memref<10x10x10xf32>
      }
    }
  }
  return
}
