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
//! [[edit]]                                   # a field of a .kprof's header
//! file = "x.kprof"
//! json_pointer = "/meta/kernels/0/regions/1/name"
//! json_value = "A"
//! repeat = 100000                            # (a string value, repeated)
//! [[edit]]                                   # a word of a .kprof's buffer
//! file = "x.kprof"
//! block = 3                                  # CTA block index
//! byte = 0                                   # offset in the block (no block: in the file)
//! u32 = 3735928559                           # little-endian value written
//! fifos = ["pipe"]                           # named pipes made before the command
//! args = ["run", "i.mlir", ...]              # the command under test
//! exit = 1                                   # its exit status
//! timeout_s = 6                              # stop it then (default 300; exit = 124 expects that)
//! stderr = ["words the error must say"]
//! stderr_once = ["text that must not repeat"]
//! stderr_absent = ["text that must not appear"]
//! stdout = ["words the output must say"]
//! unchanged = ["i.mlir"]                     # files that must keep their bytes
//! absent = ["x.kprof"]                       # files that must not appear
//! [contains]                                 # words files written must hold
//! "r.json" = ["not_in_metadata"]
//! [max_bytes]                                # outputs kept in proportion
//! "t.json" = 2000000
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
    stderr_absent: Vec<String>,
    #[serde(default)]
    stdout: Vec<String>,
    #[serde(default)]
    contains: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    max_bytes: BTreeMap<String, u64>,
    #[serde(default)]
    unchanged: Vec<String>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Stop the command after this many seconds (300 unless given); a
    /// case that expects a run that never ends says `exit = 124`.
    #[serde(default)]
    timeout_s: Option<u64>,
    /// Named pipes made in the case's directory before the command runs.
    #[serde(default)]
    fifos: Vec<String>,
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
    #[serde(default)]
    json_pointer: Option<String>,
    #[serde(default)]
    json_value: Option<toml::Value>,
    #[serde(default)]
    repeat: Option<usize>,
    #[serde(default)]
    block: Option<u64>,
    #[serde(default)]
    byte: Option<u64>,
    #[serde(default)]
    u32: Option<u32>,
}

/// Set the header field at `pointer` of the `.kprof` at `path` to `value`.
fn edit_kprof_header(path: &Path, pointer: &str, value: serde_json::Value) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|x| x.to_string())?;
    let h = kperf_runtime::kprof::parse_header(&bytes, path).map_err(|x| x.to_string())?;
    let mut json = serde_json::to_value(&h.info).map_err(|x| x.to_string())?;
    // The field may be absent (left out when empty): set it in its parent.
    let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    match json.pointer_mut(parent) {
        Some(serde_json::Value::Object(o)) => {
            o.insert(key.to_string(), value);
        }
        Some(serde_json::Value::Array(a)) => {
            let slot = key
                .parse::<usize>()
                .ok()
                .and_then(|i| a.get_mut(i))
                .ok_or_else(|| format!("{}: no header field {pointer}", path.display()))?;
            *slot = value;
        }
        _ => return Err(format!("{}: no header field {parent}", path.display())),
    }
    let info = serde_json::from_value(json).map_err(|x| format!("{pointer}: {x}"))?;
    let out = kperf_runtime::kprof::encode_kprof(
        &info,
        h.cta_stride as usize,
        &bytes[h.buffer_offset as usize..],
    )
    .map_err(|x| x.to_string())?;
    std::fs::write(path, out).map_err(|x| x.to_string())
}

/// Write `value` (little-endian) at `byte` of any file (a Proton dump).
fn patch_file(path: &Path, byte: u64, value: u32) -> Result<(), String> {
    let mut bytes = std::fs::read(path).map_err(|x| x.to_string())?;
    bytes
        .get_mut(byte as usize..byte as usize + 4)
        .ok_or_else(|| format!("{}: byte {byte} is past the end", path.display()))?
        .copy_from_slice(&value.to_le_bytes());
    std::fs::write(path, bytes).map_err(|x| x.to_string())
}

