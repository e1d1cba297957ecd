//! The launch spec: grid, block and kernel arguments, shared by `kperf run`
//! (and later `kperf bench`). TOML, e.g.
//!
//! ```toml
//! kernel = "matmul"
//! grid = [4, 4, 1]
//! block = [128, 1, 1]
//! [[args]]
//! name = "A"
//! dtype = "f32"
//! shape = [64, 64]
//! fill = "random"
//! seed = 1
//! [[args]]
//! name = "n"
//! dtype = "index"
//! value = 64
//! ```

use crate::guard::{GuardedBuffer, Placement};
use crate::launch_error::LaunchError as RuntimeError;
use serde::Deserialize;
use std::path::Path;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// Kernel symbol; may be omitted when the module has one kernel.
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(deserialize_with = "dims3")]
    pub grid: [u32; 3],
    #[serde(default = "one3", deserialize_with = "dims3")]
    pub block: [u32; 3],
    /// Dynamic shared memory bytes (CUDA).
    #[serde(default)]
    pub shared_bytes: u32,
    #[serde(default)]
    pub args: Vec<ArgSpec>,
    /// The file the spec was read from, for errors found after loading
    /// (arguments that disagree with the kernel).
    #[serde(skip)]
    pub origin: Option<String>,
    /// Which guard the buffers touch ([`crate::guard`]): the end, unless a
    /// launch that checks for under-runs asks for the start.
    #[serde(skip)]
    pub placement: Placement,
}

fn one3() -> [u32; 3] {
    [1, 1, 1]
}

/// x, y, z: one to three entries (missing ones are 1). More is an error,
/// not silently truncated (serde's arrays accept a longer TOML list).
fn dims3<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[u32; 3], D::Error> {
    let v: Vec<u32> = Vec::deserialize(d)?;
    if v.is_empty() || v.len() > 3 {
        return Err(serde::de::Error::custom(format!(
            "{} dimensions given: x, y, z take one to three",
            v.len()
        )));
    }
    let mut out = [1u32; 3];
    out[..v.len()].copy_from_slice(&v);
    Ok(out)
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgSpec {
    #[serde(default)]
    pub name: String,
    /// f32 | f64 | i32 | i64 | index
    pub dtype: String,
    /// Present for buffers: element counts per dimension.
    #[serde(default)]
    pub shape: Option<Vec<u64>>,
    /// Buffers: zeros | iota | sequential | shuffled | random | value:<x> |
    /// file:<path> (raw little-endian). `sequential` (= iota) and `shuffled`
    /// (a seeded permutation of 0..n) are for index-like inputs.
    #[serde(default)]
    pub fill: Option<String>,
    #[serde(default)]
    pub seed: Option<u64>,
    /// Buffers: every element, in row-major order (instead of `fill`), for
    /// inputs a known answer is computed from.
    #[serde(default)]
    pub values: Option<Vec<Number>>,
    /// Scalars: the value.
    #[serde(default)]
    pub value: Option<Number>,
}

/// A number as the spec writes it: an integer stays exact (2^53 + 1 as an
/// `i64` reached the kernel as 2^53 when every value went through f64).
#[derive(Copy, Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

impl From<f64> for Number {
    fn from(v: f64) -> Number {
        Number::Float(v)
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(v) => write!(f, "{}", short_number(*v)),
        }
    }
}

