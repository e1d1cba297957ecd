//! Percentiles of region durations in bounded memory.
//!
//! A region's durations are kept exactly (f64, nearest rank; f32 turned a
//! p95 of 99999999 cycles into 100000000) up to
//! [`EXACT_MAX`] instances, so small profiles and the tests see exact
//! figures; past that they move into an HDR histogram (the `hdrhistogram`
//! crate, 3 significant digits at 1 ps resolution: every value within 0.1%
//! or 1 ps, 100–200 KiB per region whatever the count). Memory per region
//! is then bounded instead of 4 bytes per instance.

use hdrhistogram::Histogram;

/// Instances kept exactly per region before the histogram takes over.
pub const EXACT_MAX: usize = 1 << 16;

/// Histogram unit: picoseconds, so sub-ns durations keep 3 digits too.
const PS_PER_NS: f64 = 1000.0;

/// Durations (ns) of one region.
#[derive(Default)]
pub(crate) struct Durations {
    exact: Vec<f64>,
    hist: Option<Histogram<u64>>,
}

impl Durations {
    pub fn push(&mut self, ns: f64) {
        match &mut self.hist {
            Some(h) => record(h, ns),
            None => {
                self.exact.push(ns);
                if self.exact.len() > EXACT_MAX {
                    self.spill();
                }
            }
        }
    }

    /// Move the exact values into a histogram.
    fn spill(&mut self) {
        let mut h = Histogram::new(3).expect("3 significant digits is a valid histogram");
        for &v in &self.exact {
            record(&mut h, v);
        }
        self.exact = Vec::new();
        self.hist = Some(h);
    }

    /// Fold `other` into `self`.
    pub fn merge(&mut self, other: Durations) {
        match (&mut self.hist, other.hist) {
            (None, None) => {
                self.exact.extend_from_slice(&other.exact);
                if self.exact.len() > EXACT_MAX {
                    self.spill();
                }
            }
            // The common case once a region is large: a CTA's few values
            // go straight into the histogram.
            (Some(h), None) => {
                for &v in &other.exact {
                    record(h, v);
                }
            }
            (_, Some(o)) => {
                if self.hist.is_none() {
                    self.spill();
                }
                if let Some(h) = &mut self.hist {
                    h.add(&o)
                        .expect("auto-resizing histograms of one precision add");
                }
            }
        }
    }

    /// Whether the percentiles are exact (no histogram involved).
    pub fn is_exact(&self) -> bool {
        self.hist.is_none()
    }

    /// Nearest-rank percentile (p in 0..=100); 0 without values.
    pub fn percentile(&mut self, p: f64) -> f64 {
        match &self.hist {
            Some(h) if h.is_empty() => 0.0,
            Some(h) => {
                let v = h.value_at_quantile(p / 100.0);
                h.median_equivalent(v) as f64 / PS_PER_NS
            }
            None => crate::analyze::percentile(&mut self.exact, p),
        }
    }
}

fn record(h: &mut Histogram<u64>, ns: f64) {
    // Half up, since the value is positive: one add and one conversion,
    // for every instance's two values.
    let ps = if ns.is_finite() && ns > 0.0 {
        ((ns * PS_PER_NS).min(u64::MAX as f64 / 4.0) + 0.5) as u64
    } else {
        0
    };
    h.record(ps)
        .expect("an auto-resizing histogram records any value");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_below_the_cap_and_within_a_thousandth_above() {
        let mut small = Durations::default();
        for v in [5.0, 1.0, 3.0, 2.0, 4.0] {
            small.push(v);
        }
        assert!(small.is_exact());
        assert_eq!(small.percentile(50.0), 3.0);
        assert_eq!(small.percentile(100.0), 5.0);

        // 200k values 0.5, 1.0, ..., spread over 3 decades.
        let n = 200_000;
        let mut big = Durations::default();
        let mut halves = Durations::default();
        let mut other = Durations::default();
        for i in 1..=n {
            let v = i as f64 * 0.5;
            big.push(v);
            if i % 2 == 0 {
                halves.push(v)
            } else {
                other.push(v)
            }
        }
        assert!(!big.is_exact());
        halves.merge(other);
        for p in [1.0, 50.0, 95.0, 99.9] {
            let truth = (p / 100.0 * n as f64).ceil() * 0.5;
            for d in [&mut big, &mut halves] {
                let got = d.percentile(p);
                assert!(
                    (got - truth).abs() <= truth * 1e-3,
                    "p{p}: {got} vs {truth}"
                );
            }
        }
        // A CTA's few exact values go into a region already in a histogram.
        let mut few = Durations::default();
        few.push(1e6);
        big.merge(few);
        let top = big.percentile(100.0);
        assert!((top - 1e6).abs() <= 1e3, "{top}");
        assert_eq!(Durations::default().percentile(50.0), 0.0);
    }
}
