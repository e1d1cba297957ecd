//! The fidelity verdict of the corpus tests (tools/tests/corpus.rs,
//! mlir_fidelity.rs, mlir_upstream.rs): one `kperf cost --json` report is
//! measured by the line table, changes no guarded instruction (tensor core,
//! TMA, async copy, memory, barrier) and leaves at most
//! [`UNEXPLAINED_LIMIT`] of the plain kernel unexplained, or the measured
//! ceiling its test lists for it.

/// Unexplained SASS allowed, as a share of the plain kernel (issue 15).
pub const UNEXPLAINED_LIMIT: f64 = 0.02;

/// A measured ceiling: the kernel or file it is for, the mode (`*` for
/// every mode), and the unexplained share allowed.
pub type Exception = (&'static str, &'static str, f64);

/// The ceiling for `subject` in `mode`.
pub fn limit(exceptions: &[Exception], subject: &str, mode: &str) -> f64 {
    exceptions
        .iter()
        .find(|(s, m, _)| *s == subject && (*m == "*" || *m == mode))
        .map_or(UNEXPLAINED_LIMIT, |e| e.2)
}

/// What is wrong with `report` (one kernel of `kperf cost --json`) of
/// `subject` (a kernel name or a file) under `--regions mode`, one line
/// each; empty when it holds.
pub fn verdict(
    report: &serde_json::Value,
    subject: &str,
    mode: &str,
    exceptions: &[Exception],
) -> Vec<String> {
    let kernel = report["kernel"].as_str().unwrap_or("?");
    let who = if kernel == subject {
        subject.to_string()
    } else {
        format!("{subject} ({kernel})")
    };
    let f = &report["fidelity"];
    let mut bad = Vec::new();
    if f["method"] != "line_tags" {
        bad.push(format!(
            "{who} --regions {mode}: measured by {}, not by the line table",
            f["method"]
        ));
    }
    let guarded = f["guarded_changes"].as_array().cloned().unwrap_or_default();
    if !guarded.is_empty() {
        bad.push(format!(
            "{who} --regions {mode}: the kernel's own work changed: {guarded:?}"
        ));
    }
    let share = f["unexplained_share"].as_f64().unwrap_or(f64::MAX);
    let allowed = limit(exceptions, subject, mode);
    if share > allowed {
        bad.push(format!(
            "{who} --regions {mode}: {:.1}% unexplained > {:.1}%",
            100.0 * share,
            100.0 * allowed
        ));
    }
    bad
}
