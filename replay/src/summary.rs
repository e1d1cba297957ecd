//! The terminal summary of a [`ReplayReport`].

use std::fmt::Write;

use kperf_dialects::meta::Granularity;

use crate::analyze::ReplayReport;

/// Most rows of the per-unit breakdown, overlap and unmatched lists shown.
const LIST_LIMIT: usize = 8;

/// A duration in ns with a unit, three significant digits or more.
/// A figure of `count` instances: NaN (printed "—") for none.
fn timed(count: u64, v: f64) -> f64 {
    if count == 0 {
        f64::NAN
    } else {
        v
    }
}

pub fn fmt_ns(ns: f64) -> String {
    // No instance to measure (a region whose records were all lost).
    if ns.is_nan() {
        return "—".into();
    }
    let a = ns.abs();
    if a < 1e3 {
        format!("{ns:.1} ns")
    } else if a < 1e6 {
        format!("{:.2} us", ns / 1e3)
    } else if a < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The word for one unit of `g` ("warp", "warp group", ...).
pub fn unit_word(g: Granularity) -> &'static str {
    match g {
        Granularity::Thread => "thread",
        Granularity::Warp => "warp",
        Granularity::Warpgroup => "warp group",
        Granularity::Cta => "cta",
    }
}

impl ReplayReport {
    /// Name of the region with id `id`, or `region_<id>`.
    pub fn region_name(&self, id: kperf_dialects::abi::RegionId) -> String {
        self.regions
            .iter()
            .find(|r| r.id == id)
            .map_or_else(|| format!("region_{}", id.0), |r| r.name.clone())
    }

