//! Progress for long benchmark sweeps, shown only to a person.
//!
//! A bar written into a CI log or a redirected file is noise (and carriage
//! returns make logs unreadable), so the bar is hidden whenever stderr is
//! not a terminal; messages then go to stderr as plain lines.

use std::io::IsTerminal;
use std::io::Write as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar over a known number of steps, or a spinner.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    visible: bool,
}

impl Progress {
    /// A bar of `total` steps labelled `label`, visible only on a terminal.
    pub fn new(total: u64, label: &str) -> Progress {
        Progress::with_visibility(Some(total), label, std::io::stderr().is_terminal())
    }

    /// A spinner for work of unknown length.
    pub fn spinner(label: &str) -> Progress {
        Progress::with_visibility(None, label, std::io::stderr().is_terminal())
    }

    /// Explicit visibility (tests, `--quiet`).
    pub fn with_visibility(total: Option<u64>, label: &str, visible: bool) -> Progress {
        let bar = if !visible {
            ProgressBar::hidden()
        } else if let Some(n) = total {
            let b = ProgressBar::new(n);
            if let Ok(style) =
                ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {elapsed} {msg}")
            {
                b.set_style(style.progress_chars("=> "));
            }
            b
        } else {
            let b = ProgressBar::new_spinner();
            b.enable_steady_tick(Duration::from_millis(120));
            b
        };
        bar.set_prefix(label.to_string());
        Progress { bar, visible }
    }

    pub fn is_visible(&self) -> bool {
        self.visible
    }

    /// Sets the text after the bar (e.g. the current point).
    pub fn set_message(&self, msg: impl Into<String>) {
        self.bar.set_message(msg.into());
    }

    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    pub fn position(&self) -> u64 {
        self.bar.position()
    }

    /// Prints a line without tearing the bar; plain stderr when hidden.
    pub fn println(&self, line: impl AsRef<str>) {
        if self.visible {
            self.bar.println(line.as_ref());
        } else {
            let _ = writeln!(std::io::stderr(), "{}", line.as_ref());
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if !self.bar.is_finished() {
            self.bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_bar_still_counts() {
        let p = Progress::with_visibility(Some(10), "bench", false);
        assert!(!p.is_visible());
        p.inc(3);
        p.set_message("M=1024");
        assert_eq!(p.position(), 3);
        p.finish();
        let s = Progress::with_visibility(None, "peak", false);
        s.inc(1);
        drop(s);
        // Under `cargo test` stderr is captured, not a terminal.
        assert!(!Progress::new(5, "x").is_visible() || std::io::stderr().is_terminal());
    }
}