/// Write `value` at `byte` of CTA block `block` of the `.kprof` at `path`.
fn patch_kprof_block(path: &Path, block: u64, byte: u64, value: u32) -> Result<(), String> {
    let mut bytes = std::fs::read(path).map_err(|x| x.to_string())?;
    let h = kperf_runtime::kprof::parse_header(&bytes, path).map_err(|x| x.to_string())?;
    let at = (h.buffer_offset + block * h.cta_stride + byte) as usize;
    bytes
        .get_mut(at..at + 4)
        .ok_or_else(|| {
            format!(
                "{}: block {block} byte {byte} is past the end",
                path.display()
            )
        })?
        .copy_from_slice(&value.to_le_bytes());
    std::fs::write(path, bytes).map_err(|x| x.to_string())
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Runs kperf in `dir`; `{dir}` in an environment value stands for `dir`.
fn kperf(
    dir: &Path,
    args: &[String],
    env: &BTreeMap<String, String>,
    timeout_s: Option<u64>,
) -> std::process::Output {
    let dir_text = dir.to_string_lossy();
    // A case that hangs (a FIFO opened for reading) fails with 124
    // instead of stalling the suite.
    Command::new("timeout")
        .arg(timeout_s.unwrap_or(300).to_string())
        .arg(env!("CARGO_BIN_EXE_kperf"))
        .args(args)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (k, v.replace("{dir}", &dir_text))))
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
    if let (Some(pointer), Some(value)) = (&e.json_pointer, &e.json_value) {
        let mut value = serde_json::to_value(value).map_err(|x| x.to_string())?;
        if let (Some(n), serde_json::Value::String(s)) = (e.repeat, &value) {
            value = serde_json::Value::String(s.repeat(n));
        }
        return edit_kprof_header(&path, pointer, value);
    }
    if let (Some(block), Some(byte), Some(value)) = (e.block, e.byte, e.u32) {
        return patch_kprof_block(&path, block, byte, value);
    }
    if let (None, Some(byte), Some(value)) = (e.block, e.byte, e.u32) {
        return patch_file(&path, byte, value);
    }
    let (Some(find), Some(with)) = (&e.find, &e.with) else {
        return Err(format!(
            "edit of {}: give text, raw_from, json_pointer and json_value, \
             block, byte and u32, or find and with",
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
        let out = kperf(dir, s, &case.env, None);
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
    for f in &case.fifos {
        let made = Command::new("mkfifo")
            .arg(dir.join(f))
            .status()
            .map_err(|e| format!("mkfifo: {e}"))?;
        if !made.success() {
            return Err(format!("mkfifo {f} failed"));
        }
    }
    let before: Vec<(String, Vec<u8>)> = case
        .unchanged
        .iter()
        .map(|f| (f.clone(), std::fs::read(dir.join(f)).unwrap_or_default()))
        .collect();
    let out = kperf(dir, &case.args, &case.env, case.timeout_s);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let say = |what: String| {
        format!(
            "{what}\n  about: {}\n  kperf {}\n  exit: {:?}\n  stderr:\n{stderr}",
            case.about,
            case.args.join(" "),
            out.status
        )
    };
    // `timeout` passes a signal on as 128 + its number; 124 is its own.
    let code = match out.status.code() {
        Some(124) if case.exit != 124 || case.timeout_s.is_none() => {
            return Err(say(format!(
                "still running after {} s (hung?)",
                case.timeout_s.unwrap_or(300)
            )))
        }
        Some(c) if c > 128 => return Err(say(format!("killed by signal {}", c - 128))),
        Some(c) => c,
        None => return Err(say("killed by a signal".into())),
    };
    if code != case.exit {
        return Err(say(format!("exit {code}, expected {}", case.exit)));
    }
    for words in &case.stderr {
        if !stderr.contains(words.as_str()) {
            return Err(say(format!("stderr does not say `{words}`")));
        }
    }
    for words in &case.stderr_absent {
        if stderr.contains(words.as_str()) {
            return Err(say(format!("stderr says `{words}`")));
        }
    }
    for words in &case.stderr_once {
        if stderr.matches(words.as_str()).count() != 1 {
            return Err(say(format!("stderr does not say `{words}` exactly once")));
        }
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    for words in &case.stdout {
        if !stdout.contains(words.as_str()) {
            return Err(say(format!("stdout does not say `{words}`:\n{stdout}")));
        }
    }
    for (f, all) in &case.contains {
        let text = std::fs::read_to_string(dir.join(f)).map_err(|x| say(format!("{f}: {x}")))?;
        for words in all {
            if !text.contains(words.as_str()) {
                return Err(say(format!("{f} does not hold `{words}`")));
            }
        }
    }
    for (f, limit) in &case.max_bytes {
        let len = std::fs::metadata(dir.join(f))
            .map_err(|x| say(format!("{f}: {x}")))?
            .len();
        if len > *limit {
            return Err(say(format!("{f} is {len} bytes, over {limit}")));
        }
    }
    // Whatever a case feeds in, nothing kperf prints may drive the
    // terminal: no control character but newline and tab.
    for (stream, text) in [("stderr", &stderr), ("stdout", &stdout)] {
        if let Some(c) = text
            .chars()
            .find(|c| kperf_dialects::meta::is_unsafe_char(*c) && *c != '\n' && *c != '\t')
        {
            return Err(say(format!("raw control character {c:?} on {stream}")));
        }
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
        if name.ends_with(".tmp") || name.starts_with("kperf-jitdump-") {
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

/// stdout and stderr closed by their reader (`kperf replay ... | head -1`,
/// `2>&1 | head -1`): the standard print macros panicked on the broken
/// pipe (status 101) and the job died before writing its trace. The job
/// goes on, writes its files and succeeds (found by an adversarial pass,
/// 2026-11-27).
#[test]
fn a_closed_stdout_or_stderr_loses_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = repo().join("tests/fixtures/proton/seq.bin");
    let trace = dir.path().join("t.json");
    let (reader, stdout) = std::io::pipe().expect("pipe");
    let (reader2, stderr) = std::io::pipe().expect("pipe");
    drop((reader, reader2));
    let status = Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(["replay", "--proton"])
        .arg(&fixture)
        .arg("--summary")
        .arg("-o")
        .arg(&trace)
        .stdout(stdout)
        .stderr(stderr)
        .status()
        .expect("kperf runs");
    assert!(status.success(), "{status:?}");
    assert!(trace.is_file(), "the trace is written");
}
