//! How much work a kernel does: FLOPs and compulsory bytes.
//!
//! TFLOP/s, GB/s, MFU and the roofline are only as right as these counts, and
//! published numbers use specific conventions (FlashAttention's benchmark
//! counts a causal mask as half the square, not the square plus half the
//! diagonal). The formulas here name their conventions so a kperf number can
//! be put next to a paper's. Values are `f64` (large shapes overflow `u32`
//! FLOPs and `f64` stays exact up to 2⁵³ ≈ 9·10¹⁵ for these products).
//!
//! Byte counts are *compulsory* traffic: every input read once, every output
//! written once. A kernel that re-reads shows up as MBU above what the
//! count suggests is possible — which is itself worth seeing.
//!
//! User-defined formulas (`flops = "2*M*N*K"` in a launch spec) go through
//! [`crate::expr`], re-exported here.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{BenchError, Result};
pub use crate::expr::{eval, Expr};

/// FLOPs and bytes of one kernel invocation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Work {
    pub flops: f64,
    pub bytes: f64,
}

impl Work {
    /// Work repeated `k` times (e.g. a batch of independent matmuls).
    pub fn times(self, k: f64) -> Work {
        Work {
            flops: self.flops * k,
            bytes: self.bytes * k,
        }
    }

    /// FLOP per byte; `None` when no bytes move (infinite intensity).
    pub fn intensity(&self) -> Option<f64> {
        (self.bytes > 0.0).then(|| self.flops / self.bytes)
    }
}

/// Element types, for byte counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    F64,
    F32,
    /// Stored as 32 bits; only the tensor-core math is reduced.
    Tf32,
    Bf16,
    F16,
    F8E4M3,
    F8E5M2,
    /// 4-bit floats or ints, packed two per byte.
    F4,
    I64,
    I32,
    I16,
    I8,
}

impl DType {
    /// Bytes per element (½ for packed 4-bit types).
    pub fn bytes(self) -> f64 {
        match self {
            DType::F64 | DType::I64 => 8.0,
            DType::F32 | DType::Tf32 | DType::I32 => 4.0,
            DType::Bf16 | DType::F16 | DType::I16 => 2.0,
            DType::F8E4M3 | DType::F8E5M2 | DType::I8 => 1.0,
            DType::F4 => 0.5,
        }
    }

