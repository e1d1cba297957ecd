//! The benchmark spec of `kperf bench`: which kernels, which parameter
//! sweep, how to launch each point (kperf run's launch spec, with numbers
//! that may be expressions over the sweep), what the timed region holds,
//! the work per point, and the sampling settings. TOML:
//!
//! ```toml
//! timed = "one launch over the grid; inputs are generated before timing"
//! seed = 7
//! [sweep]                    # every combination is one point
//! n = [127, 513, 65536]
//! [[impl]]                   # implementations compared side by side
//! name = "mlir"
//! source = "axpy.mlir"       # .mlir | .ll | .bc | .ptx, relative to the spec
//! [launch]
//! grid = ["ceil(n/64)", 1, 1]
//! [[launch.args]]
//! name = "x"
//! dtype = "f32"
//! shape = ["n"]              # buffers default to fill = "random"
//! [[launch.args]]
//! name = "n"
//! dtype = "index"
//! value = "n"
//! [work]
//! flops = "2*n"
//! bytes = "12*n"
//! ```
//!
//! `{name}` in a string (source, kernel, dtype, fill) is replaced by the
//! sweep value, so a dtype sweep can pick `axpy_{dtype}.mlir`.

use anyhow::{bail, Context, Result};
use kperf_bench::expr::Expr;
use kperf_bench::flops::{self, Attention, DType as WorkDType, Mask, Work};
use kperf_bench::results::Param;
use kperf_runtime::spec::{ArgSpec, LaunchSpec};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchSpec {
    #[serde(default)]
    pub name: Option<String>,
    /// What one timed sample contains, in words; recorded with the results
    /// so nobody has to guess whether a pre-step was counted.
    pub timed: String,
    /// Base seed of the inputs: argument i without its own seed gets seed + i.
    #[serde(default)]
    pub seed: u64,
    #[serde(default)]
    pub sweep: BTreeMap<String, Vec<toml::Value>>,
    #[serde(rename = "impl")]
    pub impls: Vec<ImplSpec>,
    pub launch: LaunchTemplate,
    #[serde(default)]
    pub work: Option<WorkSpec>,
    #[serde(default)]
    pub settings: SettingsSpec,
    /// The spec's text, to tell a `--set` parameter it uses from a typo.
    #[serde(skip)]
    pub text: String,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImplSpec {
    pub name: String,
    pub source: String,
    #[serde(default)]
    pub kernel: Option<String>,
}

/// A number, or an expression over the sweep's numeric parameters.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Num {
    Int(i64),
    Float(f64),
    Expr(String),
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchTemplate {
    #[serde(deserialize_with = "dims3")]
    pub grid: [Num; 3],
    #[serde(default = "one3", deserialize_with = "dims3")]
    pub block: [Num; 3],
    #[serde(default)]
    pub shared_bytes: Option<Num>,
    #[serde(default)]
    pub args: Vec<ArgTemplate>,
}

fn one3() -> [Num; 3] {
    [Num::Int(1), Num::Int(1), Num::Int(1)]
}

/// One to three extents (missing ones are 1); more is an error, not
/// silently truncated.
fn dims3<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[Num; 3], D::Error> {
    let v: Vec<Num> = Vec::deserialize(d)?;
    if v.is_empty() || v.len() > 3 {
        return Err(serde::de::Error::custom(format!(
            "{} dimensions given: x, y, z take one to three",
            v.len()
        )));
    }
    let mut out = one3();
    for (o, n) in out.iter_mut().zip(v) {
        *o = n;
    }
    Ok(out)
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgTemplate {
    #[serde(default)]
    pub name: String,
    pub dtype: String,
    #[serde(default)]
    pub shape: Option<Vec<Num>>,
    /// Buffers: as kperf run's spec; default `random`. `zeros` only for
    /// outputs (`output = true`): benchmarking on zeros measures the
    /// hardware's fast paths for zeros, not the kernel.
    #[serde(default)]
    pub fill: Option<String>,
    #[serde(default)]
    pub seed: Option<u64>,
    #[serde(default)]
    pub value: Option<Num>,
    #[serde(default)]
    pub output: bool,
}

/// Work per point: expressions, or a named formula with its operands.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkSpec {
    /// expr (default: `flops` and `bytes`) | matmul | attention
    #[serde(default)]
    pub formula: Option<String>,
    #[serde(default)]
    pub flops: Option<Num>,
    #[serde(default)]
    pub bytes: Option<Num>,
    /// The compute roof to compare with (a key of the device peaks, e.g. fp32).
    #[serde(default)]
    pub compute: Option<String>,
    // matmul
    #[serde(default)]
    pub m: Option<Num>,
    #[serde(default)]
    pub n: Option<Num>,
    #[serde(default)]
    pub k: Option<Num>,
    #[serde(default)]
    pub dtype: Option<String>,
    #[serde(default)]
    pub out_dtype: Option<String>,
    // attention
    #[serde(default)]
    pub batch: Option<Num>,
    #[serde(default)]
    pub heads: Option<Num>,
    #[serde(default)]
    pub seq_q: Option<Num>,
    #[serde(default)]
    pub seq_k: Option<Num>,
    #[serde(default)]
    pub head_dim: Option<Num>,
    /// full | causal | window:<left>,<right> (-1: unbounded)
    #[serde(default)]
    pub mask: Option<String>,
    #[serde(default)]
    pub backward: bool,
}

/// Sampling settings; command-line flags override them.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsSpec {
    pub warmup: Option<u32>,
    pub warmup_time: Option<f64>,
    pub min_samples: Option<usize>,
    pub max_samples: Option<usize>,
    pub min_time: Option<f64>,
    pub max_noise: Option<f64>,
    pub timeout: Option<f64>,
    pub flush: Option<bool>,
    pub threads: Option<usize>,
    pub cooldown: Option<f64>,
    /// The implementation speedups are relative to (default: the first).
    pub baseline_impl: Option<String>,
}

