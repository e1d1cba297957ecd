//! The one percentile rule of kperf's figures: the nearest rank (the
//! smallest value with at least p% of the values at or below it). Replay's
//! p50/p95, the fit's median, the host check's median CTA and calibration
//! all read it: two rules had read a correct profile −15% off with 2 CTAs
//! (an upper middle against a lower one).

/// The 0-based index of the nearest-rank `p`-th percentile (p in 0..=100)
/// of `n` sorted values; `n` > 0.
pub fn nearest_rank_index(n: usize, p: f64) -> usize {
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    rank.clamp(1, n) - 1
}

/// The nearest-rank `p`-th percentile of `v` (reordered); 0 for no values.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let k = nearest_rank_index(v.len(), p);
    let (_, x, _) = v.select_nth_unstable_by(k, f64::total_cmp);
    *x
}

/// The nearest-rank `p`-th percentile of `sorted` (ascending); NaN for no
/// values.
pub fn percentile_sorted(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        n => sorted[nearest_rank_index(n, p)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_ranks() {
        // (values, p, expected): the lower middle of an even count, the
        // top for p = 100, the first for p = 0.
        let cases: [(&[f64], f64, f64); 5] = [
            (&[1.0, 2.0], 50.0, 1.0),
            (&[1.0, 2.0, 3.0], 50.0, 2.0),
            (&[1.0, 2.0, 3.0, 4.0], 95.0, 4.0),
            (&[3.0, 1.0, 2.0], 0.0, 1.0),
            (&[5.0], 90.0, 5.0),
        ];
        for (values, p, want) in cases {
            let mut v = values.to_vec();
            assert_eq!(percentile(&mut v, p), want, "{values:?} p{p}");
            v.sort_by(f64::total_cmp);
            assert_eq!(percentile_sorted(&v, p), want, "{values:?} p{p}");
        }
        assert_eq!(percentile(&mut [], 50.0), 0.0);
        assert!(percentile_sorted(&[], 50.0).is_nan());
    }
}