    /// The canonical lowercase name (also the serde name).
    pub fn name(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::Tf32 => "tf32",
            DType::Bf16 => "bf16",
            DType::F16 => "f16",
            DType::F8E4M3 => "f8e4m3",
            DType::F8E5M2 => "f8e5m2",
            DType::F4 => "f4",
            DType::I64 => "i64",
            DType::I32 => "i32",
            DType::I16 => "i16",
            DType::I8 => "i8",
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = BenchError;
    /// Accepts the canonical names and the usual aliases (fp16, half,
    /// float, double, e4m3, fp8, int8, ...), case-insensitively.
    fn from_str(s: &str) -> Result<DType> {
        let t = match s.to_ascii_lowercase().as_str() {
            "f64" | "fp64" | "double" | "float64" => DType::F64,
            "f32" | "fp32" | "float" | "float32" => DType::F32,
            "tf32" => DType::Tf32,
            "bf16" | "bfloat16" => DType::Bf16,
            "f16" | "fp16" | "half" | "float16" => DType::F16,
            "f8e4m3" | "e4m3" | "fp8" | "fp8e4m3" | "f8e4m3fn" => DType::F8E4M3,
            "f8e5m2" | "e5m2" | "fp8e5m2" => DType::F8E5M2,
            "f4" | "fp4" | "i4" | "int4" | "e2m1" => DType::F4,
            "i64" | "int64" => DType::I64,
            "i32" | "int32" => DType::I32,
            "i16" | "int16" => DType::I16,
            "i8" | "int8" => DType::I8,
            _ => {
                return Err(BenchError::setting(
                    "dtype",
                    s,
                    "expected one of f64 f32 tf32 bf16 f16 f8e4m3 f8e5m2 f4 i64 i32 i16 i8",
                ))
            }
        };
        Ok(t)
    }
}

/// C(M×N) = A(M×K)·B(K×N): 2·M·N·K FLOPs (a multiply and an add per
/// term); bytes (M·K + K·N)·in + M·N·out.
pub fn matmul(m: u64, n: u64, k: u64, input: DType, output: DType) -> Work {
    let (m, n, k) = (m as f64, n as f64, k as f64);
    Work {
        flops: 2.0 * m * n * k,
        bytes: (m * k + k * n) * input.bytes() + m * n * output.bytes(),
    }
}

/// `n` elements, each reading `inputs` tensors and writing `outputs`
/// tensors of `dtype` and costing `flops_per_element`.
pub fn elementwise(
    n: u64,
    inputs: u32,
    outputs: u32,
    flops_per_element: f64,
    dtype: DType,
) -> Work {
    let n = n as f64;
    Work {
        flops: n * flops_per_element,
        bytes: n * f64::from(inputs + outputs) * dtype.bytes(),
    }
}

/// Reduces `n_in` elements to `n_out` (e.g. rows × cols → rows):
/// `n_in · flops_per_element` FLOPs (one combine per input; the exact count
/// n_in − n_out differs by a negligible n_out), bytes n_in·in + n_out·out.
pub fn reduction(
    n_in: u64,
    n_out: u64,
    flops_per_element: f64,
    input: DType,
    output: DType,
) -> Work {
    Work {
        flops: n_in as f64 * flops_per_element,
        bytes: n_in as f64 * input.bytes() + n_out as f64 * output.bytes(),
    }
}

/// The attention mask, with FlashAttention's bottom-right alignment: query
/// row i (0-based) sits at key position p = i + Sk − Sq, so the last query
/// sees the last key whatever the lengths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mask {
    /// Every query sees every key.
    Full,
    /// Query i sees keys j ≤ p.
    Causal,
    /// Query i sees keys p − left ≤ j ≤ p + right (`None`: unbounded on that
    /// side, FlashAttention's −1). `{left: None, right: Some(0)}` is causal.
    Window {
        left: Option<u64>,
        right: Option<u64>,
    },
}

/// How the causal mask is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counting {
    /// The area of the causal region as a continuous shape: for Sq ≤ Sk the
    /// average row length is (max(0, Sk − Sq) + Sk)/2 = Sk − Sq/2, for
    /// Sq > Sk it is Sk²/(2·Sq). This is the convention of FlashAttention's
    /// benchmark (causal = half the FLOPs of full when Sq = Sk), so TFLOP/s
    /// compare with published numbers. Default.
    #[default]
    Continuous,
    /// The exact number of unmasked (query, key) pairs per row, diagonal
    /// included: ½ more per row than `Continuous` when Sq ≤ Sk.
    Exact,
}

/// Average number of keys each query attends (`Sk_eff`).
///
/// Derivation (exact counting): row i of Sq sees
/// c(i) = clamp(Sk − Sq + i + 1, 0, Sk) keys under the causal mask. If
/// Sq ≤ Sk every c(i) is in [Sk − Sq + 1, Sk], an arithmetic series, so the
/// average is (Sk − Sq + 1 + Sk)/2 = Sk − (Sq − 1)/2. If Sq > Sk the first
/// Sq − Sk rows see nothing and the rest see 1..Sk, so the average is
/// Sk(Sk + 1)/(2Sq). The continuous convention replaces the staircase by the
/// triangle under it, dropping the ½-per-row diagonal term: Sk − Sq/2 and
/// Sk²/(2Sq) ([`Counting::Continuous`]). Sliding windows are always counted
/// exactly by summing rows: c(i) = |[max(0, p − left), min(Sk − 1, p + right)]|
/// with p = i + Sk − Sq (O(Sq)). Full attention is Sk.
pub fn effective_kv_len(seq_q: u64, seq_k: u64, mask: Mask, counting: Counting) -> f64 {
    if seq_q == 0 || seq_k == 0 {
        return 0.0;
    }
    let (sq, sk) = (seq_q as f64, seq_k as f64);
    match (mask, counting) {
        (Mask::Full, _) => sk,
        (Mask::Causal, Counting::Continuous) if seq_q <= seq_k => sk - sq / 2.0,
        (Mask::Causal, Counting::Continuous) => sk * sk / (2.0 * sq),
        (Mask::Causal, Counting::Exact) if seq_q <= seq_k => sk - (sq - 1.0) / 2.0,
        (Mask::Causal, Counting::Exact) => sk * (sk + 1.0) / (2.0 * sq),
        (Mask::Window { left, right }, _) => window_row_sum(seq_q, seq_k, left, right) / sq,
    }
}

