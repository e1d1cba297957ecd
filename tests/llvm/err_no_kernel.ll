; A module with functions but no kernel.
; RUN: kperf instrument %s --regions kernel
; ERROR: no kernel found: no `ptx_kernel` function
target triple = "nvptx64-nvidia-cuda"
define void @helper() {
  ret void
}