/// The element or scalar bits of `v` as type `t`, little-endian in the low
/// `t.size()` bytes. Integers must be exact: a float for an integer type
/// must be a whole number f64 holds exactly (|v| ≤ 2^53), and an `i32`
/// takes -2^31 ..= 2^32 - 1 (an unsigned 32-bit value as its bit pattern).
pub fn number_bits(t: DType, v: Number) -> Result<u64, &'static str> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    let int = match (t, v) {
        (DType::F32, v) => {
            let v = v.as_f64();
            if v.is_finite() && v.abs() > f32::MAX as f64 {
                return Err("does not fit in f32");
            }
            return Ok((v as f32).to_bits() as u64);
        }
        (DType::F64, v) => return Ok(v.as_f64().to_bits()),
        (DType::F16 | DType::BF16, v) => {
            let v = v.as_f64();
            let bits = small_float_bits(t, v);
            if v.is_finite() && bits & 0x7fff == small_float_bits(t, f64::INFINITY) {
                return Err(if t == DType::F16 {
                    "does not fit in f16 (at most 65504)"
                } else {
                    "does not fit in bf16"
                });
            }
            return Ok(bits as u64);
        }
        (_, Number::Int(i)) => i,
        (_, Number::Float(v)) => {
            if !v.is_finite() {
                return Err("is not a finite number");
            }
            if v.fract() != 0.0 {
                return Err("is not an integer");
            }
            // 2^63 exactly is out of range; f64 cannot say 2^63 - 1.
            let hi = if t == DType::I32 {
                u32::MAX as f64
            } else {
                9.223_372_036_854_775e18
            };
            let lo = if t == DType::I32 {
                i32::MIN as f64
            } else {
                i64::MIN as f64
            };
            if v < lo || v >= hi + if t == DType::I32 { 1.0 } else { 0.0 } {
                return Err("is out of range");
            }
            if v.abs() > EXACT {
                return Err(
                    "is beyond 2^53, where a number with a decimal point or exponent is not exact: \
                     write the integer's digits",
                );
            }
            v as i64
        }
    };
    match t {
        DType::I32 if !(i32::MIN as i64..=u32::MAX as i64).contains(&int) => {
            Err("is out of range (i32 takes -2147483648 ..= 4294967295, the upper half as unsigned bits)")
        }
        DType::I32 => Ok(int as u32 as u64),
        _ => Ok(int as u64),
    }
}

/// `v` rounded to nearest even as an IEEE half (`F16`: 5 exponent bits,
/// 10 mantissa bits) or bfloat16 (`BF16`: 8 and 7), its bits; NaN is the
/// quiet NaN, out of range is infinity.
pub fn small_float_bits(t: DType, v: f64) -> u16 {
    let (ebits, mbits) = match t {
        DType::BF16 => (8i32, 7i32),
        _ => (5, 10),
    };
    let sign: u16 = if v.is_sign_negative() {
        1 << (ebits + mbits)
    } else {
        0
    };
    let exp_all = ((1u32 << ebits) - 1) as u16;
    if v.is_nan() {
        return (exp_all << mbits) | (1 << (mbits - 1));
    }
    let a = v.abs();
    let bias = (1i32 << (ebits - 1)) - 1;
    if a.is_infinite() {
        return sign | (exp_all << mbits);
    }
    if a == 0.0 {
        return sign;
    }
    let emin = 1 - bias;
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    if e < emin {
        // Subnormal: a multiple of 2^(emin - mbits); rounding up to
        // 2^mbits of them is the smallest normal, which the bits say too.
        let k = (a / 2f64.powi(emin - mbits)).round_ties_even() as u16;
        return sign | k;
    }
    let mut exp = e;
    let mut m = (a / 2f64.powi(exp - mbits)).round_ties_even() as u32;
    if m == 1 << (mbits + 1) {
        m >>= 1;
        exp += 1;
    }
    if exp > bias {
        return sign | (exp_all << mbits);
    }
    sign | (((exp + bias) as u16) << mbits) | (m - (1 << mbits)) as u16
}

/// The value of half or bfloat16 `bits` ([`small_float_bits`]).
pub fn small_float_value(t: DType, bits: u16) -> f64 {
    let (ebits, mbits) = match t {
        DType::BF16 => (8i32, 7i32),
        _ => (5, 10),
    };
    let sign = if bits >> (ebits + mbits) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = ((bits >> mbits) as i32) & ((1 << ebits) - 1);
    let m = (bits as i32) & ((1 << mbits) - 1);
    let bias = (1i32 << (ebits - 1)) - 1;
    let v = if e == (1 << ebits) - 1 {
        if m == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if e == 0 {
        m as f64 * 2f64.powi(1 - bias - mbits)
    } else {
        ((1 << mbits) + m) as f64 * 2f64.powi(e - bias - mbits)
    };
    sign * v
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DType {
    /// IEEE half precision: buffers only.
    F16,
    /// bfloat16: buffers only.
    BF16,
    F32,
    F64,
    I32,
    I64,
    Index,
}

impl DType {
    pub fn parse(s: &str) -> Option<DType> {
        Some(match s {
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            "f32" => DType::F32,
            "f64" => DType::F64,
            "i32" => DType::I32,
            "i64" => DType::I64,
            "index" => DType::Index,
            _ => return None,
        })
    }
    pub fn size(self) -> usize {
        match self {
            DType::F16 | DType::BF16 => 2,
            DType::F32 | DType::I32 => 4,
            _ => 8,
        }
    }
    pub fn mlir_name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::Index => "index",
        }
    }
}