/// Σ over query rows of the number of keys inside the window (exact).
fn window_row_sum(seq_q: u64, seq_k: u64, left: Option<u64>, right: Option<u64>) -> f64 {
    let (sq, sk) = (i128::from(seq_q), i128::from(seq_k));
    let mut total: i128 = 0;
    for i in 0..sq {
        let p = i + sk - sq;
        let lo = left.map_or(0, |l| (p - i128::from(l)).max(0));
        let hi = right.map_or(sk - 1, |r| (p + i128::from(r)).min(sk - 1));
        total += (hi - lo + 1).max(0);
    }
    total as f64
}

/// An attention problem: `batch × heads` independent Sq×Sk attentions with
/// query/key head size `head_dim` and value head size `head_dim_v`;
/// `heads_kv < heads` is grouped-query attention (fewer K/V bytes, same
/// FLOPs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Attention {
    pub batch: u64,
    pub heads: u64,
    pub heads_kv: u64,
    pub seq_q: u64,
    pub seq_k: u64,
    pub head_dim: u64,
    pub head_dim_v: u64,
    pub mask: Mask,
    #[serde(default)]
    pub counting: Counting,
}

impl Attention {
    /// Self-attention-shaped defaults: `heads_kv = heads`, `head_dim_v =
    /// head_dim`, full mask, continuous counting.
    pub fn new(batch: u64, heads: u64, seq_q: u64, seq_k: u64, head_dim: u64) -> Attention {
        Attention {
            batch,
            heads,
            heads_kv: heads,
            seq_q,
            seq_k,
            head_dim,
            head_dim_v: head_dim,
            mask: Mask::Full,
            counting: Counting::Continuous,
        }
    }

    pub fn with_mask(mut self, mask: Mask) -> Self {
        self.mask = mask;
        self
    }

    pub fn with_counting(mut self, counting: Counting) -> Self {
        self.counting = counting;
        self
    }

    pub fn with_heads_kv(mut self, heads_kv: u64) -> Self {
        self.heads_kv = heads_kv;
        self
    }

    pub fn with_head_dim_v(mut self, head_dim_v: u64) -> Self {
        self.head_dim_v = head_dim_v;
        self
    }

    /// See [`effective_kv_len`].
    pub fn effective_kv_len(&self) -> f64 {
        effective_kv_len(self.seq_q, self.seq_k, self.mask, self.counting)
    }

    /// Forward FLOPs 2·B·H·Sq·Sk_eff·(d + dv): S = QKᵀ costs 2·d and O = PV
    /// costs 2·dv per attended (query, key) pair; softmax is not counted
    /// (convention). Bytes: Q, K, V read and O written once, in `dtype`.
    pub fn forward(&self, dtype: DType) -> Work {
        let flops = 2.0
            * self.batch as f64
            * self.heads as f64
            * self.seq_q as f64
            * self.effective_kv_len()
            * (self.head_dim + self.head_dim_v) as f64;
        let (q, k, v, o) = self.tensor_elements();
        Work {
            flops,
            bytes: (q + k + v + o) * dtype.bytes(),
        }
    }

    /// Backward FLOPs = 2.5 × forward (five matmuls — recompute S, dV, dP,
    /// dQ, dK — against the forward's two). Bytes: Q, K, V, O, dO read and
    /// dQ, dK, dV written once; the fp32 softmax statistics (4 bytes per
    /// query row) are ignored as negligible next to d-wide rows.
    pub fn backward(&self, dtype: DType) -> Work {
        let (q, k, v, o) = self.tensor_elements();
        Work {
            flops: 2.5 * self.forward(dtype).flops,
            bytes: (2.0 * (q + k + v) + 2.0 * o) * dtype.bytes(),
        }
    }

