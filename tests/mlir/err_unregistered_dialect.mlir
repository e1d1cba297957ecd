// An op of mlir-opt's test dialect, as upstream's GPU tests use with
// -allow-unregistered-dialect: MLIR's error names that option, which kperf
// does not have; kperf says what to do instead (adversarial test,
// 2026-11-28, on upstream's mlir/test/Dialect/GPU/outlining.mlir).
// RUN: kperf instrument %s --regions kernel
// ERROR: kperf parses only registered dialects
func.func @f() {
  "test.use"() : () -> ()
  return
}