/// Most threads one CTA may have on the GPUs kperf targets.
const MAX_BLOCK_THREADS: u64 = 1024;

/// The longest kernel or argument name a launch spec may give, in bytes.
pub const MAX_NAME_BYTES: usize = 64 * 1024;

impl LaunchSpec {
    pub fn load(path: &Path) -> Result<LaunchSpec, RuntimeError> {
        let text = crate::input::read_to_string(path).map_err(|e| RuntimeError::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let mut spec: LaunchSpec = toml::from_str(&text).map_err(|e| RuntimeError::Spec {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        spec.validate().map_err(|m| RuntimeError::Spec {
            path: path.display().to_string(),
            message: m,
        })?;
        spec.origin = Some(path.display().to_string());
        Ok(spec)
    }

    /// An error in this spec found after loading: names the spec's file
    /// when it came from one.
    pub fn error(&self, message: String) -> RuntimeError {
        match &self.origin {
            Some(path) => RuntimeError::Spec {
                path: path.clone(),
                message,
            },
            None => RuntimeError::Launch(message),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.grid.contains(&0) || self.block.contains(&0) {
            return Err("grid and block dimensions must be positive".into());
        }
        // What every NVIDIA and AMD GPU allows: the host target would run
        // anything, but a profile of a block no GPU launches is fiction.
        let threads: u64 = self.block.iter().map(|b| *b as u64).product();
        if threads > MAX_BLOCK_THREADS || self.block[2] > 64 {
            return Err(format!(
                "block {:?} has {threads} threads: a CTA holds at most {MAX_BLOCK_THREADS}, \
                 with z at most 64",
                self.block
            ));
        }
        if crate::profile::checked_ctas(&self.grid).is_none() {
            return Err(format!(
                "grid {:?} has more CTAs than a 64-bit count holds",
                self.grid
            ));
        }
        // A name is echoed in errors and tables: a 50 MB one was printed
        // whole. Mangled C++ kernel names (CUTLASS) reach a few KB.
        let names = self
            .kernel
            .iter()
            .map(|k| ("the kernel name".to_string(), k))
            .chain(
                self.args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| (format!("argument {i}: name"), &a.name)),
            );
        for (what, name) in names {
            if name.len() > MAX_NAME_BYTES {
                return Err(format!(
                    "{what} is {} bytes, more than the {MAX_NAME_BYTES} a name may have (`{}`)",
                    name.len(),
                    kperf_dialects::meta::displayable_name(name, 64).unwrap_or_default()
                ));
            }
        }
        for (i, a) in self.args.iter().enumerate() {
            kperf_dialects::meta::refuse_unsafe_name(&format!("argument {i}: name"), &a.name)?;
            let who = if a.name.is_empty() {
                format!("argument {i}")
            } else {
                format!("argument {i} ({})", a.name)
            };
            DType::parse(&a.dtype).ok_or_else(|| {
                format!(
                    "{who}: unknown dtype `{}` (f16, bf16, f32, f64, i32, i64, index)",
                    a.dtype
                )
            })?;
            if matches!(DType::parse(&a.dtype), Some(DType::F16 | DType::BF16)) && a.shape.is_none()
            {
                return Err(format!(
                    "{who}: {} takes buffers only (a `shape`); no launcher passes a half scalar",
                    a.dtype
                ));
            }
            match (&a.shape, a.value) {
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "{who}: give `shape` (buffer) or `value` (scalar), not both"
                    ))
                }
                (None, None) => {
                    return Err(format!("{who}: needs `shape` (buffer) or `value` (scalar)"))
                }
                (None, Some(v)) => {
                    if let Some(t) = DType::parse(&a.dtype) {
                        number_bits(t, v)
                            .map_err(|why| format!("{who}: value {v} {why} for {}", a.dtype))?;
                    }
                }
                (Some(_), None) => {}
            }
        }
        Ok(())
    }

    /// The grid's CTA count; `validate` refuses grids whose count
    /// overflows, and an unvalidated one saturates.
    pub fn grid_ctas(&self) -> u64 {
        crate::profile::checked_ctas(&self.grid).unwrap_or(u64::MAX)
    }
}

/// A buffer argument's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct HostBuffer {
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<u64>,
    /// Raw little-endian elements, in a guarded mapping
    /// ([`crate::guard`]): a kernel indexing past it faults with a report.
    pub data: GuardedBuffer,
}