/// One point of the sweep, resolved.
#[derive(Clone, Debug)]
pub struct Point {
    pub params: BTreeMap<String, Param>,
    pub launch: LaunchSpec,
    pub work: Option<(Work, Option<String>)>,
}

/// The points of a bench spec's sweep, resolved on demand.
pub struct Sweep<'s> {
    spec: &'s BenchSpec,
    axes: Vec<(String, Vec<Param>)>,
    len: usize,
}

impl Sweep<'_> {
    #[allow(clippy::len_without_is_empty)] // a sweep has at least one point
    pub fn len(&self) -> usize {
        self.len
    }

    /// Point `index` (the last axis varies fastest), resolved.
    pub fn point(&self, index: usize) -> Result<Point> {
        let mut params = BTreeMap::new();
        let mut rest = index;
        for (k, vals) in self.axes.iter().rev() {
            params.insert(k.clone(), vals[rest % vals.len()].clone());
            rest /= vals.len();
        }
        let label = kperf_bench::results::point_label(&params);
        self.spec
            .resolve(params)
            .with_context(|| format!("point {label}"))
    }
}

/// Longest string a sweep value may be, in bytes: values are substituted
/// into file names, dtypes and fills, and repeated in every result's label.
const MAX_SWEEP_STRING: usize = 1024;
/// Most sweep keys, and the longest key: with [`MAX_SWEEP_STRING`] they
/// bound every point's label (5,000 keys of 4 KB each made a 20 MB label
/// and 414 MB of RSS for a single point).
const MAX_SWEEP_KEYS: usize = 32;
const MAX_SWEEP_KEY: usize = 64;

/// Most sweep points one `kperf bench` run takes: each is compiled and
/// measured, so even this many runs for hours.
const MAX_POINTS: u64 = 100_000;

/// Refuse `text` (`what`, from the spec at `path`) if it holds control
/// characters, showing it escaped.
fn printable(path: &Path, what: &str, text: &str) -> Result<()> {
    kperf_dialects::meta::refuse_unsafe_name(what, text)
        .map_err(|m| anyhow::anyhow!("{}: {m}", path.display()))
}

impl BenchSpec {
    pub fn load(path: &Path) -> Result<BenchSpec> {
        let text = kperf_runtime::input::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        Self::parse(&text, path)
    }

