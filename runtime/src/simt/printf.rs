//! CUDA's device `printf` on the SIMT target: `vprintf(format, args)` where
//! `args` is a buffer holding each argument at its natural alignment
//! (integers of 4 or 8 bytes, `float` promoted to `double`, pointers of 8),
//! which is how clang and MLIR's `gpu.printf` lowering pass them.

use std::ffi::{c_char, CStr};

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
    let n = out.len() as i32;
    super::threads::print(out);
    n
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

/// Format `fmt` with arguments read by `next(size)`. Each conversion is
/// read here (flags, width and precision with `*`, length modifier) for
/// how many bytes its argument takes, then formatted by the C library's
/// `snprintf`, so every conversion C has prints as C prints it: `%a`, `#`
/// on floats, `%hd` truncating, `%.0d` of 0 printing nothing. (A
/// hand-written formatter missed those four, 2026-11-27.) `%n` is printed
/// as written: it would write through a device pointer. `%s` reads a
/// pointer and prints the string it points to.
pub fn format(fmt: &[u8], mut next: impl FnMut(usize) -> u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < fmt.len() && matches!(fmt[i], b'-' | b'+' | b' ' | b'0' | b'#') {
            i += 1;
        }
        let flags_end = i;
        // Width and precision, each as written or from a `*` argument,
        // clamped to MAX_FIELD: glibc allocates about 5 bytes a digit of
        // precision, and `%.*e` of 2e9 took 9.8 GB in one thread.
        let mut field = |i: &mut usize| -> Option<Field> {
            if fmt.get(*i) == Some(&b'*') {
                *i += 1;
                return Some(Field::Star(next(4) as u32 as i32));
            }
            let s = *i;
            while *i < fmt.len() && fmt[*i].is_ascii_digit() {
                *i += 1;
            }
            (*i > s).then(|| {
                Field::Digits(
                    std::str::from_utf8(&fmt[s..*i])
                        .ok()
                        .and_then(|t| t.parse::<u64>().ok())
                        .unwrap_or(u64::MAX),
                )
            })
        };
        let width = field(&mut i);
        let precision = if fmt.get(i) == Some(&b'.') {
            i += 1;
            Some(field(&mut i).unwrap_or(Field::Digits(0)))
        } else {
            None
        };
        let mut long = false;
        let mut short = 0;
        while i < fmt.len() && matches!(fmt[i], b'l' | b'h' | b'z' | b'j' | b't' | b'L' | b'q') {
            long |= matches!(fmt[i], b'l' | b'z' | b'j' | b't' | b'q');
            short += (fmt[i] == b'h') as usize;
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let arg = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' if long => CArg::Long(next(8) as i64),
            b'u' | b'x' | b'X' | b'o' if long => CArg::Long(next(8) as i64),
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => CArg::Int(next(4) as u32 as i32),
            b'p' | b's' => CArg::Ptr(next(8) as usize as *const std::ffi::c_void),
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                CArg::Double(f64::from_bits(next(8)))
            }
            _ => {
                // Unknown conversions and `%n`: print them as written.
                out.extend_from_slice(&fmt[start..i]);
                continue;
            }
        };
        // The conversion for C: flags as written, width and precision
        // clamped, the length modifier of the argument as read here.
        let mut spec = fmt[start..flags_end].to_vec();
        let mut stars = Vec::new();
        for (k, f) in [width, precision].into_iter().enumerate() {
            if k == 1 && f.is_some() {
                spec.push(b'.');
            }
            match f {
                Some(Field::Digits(n)) => spec.extend(n.min(MAX_FIELD as u64).to_string().bytes()),
                Some(Field::Star(v)) => {
                    spec.push(b'*');
                    // A negative width is a `-` flag, a negative precision
                    // none at all: both stay what they mean.
                    stars.push(v.clamp(-MAX_FIELD, MAX_FIELD));
                }
                None => {}
            }
        }
        match arg {
            CArg::Long(_) => spec.extend_from_slice(b"ll"),
            CArg::Int(_) if conv != b'c' => spec.extend(std::iter::repeat_n(b'h', short.min(2))),
            _ => {}
        }
        spec.push(conv);
        out.extend_from_slice(&c_format(&spec, &stars, arg));
    }
    out
}