    /// Element counts of Q, K, V, O.
    fn tensor_elements(&self) -> (f64, f64, f64, f64) {
        let b = self.batch as f64;
        let q = b * self.heads as f64 * self.seq_q as f64 * self.head_dim as f64;
        let k = b * self.heads_kv as f64 * self.seq_k as f64 * self.head_dim as f64;
        let v = b * self.heads_kv as f64 * self.seq_k as f64 * self.head_dim_v as f64;
        let o = b * self.heads as f64 * self.seq_q as f64 * self.head_dim_v as f64;
        (q, k, v, o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_causal_attention_flops() {
        // B=8, H=32, S=2048, d=dv=128, causal: Sk_eff = (0 + 2048)/2 = 1024,
        // 2·8·32·2048·1024·256 = 274,877,906,944.
        let a = Attention::new(8, 32, 2048, 2048, 128).with_mask(Mask::Causal);
        assert_eq!(a.effective_kv_len(), 1024.0);
        assert_eq!(a.forward(DType::Bf16).flops, 274_877_906_944.0);
        assert_eq!(a.backward(DType::Bf16).flops, 687_194_767_360.0);
        // Full is exactly twice causal at Sq = Sk under this convention.
        let full = Attention::new(8, 32, 2048, 2048, 128);
        assert_eq!(full.forward(DType::Bf16).flops, 549_755_813_888.0);
        // Exact counting adds the half diagonal: Sk_eff = 1024.5.
        let exact = a.with_counting(Counting::Exact);
        assert_eq!(exact.effective_kv_len(), 1024.5);
        assert_eq!(exact.forward(DType::Bf16).flops, 275_012_124_672.0);
        // Bytes: Q,K,V,O = 4 · 8·32·2048·128 elements · 2 bytes.
        assert_eq!(a.forward(DType::Bf16).bytes, 536_870_912.0);
        assert_eq!(a.backward(DType::Bf16).bytes, 1_073_741_824.0);
    }

    fn brute_force(seq_q: u64, seq_k: u64, left: Option<i64>, right: Option<i64>) -> f64 {
        // Count every (i, j) pair directly.
        let mut n = 0u64;
        for i in 0..seq_q as i64 {
            let p = i + seq_k as i64 - seq_q as i64;
            for j in 0..seq_k as i64 {
                let ok_l = left.is_none_or(|l| j >= p - l);
                let ok_r = right.is_none_or(|r| j <= p + r);
                n += u64::from(ok_l && ok_r);
            }
        }
        n as f64 / seq_q as f64
    }

    #[test]
    fn effective_kv_len_table() {
        use Counting::*;
        let causal = Mask::Causal;
        let w = |l: Option<u64>, r: Option<u64>| Mask::Window { left: l, right: r };
        // (Sq, Sk, mask, counting, expected Sk_eff) — by hand.
        let cases = [
            (4, 4, Mask::Full, Continuous, 4.0),
            (4, 4, causal, Continuous, 2.0),           // (0+4)/2
            (4, 4, causal, Exact, 2.5),                // (1+2+3+4)/4
            (2, 6, causal, Continuous, 5.0),           // (4+6)/2
            (2, 6, causal, Exact, 5.5),                // (5+6)/2
            (6, 2, causal, Continuous, 1.0 / 3.0),     // 4/12
            (6, 2, causal, Exact, 0.5),                // (0+0+0+0+1+2)/6
            (4, 4, w(Some(1), Some(0)), Exact, 1.75),  // 1,2,2,2
            (4, 4, w(Some(1), Some(1)), Exact, 2.5),   // 2,3,3,2
            (4, 4, w(None, Some(0)), Continuous, 2.5), // window = exact causal
            (4, 4, w(Some(0), Some(0)), Exact, 1.0),
            (3, 5, w(Some(2), Some(10)), Exact, 4.0), // 5,4,3 (p = 2,3,4)
            (0, 5, causal, Exact, 0.0),
            (5, 0, causal, Exact, 0.0),
        ];
        for (sq, sk, mask, counting, want) in cases {
            let got = effective_kv_len(sq, sk, mask, counting);
            assert!(
                (got - want).abs() < 1e-12,
                "{sq}x{sk} {mask:?} {counting:?}: {got}"
            );
        }
    }

    #[test]
    fn exact_counts_match_brute_force() {
        let windows = [
            (None, None),
            (None, Some(0)),
            (Some(3), Some(0)),
            (Some(0), Some(2)),
            (Some(5), Some(5)),
            (Some(100), None),
        ];
        for sq in [1u64, 3, 8, 13] {
            for sk in [1u64, 5, 8, 20] {
                for (l, r) in windows {
                    let got = effective_kv_len(
                        sq,
                        sk,
                        Mask::Window { left: l, right: r },
                        Counting::Exact,
                    );
                    let want = brute_force(sq, sk, l.map(|x| x as i64), r.map(|x| x as i64));
                    assert!((got - want).abs() < 1e-12, "{sq}x{sk} {l:?},{r:?}");
                }
                let causal = effective_kv_len(sq, sk, Mask::Causal, Counting::Exact);
                let want = brute_force(sq, sk, None, Some(0));
                assert!(
                    (causal - want).abs() < 1e-12,
                    "causal {sq}x{sk}: {causal} != {want}"
                );
            }
        }
    }

    #[test]
    fn gqa_and_dv_change_bytes_not_attention_flops() {
        let a = Attention::new(1, 8, 16, 16, 64);
        let g = a.with_heads_kv(2);
        assert_eq!(a.forward(DType::F16).flops, g.forward(DType::F16).flops);
        // Q,O: 8·16·64 each; K,V: 2·16·64 each -> (8192·2 + 2048·2)·2 bytes.
        assert_eq!(g.forward(DType::F16).bytes, 40_960.0);
        let dv = a.with_head_dim_v(32);
        // 2·1·8·16·16·(64+32)
        assert_eq!(dv.forward(DType::F16).flops, 393_216.0);
    }

    #[test]
    fn matmul_elementwise_reduction() {
        // (work, flops, bytes) by hand.
        let cases = [
            // 2·1024·512·256; (1024·256 + 256·512)·2 + 1024·512·4
            (
                matmul(1024, 512, 256, DType::Bf16, DType::F32),
                268_435_456.0,
                2_883_584.0,
            ),
            (matmul(1, 1, 1, DType::F8E4M3, DType::Bf16), 2.0, 4.0),
            // a + b -> c over 1M f32: 1 FLOP, 3 tensors
            (
                elementwise(1 << 20, 2, 1, 1.0, DType::F32),
                1_048_576.0,
                12_582_912.0,
            ),
            // row sums of 4096×1024 f16 into f32
            (
                reduction(4096 * 1024, 4096, 1.0, DType::F16, DType::F32),
                4_194_304.0,
                8_404_992.0,
            ),
        ];
        for (w, flops, bytes) in cases {
            assert_eq!((w.flops, w.bytes), (flops, bytes), "{w:?}");
        }
        let w = matmul(2, 2, 2, DType::F32, DType::F32).times(3.0);
        assert_eq!((w.flops, w.bytes), (48.0, 144.0));
        assert_eq!(w.intensity(), Some(48.0 / 144.0));
        assert_eq!(
            Work {
                flops: 1.0,
                bytes: 0.0
            }
            .intensity(),
            None
        );
    }

    #[test]
    fn dtype_names_round_trip() {
        for (s, t) in [
            ("fp16", DType::F16),
            ("BF16", DType::Bf16),
            ("e4m3", DType::F8E4M3),
            ("float", DType::F32),
            ("int4", DType::F4),
        ] {
            assert_eq!(s.parse::<DType>().unwrap(), t);
            assert_eq!(t.name().parse::<DType>().unwrap(), t);
        }
        let e = "f13".parse::<DType>().unwrap_err().to_string();
        assert!(e.contains("f13") && e.contains("bf16"), "{e}");
        assert_eq!(serde_json::to_string(&DType::F8E4M3).unwrap(), "\"f8e4m3\"");
    }
}
