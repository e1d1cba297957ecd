; Not LLVM IR at all: the parser's message with its line and column.
; RUN: kperf instrument %s
; ERROR: err_not_llvm.ll: not valid LLVM IR
module {
  func.func @k() { return }
}