/// A width or precision: digits as written, or a `*` argument's value.
#[derive(Clone, Copy)]
enum Field {
    Digits(u64),
    Star(i32),
}

/// The widest field and the longest precision a conversion prints (C
/// allows more; a GPU's printf buffer holds far less).
const MAX_FIELD: i32 = 4096;

/// One argument of a conversion, as C's varargs take it.
#[derive(Clone, Copy)]
enum CArg {
    Int(i32),
    Long(i64),
    Double(f64),
    Ptr(*const std::ffi::c_void),
}

/// The most bytes one conversion prints (`%1000000000d` asks for more).
const MAX_CONVERSION: usize = 1 << 20;

/// `spec` (one conversion, `%...c`) formatted by `snprintf` with the
/// `*` values `stars` and `arg`.
fn c_format(spec: &[u8], stars: &[i32], arg: CArg) -> Vec<u8> {
    let Ok(spec) = std::ffi::CString::new(spec) else {
        return Vec::new();
    };
    let mut buf = vec![0u8; 64];
    loop {
        let (p, n, f) = (buf.as_mut_ptr() as *mut c_char, buf.len(), spec.as_ptr());
        // SAFETY: `buf` has `n` bytes; `spec` holds one conversion whose
        // `*`s take `stars` and whose argument is `arg`'s C type.
        let written = unsafe {
            macro_rules! call {
                ($v:expr) => {
                    match *stars {
                        [] => libc::snprintf(p, n, f, $v),
                        [a] => libc::snprintf(p, n, f, a, $v),
                        [a, b, ..] => libc::snprintf(p, n, f, a, b, $v),
                    }
                };
            }
            match arg {
                CArg::Int(v) => call!(v),
                CArg::Long(v) => call!(v as libc::c_longlong),
                CArg::Double(v) => call!(v),
                CArg::Ptr(v) => call!(v),
            }
        };
        let Ok(written) = usize::try_from(written) else {
            return Vec::new();
        };
        if written < buf.len() || buf.len() > MAX_CONVERSION {
            buf.truncate(written.min(buf.len().saturating_sub(1)));
            return buf;
        }
        buf.resize((written + 1).min(MAX_CONVERSION + 1), 0);
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

    #[test]
    fn the_corners_a_hand_written_formatter_missed_print_as_c_does() {
        // Against glibc printf of the same lines (adversarial test, 2026-11-27).
        let three = (8, 3.0f64.to_bits());
        assert_eq!(run("%#.0e|%#.0f", &[three, three]), "3.e+00|3.");
        assert_eq!(run("%hd|%hhd", &[(4, 70000), (4, 300)]), "4464|44");
        assert_eq!(run("[%.0d]", &[(4, 0)]), "[]");
        assert_eq!(run("%a", &[(8, 1.0f64.to_bits())]), "0x1p+0");
        assert_eq!(
            run(
                "%*d|%-*.*f",
                &[(4, 5), (4, 42), (4, 7), (4, 1), (8, 2.25f64.to_bits())]
            ),
            "   42|2.2    "
        );
        // %n would write through the argument: printed as written.
        assert_eq!(run("a%nb", &[]), "a%nb");
        assert_eq!(
            run("%lu %llx", &[(8, u64::MAX), (8, 255)]),
            "18446744073709551615 ff"
        );
    }

    /// Widths and precisions are clamped to 4096: `%.*e` of 2e9 made
    /// glibc allocate 9.8 GB for one thread's conversion.
    #[test]
    fn huge_widths_and_precisions_are_clamped() {
        let one = (8, 1.0f64.to_bits());
        let e = run("%.*e", &[(4, 2_000_000_000), one]);
        assert_eq!(e.len(), "1.".len() + 4096 + "e+00".len(), "{}", &e[..20]);
        assert_eq!(run("%1000000000d", &[(4, 7)]).len(), 4096);
        let left = run("%*d|", &[(4, (-1_000_000_000i32) as u32 as u64), (4, 7)]);
        assert!(
            left.starts_with("7 ") && left.len() == 4097,
            "{}",
            left.len()
        );
        // A negative precision from `*` is no precision at all.
        let neg = (4, (-1i32) as u32 as u64);
        assert_eq!(run("%.*f", &[neg, (8, 2.5f64.to_bits())]), "2.500000");
    }
}
