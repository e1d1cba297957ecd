//! Launching instrumented kernels and reading their profiles.
//!
//! kperf-runtime owns everything between an instrumented module and a
//! decoded profile: the `.kprof` raw-profile file ([`kprof`]), the decoder
//! that turns a device buffer into per-CTA, per-unit records ([`decode`],
//! built on the one ABI in kperf-dialects), the importer for Proton's host
//! dumps ([`proton`]), launch specs ([`spec`]), the launchers ([`host`]
//! JIT, [`cuda`]) and the per-target [`calibrate`] of record cost and clock rate.

pub mod calibrate;
#[cfg(feature = "launch")]
pub mod cuda;
#[cfg(feature = "launch")]
pub mod cuda_bench;
pub mod decode;
pub mod error;
pub mod guard;
#[cfg(feature = "launch")]
pub mod host;
#[cfg(feature = "launch")]
pub mod host_llvm;
pub mod input;
#[cfg(feature = "launch")]
pub mod isolate;
pub mod jitdump;
pub mod kprof;
pub mod launch_error;
pub mod output;
#[cfg(feature = "launch")]
pub mod peak;
pub mod profile;
pub mod proton;
pub mod rank;
pub mod raw;
#[cfg(feature = "launch")]
pub mod simt;
#[cfg(feature = "launch")]
pub mod spec;
pub mod synthetic;

pub use decode::{decode_block, encode_block, BlockHead, BlockRead, DecodeParams, ProfileReader};
pub use error::RuntimeError;
pub use kprof::write_kprof;
pub use launch_error::LaunchError;

/// `v` as a person reads it: `1e300`, not three hundred digits.
pub fn short_number(v: f64) -> String {
    if v.is_finite() && v != 0.0 && !(1e-6..1e15).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}
