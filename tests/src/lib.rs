//! Cross-crate tests: the host target runs instrument → JIT → decode end to
//! end and checks what the code must produce (see `tests/`). The MLIR pass
//! tests live in `tests/mlir/` and are run by `tools/tests/pass_tests.rs`.
