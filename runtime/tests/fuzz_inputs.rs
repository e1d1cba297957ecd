//! Fuzzing the other readers kperf trusts (issue 17): launch specs and the
//! `.kperf.json` metadata, from the repository's examples with random byte
//! mutations and truncations. Parsing, validation and buffer preparation
//! must return `Ok` or `Err`, never panic, and never allocate beyond the
//! memory limit (set low here).
//!
//! Cases per property: `PROPTEST_CASES` (default 256), e.g. a long run:
//! `PROPTEST_CASES=100000 cargo test -p kperf-runtime --release --test fuzz_inputs`.

use kperf_dialects::meta::InstrumentMeta;
use kperf_runtime::host::{prepare_args, Param};
use kperf_runtime::spec::LaunchSpec;
use proptest::prelude::*;
use std::path::Path;

fn repo_file(rel: &str) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Apply `(position, byte)` edits and cut at `cut` (a fraction of the length).
fn mutate(seed: &[u8], edits: &[(usize, u8)], cut: Option<f64>) -> Vec<u8> {
    let mut b = seed.to_vec();
    for (pos, byte) in edits {
        if !b.is_empty() {
            let i = pos % b.len();
            b[i] = *byte;
        }
    }
    if let Some(f) = cut {
        b.truncate((b.len() as f64 * f) as usize);
    }
    b
}

/// Printable bytes and the characters TOML and JSON care about, so
/// mutations reach the validators rather than stopping at UTF-8.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        prop::sample::select(b"0123456789-+.eE[]{},=\"' \nxyzinfa".to_vec()),
        any::<u8>(),
    ]
}

fn params() -> Vec<Param> {
    [
        "memref<64x64xf32>",
        "memref<64x64xf32>",
        "memref<64x64xf32>",
    ]
    .iter()
    .map(|t| Param::parse(t).expect("param"))
    .collect()
}

proptest! {
    #[test]
    fn mutated_launch_specs_are_refused_or_prepared(
        edits in prop::collection::vec((any::<usize>(), byte()), 0..6),
        cut in prop::option::of(0.0f64..1.0),
    ) {
        // Low, so that a mutated shape cannot make the test allocate gigabytes.
        std::env::set_var("KPERF_MEMORY_LIMIT", "64M");
        let text = mutate(&repo_file("examples/matmul_host.toml"), &edits, cut);
        let Ok(text) = String::from_utf8(text) else { return Ok(()) };
        let Ok(spec) = toml::from_str::<LaunchSpec>(&text) else { return Ok(()) };
        if spec.validate().is_err() {
            return Ok(());
        }
        // Whatever validates either prepares within the limit or says why not.
        let _ = prepare_args("matmul", &params(), &spec);
    }

    #[test]
    fn mutated_metadata_never_panics_sizing_a_buffer(
        edits in prop::collection::vec((any::<usize>(), byte()), 0..6),
        cut in prop::option::of(0.0f64..1.0),
        grid in any::<u32>(),
    ) {
        let seed = repo_file("tests/hostile/fixtures/matmul_host.kperf.json");
        let bytes = mutate(&seed, &edits, cut);
        let Ok(meta) = serde_json::from_slice::<InstrumentMeta>(&bytes) else { return Ok(()) };
        let _ = meta.abi_mismatch();
        for k in &meta.kernels {
            let _ = k.layout.checked_cta_stride();
            let _ = k.checked_buffer_bytes(grid as u64);
        }
    }
}
