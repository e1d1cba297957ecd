//! CUDA's device `printf` on the SIMT target: `vprintf(format, args)` where
//! `args` is a buffer holding each argument at its natural alignment
//! (integers of 4 or 8 bytes, `float` promoted to `double`, pointers of 8),
//! which is how clang and MLIR's `gpu.printf` lowering pass them.

use std::ffi::{c_char, CStr};
use std::io::Write;

/// # Safety
/// `fmt` is a NUL-terminated string and `args` holds the arguments its
/// conversions name, laid out as CUDA's `vprintf` takes them.
pub unsafe extern "C" fn kperf_simt_vprintf(fmt: *const c_char, args: *const u8) -> i32 {
    if fmt.is_null() {
        return -1;
    }
    // SAFETY: the caller's contract.
    let fmt = unsafe { CStr::from_ptr(fmt) }.to_bytes();
    let mut reader = Args { base: args, off: 0 };
    // SAFETY: the caller's contract.
    let out = format(fmt, |size| unsafe { reader.next(size) });
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(&out);
    let _ = stdout.flush();
    out.len() as i32
}

struct Args {
    base: *const u8,
    off: usize,
}

impl Args {
    /// The next argument of `size` bytes (4 or 8), aligned to its size.
    unsafe fn next(&mut self, size: usize) -> u64 {
        if self.base.is_null() {
            return 0;
        }
        self.off = self.off.next_multiple_of(size);
        // SAFETY: the caller guarantees the buffer holds this argument.
        let v = unsafe {
            let p = self.base.add(self.off);
            if size == 8 {
                (p as *const u64).read_unaligned()
            } else {
                (p as *const u32).read_unaligned() as u64
            }
        };
        self.off += size;
        v
    }
}

/// Format `fmt` with arguments read by `next(size)`: the C conversions
/// `d i u x X o c s p f F e E g G %` with flags, width and precision.
/// `%s` reads a pointer and prints the string it points to.
pub fn format(fmt: &[u8], mut next: impl FnMut(usize) -> u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        i += 1;
        let (mut left, mut plus, mut space, mut zero, mut alt) =
            (false, false, false, false, false);
        while i < fmt.len() {
            match fmt[i] {
                b'-' => left = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'0' => zero = true,
                b'#' => alt = true,
                _ => break,
            }
            i += 1;
        }
        let num = |i: &mut usize| {
            let s = *i;
            while *i < fmt.len() && fmt[*i].is_ascii_digit() {
                *i += 1;
            }
            std::str::from_utf8(&fmt[s..*i])
                .ok()
                .and_then(|t| t.parse::<usize>().ok())
        };
        let width = if fmt.get(i) == Some(&b'*') {
            i += 1;
            Some(next(4) as i32 as usize)
        } else {
            num(&mut i)
        };
        let prec = if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                Some(next(4) as i32 as usize)
            } else {
                Some(num(&mut i).unwrap_or(0))
            }
        } else {
            None
        };
        let mut long = false;
        while i < fmt.len() && matches!(fmt[i], b'l' | b'h' | b'z' | b'j' | b't' | b'L' | b'q') {
            long |= matches!(fmt[i], b'l' | b'z' | b'j' | b't' | b'q');
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        let isz = if long { 8 } else { 4 };
        let (body, numeric_sign): (String, Option<bool>) = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let v = if long {
                    next(8) as i64
                } else {
                    next(4) as u32 as i32 as i64
                };
                let mut s = v.unsigned_abs().to_string();
                if let Some(p) = prec {
                    s = format!("{s:0>p$}");
                }
                (s, Some(v < 0))
            }
            b'u' | b'x' | b'X' | b'o' => {
                let v = next(isz);
                let mut s = match conv {
                    b'u' => v.to_string(),
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                if let Some(p) = prec {
                    s = format!("{s:0>p$}");
                }
                if alt && v != 0 && conv != b'u' {
                    s = match conv {
                        b'x' => format!("0x{s}"),
                        b'X' => format!("0X{s}"),
                        _ => format!("0{s}"),
                    };
                }
                (s, None)
            }
            b'c' => (((next(4) as u8) as char).to_string(), None),
            b'p' => (format!("0x{:x}", next(8)), None),
            b's' => {
                let p = next(8) as *const c_char;
                let s = if p.is_null() {
                    "(null)".to_string()
                } else {
                    // SAFETY: `%s` takes a NUL-terminated string.
                    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
                };
                (
                    match prec {
                        Some(p) => s.chars().take(p).collect(),
                        None => s,
                    },
                    None,
                )
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                let v = f64::from_bits(next(8));
                (
                    float(v.abs(), conv, prec.unwrap_or(6), alt),
                    Some(v.is_sign_negative() && !v.is_nan()),
                )
            }
            other => {
                // Unknown conversion: print it as written.
                out.push(b'%');
                out.push(other);
                continue;
            }
        };
        let int_conv = matches!(conv, b'd' | b'i' | b'u' | b'x' | b'X' | b'o');
        let float_conv = matches!(conv, b'f' | b'F' | b'e' | b'E' | b'g' | b'G');
        let sign = match numeric_sign {
            Some(true) => "-",
            Some(false) if plus => "+",
            Some(false) if space => " ",
            _ => "",
        };
        let len = sign.len() + body.chars().count();
        let pad = width.unwrap_or(0).saturating_sub(len);
        let field = if left {
            format!("{sign}{body}{}", " ".repeat(pad))
        } else if zero && (float_conv || int_conv && prec.is_none()) {
            format!("{sign}{}{body}", "0".repeat(pad))
        } else {
            format!("{}{sign}{body}", " ".repeat(pad))
        };
        out.extend_from_slice(field.as_bytes());
    }
    out
}

