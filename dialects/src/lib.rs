//! The kperf dialects and the profile-buffer ABI.
//!
//! Two things live here because everything else agrees on them: the IRDL
//! text of the `kperf` (region markers) and `kperfgpu` (counter reads, ring
//! stores, init/finalize) dialects, and [`abi`], the single definition of
//! the per-CTA profile block that instrumented code writes and the decoder
//! reads. This crate has no MLIR dependency, so tools that only decode or
//! replay profiles can use the ABI without linking LLVM.

pub mod abi;
pub mod irdl;
pub mod meta;
