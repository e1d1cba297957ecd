// 499 iterations of 64 dependent float operations: an iteration is several records long.
// Truth: the same launch run uninstrumented (`kperf run` times it unless --no-check).
module {
  func.func @loop_long(%x: memref<?xf32>) attributes {kperf.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 499 : index
    %m = arith.constant 0.999 : f32
    %b = arith.constant 0.001 : f32
    %bid = gpu.block_id x
    %v0 = memref.load %x[%bid] : memref<?xf32>
    %v = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %v0) -> (f32) {
      %t0 = arith.mulf %acc, %m : f32
      %t1 = arith.addf %t0, %b : f32
      %t2 = arith.mulf %t1, %m : f32
      %t3 = arith.addf %t2, %b : f32
      %t4 = arith.mulf %t3, %m : f32
      %t5 = arith.addf %t4, %b : f32
      %t6 = arith.mulf %t5, %m : f32
      %t7 = arith.addf %t6, %b : f32
      %t8 = arith.mulf %t7, %m : f32
      %t9 = arith.addf %t8, %b : f32
      %t10 = arith.mulf %t9, %m : f32
      %t11 = arith.addf %t10, %b : f32
      %t12 = arith.mulf %t11, %m : f32
      %t13 = arith.addf %t12, %b : f32
      %t14 = arith.mulf %t13, %m : f32
      %t15 = arith.addf %t14, %b : f32
      %t16 = arith.mulf %t15, %m : f32
      %t17 = arith.addf %t16, %b : f32
      %t18 = arith.mulf %t17, %m : f32
      %t19 = arith.addf %t18, %b : f32
      %t20 = arith.mulf %t19, %m : f32
      %t21 = arith.addf %t20, %b : f32
      %t22 = arith.mulf %t21, %m : f32
      %t23 = arith.addf %t22, %b : f32
      %t24 = arith.mulf %t23, %m : f32
      %t25 = arith.addf %t24, %b : f32
      %t26 = arith.mulf %t25, %m : f32
      %t27 = arith.addf %t26, %b : f32
      %t28 = arith.mulf %t27, %m : f32
      %t29 = arith.addf %t28, %b : f32
      %t30 = arith.mulf %t29, %m : f32
      %t31 = arith.addf %t30, %b : f32
      %t32 = arith.mulf %t31, %m : f32
      %t33 = arith.addf %t32, %b : f32
      %t34 = arith.mulf %t33, %m : f32
      %t35 = arith.addf %t34, %b : f32
      %t36 = arith.mulf %t35, %m : f32
      %t37 = arith.addf %t36, %b : f32
      %t38 = arith.mulf %t37, %m : f32
      %t39 = arith.addf %t38, %b : f32
      %t40 = arith.mulf %t39, %m : f32
      %t41 = arith.addf %t40, %b : f32
      %t42 = arith.mulf %t41, %m : f32
      %t43 = arith.addf %t42, %b : f32
      %t44 = arith.mulf %t43, %m : f32
      %t45 = arith.addf %t44, %b : f32
      %t46 = arith.mulf %t45, %m : f32
      %t47 = arith.addf %t46, %b : f32
      %t48 = arith.mulf %t47, %m : f32
      %t49 = arith.addf %t48, %b : f32
      %t50 = arith.mulf %t49, %m : f32
      %t51 = arith.addf %t50, %b : f32
      %t52 = arith.mulf %t51, %m : f32
      %t53 = arith.addf %t52, %b : f32
      %t54 = arith.mulf %t53, %m : f32
      %t55 = arith.addf %t54, %b : f32
      %t56 = arith.mulf %t55, %m : f32
      %t57 = arith.addf %t56, %b : f32
      %t58 = arith.mulf %t57, %m : f32
      %t59 = arith.addf %t58, %b : f32
      %t60 = arith.mulf %t59, %m : f32
      %t61 = arith.addf %t60, %b : f32
      %t62 = arith.mulf %t61, %m : f32
      %t63 = arith.addf %t62, %b : f32
      scf.yield %t63 : f32
    }
    memref.store %v, %x[%bid] : memref<?xf32>
    return
  }
}
