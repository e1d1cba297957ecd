//! Region insertion and lowering: the compiler half of kperf.
//!
//! Given a kernel in MLIR (gpu.launch bodies, gpu.func, llvm.func after
//! convert-gpu-to-nvvm, or func.func for the host), this crate finds the
//! regions to measure (explicit `kperf.record` ops, `kperf.region`
//! attributes, automatic modes), checks they are balanced, lowers them to the
//! GPU-level `kperfgpu` ops and then to clock reads and ring stores that
//! follow the buffer ABI in kperf-dialects, and emits MLIR, LLVM IR, PTX,
//! cubin or AMDGPU ISA together with the `.kperf.json` metadata.

pub mod cost;
pub mod error;
pub mod llvm;
pub mod mlir;
pub mod options;
pub mod plan;
pub mod registers;
pub mod sass_dataflow;
pub mod sass_loops;
pub mod tools;

pub use error::{InstrumentError, Result};

/// SHA-256 of a kernel's source text, hex, as the metadata records it.
pub fn source_digest(source: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(source)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
pub use mlir::pipeline::{instrument, Output};
pub use mlir::KperfContext;
pub use options::{Emit, InstrumentOptions, RegionMode, Target};