impl HostBuffer {
    pub fn len(&self) -> usize {
        self.shape.iter().product::<u64>() as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn bytes(&self) -> &[u8] {
        let n = self.len() * self.dtype.size();
        &self.data[..n]
    }
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let n = self.len() * self.dtype.size();
        &mut self.data[..n]
    }
    /// Element i as JSON: integers exactly (an i64 above 2^53 as f64 lost
    /// its low bits), floats as numbers (NaN and infinities as null).
    pub fn get_json(&self, i: usize) -> serde_json::Value {
        let s = self.dtype.size();
        let e = &self.bytes()[i * s..(i + 1) * s];
        match self.dtype {
            DType::I32 => i32::from_le_bytes(e.try_into().unwrap_or_default()).into(),
            DType::I64 | DType::Index => {
                i64::from_le_bytes(e.try_into().unwrap_or_default()).into()
            }
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => {
                // JSON has no infinities or NaN: serde_json wrote them all
                // as null, so inf, -inf and NaN read alike.
                let v = self.get(i);
                match v {
                    v if v.is_nan() => "nan".into(),
                    v if v == f64::INFINITY => "inf".into(),
                    v if v == f64::NEG_INFINITY => "-inf".into(),
                    v => v.into(),
                }
            }
        }
    }

    /// Element i as f64 (for summaries and comparisons).
    pub fn get(&self, i: usize) -> f64 {
        let b = self.bytes();
        let s = self.dtype.size();
        let e = &b[i * s..(i + 1) * s];
        match self.dtype {
            DType::F16 | DType::BF16 => small_float_value(
                self.dtype,
                u16::from_le_bytes(e.try_into().unwrap_or_default()),
            ),
            DType::F32 => f32::from_le_bytes(e.try_into().unwrap_or_default()) as f64,
            DType::F64 => f64::from_le_bytes(e.try_into().unwrap_or_default()),
            DType::I32 => i32::from_le_bytes(e.try_into().unwrap_or_default()) as f64,
            DType::I64 | DType::Index => {
                i64::from_le_bytes(e.try_into().unwrap_or_default()) as f64
            }
        }
    }

