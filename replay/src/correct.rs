//! Instrumentation-overhead correction.
//!
//! Every record costs the unit that writes it a roughly constant number of
//! ticks (clock read, tag materialisation, store). Replay removes that cost
//! *cumulatively*: the record at absolute position `i` of its unit is moved
//! `i · cost` ticks earlier, but never before the record preceding it in
//! program order (the records of a unit execute in order, so measurement
//! noise must not reorder them):
//!
//! ```text
//! t_i = max(clock_i − i · cost, t_(i−1))
//! corrected(region from s to e) = t_e − t_s
//! ```
//!
//! Without clamping, a region thus loses `(e − s) · cost` = (records strictly
//! inside it + 1) · cost; where noise would have made a record precede its
//! predecessor, it is held at the predecessor's time.
//!
//! Positions are absolute: with the circular strategy the records the ring
//! overwrote came *before* the surviving ones, so the first survivor of a unit
//! that lost `L` records is at position `L`. With the flush strategy the lost
//! records are the newest, so survivors start at position 0.
//!
//! **Cost.** [`crate::ReplayOptions::record_cost_ticks`] if given, else the
//! calibrated `RunInfo::record_cost_ticks`, else an *estimate*: the smallest gap
//! between two consecutive records of any unit in the profile (the JAX Mosaic
//! profiler's approach; an upper bound of the true cost, and 0 with a coarse
//! counter). The report says which.
//!
//! **Async waits.** An async wait region `W` (`RegionKind::AsyncWait`) names
//! its issue region `A` in `pairs_with`. The instrumentation writes
//! `START A` (CLK1) before the async issue, `END A` right before the wait and
//! `START W` (CLK2) right after it. The wait time is `CLK2 − CLK1`, the issue
//! to data-ready latency the unit saw; corrected, it loses the
//! `(pos(CLK2) − pos(CLK1)) · cost` of the records in between, consistent with
//! the cumulative rule. The exposed (blocking) part is `CLK2 − END A`. The k-th
//! `START W` of a unit pairs with the oldest unconsumed `START A` before it
//! (FIFO, so software-pipelined issues pair in order).

use kperf_dialects::abi::Strategy;
use kperf_runtime::profile::{RunInfo, UnitTrace};
use serde::{Deserialize, Serialize};

use crate::{ProfileScan, ReplayOptions};

/// Where the per-record cost came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// Correction switched off (`--no-correction`).
    Disabled,
    /// Given in the options.
    Override,
    /// Calibrated (`RunInfo::record_cost_ticks`).
    Calibrated,
    /// Estimated as the minimum gap between consecutive records.
    EstimatedMinGap,
    /// Correction wanted but no cost known and none estimable.
    Unknown,
}

/// The correction a replay applies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Correction {
    pub enabled: bool,
    /// Ticks subtracted per record (0 when disabled or unknown).
    pub cost_ticks: f64,
    pub source: CostSource,
    /// The smallest gap between consecutive records seen, in ticks.
    pub min_gap_ticks: Option<u64>,
}

impl Correction {
    pub fn resolve(info: &RunInfo, opts: &ReplayOptions, scan: &ProfileScan) -> Correction {
        let min_gap_ticks = scan.min_gap_ticks;
        let calibrated = info
            .record_cost_ticks
            .filter(|c| c.is_finite() && *c >= 0.0);
        let (cost_ticks, source) = if !opts.correction {
            (0.0, CostSource::Disabled)
        } else if let Some(c) = opts.record_cost_ticks {
            (c, CostSource::Override)
        } else if let Some(c) = calibrated {
            (c, CostSource::Calibrated)
        } else if let Some(g) = min_gap_ticks {
            (g as f64, CostSource::EstimatedMinGap)
        } else {
            (0.0, CostSource::Unknown)
        };
        Correction {
            enabled: opts.correction && source != CostSource::Unknown,
            cost_ticks,
            source,
            min_gap_ticks,
        }
    }

    /// Absolute position of a unit's first surviving record.
    pub fn first_position(strategy: Strategy, unit: &UnitTrace) -> u64 {
        match strategy {
            Strategy::Circular => unit.records_lost,
            Strategy::Flush => 0,
        }
    }

    /// Ticks removed from a record at absolute position `pos`.
    pub fn shift(&self, pos: u64) -> f64 {
        pos as f64 * self.cost_ticks
    }

    /// Lines for the "corrections applied" list of a report.
    pub fn describe(&self, strategy: Strategy) -> Vec<String> {
        let mut out = Vec::new();
        match self.source {
            CostSource::Disabled => {
                out.push("overhead correction disabled (--no-correction): durations are raw".into())
            }
            CostSource::Unknown => out.push(
                "overhead correction not applied: no calibrated record cost and no two \
                 consecutive records to estimate one from"
                    .into(),
            ),
            src => {
                let from = match src {
                    CostSource::Override => "given in the options".to_string(),
                    CostSource::Calibrated => "calibrated (run info)".to_string(),
                    _ => format!(
                        "ESTIMATED as the minimum gap between consecutive records of any unit \
                         ({} ticks; an upper bound of the true cost)",
                        self.min_gap_ticks.unwrap_or(0)
                    ),
                };
                out.push(format!(
                    "record cost {} ticks subtracted cumulatively per unit (record i moved \
                     i*cost earlier; a region loses (records inside + 1)*cost, clamped at 0); \
                     cost {from}",
                    fmt_ticks(self.cost_ticks)
                ));
                if strategy == Strategy::Circular {
                    out.push(
                        "record positions count the records a ring overwrote (they came first)"
                            .into(),
                    );
                }
            }
        }
        out
    }
}

fn fmt_ticks(t: f64) -> String {
    if t.fract() == 0.0 {
        format!("{t:.0}")
    } else {
        format!("{t:.3}")
    }
}