    /// The human-readable summary: a table of regions sorted by share, then
    /// async waits, overlap, critical paths, idle time, lost and unmatched
    /// records, corrections, clock rate, imbalance and caveats.
    pub fn render_summary(&self) -> String {
        let mut s = String::new();
        let uw = unit_word(self.granularity);
        let t = &self.totals;
        let _ = writeln!(
            s,
            "kperf replay: kernel `{}` on {}, grid {:?}, block {:?}, {} granularity, {} counter, {} buffers",
            self.kernel,
            self.target,
            self.grid,
            self.block,
            self.granularity.name(),
            self.counter.name(),
            self.strategy.name()
        );
        let _ = writeln!(
            s,
            "{} CTAs, {} units, {} records ({} written, {} lost), {} region instances",
            t.ctas, t.units, t.records, t.records_written, t.records_lost, t.instances
        );
        let k = &self.kernel_time;
        let _ = writeln!(
            s,
            "kernel: wall span {}, CTA time {}, unit time {} (share = region time / unit time)",
            fmt_ns(k.wall_span_ns),
            fmt_ns(k.cta_time_ns),
            fmt_ns(k.unit_time_ns)
        );
        s.push('\n');

        // Region table.
        let name_w = self
            .regions
            .iter()
            .map(|r| r.name.chars().count())
            .chain([6, uw.len() + 8])
            .max()
            .unwrap_or(6)
            .min(40);
        let _ = writeln!(
            s,
            "{:<name_w$}  {:<11} {:>8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>7}",
            "region", "kind", "count", "total", "mean", "p50", "p95", "max", "share"
        );
        for r in &self.regions {
            let kind = if r.not_in_metadata {
                "unknown".to_string()
            } else {
                serde_json::to_value(r.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            };
            let _ = writeln!(
                s,
                "{:<name_w$}  {:<11} {:>8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>7}",
                truncate(&r.name, name_w),
                kind,
                r.count,
                fmt_ns(r.total_ns),
                fmt_ns(timed(r.count, r.mean_ns)),
                fmt_ns(timed(r.count, r.p50_ns)),
                fmt_ns(timed(r.count, r.p95_ns)),
                fmt_ns(timed(r.count, r.max_ns)),
                pct(r.share)
            );
            if r.per_unit.len() > 1 {
                for u in r.per_unit.iter().take(LIST_LIMIT) {
                    let label = format!("  {uw} {}", u.unit);
                    let _ = writeln!(
                        s,
                        "{:<name_w$}  {:<11} {:>8} {:>11} {:>11} {:>47}",
                        label,
                        "",
                        u.count,
                        fmt_ns(u.total_ns),
                        fmt_ns(u.mean_ns),
                        format!("{} of the {uw}", pct(u.share_of_unit))
                    );
                }
                if r.per_unit.len() > LIST_LIMIT {
                    let _ = writeln!(s, "  ... {} more units", r.per_unit.len() - LIST_LIMIT);
                }
            }
        }
        if self.regions.is_empty() {
            s.push_str("(no regions)\n");
        }

        if !self.async_waits.is_empty() {
            s.push_str(
                "\nasync waits (CLK2 - CLK1: START before the issue to START after the wait):\n",
            );
            for w in &self.async_waits {
                let _ = writeln!(
                    s,
                    "  {} <- {}: {} waits, mean {} ({:.1} ticks corrected, {:.1} raw); exposed wait \
                     (CLK2 - END {}) mean {} = {} of the latency; {} unmatched waits, {} unwaited issues",
                    w.wait_name,
                    w.issue_name,
                    w.count,
                    fmt_ns(w.mean_ns),
                    w.mean_corrected_ticks,
                    w.mean_raw_ticks,
                    w.issue_name,
                    fmt_ns(w.mean_exposed_ns),
                    pct(w.exposed_fraction),
                    w.unmatched_waits,
                    w.unwaited_issues
                );
            }
        }

        if !self.overlaps.is_empty() {
            s.push_str("\noverlap across units of a CTA (a while b runs in another unit):\n");
            for o in self.overlaps.iter().take(LIST_LIMIT) {
                let _ = writeln!(
                    s,
                    "  {} || {}: {} = {} of {}",
                    o.first_name,
                    o.second_name,
                    fmt_ns(o.overlap_ns),
                    pct(o.fraction_of_first),
                    o.first_name
                );
            }
            if self.overlaps.len() > LIST_LIMIT {
                let _ = writeln!(s, "  ... {} more pairs", self.overlaps.len() - LIST_LIMIT);
            }
        }

        if !self.critical_units.is_empty() {
            s.push_str("\ncritical path (unit whose last END is latest, walked back):\n");
            let units: Vec<String> = self
                .critical_units
                .iter()
                .map(|c| format!("{uw} {} in {} CTAs", c.unit, c.ctas))
                .collect();
            let _ = writeln!(s, "  critical unit: {}", units.join(", "));
            let slacks: Vec<f64> = self
                .critical_paths
                .iter()
                .filter_map(|p| p.slack_ns)
                .collect();
            if !slacks.is_empty() {
                let mean = slacks.iter().sum::<f64>() / slacks.len() as f64;
                let _ = writeln!(s, "  mean lead over the next unit: {}", fmt_ns(mean));
            }
            let mut on: Vec<_> = self.regions.iter().filter(|r| r.on_critical_path).collect();
            on.sort_by(|a, b| b.critical_path_ns.total_cmp(&a.critical_path_ns));
            for r in on.iter().take(LIST_LIMIT) {
                let _ = writeln!(
                    s,
                    "  {}: on the path in {} of {} CTAs, {} in total",
                    r.name,
                    r.critical_path_ctas,
                    self.critical_paths.len(),
                    fmt_ns(r.critical_path_ns)
                );
            }
        }

        if !self.idle.is_empty() {
            s.push_str("\nidle per unit (span first..last record not covered by any region):\n");
            for i in self.idle.iter().take(LIST_LIMIT) {
                let _ = writeln!(
                    s,
                    "  {uw} {}: idle {} of {} ({}), {} gaps, longest {}; before first record {}, after last {}",
                    i.unit,
                    fmt_ns(i.idle_ns),
                    fmt_ns(i.span_ns),
                    pct(i.idle_fraction),
                    i.gaps,
                    fmt_ns(i.max_gap_ns),
                    if i.lead_ctas > 0 {
                        fmt_ns(i.lead_ns)
                    } else {
                        "unknown".to_string()
                    },
                    fmt_ns(i.tail_ns)
                );
            }
            if self.idle.len() > LIST_LIMIT {
                let _ = writeln!(s, "  ... {} more units", self.idle.len() - LIST_LIMIT);
            }
        }

        s.push_str("\nlost and unmatched records:\n");
        let _ = writeln!(s, "  {}", self.lost.note);
        let unmatched: Vec<_> = self
            .regions
            .iter()
            .filter(|r| r.unmatched_starts + r.unmatched_ends > 0)
            .collect();
        if unmatched.is_empty() {
            s.push_str("  every START found its END\n");
        }
        for r in unmatched {
            let ctas: Vec<String> = self
                .unmatched
                .iter()
                .filter(|u| u.region == r.id && u.starts + u.ends > 0)
                .map(|u| u.cta.to_string())
                .collect();
            let shown: Vec<&str> = ctas.iter().take(LIST_LIMIT).map(String::as_str).collect();
            let more = if ctas.len() > LIST_LIMIT {
                format!(" and {} more", ctas.len() - LIST_LIMIT)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "  {}: {} unmatched STARTs, {} unmatched ENDs, in CTAs {}{}",
                r.name,
                r.unmatched_starts,
                r.unmatched_ends,
                shown.join(", "),
                more
            );
        }

        s.push_str("\ncorrections applied:\n");
        for c in &self.corrections_applied {
            let _ = writeln!(s, "  {c}");
        }
        let _ = writeln!(s, "\nclock rate: {}", self.clock.description);

        let im = &self.imbalance;
        if im.ctas > 0 {
            s.push_str("\nimbalance:\n");
            let _ = writeln!(
                s,
                "  CTA duration min {} / mean {} / max {}, max/mean {:.3} (fastest CTA {}, slowest CTA {})",
                fmt_ns(im.cta_min_ns),
                fmt_ns(im.cta_mean_ns),
                fmt_ns(im.cta_max_ns),
                im.cta_max_over_mean,
                im.fastest_cta.map_or("-".into(), |c| c.to_string()),
                im.slowest_cta.map_or("-".into(), |c| c.to_string())
            );
            let _ = writeln!(
                s,
                "  {} SMs busy min {} / mean {} / max {}, max/mean {:.3}",
                im.sms.len(),
                fmt_ns(im.sm_busy_min_ns),
                fmt_ns(im.sm_busy_mean_ns),
                fmt_ns(im.sm_busy_max_ns),
                im.sm_max_over_mean
            );
        }

        if let Some(c) = &self.check {
            let matched = c.error.abs() <= crate::analyze::CHECK_TOLERANCE;
            let fitted = match (c.fitted && matched, c.calibrated_error) {
                (true, Some(e)) => format!(
                    "; the record cost was fitted to it, so the agreement is by construction: \
                     the calibrated cost gave {:+.1}%",
                    100.0 * e
                ),
                (false, Some(e)) if matched && self.correction.kernel_below_resolution() => {
                    format!(
                        "; the record cost was fitted to it (the calibrated cost gave {:+.1}%), \
                         but the kernel's work is below the records' resolution (caveats)",
                        100.0 * e
                    )
                }
                _ => String::new(),
            };
            let _ = writeln!(
                s,
                "\ncheck: `{}` {} {:.0} ticks per {} vs {:.0} uninstrumented: {:+.1}% ({}){fitted}",
                c.region,
                if self.correction.source == crate::correct::CostSource::Disabled {
                    "uncorrected"
                } else {
                    "corrected"
                },
                c.measured_ticks,
                self.kernel_region_instance(),
                c.truth_ticks,
                100.0 * c.error,
                c.method
            );
        }
        if let Some(r) = &self.run_time {
            let _ = writeln!(
                s,
                "{}run time: the profiled launch took {} vs {} uninstrumented: {:+.1}%",
                if self.check.is_some() { "" } else { "\n" },
                fmt_ns(r.profiled_ns as f64),
                fmt_ns(r.uninstrumented_ns as f64),
                100.0 * r.overhead
            );
        }
        if !self.caveats.is_empty() {
            s.push_str("\ncaveats:\n");
            for c in &self.caveats {
                let _ = writeln!(s, "  - {c}");
            }
        }
        s
    }
}

impl ReplayReport {
    /// What one kernel-region instance is: a CTA on the host (one thread
    /// each), else the unit the profile records by.
    pub(crate) fn kernel_region_instance(&self) -> &'static str {
        match (self.target.as_str(), self.granularity) {
            ("host", _) | (_, Granularity::Cta) => "CTA",
            (_, g) => g.name(),
        }
    }
}

fn truncate(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(w.saturating_sub(1)).collect();
        t.push('~');
        t
    }
}