    /// Allocate and fill a buffer as the spec says.
    pub fn from_spec(
        a: &ArgSpec,
        index: usize,
        placement: Placement,
    ) -> Result<HostBuffer, String> {
        let dtype = DType::parse(&a.dtype).ok_or("bad dtype")?;
        let shape = a.shape.clone().unwrap_or_default();
        let who = if a.name.is_empty() {
            format!("argument {index}")
        } else {
            a.name.clone()
        };
        let n: u64 = shape
            .iter()
            .try_fold(1u64, |acc, d| acc.checked_mul(*d))
            .filter(|n| {
                n.checked_mul(dtype.size() as u64)
                    .is_some_and(|b| b <= isize::MAX as u64)
            })
            .ok_or_else(|| format!("{who}: shape {shape:?} is too large to allocate"))?;
        let bytes = n as usize * dtype.size();
        let mut b = HostBuffer {
            name: a.name.clone(),
            dtype,
            shape,
            // An empty shape gets no room (one element's room let a kernel
            // read and write element 0 unseen), but a pointer into its
            // mapping, never null, and a fault beside it names it.
            data: GuardedBuffer::zeroed_named(bytes, &who, placement)?,
        };
        let fill = a.fill.as_deref().unwrap_or("zeros");
        let put = |b: &mut HostBuffer, i: usize, v: f64| {
            let s = dtype.size();
            let bytes = b.bytes_mut();
            let dst = &mut bytes[i * s..(i + 1) * s];
            match dtype {
                DType::F16 | DType::BF16 => {
                    dst.copy_from_slice(&small_float_bits(dtype, v).to_le_bytes())
                }
                DType::F32 => dst.copy_from_slice(&(v as f32).to_le_bytes()),
                DType::F64 => dst.copy_from_slice(&v.to_le_bytes()),
                DType::I32 => dst.copy_from_slice(&(v as i32).to_le_bytes()),
                DType::I64 | DType::Index => dst.copy_from_slice(&(v as i64).to_le_bytes()),
            }
        };
        if let Some(values) = &a.values {
            if a.fill.is_some() {
                return Err(format!("{who}: give `fill` or `values`, not both"));
            }
            if values.len() as u64 != n {
                return Err(format!(
                    "{who}: {} values for a buffer of {n} elements",
                    values.len()
                ));
            }
            let s = dtype.size();
            for (i, v) in values.iter().enumerate() {
                let bits = number_bits(dtype, *v)
                    .map_err(|why| format!("{who}: values[{i}] = {v} {why} for {}", a.dtype))?;
                b.bytes_mut()[i * s..(i + 1) * s].copy_from_slice(&bits.to_le_bytes()[..s]);
            }
            return Ok(b);
        }
        match fill {
            "zeros" => {}
            // Index-like inputs (a paged-KV block table): `sequential` lays
            // them out as an allocator hands blocks out, `shuffled` as a
            // long-running server's fragmented pool would, a seeded
            // permutation of the same values.
            "iota" | "sequential" | "shuffled" if dtype == DType::F16 && n > 65505 => {
                return Err(format!(
                    "{who}: {fill} of {n} elements: f16 holds integers up to 65504"
                ));
            }
            "iota" | "sequential" => (0..n as usize).for_each(|i| put(&mut b, i, i as f64)),
            "shuffled" => {
                // The values 0..n laid out, then shuffled in the buffer
                // itself (a permutation held aside took 8 bytes an element
                // outside the memory limit): the swaps of rand's
                // `SliceRandom::shuffle`, so a seed gives the layout it gave.
                use rand::{Rng, SeedableRng};
                let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed.unwrap_or(0));
                (0..n as usize).for_each(|i| put(&mut b, i, i as f64));
                let s = dtype.size();
                let bytes = b.bytes_mut();
                for i in (1..n as usize).rev() {
                    let j = if i < u32::MAX as usize {
                        rng.gen_range(0..(i + 1) as u32) as usize
                    } else {
                        rng.gen_range(0..i + 1)
                    };
                    if i != j {
                        let (lo, hi) = bytes.split_at_mut(i * s);
                        lo[j * s..(j + 1) * s].swap_with_slice(&mut hi[..s]);
                    }
                }
            }
            "random" => {
                use rand::{Rng, SeedableRng};
                let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed.unwrap_or(0));
                for i in 0..n as usize {
                    let v = match dtype {
                        DType::F16 | DType::BF16 | DType::F32 | DType::F64 => {
                            rng.gen_range(-1.0..1.0)
                        }
                        _ => rng.gen_range(0..1000) as f64,
                    };
                    put(&mut b, i, v);
                }
            }
            f if f.starts_with("value:") => {
                // Checked as `values` are: 3.7, NaN or 2^53+1 for an
                // integer buffer were converted silently (to 3, 0, 2^53).
                let text = f[6..].trim();
                let v = match text.parse::<i64>() {
                    Ok(i) => Number::Int(i),
                    Err(_) => Number::Float(
                        text.parse::<f64>()
                            .map_err(|_| format!("{who}: bad fill `{f}`: not a number"))?,
                    ),
                };
                let bits = number_bits(dtype, v)
                    .map_err(|why| format!("{who}: fill `{f}`: {text} {why} for {}", a.dtype))?;
                let s = dtype.size();
                let word = &bits.to_le_bytes()[..s];
                for i in 0..n as usize {
                    b.bytes_mut()[i * s..(i + 1) * s].copy_from_slice(word);
                }
            }
            f if f.starts_with("file:") => {
                let need = n as usize * dtype.size();
                let raw = read_at_most(Path::new(&f[5..]), need as u64 + 1)
                    .map_err(|e| format!("{who}: cannot read {}: {e}", &f[5..]))?;
                if raw.len() != need {
                    let holds = if raw.len() > need {
                        format!("more than {need} bytes")
                    } else {
                        format!("{} bytes", raw.len())
                    };
                    return Err(format!(
                        "{who}: {} holds {holds}, the buffer needs {need}",
                        &f[5..],
                    ));
                }
                b.bytes_mut().copy_from_slice(&raw);
            }
            f => {
                return Err(format!(
                    "{who}: unknown fill `{f}` (zeros, iota, sequential, shuffled, random, value:<x>, file:<path>)"
                ))
            }
        }
        Ok(b)
    }
}

/// Read at most `limit` bytes of `path`: a device or FIFO (`/dev/zero`)
/// must not be read until memory runs out.
fn read_at_most(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    // Opening a FIFO blocks until someone writes to it: refuse it first.
    let kind = std::fs::metadata(path)?.file_type();
    if kind.is_fifo() || kind.is_socket() {
        return Err(std::io::Error::other(
            "is a FIFO or socket, which kperf would wait on: give a file",
        ));
    }
    // Non-blocking, so a terminal or another device with nothing to read
    // fails at once instead of waiting forever.
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if f.metadata()?.is_dir() {
        return Err(std::io::Error::other("is a directory"));
    }
    let mut out = Vec::new();
    f.take(limit).read_to_end(&mut out)?;
    Ok(out)
}

