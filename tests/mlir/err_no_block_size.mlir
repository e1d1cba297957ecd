// ERROR: does not say its block size
// RUN: kperf instrument %s --regions kernel
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
