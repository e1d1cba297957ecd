; A host kernel in LLVM IR (written for kperf's adversarial tests, 2026-11-27): x[i] = 1 for i < n.
define void @k(ptr %x, i64 %n, i64 %bx, i64 %by, i64 %bz, i64 %gx, i64 %gy, i64 %gz) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %p = getelementptr float, ptr %x, i64 %i
  store float 1.0, ptr %p
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
