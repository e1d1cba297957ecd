@fp = global ptr @k
define void @k(ptr %x, i64 %n, i64 %bx, i64 %by, i64 %bz, i64 %gx, i64 %gy, i64 %gz) {
entry:
  %c = icmp eq i64 %n, 0
  br i1 %c, label %done, label %rec
rec:
  %m = sub i64 %n, 1
  %f = load ptr, ptr @fp
  call void %f(ptr %x, i64 %m, i64 %bx, i64 %by, i64 %bz, i64 %gx, i64 %gy, i64 %gz)
  br label %done
done:
  ret void
}