pub use crate::short_number;

#[cfg(test)]
mod tests {

    #[test]
    fn half_and_bfloat16_round_to_nearest_even() {
        for t in [DType::F16, DType::BF16] {
            // Every finite pattern reads back as itself.
            for bits in 0..=u16::MAX {
                let v = small_float_value(t, bits);
                if v.is_nan() {
                    continue;
                }
                assert_eq!(small_float_bits(t, v), bits, "{t:?} {bits:#06x} = {v}");
            }
        }
        let h = |v| small_float_bits(DType::F16, v);
        assert_eq!(h(65504.0), 0x7bff);
        assert_eq!(h(65519.0), 0x7bff);
        assert_eq!(
            h(65520.0),
            0x7c00,
            "halfway to the next binade: to infinity"
        );
        assert_eq!(h(1.0 + 2f64.powi(-11)), 0x3c00, "a tie to even");
        assert_eq!(h(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
        assert_eq!(
            h(2f64.powi(-25)),
            0x0000,
            "half the smallest subnormal: to even, 0"
        );
        assert_eq!(h(3.0 * 2f64.powi(-26)), 0x0001);
        assert_eq!(h(-0.0), 0x8000);
        assert_eq!(h(f64::NAN) & 0x7e00, 0x7e00);
        let b = |v| small_float_bits(DType::BF16, v);
        assert_eq!(b(1e6), 0x4974, "999424");
        assert_eq!(b(f32::MAX as f64), 0x7f80, "rounds past bf16's largest");
        assert!(number_bits(DType::F16, Number::Float(70000.0)).is_err());
        // An iota past f16's integers is refused, not filled with inf.
        let iota = |n: u64| ArgSpec {
            name: "h".into(),
            dtype: "f16".into(),
            shape: Some(vec![n]),
            fill: Some("iota".into()),
            seed: None,
            values: None,
            value: None,
        };
        let Err(err) = HostBuffer::from_spec(&iota(70000), 0, Placement::default()) else {
            panic!("an f16 iota of 70000 was not refused");
        };
        assert!(err.contains("f16 holds integers up to 65504"), "{err}");
        let ok = HostBuffer::from_spec(&iota(65505), 0, Placement::default()).expect("fits");
        assert_eq!(ok.get(65504), 65504.0);
        assert_eq!(number_bits(DType::BF16, Number::Float(1.0)), Ok(0x3f80));
    }

    use super::*;

    /// A kernel or argument name past 64 KiB is refused, and the message
    /// holds its length, not the name (a 50 MB name was echoed whole).
    #[test]
    fn a_name_past_64_kib_is_refused_not_echoed() {
        for (kernel, arg) in [
            ("A".repeat(70_000), "a".to_string()),
            ("k".into(), "B".repeat(70_000)),
        ] {
            let text = format!(
                "kernel = \"{kernel}\"\ngrid = [1]\n[[args]]\nname = \"{arg}\"\ndtype = \"f32\"\nvalue = 2.0\n"
            );
            let spec: LaunchSpec = toml::from_str(&text).expect("parses");
            let why = spec.validate().expect_err("refused");
            assert!(why.contains("70000 bytes, more than the 65536"), "{why}");
            assert!(why.len() < 300, "{} bytes", why.len());
        }
    }

    /// `shuffled` lays out the permutation rand's `SliceRandom::shuffle`
    /// gives, shuffled in the buffer (no permutation held aside).
    #[test]
    fn shuffled_is_the_seeded_permutation_without_a_copy() {
        use rand::seq::SliceRandom;
        use rand::SeedableRng;
        for (n, seed) in [(1u64, 0u64), (2, 3), (37, 7), (1000, 0)] {
            let a = ArgSpec {
                name: "p".into(),
                dtype: "i64".into(),
                shape: Some(vec![n]),
                fill: Some("shuffled".into()),
                seed: Some(seed),
                values: None,
                value: None,
            };
            let b = HostBuffer::from_spec(&a, 0, crate::guard::Placement::AgainstEnd).unwrap();
            let got: Vec<i64> = (0..n as usize).map(|i| b.get(i) as i64).collect();
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let mut want: Vec<i64> = (0..n as i64).collect();
            want.shuffle(&mut rng);
            assert_eq!(got, want, "n = {n}, seed = {seed}");
        }
    }
}
