//! Errors of launching a kernel: spec, argument, JIT and driver problems.
//! Kept apart from [`crate::RuntimeError`], whose variants all describe a
//! place in a profile file.

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: bad launch spec: {message}")]
    Spec { path: String, message: String },
    #[error("launch: {0}")]
    Launch(String),
    /// A calibration file (`kperf calibrate`'s output) that cannot be used.
    #[error("{path}: bad calibration: {message}")]
    Calibration { path: String, message: String },
    /// The kernel wrote outside a buffer without reaching a guard page
    /// (found by the canary after the launch); the process exits with
    /// [`crate::guard::OUT_OF_BOUNDS_EXIT`], as for a guard-page fault.
    #[error("{0}")]
    OutOfBounds(String),
    /// The SIMT runner stopped the kernel: its threads deadlocked, or it
    /// used a barrier the hardware does not have (`kperf` exits with
    /// status 4).
    #[error("{0}")]
    Deadlock(String),
    #[error("no CUDA driver: {0}")]
    NoDriver(String),
    #[error("CUDA: {0}")]
    Cuda(String),
}
