; Without a declared block size (and no --block), segments cannot be sized.
; RUN: kperf instrument %s --regions kernel
; ERROR: kernel `k` does not say its block size
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k() {
  ret void
}
