//! Pass tests as data: every `tests/mlir/*.mlir` and `tests/llvm/*.ll` file
//! says how to run kperf on itself and what must come out, in comments
//! (`//` in MLIR, `;` in LLVM IR):
//!
//! - `// RUN: kperf <args>` — `%s` is the file; output goes to stdout.
//! - `// CHECK...:` — FileCheck directives (LLVM 22's FileCheck) on the output.
//! - `// ERROR: <text>` — the run must fail and stderr must contain `<text>`.
//! - `// WARNING: <text>` — the run must succeed and stderr contain `<text>`.
//!
//! Each file is one test case; a failure names the file and shows the output.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const FILECHECK: &str = "/usr/lib/llvm-22/bin/FileCheck";

fn corpus(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests")
        .join(dir)
}

struct Case {
    path: PathBuf,
    args: Vec<String>,
    error: Option<String>,
    warnings: Vec<String>,
    has_checks: bool,
}

fn parse_case(path: &Path) -> Case {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut args = Vec::new();
    let mut error = None;
    let mut warnings = Vec::new();
    let mut has_checks = false;
    for line in text.lines() {
        let l = line.trim_start();
        // LLVM IR comments start with `;`: read them as the MLIR form.
        let owned;
        let l = match l.strip_prefix(';') {
            Some(rest) => {
                owned = format!("//{rest}");
                owned.as_str()
            }
            None => l,
        };
        if let Some(run) = l.strip_prefix("// RUN: kperf ") {
            args = run
                .split_whitespace()
                .map(|a| {
                    if a == "%s" {
                        path.display().to_string()
                    } else {
                        a.to_string()
                    }
                })
                .collect();
        } else if let Some(e) = l.strip_prefix("// ERROR: ") {
            error = Some(e.trim().to_string());
        } else if let Some(w) = l.strip_prefix("// WARNING: ") {
            warnings.push(w.trim().to_string());
        } else if l.starts_with("// CHECK") {
            has_checks = true;
        }
    }
    assert!(
        !args.is_empty(),
        "{}: no `// RUN: kperf` line",
        path.display()
    );
    assert!(
        error.is_some() || has_checks,
        "{}: neither CHECK nor ERROR lines: the test could not fail",
        path.display()
    );
    Case {
        path: path.to_path_buf(),
        args,
        error,
        warnings,
        has_checks,
    }
}

fn run_case(c: &Case, dir: &Path) -> Result<(), String> {
    let out_dir = std::env::temp_dir().join(format!("kperf-pass-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let stem = c
        .path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("case")
        .to_string();
    let out_file = out_dir.join(format!("{stem}.out"));
    let mut args = c.args.clone();
    // instrument and opt write a file; other commands (cost) print.
    let writes_file = matches!(args.first().map(String::as_str), Some("instrument" | "opt"));
    if writes_file && !args.iter().any(|a| a == "-o") {
        args.push("-o".into());
        args.push(out_file.display().to_string());
    }
    // Run from the corpus directory so locations print as bare file names.
    let output = Command::new(env!("CARGO_BIN_EXE_kperf"))
        .args(
            args.iter()
                .map(|a| a.replace(&format!("{}/", dir.display()), "")),
        )
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run kperf: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(expected) = &c.error {
        if output.status.success() {
            return Err(format!(
                "expected failure with `{expected}`, but kperf succeeded"
            ));
        }
        if !stderr.contains(expected.as_str()) {
            return Err(format!(
                "expected stderr to contain `{expected}`, got:\n{stderr}"
            ));
        }
        if stderr.contains("panicked") {
            return Err(format!("kperf panicked:\n{stderr}"));
        }
        if out_file.exists() {
            return Err("a failed run left an output file behind".into());
        }
        return Ok(());
    }
    if !output.status.success() {
        return Err(format!("kperf failed:\n{stderr}"));
    }
    for w in &c.warnings {
        if !stderr.contains(w.as_str()) {
            return Err(format!("expected stderr to contain `{w}`, got:\n{stderr}"));
        }
    }
    if c.has_checks {
        let produced = if writes_file {
            std::fs::read(&out_file)
                .map_err(|e| format!("no output {}: {e}", out_file.display()))?
        } else {
            output.stdout.clone()
        };
        let mut fc = Command::new(FILECHECK)
            .arg(&c.path)
            .arg("--match-full-lines=false")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run {FILECHECK} (run scripts/setup.sh): {e}"))?;
        use std::io::Write;
        fc.stdin
            .take()
            .expect("piped")
            .write_all(&produced)
            .map_err(|e| e.to_string())?;
        let r = fc.wait_with_output().map_err(|e| e.to_string())?;
        if !r.status.success() {
            return Err(format!(
                "FileCheck failed:\n{}",
                String::from_utf8_lossy(&r.stderr)
            ));
        }
    }
    Ok(())
}

fn run_corpus(dir: &str, ext: &str, at_least: usize) {
    let dir = corpus(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    files.sort();
    assert!(files.len() >= at_least, "pass-test corpus went missing");
    let mut failures = Vec::new();
    for f in &files {
        let case = parse_case(f);
        if let Err(e) = run_case(&case, &dir) {
            failures.push(format!("--- {}\n{e}", f.display()));
        }
    }
    println!("{} pass-test files, {} failed", files.len(), failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} pass tests failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn mlir_pass_tests() {
    run_corpus("mlir", "mlir", 20);
}

#[test]
fn llvm_pass_tests() {
    run_corpus("llvm", "ll", 8);
}