    /// A spec from its text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<BenchSpec> {
        let mut spec: BenchSpec = toml::from_str(text)
            .with_context(|| format!("{}: not a valid bench spec", path.display()))?;
        spec.text = text.to_string();
        if spec.impls.is_empty() {
            bail!(
                "{}: no [[impl]]: name at least one kernel source",
                path.display()
            );
        }
        if spec.timed.trim().is_empty() {
            bail!(
                "{}: `timed` must say what one sample contains",
                path.display()
            );
        }
        if spec.sweep.len() > MAX_SWEEP_KEYS {
            bail!(
                "{}: the sweep has {} keys, over {MAX_SWEEP_KEYS}: every key is part of every \
                 result's label",
                path.display(),
                spec.sweep.len()
            );
        }
        for (k, vals) in &spec.sweep {
            if vals.is_empty() {
                bail!("{}: sweep `{k}` has no values", path.display());
            }
            if k.len() > MAX_SWEEP_KEY {
                bail!(
                    "{}: a sweep key is {} bytes long, over {MAX_SWEEP_KEY}",
                    path.display(),
                    k.len()
                );
            }
        }
        // Names and sweep values are printed in tables and progress lines:
        // one with an escape sequence or a newline would drive the terminal
        // or forge a row.
        if let Some(n) = &spec.name {
            printable(path, "the bench name", n)?;
        }
        for imp in &spec.impls {
            printable(path, "an [[impl]] name", &imp.name)?;
        }
        for (k, vals) in &spec.sweep {
            printable(path, "a sweep key", k)?;
            for v in vals {
                if let toml::Value::String(text) = v {
                    printable(path, &format!("a value of sweep `{k}`"), text)?;
                    if text.len() > MAX_SWEEP_STRING {
                        bail!(
                            "{}: a value of sweep `{k}` is {} bytes long, over {MAX_SWEEP_STRING}: \
                             sweep strings name files and types and label every result",
                            path.display(),
                            text.len()
                        );
                    }
                }
            }
        }
        for a in &spec.launch.args {
            printable(path, "a launch argument name", &a.name)?;
        }
        let mut names = std::collections::BTreeSet::new();
        for imp in &spec.impls {
            if !names.insert(imp.name.as_str()) {
                bail!("{}: two [[impl]] are named `{}`", path.display(), imp.name);
            }
        }
        if let Some(b) = &spec.settings.baseline_impl {
            if !names.contains(b.as_str()) {
                bail!(
                    "{}: baseline_impl `{b}` is not an [[impl]] ({})",
                    path.display(),
                    names.into_iter().collect::<Vec<_>>().join(", ")
                );
            }
        }
        Ok(spec)
    }

    /// The sweep's points (keys in alphabetical order, the last varying
    /// fastest; values in the order given), with `overrides` (from `--set`)
    /// replacing a key's values. Points are resolved one at a time
    /// ([`Sweep::point`]): a sweep of many points with long values must not
    /// hold them all at once.
    pub fn sweep(&self, overrides: &BTreeMap<String, Param>) -> Result<Sweep<'_>> {
        let mut axes: Vec<(String, Vec<Param>)> = Vec::new();
        // `--set n=abc` where the spec sweeps n over numbers: the text
        // value failed later as "unknown variable `n` (known: none)".
        for (k, v) in overrides {
            let numeric =
                |t: &toml::Value| matches!(t, toml::Value::Integer(_) | toml::Value::Float(_));
            if let (Some(vals), Param::Text(text)) = (self.sweep.get(k), v) {
                if !vals.is_empty() && vals.iter().all(numeric) {
                    bail!("--set {k}={text}: the spec sweeps `{k}` over numbers, and `{text}` is not one");
                }
            }
        }
        for (k, vals) in &self.sweep {
            let vals = match overrides.get(k) {
                Some(v) => vec![v.clone()],
                None => vals
                    .iter()
                    .map(|v| param_of(v).with_context(|| format!("sweep `{k}`")))
                    .collect::<Result<_>>()?,
            };
            // Two values that name the same point (127 and 127.0) would be
            // two results under one label, which no comparison can pair.
            let mut seen = std::collections::BTreeSet::new();
            for v in &vals {
                let label =
                    kperf_bench::results::point_label(&BTreeMap::from([(k.clone(), v.clone())]));
                if !seen.insert(label.clone()) {
                    bail!("sweep `{k}` lists `{label}` twice: each value must name its own point");
                }
            }
            axes.push((k.clone(), vals));
        }
        for (k, v) in overrides {
            if !self.sweep.contains_key(k) {
                // A parameter no expression names is a typo (`--set N=4096`
                // for the axis `n`): it silently changed nothing but the
                // results' labels.
                if !self.text.is_empty() && !mentions(&self.text, k) {
                    let axes: Vec<&str> = self.sweep.keys().map(String::as_str).collect();
                    bail!(
                        "--set {k}: the spec has no sweep axis `{k}` and no expression or \
                         `{{{k}}}` uses it (axes: {})",
                        if axes.is_empty() {
                            "none".to_string()
                        } else {
                            axes.join(", ")
                        }
                    );
                }
                axes.push((k.clone(), vec![v.clone()]));
            }
        }
        // Counted before anything is built: a hostile sweep (1000 values on
        // three axes) must be refused, not exhaust memory.
        let count = axes
            .iter()
            .try_fold(1u64, |n, (_, vals)| n.checked_mul(vals.len() as u64));
        let len = match count {
            Some(n) if n <= MAX_POINTS => n as usize,
            _ => {
                let sizes: Vec<String> = axes
                    .iter()
                    .map(|(k, vals)| format!("{} {k}", vals.len()))
                    .collect();
                bail!(
                    "the sweep has {} points ({}); one bench run measures at most {MAX_POINTS}: \
                     narrow the sweep, or pick values with --set",
                    count.map_or("more than 2^64".to_string(), |n| n.to_string()),
                    sizes.join(" × ")
                );
            }
        };
        Ok(Sweep {
            spec: self,
            axes,
            len,
        })
    }

    /// Every point of [`BenchSpec::sweep`], resolved (for small sweeps).
    #[cfg(test)]
    pub fn points(&self, overrides: &BTreeMap<String, Param>) -> Result<Vec<Point>> {
        let sweep = self.sweep(overrides)?;
        (0..sweep.len()).map(|i| sweep.point(i)).collect()
    }

    fn resolve(&self, params: BTreeMap<String, Param>) -> Result<Point> {
        let vars = kperf_bench::results::numeric_params(&params);
        let num = |n: &Num, what: &str| -> Result<f64> {
            eval(n, &vars).with_context(|| what.to_string())
        };
        let dim = |n: &Num, what: &str| -> Result<u32> {
            Ok(whole(num(n, what)?, what, 1, u32::MAX as u64)? as u32)
        };
        let l = &self.launch;
        let grid = [
            dim(&l.grid[0], "grid x")?,
            dim(&l.grid[1], "grid y")?,
            dim(&l.grid[2], "grid z")?,
        ];
        let block = [
            dim(&l.block[0], "block x")?,
            dim(&l.block[1], "block y")?,
            dim(&l.block[2], "block z")?,
        ];
        let shared_bytes = match &l.shared_bytes {
            Some(n) => whole(num(n, "shared_bytes")?, "shared_bytes", 0, u32::MAX as u64)? as u32,
            None => 0,
        };
        let mut args = Vec::new();
        for (i, a) in l.args.iter().enumerate() {
            let who = if a.name.is_empty() {
                format!("argument {i}")
            } else {
                format!("argument {i} ({})", a.name)
            };
            let shape = match &a.shape {
                Some(s) => Some(
                    s.iter()
                        .map(|d| {
                            let what = format!("{who}: shape extent");
                            whole(num(d, &what)?, &what, 0, u64::MAX)
                        })
                        .collect::<Result<Vec<u64>>>()?,
                ),
                None => None,
            };
            let fill = match (&a.fill, &shape) {
                (Some(f), _) => Some(substitute(f, &params)?),
                (None, Some(_)) => Some("random".to_string()),
                (None, None) => None,
            };
            if shape.is_some() && fill.as_deref() == Some("zeros") && !a.output {
                bail!("{who}: fill = \"zeros\" on an input; inputs are random (set `output = true` if the kernel only writes it)");
            }
            let value = match &a.value {
                Some(v) => Some(num(v, &format!("{who}: value"))?.into()),
                None => None,
            };
            args.push(ArgSpec {
                name: a.name.clone(),
                dtype: substitute(&a.dtype, &params)?,
                shape,
                fill,
                seed: Some(a.seed.unwrap_or(self.seed.wrapping_add(i as u64))),
                values: None,
                value,
            });
        }
        let launch = LaunchSpec {
            kernel: None,
            grid,
            block,
            shared_bytes,
            args,
            origin: None,
            placement: Default::default(),
        };
        launch.validate().map_err(anyhow::Error::msg)?;
        let work = match &self.work {
            Some(w) => Some(work_of(w, &params, &vars)?),
            None => None,
        };
        Ok(Point {
            params,
            launch,
            work,
        })
    }

    /// The source file of `imp` at `params`, relative to the spec's folder.
    pub fn source_path(
        &self,
        spec_path: &Path,
        imp: &ImplSpec,
        params: &BTreeMap<String, Param>,
    ) -> Result<PathBuf> {
        let rel = substitute(&imp.source, params)?;
        let dir = spec_path.parent().unwrap_or(Path::new("."));
        Ok(dir.join(rel))
    }
}

