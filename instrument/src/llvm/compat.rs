//! LLVM IR text from newer LLVMs, made readable by LLVM 22.
//!
//! Triton 3.9 bundles an LLVM that prints floating-point literals in a new
//! syntax (`f0x3FB8AA3B`, `-inf`, `+qnan`, C99 hex floats, shortest
//! decimals that are not exact in the type). LLVM 22 rejects them. This
//! rewrites each such literal, typed by the nearest floating-point type
//! before it on its line (LLVM prints a constant after its type or after
//! the instruction's type), into the legacy form with the same bits. The
//! result means the same program; Triton's own LLVM reads it too.

use regex::Regex;
use std::sync::OnceLock;

/// (exponent bits, mantissa bits).
fn format_of(ty: &str) -> Option<(u32, u32)> {
    match ty {
        "half" => Some((5, 10)),
        "bfloat" => Some((8, 7)),
        "float" => Some((8, 23)),
        "double" => Some((11, 52)),
        _ => None,
    }
}

fn fp_type() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"\b(half|bfloat|float|double|fp128|x86_fp80|ppc_fp128)\b").expect("regex")
    })
}

fn new_literal() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(concat!(
            r"f0x[0-9A-Fa-f]+|[-+](?:inf|qnan)\b|[-+]s?nan\(0x[0-9A-Fa-f]+\)",
            r"|[-+]?0x[0-9A-Fa-f]*\.?[0-9A-Fa-f]*p[-+]?\d+"
        ))
        .expect("regex")
    })
}

fn decimal() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"[-+]?\d+\.\d+e[-+]\d+").expect("regex"))
}

/// A literal must not continue an identifier or a number.
fn starts_token(line: &str, at: usize) -> bool {
    line[..at]
        .chars()
        .next_back()
        .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '$' | '%' | '@' | '-')))
}

fn legacy(ty: &str, bits: u64) -> String {
    match ty {
        "double" => format!("0x{bits:016X}"),
        "half" => format!("0xH{bits:04X}"),
        "bfloat" => format!("0xR{bits:04X}"),
        _ => {
            // A float is written as the double of the same value; inf/NaN keep
            // sign and payload (shifted into the double's mantissa).
            let b = bits as u32;
            let (sign, exp, man) = ((b >> 31) as u64, (b >> 23) & 0xFF, (b & 0x7F_FFFF) as u64);
            let d = if exp == 0xFF {
                (sign << 63) | (0x7FF << 52) | (man << 29)
            } else {
                (f32::from_bits(b) as f64).to_bits()
            };
            format!("0x{d:016X}")
        }
    }
}

fn value_bits(ty: &str, v: f64) -> u64 {
    match ty {
        "double" => v.to_bits(),
        "float" => (v as f32).to_bits() as u64,
        "half" => f32_to_half((v as f32).to_bits()) as u64,
        _ => {
            let f = (v as f32).to_bits();
            ((f + 0x7FFF + ((f >> 16) & 1)) >> 16) as u64
        }
    }
}

/// IEEE binary16 bits of a binary32 (round to nearest even).
fn f32_to_half(f: u32) -> u16 {
    let sign = ((f >> 16) & 0x8000) as u16;
    let exp = ((f >> 23) & 0xFF) as i32;
    let man = f & 0x7F_FFFF;
    if exp == 0xFF {
        return sign
            | 0x7C00
            | if man != 0 {
                0x200 | (man >> 13) as u16
            } else {
                0
            };
    }
    let e = exp - 127 + 15;
    if e >= 0x1F {
        return sign | 0x7C00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1FFF;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1F) as i32;
    let m = (h & 0x3FF) as f64;
    match e {
        0 => sign * m * 2f64.powi(-24),
        0x1F => sign * f64::INFINITY,
        _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn exact_in(ty: &str, v: f64) -> bool {
    let bits = value_bits(ty, v);
    let back = match ty {
        "double" => return true,
        "float" => f32::from_bits(bits as u32) as f64,
        "half" => half_to_f64(bits as u16),
        _ => f32::from_bits((bits as u32) << 16) as f64,
    };
    back == v
}

fn special_bits(ty: &str, tok: &str) -> Option<u64> {
    let (e, m) = format_of(ty)?;
    let sign = (tok.starts_with('-')) as u64;
    let body = &tok[1..];
    let man = if body == "inf" {
        0
    } else if body == "qnan" {
        1u64 << (m - 1)
    } else {
        let open = body.find('(')?;
        let payload = u64::from_str_radix(body[open + 3..body.len() - 1].trim(), 16).ok()?;
        let quiet = if body.starts_with("nan") {
            1u64 << (m - 1)
        } else {
            0
        };
        let man = quiet | payload;
        if man == 0 || man >= 1 << m {
            return None;
        }
        man
    };
    Some((sign << (e + m)) | (((1u64 << e) - 1) << m) | man)
}

/// A C99 hex float (`-0x1.8p3`) as f64.
fn hex_float(tok: &str) -> Option<f64> {
    let (neg, t) = match tok.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, tok.trim_start_matches('+')),
    };
    let t = t.strip_prefix("0x")?;
    let (mant, exp) = t.split_once('p')?;
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let mut v = 0f64;
    for c in int.chars() {
        v = v * 16.0 + c.to_digit(16)? as f64;
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        v += c.to_digit(16)? as f64 * scale;
        scale /= 16.0;
    }
    let e: i32 = exp.parse().ok()?;
    let v = v * 2f64.powi(e);
    Some(if neg { -v } else { v })
}

