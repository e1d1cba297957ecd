// A kernel that does nothing: the uninstrumented check must not count its
// own counter reads as the kernel's time (found by an adversarial pass,
// 2026-11-28).
module {
  func.func @empty(%x: memref<?xf32>) attributes {kperf.kernel} {
    return
  }
}