/// `v` as a whole number in [min, max], or an error naming `what`.
fn whole(v: f64, what: &str, min: u64, max: u64) -> Result<u64> {
    if v.fract() != 0.0 || v < min as f64 || v > max as f64 {
        bail!("{what} = {v}: must be a whole number in [{min}, {max}]");
    }
    Ok(v as u64)
}

fn param_of(v: &toml::Value) -> Result<Param> {
    Ok(match v {
        toml::Value::Integer(i) => Param::Int(*i),
        // A NaN or infinite parameter failed later, inside whichever
        // expression first used it, naming that expression rather than it.
        toml::Value::Float(f) if !f.is_finite() => bail!("{f} is not a finite number"),
        toml::Value::Float(f) => Param::Float(*f),
        toml::Value::String(s) => Param::Text(s.clone()),
        other => bail!(
            "values must be numbers or strings, not {}",
            other.type_str()
        ),
    })
}

/// `--set key=value`: an integer, a float, or text.
pub fn parse_override(s: &str) -> Result<(String, Param)> {
    let (k, v) = s
        .split_once('=')
        .with_context(|| format!("--set `{s}`: expected key=value"))?;
    let (k, v) = (k.trim(), v.trim());
    if k.is_empty() || v.is_empty() {
        bail!("--set `{s}`: expected key=value");
    }
    let p = if let Ok(i) = v.parse::<i64>() {
        Param::Int(i)
    } else if let Ok(f) = v.parse::<f64>() {
        if !f.is_finite() {
            bail!("--set {k}={v}: not a finite number");
        }
        Param::Float(f)
    } else {
        Param::Text(v.to_string())
    };
    Ok((k.to_string(), p))
}

