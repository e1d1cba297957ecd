//! PTX's directed roundings (`add.rz`, `fma.rm`, `div.rp`, ...) on the
//! host: the operation runs with the x86 rounding mode (MXCSR) set for it
//! and restored in the same instruction sequence. libdevice's `expf`
//! takes its integer part with `fma.rm` and `add.rz`; rounded to nearest,
//! its result was off by a factor of two at some inputs.
//!
//! Single precision goes through double precision: the product of two
//! floats is exact there, and a directed rounding to 53 bits then to 24
//! bits in the same direction is the rounding to 24 bits, so the result is
//! exactly PTX's. Double precision `fma` uses the FMA instruction where
//! the CPU has one.

/// Operations, as the definitions in [`super::pure`] pass them.
pub mod op {
    pub const ADD: u32 = 0;
    pub const MUL: u32 = 1;
    pub const FMA: u32 = 2;
    pub const DIV: u32 = 3;
    pub const SQRT: u32 = 4;
}

/// PTX's rounding modifier as MXCSR's rounding control (bits 13-14).
pub fn mode_of(ptx: &str) -> Option<u32> {
    match ptx {
        "rn" => Some(0),
        "rm" => Some(1),
        "rp" => Some(2),
        "rz" => Some(3),
        _ => None,
    }
}

/// One SSE instruction with MXCSR's rounding control set to `mode` (0..3)
/// and restored after it, all in one asm block, so that nothing the
/// compiler schedules runs in the mode.
#[cfg(target_arch = "x86_64")]
macro_rules! with_rounding {
    ($mode:expr, $insn:literal, $($operands:tt)*) => {{
        let mut saved = 0u32;
        let mut set = 0u32;
        let rc: u32 = ($mode & 3) << 13;
        // SAFETY: saves MXCSR, sets its rounding control, runs one SSE
        // instruction on registers and restores MXCSR; no memory but the
        // two locals is touched.
        unsafe {
            std::arch::asm!(
                "stmxcsr [{saved}]",
                "mov {t:e}, dword ptr [{saved}]",
                "and {t:e}, 0xFFFF9FFF",
                "or {t:e}, {rc:e}",
                "mov dword ptr [{set}], {t:e}",
                "ldmxcsr [{set}]",
                $insn,
                "ldmxcsr [{saved}]",
                saved = in(reg) &mut saved,
                set = in(reg) &mut set,
                t = out(reg) _,
                rc = in(reg) rc,
                $($operands)*
            )
        }
    }};
}

