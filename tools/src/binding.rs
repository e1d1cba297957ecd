//! Binding an instrumented kernel to its `.kperf.json`.
//!
//! `kperf run` sizes the profile buffer from the metadata while the kernel
//! writes the layout compiled into it: metadata that does not describe the
//! IR beside it (edited, stale, from another output) would let the kernel
//! write past the buffer. So `kperf instrument` ends every text output
//! with one comment line,
//!
//! ```text
//! // kperf-metadata sha256=<digest of the .kperf.json> ir-sha256=<digest of the lines above>
//! ```
//!
//! (`;` for LLVM IR), and `kperf run` refuses instrumented IR whose line is
//! missing or does not match both files. Binary outputs (bitcode, cubin)
//! carry no line; the guarded buffers of the host target still catch any
//! access beyond them.

use anyhow::{bail, Result};
use sha2::{Digest, Sha256};
use std::path::Path;

const KEY: &str = "kperf-metadata sha256=";

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The comment leader of a text output, or `None` for a binary one.
fn comment(ir: &[u8]) -> Option<&'static str> {
    if ir.starts_with(b"BC") || ir.starts_with(b"\x7fELF") || ir.contains(&0) {
        return None;
    }
    // LLVM IR: `; ModuleID`, `target triple`, `define`; MLIR and PTX use `//`.
    let text = String::from_utf8_lossy(&ir[..ir.len().min(4096)]);
    let llvm = text.starts_with("; ModuleID")
        || text.lines().any(|l| {
            l.starts_with("target triple")
                || l.starts_with("target datalayout")
                || l.starts_with("source_filename")
        });
    Some(if llvm { ";" } else { "//" })
}

/// `ir` with the binding line for `meta_bytes` appended (text outputs).
pub fn bind(ir: &[u8], meta_bytes: &[u8]) -> Vec<u8> {
    let Some(lead) = comment(ir) else {
        return ir.to_vec();
    };
    let mut out = ir.to_vec();
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    let line = format!("{lead} {KEY}{} ir-sha256={}\n", hex(meta_bytes), hex(&out));
    out.extend_from_slice(line.as_bytes());
    out
}

/// Check that `meta_bytes` (read from `meta_path`) is the metadata
/// `kperf instrument` wrote with `ir` (read from `ir_path`).
pub fn check(ir_path: &Path, ir: &[u8], meta_path: &Path, meta_bytes: &[u8]) -> Result<()> {
    let (ip, mp) = (ir_path.display(), meta_path.display());
    if comment(ir).is_none() {
        eprintln!(
            "kperf: warning: {ip} is binary: kperf cannot check that {mp} describes it; \
             the profile buffer is guarded either way"
        );
        return Ok(());
    }
    let body_end = ir[..ir.len().saturating_sub(1)]
        .iter()
        .rposition(|b| *b == b'\n')
        .map(|i| i + 1)
        .unwrap_or(0);
    let last = String::from_utf8_lossy(&ir[body_end..]);
    let Some(rest) = last.split_once(KEY).map(|(_, r)| r.trim()) else {
        bail!(
            "{mp} lies beside {ip}, but {ip} does not end with kperf's binding line: it was \
             not written with this metadata by `kperf instrument` (stale or foreign metadata?). \
             Remove {mp} to instrument {ip} afresh, or instrument again"
        );
    };
    let (meta_digest, ir_digest) = match rest.split_once(" ir-sha256=") {
        Some((m, i)) => (m.trim(), i.trim()),
        None => bail!("{ip}: malformed kperf binding line `{}`", last.trim()),
    };
    if ir_digest != hex(&ir[..body_end]) {
        bail!("{ip} was changed after `kperf instrument` wrote it: instrument the source again");
    }
    if meta_digest != hex(meta_bytes) {
        bail!(
            "{mp} is not the metadata `kperf instrument` wrote with {ip} (edited, or from \
             another run): the layout it describes may not be the one compiled into the \
             kernel. Instrument again"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_pair_checks_and_any_edit_is_refused() {
        let meta = br#"{"layout":{"units":1,"slots":1024}}"#;
        for (ir, lead) in [
            (&b"module {\n}\n"[..], "//"),
            (
                &b"; ModuleID = 'k'\ndefine void @k() {\n  ret void\n}"[..],
                ";",
            ),
        ] {
            let bound = bind(ir, meta);
            let text = String::from_utf8_lossy(&bound);
            assert!(
                text.lines().last().unwrap_or("").starts_with(lead),
                "{text}"
            );
            let (i, m) = (Path::new("k"), Path::new("k.kperf.json"));
            check(i, &bound, m, meta).expect("bound pair");
            let edited = br#"{"layout":{"units":1,"slots":2}}"#;
            let err = check(i, &bound, m, edited).expect_err("edited metadata");
            assert!(err.to_string().contains("is not the metadata"), "{err}");
            let mut changed = bound.clone();
            changed[0] ^= 1;
            assert!(check(i, &changed, m, meta).is_err());
            assert!(check(i, ir, m, meta).is_err(), "an unbound file");
        }
    }
}
