//! The measurement-independent core of `kperf bench`, `kperf roofline` and
//! `kperf peak`.
//!
//! The CLI and the kernel launchers (CUDA events, host JIT) produce raw
//! samples; this crate turns them into decisions and reports. It is kept free
//! of MLIR/LLVM and of the other kperf crates so it builds in seconds and can
//! be tested without a GPU.
//!
//! | module | job |
//! |---|---|
//! | [`stats`] | summaries of one sample set, skew detection, the nvbench-like stopping rule |
//! | [`compare`] | baseline vs new: Mann-Whitney U, bootstrap CI, effect threshold, cycles |
//! | [`flops`] | FLOP and byte formulas (matmul, attention, elementwise, reduction) |
//! | [`expr`] | a small safe evaluator for user FLOP/byte expressions |
//! | [`roofline`] | device peaks, derived metrics, bound classification, SVG plot |
//! | [`results`] | the JSON results schema, the result and comparison tables |
//! | [`host`] | TSC timer, LLC size, cache flusher, CPU frequency |
//! | [`measure`] | the warm-up and sampling loop every launcher uses |
//! | [`nvml`] | GPU clocks, power, temperature, throttle reasons via NVML loaded at run time |
//! | [`progress`] | a progress bar that hides itself when stderr is not a terminal |

pub mod compare;
pub mod error;
pub mod expr;
pub mod flops;
pub mod host;
pub mod measure;
pub mod nvml;
pub mod progress;
pub mod results;
pub mod roofline;
pub mod stats;

pub use error::{BenchError, Result};
