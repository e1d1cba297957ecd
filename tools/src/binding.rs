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
//! missing or does not match both files. Bitcode has no comments: it
//! carries the metadata's digest as named metadata (`!kperf.binding`),
//! which binds the metadata to the module but cannot see later edits to
//! the module itself. A cubin is not run on the host and carries nothing;
//! the guarded buffers of the host target catch any access beyond them.

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

/// What an output is, as far as binding goes.
enum Kind {
    /// Text with this comment leader.
    Text(&'static str),
    Bitcode,
    /// ELF (a cubin): nothing to bind into.
    Elf,
}

fn kind(ir: &[u8]) -> Kind {
    if kperf_instrument::llvm::is_bitcode(ir) {
        Kind::Bitcode
    } else if ir.starts_with(b"\x7fELF") {
        Kind::Elf
    } else {
        // Text, even with stray NUL bytes: such a file is checked as text,
        // and fails the check, rather than waved through as binary.
        Kind::Text(comment(ir))
    }
}

/// The comment leader of a text output.
fn comment(ir: &[u8]) -> &'static str {
    // LLVM IR: `; ModuleID`, `target triple`, `define`; MLIR and PTX use `//`.
    let text = String::from_utf8_lossy(&ir[..ir.len().min(4096)]);
    let llvm = text.starts_with("; ModuleID")
        || text.lines().any(|l| {
            l.starts_with("target triple")
                || l.starts_with("target datalayout")
                || l.starts_with("source_filename")
        });
    if llvm {
        ";"
    } else {
        "//"
    }
}

/// `ir` bound to `meta_bytes`: the binding line appended to text, the
/// named metadata added to bitcode; a cubin unchanged.
pub fn bind(ir: &[u8], meta_bytes: &[u8], file: &str) -> Result<Vec<u8>> {
    let lead = match kind(ir) {
        Kind::Text(lead) => lead,
        Kind::Bitcode => {
            let binding = format!("{KEY}{}", hex(meta_bytes));
            return Ok(kperf_instrument::llvm::bind_bitcode(ir, &binding, file)?);
        }
        Kind::Elf => return Ok(ir.to_vec()),
    };
    let mut out = ir.to_vec();
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    let line = format!("{lead} {KEY}{} ir-sha256={}\n", hex(meta_bytes), hex(&out));
    out.extend_from_slice(line.as_bytes());
    Ok(out)
}

/// Check that `meta_bytes` (read from `meta_path`) is the metadata
/// `kperf instrument` wrote with `ir` (read from `ir_path`).
pub fn check(ir_path: &Path, ir: &[u8], meta_path: &Path, meta_bytes: &[u8]) -> Result<()> {
    let (ip, mp) = (ir_path.display(), meta_path.display());
    match kind(ir) {
        Kind::Text(_) => {}
        Kind::Elf => {
            eprintln!(
                "kperf: warning: {ip} is a binary kperf cannot bind: it cannot check that \
                 {mp} describes it"
            );
            return Ok(());
        }
        Kind::Bitcode => {
            let binding =
                kperf_instrument::llvm::bitcode_binding(ir, &ip.to_string())?.unwrap_or_default();
            let Some(meta_digest) = binding.strip_prefix(KEY) else {
                bail!(
                    "{mp} lies beside {ip}, but {ip} carries no kperf binding (!kperf.binding): \
                     it was not written with this metadata by `kperf instrument` (stale or \
                     foreign metadata?). Remove {mp} to instrument {ip} afresh, or instrument again"
                );
            };
            return check_meta_digest(meta_digest, meta_bytes, &ip.to_string(), &mp.to_string());
        }
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
    check_meta_digest(meta_digest, meta_bytes, &ip.to_string(), &mp.to_string())
}

fn check_meta_digest(digest: &str, meta_bytes: &[u8], ip: &str, mp: &str) -> Result<()> {
    if digest.trim() != hex(meta_bytes) {
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
            let bound = bind(ir, meta, "k").expect("binds");
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
