//! Errors of the instrumentation passes. Each names what went wrong and,
//! where there is one, the source location (`file:line:col`).

#[derive(Debug, thiserror::Error)]
pub enum InstrumentError {
    #[error("{file}: not valid MLIR:\n{diagnostics}")]
    Parse { file: String, diagnostics: String },
    #[error("{file}: not valid LLVM IR: {diagnostics}")]
    ParseLlvm { file: String, diagnostics: String },
    #[error("{location}: region `{region}`: {problem}")]
    Unbalanced {
        region: String,
        location: String,
        problem: String,
    },
    #[error("{location}: {message}")]
    At { location: String, message: String },
    #[error("{0}: no kernel found (looked for `gpu.func` kernels, `gpu.launch` bodies, `llvm.func`s marked `nvvm.kernel` or `rocdl.kernel`, or `func.func` on the host target; an `llvm.func` marked only `gpu.kernel` is a device function, emitted as `.func`)")]
    NoKernel(String),
    #[error("invalid option: {0}")]
    Option(String),
    #[error("the profile segments need {needed} bytes of shared memory but only {available} are allowed ({detail})")]
    SharedMemory {
        needed: u64,
        available: u64,
        detail: String,
    },
    #[error("pass pipeline `{pipeline}` failed:\n{diagnostics}")]
    Pipeline {
        pipeline: String,
        diagnostics: String,
    },
    #[error("the instrumented module does not verify:\n{0}")]
    Verify(String),
    #[error("{tool} failed: {message}")]
    Tool { tool: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("internal error in template `{template}`: {diagnostics}")]
    Template {
        template: String,
        diagnostics: String,
    },
}

pub type Result<T, E = InstrumentError> = std::result::Result<T, E>;