/// A non-negative float in C's `%f`, `%e` or `%g` form.
fn float(v: f64, conv: u8, prec: usize, alt: bool) -> String {
    if !v.is_finite() {
        let word = if v.is_nan() { "nan" } else { "inf" };
        return if conv.is_ascii_uppercase() {
            word.to_ascii_uppercase()
        } else {
            word.into()
        };
    }
    let exp_form = |v: f64, p: usize| {
        let s = format!("{v:.p$e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    };
    let s = match conv.to_ascii_lowercase() {
        b'f' => format!("{v:.prec$}"),
        b'e' => exp_form(v, prec),
        _ => {
            let p = prec.max(1);
            let e = if v == 0.0 {
                0
            } else {
                v.log10().floor() as i32
            };
            let mut s = if e < -4 || e >= p as i32 {
                exp_form(v, p - 1)
            } else {
                format!("{v:.*}", (p as i32 - 1 - e).max(0) as usize)
            };
            if !alt {
                // %g drops trailing zeros of the fraction.
                let (m, tail) = match s.find('e') {
                    Some(k) => (s[..k].to_string(), s[k..].to_string()),
                    None => (s.clone(), String::new()),
                };
                let m = if m.contains('.') {
                    m.trim_end_matches('0').trim_end_matches('.').to_string()
                } else {
                    m
                };
                s = format!("{m}{tail}");
            }
            s
        }
    };
    if conv.is_ascii_uppercase() {
        s.to_uppercase()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(fmt: &str, args: &[(usize, u64)]) -> String {
        let mut it = args.iter();
        String::from_utf8(format(fmt.as_bytes(), |size| {
            let (s, v) = it.next().copied().unwrap_or((size, 0));
            assert_eq!(s, size, "argument size");
            v
        }))
        .unwrap()
    }

    #[test]
    fn conversions_print_as_c_does() {
        assert_eq!(
            run(
                "Hello from %lld, %d\n",
                &[(8, 3), (4, (-2i32) as u32 as u64)]
            ),
            "Hello from 3, -2\n"
        );
        assert_eq!(
            run("[%5d|%-4x|%04u]", &[(4, 42), (4, 255), (4, 7)]),
            "[   42|ff  |0007]"
        );
        assert_eq!(
            run(
                "%f %.2f %e",
                &[
                    (8, 1.5f64.to_bits()),
                    (8, (-0.125f64).to_bits()),
                    (8, 12345.678f64.to_bits())
                ]
            ),
            "1.500000 -0.12 1.234568e+04"
        );
        assert_eq!(
            run(
                "%g %g %g",
                &[
                    (8, 0.0001f64.to_bits()),
                    (8, 100000.0f64.to_bits()),
                    (8, 1e7f64.to_bits())
                ]
            ),
            "0.0001 100000 1e+07"
        );
        assert_eq!(run("%% %c", &[(4, b'x' as u64)]), "% x");
        assert_eq!(
            run(
                "%f %E %g",
                &[
                    (8, f64::NAN.to_bits()),
                    (8, f64::INFINITY.to_bits()),
                    (8, f64::NEG_INFINITY.to_bits())
                ]
            ),
            "nan INF -inf"
        );
    }
}