/// `a op b (+ c)` in double precision rounded by `mode` (MXCSR's rounding
/// control, 0..3).
#[cfg(target_arch = "x86_64")]
fn in_mode(op: u32, mode: u32, a: f64, b: f64, c: f64) -> f64 {
    let mut x = a;
    match op {
        op::ADD => with_rounding!(mode, "addsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
        op::MUL => with_rounding!(mode, "mulsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
        op::DIV => with_rounding!(mode, "divsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) b),
        op::SQRT => with_rounding!(mode, "sqrtsd {x}, {x}", x = inout(xmm_reg) x),
        _ if std::arch::is_x86_feature_detected!("fma") => with_rounding!(
            mode,
            "vfmadd213sd {x}, {y}, {z}",
            x = inout(xmm_reg) x,
            y = in(xmm_reg) b,
            z = in(xmm_reg) c
        ),
        _ => {
            // No FMA unit: the product rounded to nearest, then the sum in
            // the mode (exact where a * b is).
            x = a * b;
            with_rounding!(mode, "addsd {x}, {y}", x = inout(xmm_reg) x, y = in(xmm_reg) c);
        }
    }
    x
}

/// A double rounded to float by `mode`.
#[cfg(target_arch = "x86_64")]
fn to_f32_in_mode(mode: u32, v: f64) -> f32 {
    let out: f32;
    with_rounding!(mode, "cvtsd2ss {o}, {v}", o = out(xmm_reg) out, v = in(xmm_reg) v);
    out
}

/// Conversions ([`kperf_simt_convert`]'s `kind`): from a signed or
/// unsigned 32- or 64-bit integer, or a double (its bits).
pub mod conv {
    pub const FROM_I32: u32 = 0;
    pub const FROM_U32: u32 = 1;
    pub const FROM_I64: u32 = 2;
    pub const FROM_U64: u32 = 3;
    pub const FROM_F64: u32 = 4;
}

/// A signed 64-bit integer to float (`to_double`: double) rounded by
/// `mode`.
#[cfg(target_arch = "x86_64")]
fn int_in_mode(mode: u32, v: i64, to_double: bool) -> f64 {
    if to_double {
        let out: f64;
        with_rounding!(mode, "cvtsi2sd {o}, {v}", o = out(xmm_reg) out, v = in(reg) v);
        out
    } else {
        let out: f32;
        with_rounding!(mode, "cvtsi2ss {o}, {v}", o = out(xmm_reg) out, v = in(reg) v);
        out as f64
    }
}

/// PTX's `cvt.<mode>.f32/f64.<src>`: `bits` (an integer of `kind`, or a
/// double's bits) converted with rounding `mode`; a float result is
/// returned widened to double (exactly).
#[cfg(target_arch = "x86_64")]
pub extern "C" fn kperf_simt_convert(kind: u32, mode: u32, bits: u64, to_double: u32) -> f64 {
    let to_double = to_double != 0;
    match kind {
        conv::FROM_F64 => to_f32_in_mode(mode, f64::from_bits(bits)) as f64,
        conv::FROM_I32 => int_in_mode(mode, bits as u32 as i32 as i64, to_double),
        conv::FROM_U32 => int_in_mode(mode, bits as u32 as i64, to_double),
        conv::FROM_I64 => int_in_mode(mode, bits as i64, to_double),
        _ if bits >> 63 == 0 => int_in_mode(mode, bits as i64, to_double),
        _ => {
            // Beyond i64: half of it with the lost bit kept as a sticky
            // bit rounds as the whole does (the result has fewer than 63
            // bits); doubling is exact.
            let half = (bits >> 1) | (bits & 1);
            2.0 * int_in_mode(mode, half as i64, to_double)
        }
    }
}

/// `op` on doubles with PTX rounding `mode` (see [`mode_of`]).
#[cfg(target_arch = "x86_64")]
pub extern "C" fn kperf_simt_rounded_f64(op: u32, mode: u32, a: f64, b: f64, c: f64) -> f64 {
    in_mode(op, mode, a, b, c)
}

/// `op` on floats with PTX rounding `mode`: computed in double precision
/// in the same mode, then rounded to float in it.
#[cfg(target_arch = "x86_64")]
pub extern "C" fn kperf_simt_rounded_f32(op: u32, mode: u32, a: f32, b: f32, c: f32) -> f32 {
    let (a, b, c) = (a as f64, b as f64, c as f64);
    let wide = match op {
        // The product of two floats is exact in a double: one rounding.
        op::FMA => in_mode(op::ADD, mode, a * b, c, 0.0),
        _ => in_mode(op, mode, a, b, c),
    };
    to_f32_in_mode(mode, wide)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_roundings_are_ptxs() {
        let third = kperf_simt_rounded_f32(op::DIV, 1, 1.0, 3.0, 0.0);
        let third_up = kperf_simt_rounded_f32(op::DIV, 2, 1.0, 3.0, 0.0);
        assert_eq!(third_up.to_bits(), third.to_bits() + 1);
        assert_eq!(kperf_simt_rounded_f32(op::DIV, 3, 1.0, 3.0, 0.0), third);
        assert_eq!(
            kperf_simt_rounded_f32(op::DIV, 0, 1.0, 3.0, 0.0),
            1.0f32 / 3.0
        );
        // 1 + 2^-30 rounds to 1 except upward.
        let tiny = 2f32.powi(-30);
        assert_eq!(kperf_simt_rounded_f32(op::ADD, 3, 1.0, tiny, 0.0), 1.0);
        assert_eq!(
            kperf_simt_rounded_f32(op::ADD, 2, 1.0, tiny, 0.0),
            1.0 + f32::EPSILON
        );
        // -(1 + 2^-30) toward minus infinity is below -1.
        assert_eq!(
            kperf_simt_rounded_f32(op::ADD, 1, -1.0, -tiny, 0.0),
            -1.0 - f32::EPSILON
        );
        // fma(x, y, -x*y rounded) keeps the product's low bits, any mode.
        let (x, y) = (1.0f32 + f32::EPSILON, 1.0f32 - f32::EPSILON / 2.0);
        let p = x * y;
        let fma_rz = kperf_simt_rounded_f32(op::FMA, 3, x, y, -p);
        assert_eq!(fma_rz, (x as f64 * y as f64 - p as f64) as f32);
        let d = kperf_simt_rounded_f64(op::ADD, 2, 1.0, 2f64.powi(-60), 0.0);
        assert_eq!(d, 1.0 + f64::EPSILON);
        // Conversions: 2^24 + 1 toward zero and up; u64 beyond i64.
        let c = |kind, mode, bits| kperf_simt_convert(kind, mode, bits, 0);
        assert_eq!(c(conv::FROM_I32, 3, (1u64 << 24) + 1), (1u64 << 24) as f64);
        assert_eq!(
            c(conv::FROM_I32, 2, (1u64 << 24) + 1),
            ((1u64 << 24) + 2) as f64
        );
        assert_eq!(
            c(conv::FROM_I32, 1, (-(1i64 << 24) - 1) as u64),
            -((1u64 << 24) as f64) - 2.0
        );
        assert_eq!(c(conv::FROM_U64, 3, u64::MAX), 18446742974197923840.0);
        assert_eq!(c(conv::FROM_U64, 2, u64::MAX), 18446744073709551616.0);
        assert_eq!(
            kperf_simt_convert(conv::FROM_U64, 3, u64::MAX, 1),
            18446744073709549568.0
        );
        assert_eq!(
            c(conv::FROM_F64, 3, (1.0f64 / 3.0).to_bits()),
            kperf_simt_rounded_f32(op::DIV, 3, 1.0, 3.0, 0.0) as f64
        );
        // The host's own mode is left as it was.
        assert_eq!(1.0f32 + tiny, 1.0);
    }
}