fn type_before(line: &str, pos: usize) -> Option<&str> {
    fp_type()
        .find_iter(&line[..pos])
        .last()
        .map(|m| m.as_str())
        .filter(|t| format_of(t).is_some())
}

fn fix_line(line: &str) -> Result<String, String> {
    if line.starts_with('!') || !fp_type().is_match(line) {
        return Ok(line.to_string());
    }
    let mut out = String::with_capacity(line.len());
    let mut last = 0;
    for m in new_literal().find_iter(line) {
        if !starts_token(line, m.start()) {
            continue;
        }
        let tok = m.as_str();
        let ty = type_before(line, m.start())
            .ok_or_else(|| format!("no floating-point type before `{tok}` in: {}", line.trim()))?;
        let bits = if let Some(hex) = tok.strip_prefix("f0x") {
            let (e, mm) = format_of(ty).expect("checked");
            if hex.len() as u32 * 4 != 1 + e + mm {
                return Err(format!(
                    "`{tok}` has the wrong width for {ty}: {}",
                    line.trim()
                ));
            }
            u64::from_str_radix(hex, 16).map_err(|e| e.to_string())?
        } else if tok.contains("inf") || tok.contains("nan") {
            special_bits(ty, tok).ok_or_else(|| format!("bad literal `{tok}` for {ty}"))?
        } else {
            value_bits(
                ty,
                hex_float(tok).ok_or_else(|| format!("bad hex float `{tok}`"))?,
            )
        };
        out.push_str(&line[last..m.start()]);
        out.push_str(&legacy(ty, bits));
        last = m.end();
    }
    out.push_str(&line[last..]);
    let line = out;
    let mut out = String::with_capacity(line.len());
    let mut last = 0;
    for m in decimal().find_iter(&line) {
        if !starts_token(&line, m.start()) {
            continue;
        }
        let Some(ty) = type_before(&line, m.start()) else {
            continue;
        };
        let Ok(v) = m.as_str().parse::<f64>() else {
            continue;
        };
        if exact_in(ty, v) {
            continue;
        }
        out.push_str(&line[last..m.start()]);
        out.push_str(&legacy(ty, value_bits(ty, v)));
        last = m.end();
    }
    out.push_str(&line[last..]);
    Ok(out)
}

/// Rewrite newer literal syntax for LLVM 22; `Err` names a literal that
/// cannot be typed.
pub fn to_llvm22(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        out.push_str(&fix_line(line)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::to_llvm22;

    #[test]
    fn newer_literals_become_legacy_ones_with_the_same_bits() {
        let cases = [
            (
                "  %6 = fmul float %5, f0x3FB8AA3B\n",
                "  %6 = fmul float %5, 0x3FF7154760000000\n",
            ),
            (
                "  %m = phi float [ -inf, %3 ]\n",
                "  %m = phi float [ 0xFFF0000000000000, %3 ]\n",
            ),
            (
                "  %v = insertelement <2 x half> splat (half +inf), half f0x3C00, i32 0\n",
                "  %v = insertelement <2 x half> splat (half 0xH7C00), half 0xH3C00, i32 0\n",
            ),
            (
                "  %d = fadd double %x, 1.000000e-01\n",
                "  %d = fadd double %x, 1.000000e-01\n",
            ),
            (
                "  %f = fadd float %x, 1.000000e-01\n",
                "  %f = fadd float %x, 0x3FB99999A0000000\n",
            ),
            (
                "  %h = fadd float %x, 0x1.8p1\n",
                "  %h = fadd float %x, 0x4008000000000000\n",
            ),
            (
                "!12 = !{float f0x3FB8AA3B}\n",
                "!12 = !{float f0x3FB8AA3B}\n",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(to_llvm22(input).unwrap(), want, "input: {input}");
        }
    }
}