fn eval(n: &Num, vars: &BTreeMap<String, f64>) -> Result<f64> {
    Ok(match n {
        Num::Int(i) => *i as f64,
        Num::Float(f) => *f,
        Num::Expr(e) => Expr::parse(e)?.eval(vars)?,
    })
}

/// Replace `{key}` with the sweep's value of `key`.
/// Does `text` name `key` as a whole identifier (not inside a longer one)?
fn mentions(text: &str, key: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(key).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + key.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

pub fn substitute(s: &str, params: &BTreeMap<String, Param>) -> Result<String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .with_context(|| format!("`{s}`: unclosed `{{`"))?;
        let key = &rest[open + 1..open + close];
        let v = params
            .get(key)
            .with_context(|| format!("`{s}`: no sweep parameter `{key}`"))?;
        out.push_str(&v.to_string());
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn work_of(
    w: &WorkSpec,
    params: &BTreeMap<String, Param>,
    vars: &BTreeMap<String, f64>,
) -> Result<(Work, Option<String>)> {
    let need = |n: &Option<Num>, what: &str| -> Result<f64> {
        let n = n
            .as_ref()
            .with_context(|| format!("[work]: `{what}` is required by this formula"))?;
        eval(n, vars).with_context(|| format!("[work] {what}"))
    };
    let count = |n: &Option<Num>, what: &str| -> Result<u64> {
        whole(need(n, what)?, &format!("[work] {what}"), 0, u64::MAX)
    };
    let dtype = |d: &Option<String>, default: &str| -> Result<WorkDType> {
        let s = substitute(d.as_deref().unwrap_or(default), params)?;
        Ok(s.parse::<WorkDType>()?)
    };
    let work = match w.formula.as_deref().unwrap_or("expr") {
        "expr" => Work {
            flops: need(&w.flops, "flops")?,
            bytes: need(&w.bytes, "bytes")?,
        },
        "matmul" => {
            let input = dtype(&w.dtype, "f32")?;
            let output = match &w.out_dtype {
                Some(_) => dtype(&w.out_dtype, "f32")?,
                None => input,
            };
            flops::matmul(
                count(&w.m, "m")?,
                count(&w.n, "n")?,
                count(&w.k, "k")?,
                input,
                output,
            )
        }
        "attention" => {
            let a = Attention::new(
                count(&w.batch, "batch")?,
                count(&w.heads, "heads")?,
                count(&w.seq_q, "seq_q")?,
                count(&w.seq_k, "seq_k")?,
                count(&w.head_dim, "head_dim")?,
            )
            .with_mask(parse_mask(w.mask.as_deref().unwrap_or("full"))?);
            let d = dtype(&w.dtype, "f16")?;
            if w.backward {
                a.backward(d)
            } else {
                a.forward(d)
            }
        }
        f => bail!("[work] formula `{f}`: expected expr, matmul or attention"),
    };
    // Explicit expressions override a formula's figure (e.g. bytes with a cache model).
    let work = match w.formula.as_deref() {
        Some("expr") | None => work,
        Some(_) => Work {
            flops: match &w.flops {
                Some(n) => eval(n, vars)?,
                None => work.flops,
            },
            bytes: match &w.bytes {
                Some(n) => eval(n, vars)?,
                None => work.bytes,
            },
        },
    };
    for (what, v) in [("flops", work.flops), ("bytes", work.bytes)] {
        if !(v.is_finite() && v >= 0.0) {
            bail!("[work] {what} = {v}: must be a finite number, at least 0");
        }
    }
    Ok((work, w.compute.clone()))
}

fn parse_mask(s: &str) -> Result<Mask> {
    Ok(match s {
        "full" => Mask::Full,
        "causal" => Mask::Causal,
        w if w.starts_with("window:") => {
            let (l, r) = w[7..]
                .split_once(',')
                .with_context(|| format!("mask `{w}`: expected window:<left>,<right>"))?;
            let side = |x: &str| -> Result<Option<u64>> {
                let v: i64 = x
                    .trim()
                    .parse()
                    .with_context(|| format!("mask `{w}`: `{x}` is not an integer"))?;
                Ok((v >= 0).then_some(v as u64))
            };
            Mask::Window {
                left: side(l)?,
                right: side(r)?,
            }
        }
        m => bail!("mask `{m}`: expected full, causal or window:<left>,<right>"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Fuzzing the bench spec reader (issue 17): the examples with
        /// random byte edits and cuts parse, resolve every point, or say why,
        /// and never panic. More cases: `PROPTEST_CASES=100000 cargo test
        /// -p kperf --release --bin kperf bench_spec`.
        #[test]
        fn mutated_bench_specs_are_refused_or_resolved(
            which in 0usize..3,
            edits in proptest::collection::vec(
                (proptest::prelude::any::<usize>(), proptest::sample::select(
                    b"0123456789-+*/^().,=[]{}\"' \nnxyzinfaceil".to_vec())),
                0..6,
            ),
            cut in proptest::option::of(0.0f64..1.0),
        ) {
            let name = ["axpy", "fma_chain", "paged_gather"][which];
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("../examples/bench/{name}.toml"));
            let mut bytes = std::fs::read(&path).expect("example spec");
            for (pos, b) in &edits {
                let i = pos % bytes.len();
                bytes[i] = *b;
            }
            if let Some(f) = cut {
                bytes.truncate((bytes.len() as f64 * f) as usize);
            }
            let Ok(text) = String::from_utf8(bytes) else { return Ok(()) };
            if let Ok(spec) = BenchSpec::parse(&text, &path) {
                let _ = spec.points(&BTreeMap::new());
            }
        }
    }

    const SPEC: &str = r#"
timed = "the kernel"
seed = 10
[sweep]
n = [127, 513]
dtype = ["f32"]
[[impl]]
name = "a"
source = "k_{dtype}.mlir"
[launch]
grid = ["ceil(n/64)", 1, 1]
[[launch.args]]
name = "x"
dtype = "{dtype}"
shape = ["n"]
[[launch.args]]
name = "y"
dtype = "f32"
shape = ["n"]
fill = "zeros"
output = true
[[launch.args]]
name = "n"
dtype = "index"
value = "n"
[work]
flops = "2*n"
bytes = "12*n"
compute = "fp32"
"#;

    fn spec(text: &str) -> BenchSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn every_sweep_point_resolves_its_launch_and_work() {
        let s = spec(SPEC);
        let pts = s.points(&BTreeMap::new()).unwrap();
        assert_eq!(pts.len(), 2);
        let p = &pts[1];
        assert_eq!(p.launch.grid, [9, 1, 1]); // ceil(513/64)
        assert_eq!(p.launch.args[0].shape, Some(vec![513]));
        assert_eq!(p.launch.args[0].fill.as_deref(), Some("random"));
        assert_eq!(p.launch.args[0].seed, Some(10));
        assert_eq!(p.launch.args[1].seed, Some(11));
        assert_eq!(p.launch.args[2].value, Some(513.0.into()));
        let (w, c) = p.work.clone().unwrap();
        assert_eq!((w.flops, w.bytes), (1026.0, 6156.0));
        assert_eq!(c.as_deref(), Some("fp32"));
        let path = s
            .source_path(Path::new("dir/spec.toml"), &s.impls[0], &p.params)
            .unwrap();
        assert_eq!(path, Path::new("dir/k_f32.mlir"));
    }

    #[test]
    fn points_come_in_key_order_the_last_key_fastest() {
        let s = spec(&SPEC.replace("dtype = [\"f32\"]", "dtype = [\"f32\", \"f64\"]"));
        let labels: Vec<String> = s
            .points(&BTreeMap::new())
            .unwrap()
            .iter()
            .map(|p| kperf_bench::results::point_label(&p.params))
            .collect();
        assert_eq!(
            labels,
            [
                "dtype=f32 n=127",
                "dtype=f32 n=513",
                "dtype=f64 n=127",
                "dtype=f64 n=513"
            ]
        );
    }

    #[test]
    fn a_sweep_string_past_1_kib_is_refused() {
        let long = "x".repeat(MAX_SWEEP_STRING + 1);
        let text = SPEC.replace(
            "dtype = [\"f32\"]",
            &format!("dtype = [\"f32\", \"{long}\"]"),
        );
        let e = format!(
            "{:#}",
            BenchSpec::parse(&text, Path::new("s.toml")).unwrap_err()
        );
        assert!(
            e.contains("a value of sweep `dtype` is 1025 bytes long"),
            "{e}"
        );
    }

    #[test]
    fn set_overrides_a_sweep_axis() {
        let s = spec(SPEC);
        let (k, v) = parse_override(" n = 4096").unwrap();
        let pts = s.points(&BTreeMap::from([(k, v)])).unwrap();
        assert_eq!(pts.len(), 1);
        assert_eq!(pts[0].launch.grid, [64, 1, 1]);
    }

    #[test]
    fn zeros_on_an_input_is_refused() {
        let s = spec(&SPEC.replace("output = true", ""));
        let e = format!("{:#}", s.points(&BTreeMap::new()).unwrap_err());
        assert!(
            e.contains("argument 1 (y)") && e.contains("inputs are random"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_variable_names_the_field() {
        let s = spec(&SPEC.replace("ceil(n/64)", "ceil(m/64)"));
        let e = format!("{:#}", s.points(&BTreeMap::new()).unwrap_err());
        assert!(e.contains("grid x") && e.contains("m"), "{e}");
    }

    #[test]
    fn attention_formula_matches_the_seed_example() {
        let s = spec(&SPEC.replace(
            "[work]\nflops = \"2*n\"\nbytes = \"12*n\"",
            "[work]\nformula = \"attention\"\nbatch = 8\nheads = 32\nseq_q = 2048\nseq_k = 2048\nhead_dim = 128\nmask = \"causal\"",
        ));
        let pts = s.points(&BTreeMap::new()).unwrap();
        assert_eq!(pts[0].work.as_ref().unwrap().0.flops, 274_877_906_944.0);
    }

    #[test]
    fn matmul_formula_counts_2mnk() {
        let s = spec(&SPEC.replace(
            "[work]\nflops = \"2*n\"\nbytes = \"12*n\"",
            "[work]\nformula = \"matmul\"\nm = \"n\"\nn = 64\nk = 32\ndtype = \"f16\"\nout_dtype = \"f32\"",
        ));
        let w = s.points(&BTreeMap::new()).unwrap()[0]
            .work
            .clone()
            .unwrap()
            .0;
        assert_eq!(w.flops, 2.0 * 127.0 * 64.0 * 32.0);
        assert_eq!(
            w.bytes,
            (127.0 * 32.0 + 32.0 * 64.0) * 2.0 + 127.0 * 64.0 * 4.0
        );
    }
}
