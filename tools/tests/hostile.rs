//! Hostile inputs (issue 17), as data: every directory under
//! `tests/hostile/` is one case, described by its `case.toml`:
//!
//! ```toml
//! about = "what a hostile user does, and what must happen"
//! copy = ["examples/matmul_host.mlir"]        # repo files copied in
//! setup = [["instrument", "k.mlir", "-o", "i.mlir"]]  # kperf commands that must succeed
//! [[edit]]                                   # then changes to the files
//! file = "i.mlir.kperf.json"
//! find = '"slots": 1024'
//! with = '"slots": 2'
//! args = ["run", "i.mlir", ...]              # the command under test
//! exit = 1                                   # its exit status
//! stderr = ["words the error must say"]
//! stderr_once = ["text that must not repeat"]
//! unchanged = ["i.mlir"]                     # files that must keep their bytes
//! absent = ["x.kprof"]                       # files that must not appear
//! ```
//!
//! Each case runs in a fresh temporary directory holding the case's own
//! files and the copies; afterwards no kperf temporary may be left there.
//! A case whose command is killed by a signal fails, whatever it expects.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    about: String,
    #[serde(default)]
    copy: Vec<String>,
    #[serde(default)]
    setup: Vec<Vec<String>>,
    #[serde(default)]
    edit: Vec<Edit>,
    args: Vec<String>,
    exit: i32,
    #[serde(default)]
    stderr: Vec<String>,
    #[serde(default)]
    stderr_once: Vec<String>,
    #[serde(default)]
    unchanged: Vec<String>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

/// One change to a file after setup: a text replacement, new contents, or
/// (with `raw_from`) the raw profile buffer cut out of a `.kprof`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Edit {
    file: String,
    #[serde(default)]
    find: Option<String>,
    #[serde(default)]
    with: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    raw_from: Option<String>,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn kperf(dir: &Path, args: &[String], env: &BTreeMap<String, String>) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(args)
        .current_dir(dir)
        .envs(env)
        .output()
        .expect("kperf starts")
}

fn apply(dir: &Path, e: &Edit) -> Result<(), String> {
    let path = dir.join(&e.file);
    if let Some(from) = &e.raw_from {
        let bytes = std::fs::read(dir.join(from)).map_err(|x| format!("{from}: {x}"))?;
        let h = kperf_runtime::kprof::parse_header(&bytes, Path::new(from))
            .map_err(|x| x.to_string())?;
        return std::fs::write(&path, &bytes[h.buffer_offset as usize..])
            .map_err(|x| x.to_string());
    }
    if let Some(text) = &e.text {
        return std::fs::write(&path, text).map_err(|x| x.to_string());
    }
    let (Some(find), Some(with)) = (&e.find, &e.with) else {
        return Err(format!(
            "edit of {}: give text, raw_from, or find and with",
            e.file
        ));
    };
    let old = std::fs::read_to_string(&path).map_err(|x| format!("{}: {x}", e.file))?;
    if !old.contains(find.as_str()) {
        return Err(format!("edit of {}: `{find}` not found", e.file));
    }
    std::fs::write(&path, old.replacen(find.as_str(), with, 1)).map_err(|x| x.to_string())
}

fn run_case(case_dir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(case_dir.join("case.toml")).map_err(|e| e.to_string())?;
    let case: Case = toml::from_str(&text).map_err(|e| format!("case.toml: {e}"))?;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = tmp.path();
    for entry in std::fs::read_dir(case_dir).map_err(|e| e.to_string())? {
        let p = entry.map_err(|e| e.to_string())?.path();
        if p.is_file() {
            std::fs::copy(&p, dir.join(p.file_name().expect("name"))).map_err(|e| e.to_string())?;
        }
    }
    for c in &case.copy {
        let from = repo().join(c);
        let name = from.file_name().expect("a file");
        std::fs::copy(&from, dir.join(name)).map_err(|e| format!("copy {c}: {e}"))?;
    }
    for s in &case.setup {
        let out = kperf(dir, s, &case.env);
        if !out.status.success() {
            return Err(format!(
                "setup `kperf {}` failed: {}",
                s.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    for e in &case.edit {
        apply(dir, e)?;
    }
    let before: Vec<(String, Vec<u8>)> = case
        .unchanged
        .iter()
        .map(|f| (f.clone(), std::fs::read(dir.join(f)).unwrap_or_default()))
        .collect();
    let out = kperf(dir, &case.args, &case.env);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let say = |what: String| {
        format!(
            "{what}\n  about: {}\n  kperf {}\n  exit: {:?}\n  stderr:\n{stderr}",
            case.about,
            case.args.join(" "),
            out.status
        )
    };
    let Some(code) = out.status.code() else {
        return Err(say("killed by a signal".into()));
    };
    if code != case.exit {
        return Err(say(format!("exit {code}, expected {}", case.exit)));
    }
    for words in &case.stderr {
        if !stderr.contains(words.as_str()) {
            return Err(say(format!("stderr does not say `{words}`")));
        }
    }
    for words in &case.stderr_once {
        if stderr.matches(words.as_str()).count() != 1 {
            return Err(say(format!("stderr does not say `{words}` exactly once")));
        }
    }
    if stderr.contains('\x1b') || stderr.contains('\x07') {
        return Err(say("raw control characters on stderr".into()));
    }
    for (f, old) in &before {
        if std::fs::read(dir.join(f)).unwrap_or_default() != *old {
            return Err(say(format!("{f} was changed")));
        }
    }
    for f in &case.absent {
        if dir.join(f).exists() {
            return Err(say(format!("{f} was written")));
        }
    }
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())? {
        let name = entry.map_err(|e| e.to_string())?.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".tmp") {
            return Err(say(format!("temporary {name} left behind")));
        }
    }
    Ok(())
}

#[test]
fn hostile_inputs_get_clear_errors_and_lose_nothing() {
    let root = repo().join("tests/hostile");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/hostile")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("case.toml").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "only {} cases", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            run_case(c)
                .err()
                .map(|e| format!("{}: {e}", c.file_name().expect("name").to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
