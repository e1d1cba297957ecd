//! IRDL sources of the kperf dialects. Loading them needs an MLIR context,
//! which kperf-instrument owns; this crate only carries the text so that the
//! ABI stays usable without MLIR.

/// Both dialects (`kperf` and `kperfgpu`) as one IRDL module.
pub const SOURCE: &str = include_str!("../irdl/kperf.irdl.mlir");

/// Op names, spelled once.
pub mod ops {
    pub const RECORD: &str = "kperf.record";
    pub const LOCAL_ALLOC: &str = "kperfgpu.local_alloc";
    pub const INIT: &str = "kperfgpu.init";
    pub const READ_COUNTER: &str = "kperfgpu.read_counter";
    pub const CIRCULAR_STORE: &str = "kperfgpu.circular_store";
    pub const STORE_COUNTER: &str = "kperfgpu.store_counter";
    pub const FINALIZE: &str = "kperfgpu.finalize";
}

/// Attribute names the passes read and write.
pub mod attrs {
    /// On any op: bracket it with a region of this name.
    pub const REGION: &str = "kperf.region";
    /// Written by `kperf annotate`: measured figures for a region op.
    pub const MEASURED: &str = "kperf.measured";
}
