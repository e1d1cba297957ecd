// ERROR: err_syntax.mlir:4:3: Dialect `bogus' not found
// RUN: kperf instrument %s
module {
  bogus.op
}
