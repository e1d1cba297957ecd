; An NVPTX module instrumented for AMD says which target it is for.
; RUN: kperf instrument %s --target amdgpu:gfx942 --regions kernel
; ERROR: the module is for `nvptx64-nvidia-cuda`, not for --target amdgpu:gfx942
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k() {
  ret void
}
