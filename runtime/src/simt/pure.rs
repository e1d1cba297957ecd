//! NVVM intrinsics that are arithmetic or memory atomics, defined in LLVM
//! IR for the host: `__umulhi`, `__byte_perm`, `__sad`, `__float2int_rn`
//! and its family, `__saturatef`, the approximate and correctly rounded
//! division, reciprocal, square root, `ex2`/`lg2`/`sin`/`cos`, and the
//! scoped atomics (`atomicAdd_block`, `atomicCAS_system`, ...).
//!
//! Each definition is written as IR text for the declaration's own types
//! (so `ptr addrspace(3)` and `i64` overloads come out right), parsed into
//! a module of its own and linked into the kernel's; the intrinsic's uses
//! then call it. What they compute is what the NVPTX backend's instruction
//! computes, with two differences said in docs/simt.md: `.approx` forms
//! are exact here (a GPU's are within a few ulp), and `.ftz` forms keep
//! subnormals. Scoped atomics are sequentially consistent atomics on the
//! host: a CTA's threads and the grid's share one memory. Signed and
//! unsigned `atomicMax_block` are one intrinsic, which NVPTX lowers to a
//! signed `atom.cta.max`: so is it here.

/// The host definition of NVVM intrinsic `llvm.nvvm.<short>`, as a
/// function `@<name>` of IR text, given the declaration's return and
/// parameter types as LLVM prints them; `None` for what is not arithmetic
/// or an atomic this module knows.
pub fn definition(short: &str, name: &str, ret: &str, params: &[String]) -> Option<String> {
    let body = body(short, ret, params)?;
    let args: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %a{i}"))
        .collect();
    let (decls, code) = body;
    Some(format!(
        "{decls}\ndefine {ret} @\"{name}\"({}) alwaysinline {{\n{code}}}\n",
        args.join(", ")
    ))
}

/// (declarations, instructions ending in `ret`) of one intrinsic.
fn body(short: &str, ret: &str, params: &[String]) -> Option<(String, String)> {
    let p = |i: usize| params.get(i).map(String::as_str);
    let parts: Vec<&str> = short.split('.').collect();
    // Scoped atomics: atomic.<op>.gen.<i|f>.<cta|sys>.<type>.<ptr>.
    if let ["atomic", op, "gen", kind, "cta" | "sys", ..] = parts.as_slice() {
        let (ptr, t) = (p(0)?, p(1)?);
        if *op == "cas" {
            return Some((
                String::new(),
                format!(
                    "  %s = cmpxchg {ptr} %a0, {t} %a1, {t} %a2 seq_cst seq_cst\n  %r = extractvalue {{ {t}, i1 }} %s, 0\n  ret {t} %r\n"
                ),
            ));
        }
        let rmw = match (*op, *kind) {
            ("add", "i") => "add",
            ("add", "f") => "fadd",
            ("exch", _) => "xchg",
            ("max", "i") => "max",
            ("min", "i") => "min",
            ("inc", "i") => "uinc_wrap",
            ("dec", "i") => "udec_wrap",
            ("and", "i") => "and",
            ("or", "i") => "or",
            ("xor", "i") => "xor",
            _ => return None,
        };
        return Some((
            String::new(),
            format!("  %r = atomicrmw {rmw} {ptr} %a0, {t} %a1 seq_cst\n  ret {t} %r\n"),
        ));
    }
    match parts.as_slice() {
        // A double's halves and back (libdevice's bit tricks).
        ["d2i", half @ ("hi" | "lo")] => {
            let shift = if *half == "hi" { 32 } else { 0 };
            Some((
                String::new(),
                format!(
                    "  %b = bitcast double %a0 to i64\n  %s = lshr i64 %b, {shift}\n  %r = trunc i64 %s to i32\n  ret i32 %r\n"
                ),
            ))
        }
        ["lohi", "i2d"] => Some((
            String::new(),
            "  %l = zext i32 %a0 to i64\n  %h = zext i32 %a1 to i64\n  %s = shl i64 %h, 32\n  %b = or i64 %s, %l\n  %r = bitcast i64 %b to double\n  ret double %r\n"
                .to_string(),
        )),
        // cvt.rzi/rni/rmi/rpi to float: round.f is to nearest even.
        [op @ ("trunc" | "round" | "floor" | "ceil"), "f" | "d"]
        | [op @ ("trunc" | "round" | "floor" | "ceil"), "ftz", "f"] => {
            let fs = float_suffix(ret)?;
            let f = match *op {
                "round" => "roundeven",
                other => other,
            };
            Some((
                format!("declare {ret} @llvm.{f}.{fs}({ret})"),
                format!("  %r = call {ret} @llvm.{f}.{fs}({ret} %a0)\n  ret {ret} %r\n"),
            ))
        }
        // min/max.f32: of a NaN and a number, the number.
        [op @ ("fmin" | "fmax"), "f" | "d"] | [op @ ("fmin" | "fmax"), "ftz", "f"] => {
            let fs = float_suffix(ret)?;
            let f = if *op == "fmin" { "minnum" } else { "maxnum" };
            Some((
                format!("declare {ret} @llvm.{f}.{fs}({ret}, {ret})"),
                format!(
                    "  %r = call {ret} @llvm.{f}.{fs}({ret} %a0, {ret} %a1)\n  ret {ret} %r\n"
                ),
            ))
        }
        ["match", kind @ ("any" | "all"), "sync", "i64" | "i64p"] => Some(wide_match(kind, ret)),
        ["mulhi", ty] => {
            let signed = matches!(*ty, "s" | "i" | "ll");
            let bits = int_bits(ret)?;
            let wide = format!("i{}", 2 * bits);
            let ext = if signed { "sext" } else { "zext" };
            Some((
                String::new(),
                format!(
                    "  %x = {ext} {ret} %a0 to {wide}\n  %y = {ext} {ret} %a1 to {wide}\n  %m = mul {wide} %x, %y\n  %h = lshr {wide} %m, {bits}\n  %r = trunc {wide} %h to {ret}\n  ret {ret} %r\n"
                ),
            ))
        }
        ["sad", ty] => {
            let cmp = if matches!(*ty, "s" | "i" | "ll") {
                "sgt"
            } else {
                "ugt"
            };
            Some((
                String::new(),
                format!(
                    "  %gt = icmp {cmp} {ret} %a0, %a1\n  %d1 = sub {ret} %a0, %a1\n  %d2 = sub {ret} %a1, %a0\n  %d = select i1 %gt, {ret} %d1, {ret} %d2\n  %r = add {ret} %d, %a2\n  ret {ret} %r\n"
                ),
            ))
        }
        ["prmt"] if ret == "i32" => Some((String::new(), byte_perm())),
        [conv, mode] | [conv, mode, "ftz"] if float_to_int(conv).is_some() => {
            let (signed, _) = float_to_int(conv)?;
            let src = p(0)?;
            let round = match *mode {
                "rn" => "roundeven",
                "rz" => "trunc",
                "rm" => "floor",
                "rp" => "ceil",
                _ => return None,
            };
            let (fs, is) = (float_suffix(src)?, format!("i{}", int_bits(ret)?));
            let sat = if signed { "fptosi" } else { "fptoui" };
            Some((
                format!(
                    "declare {src} @llvm.{round}.{fs}({src})\ndeclare {ret} @llvm.{sat}.sat.{is}.{fs}({src})"
                ),
                format!(
                    "  %t = call {src} @llvm.{round}.{fs}({src} %a0)\n  %r = call {ret} @llvm.{sat}.sat.{is}.{fs}({src} %t)\n  ret {ret} %r\n"
                ),
            ))
        }
        ["saturate", ..] => {
            let fs = float_suffix(ret)?;
            Some((
                format!(
                    "declare {ret} @llvm.maxnum.{fs}({ret}, {ret})\ndeclare {ret} @llvm.minnum.{fs}({ret}, {ret})"
                ),
                // maxnum(NaN, 0) is 0, as cvt.sat gives.
                format!(
                    "  %m = call {ret} @llvm.maxnum.{fs}({ret} %a0, {ret} 0.0)\n  %r = call {ret} @llvm.minnum.{fs}({ret} %m, {ret} 1.0)\n  ret {ret} %r\n"
                ),
            ))
        }
        // Integer and double -> float conversions, rounded as asked.
        [conv @ ("i2f" | "ui2f" | "ll2f" | "ull2f" | "i2d" | "ui2d" | "ll2d" | "ull2d" | "d2f"), mode @ ("rn" | "rz" | "rm" | "rp")]
        | [conv @ "d2f", mode @ ("rn" | "rz" | "rm" | "rp"), "ftz"] => {
            use super::rounding::{conv as k, mode_of};
            let src = p(0)?;
            let (kind, signed) = match *conv {
                "i2f" | "i2d" => (k::FROM_I32, true),
                "ui2f" | "ui2d" => (k::FROM_U32, false),
                "ll2f" | "ll2d" => (k::FROM_I64, true),
                "ull2f" | "ull2d" => (k::FROM_U64, false),
                _ => (k::FROM_F64, true),
            };
            if *mode == "rn" {
                let op = match (kind, signed) {
                    (k::FROM_F64, _) => "fptrunc",
                    (_, true) => "sitofp",
                    _ => "uitofp",
                };
                return Some((
                    String::new(),
                    format!("  %r = {op} {src} %a0 to {ret}\n  ret {ret} %r\n"),
                ));
            }
            let m = mode_of(mode)?;
            let to_double = u32::from(ret == "double");
            let bits = match (kind, src) {
                (k::FROM_F64, _) => "  %b = bitcast double %a0 to i64\n".to_string(),
                (_, "i64") => "  %b = add i64 %a0, 0\n".to_string(),
                _ => format!("  %b = zext {src} %a0 to i64\n"),
            };
            let narrow = if ret == "float" {
                "  %r = fptrunc double %w to float\n  ret float %r\n".to_string()
            } else {
                "  ret double %w\n".to_string()
            };
            Some((
                "declare double @kperf_simt_convert(i32, i32, i64, i32)".to_string(),
                format!(
                    "{bits}  %w = call double @kperf_simt_convert(i32 {kind}, i32 {m}, i64 %b, i32 {to_double})\n{narrow}"
                ),
            ))
        }
        // float -> half (bits), to nearest even.
        ["f2h", "rn", ..] => Some((
            String::new(),
            "  %h = fptrunc float %a0 to half\n  %r = bitcast half %h to i16\n  ret i16 %r\n"
                .to_string(),
        )),
        // Directed roundings: the runner sets the host's rounding mode.
        [op @ ("add" | "mul" | "fma" | "div" | "sqrt" | "rcp"), mode @ ("rz" | "rm" | "rp"), "f" | "d"]
        | [op @ ("add" | "mul" | "fma" | "div" | "sqrt" | "rcp"), mode @ ("rz" | "rm" | "rp"), "ftz", "f"] => {
            use super::rounding::{mode_of, op as r};
            let (entry, zero) = match ret {
                "float" => ("kperf_simt_rounded_f32", "0.0"),
                "double" => ("kperf_simt_rounded_f64", "0.0"),
                _ => return None,
            };
            let code = match *op {
                "add" => r::ADD,
                "mul" => r::MUL,
                "fma" => r::FMA,
                "div" | "rcp" => r::DIV,
                _ => r::SQRT,
            };
            let m = mode_of(mode)?;
            let args = match (*op, params.len()) {
                ("rcp", 1) => format!("{ret} 1.0, {ret} %a0, {ret} {zero}"),
                ("sqrt", 1) => format!("{ret} %a0, {ret} {zero}, {ret} {zero}"),
                (_, 2) => format!("{ret} %a0, {ret} %a1, {ret} {zero}"),
                (_, 3) => format!("{ret} %a0, {ret} %a1, {ret} %a2"),
                _ => return None,
            };
            Some((
                format!("declare {ret} @{entry}(i32, i32, {ret}, {ret}, {ret})"),
                format!("  %r = call {ret} @{entry}(i32 {code}, i32 {m}, {args})\n  ret {ret} %r\n"),
            ))
        }
        [op, mode, rest @ ..] if rounded_float_op(op, mode, rest) => {
            let fs = float_suffix(ret)?;
            let unary = |f: &str| {
                Some((
                    format!("declare {ret} @llvm.{f}.{fs}({ret})"),
                    format!("  %r = call {ret} @llvm.{f}.{fs}({ret} %a0)\n  ret {ret} %r\n"),
                ))
            };
            match *op {
                "div" => Some((
                    String::new(),
                    format!("  %r = fdiv {ret} %a0, %a1\n  ret {ret} %r\n"),
                )),
                "add" => Some((
                    String::new(),
                    format!("  %r = fadd {ret} %a0, %a1\n  ret {ret} %r\n"),
                )),
                "mul" => Some((
                    String::new(),
                    format!("  %r = fmul {ret} %a0, %a1\n  ret {ret} %r\n"),
                )),
                "fma" => Some((
                    format!("declare {ret} @llvm.fma.{fs}({ret}, {ret}, {ret})"),
                    format!(
                        "  %r = call {ret} @llvm.fma.{fs}({ret} %a0, {ret} %a1, {ret} %a2)\n  ret {ret} %r\n"
                    ),
                )),
                "rcp" => Some((
                    String::new(),
                    format!("  %r = fdiv {ret} 1.0, %a0\n  ret {ret} %r\n"),
                )),
                "sqrt" => unary("sqrt"),
                "rsqrt" => Some((
                    format!("declare {ret} @llvm.sqrt.{fs}({ret})"),
                    format!(
                        "  %s = call {ret} @llvm.sqrt.{fs}({ret} %a0)\n  %r = fdiv {ret} 1.0, %s\n  ret {ret} %r\n"
                    ),
                )),
                "ex2" => unary("exp2"),
                "lg2" => unary("log2"),
                "sin" => unary("sin"),
                "cos" => unary("cos"),
                _ => None,
            }
        }
        ["sqrt", "f"] => {
            let fs = float_suffix(ret)?;
            Some((
                format!("declare {ret} @llvm.sqrt.{fs}({ret})"),
                format!("  %r = call {ret} @llvm.sqrt.{fs}({ret} %a0)\n  ret {ret} %r\n"),
            ))
        }
        ["fabs", ..] => {
            let fs = float_suffix(ret)?;
            Some((
                format!("declare {ret} @llvm.fabs.{fs}({ret})"),
                format!("  %r = call {ret} @llvm.fabs.{fs}({ret} %a0)\n  ret {ret} %r\n"),
            ))
        }
        _ => None,
    }
}

/// `div.rn.f`, `rcp.approx.ftz.d`, `ex2.approx.f32`, ...: an operation,
/// its rounding (`rn`, `approx`, `full`; the directed roundings are not
/// here), then optionally `ftz`, then the type.
fn rounded_float_op(op: &str, mode: &str, rest: &[&str]) -> bool {
    let modes: &[&str] = match op {
        "div" => &["rn", "approx", "full"],
        "rcp" | "sqrt" => &["rn", "approx"],
        "add" | "mul" | "fma" => &["rn"],
        "rsqrt" | "ex2" | "lg2" | "sin" | "cos" => &["approx"],
        _ => return false,
    };
    let ty_ok = |t: &str| matches!(t, "f" | "d" | "f32" | "f64");
    modes.contains(&mode)
        && match rest {
            [t] => ty_ok(t),
            ["ftz", t] => ty_ok(t),
            _ => false,
        }
}

/// `f2i`, `d2ull`, ...: (signed, source is double).
fn float_to_int(conv: &str) -> Option<(bool, bool)> {
    let (src, dst) = conv.split_once('2')?;
    let double = match src {
        "f" => false,
        "d" => true,
        _ => return None,
    };
    let signed = match dst {
        "i" | "ll" => true,
        "ui" | "ull" => false,
        _ => return None,
    };
    Some((signed, double))
}

fn int_bits(t: &str) -> Option<u32> {
    match t {
        "i16" => Some(16),
        "i32" => Some(32),
        "i64" => Some(64),
        _ => None,
    }
}

fn float_suffix(t: &str) -> Option<&'static str> {
    match t {
        "float" => Some("f32"),
        "double" => Some("f64"),
        _ => None,
    }
}

/// `match.any.sync.i64` / `match.all.sync.i64p`: the lanes meet on each
/// half of the value; equal values are equal in both.
fn wide_match(kind: &str, ret: &str) -> (String, String) {
    use super::threads::warp_op::{MATCH_ALL, MATCH_ANY};
    let op = if kind == "any" { MATCH_ANY } else { MATCH_ALL };
    let entry = super::rewrite::ENTRY_WARP;
    let mut code = format!(
        "  %ok = alloca i32\n  %lo = trunc i64 %a1 to i32\n  %hs = lshr i64 %a1, 32\n  %hi = trunc i64 %hs to i32\n  %rl = call i32 @{entry}(i32 {op}, i32 %a0, i32 %lo, i32 0, i32 0, ptr %ok)\n  %rh = call i32 @{entry}(i32 {op}, i32 %a0, i32 %hi, i32 0, i32 0, ptr %ok)\n  %r = and i32 %rl, %rh\n"
    );
    if kind == "any" {
        code += "  ret i32 %r\n";
    } else {
        // All equal: the lanes present (the caller among them), else 0.
        code += &format!(
            "  %p = icmp ne i32 %r, 0\n  %s0 = insertvalue {ret} poison, i32 %r, 0\n  %s1 = insertvalue {ret} %s0, i1 %p, 1\n  ret {ret} %s1\n"
        );
    }
    (
        format!("declare i32 @{entry}(i32, i32, i32, i32, i32, ptr)"),
        code,
    )
}

/// `prmt.b32` in its default mode: byte i of the result is the byte of
/// {a1:a0} (a0 bytes 0..3, a1 bytes 4..7) that selector nibble i names
/// (bits 0..2), or that byte's sign replicated when the nibble's bit 3
/// is set.
fn byte_perm() -> String {
    let mut s = String::from(
        "  %lo = zext i32 %a0 to i64\n  %hi0 = zext i32 %a1 to i64\n  %hi = shl i64 %hi0, 32\n  %x = or i64 %hi, %lo\n",
    );
    let mut acc = "0".to_string();
    for i in 0..4 {
        s += &format!(
            "  %sel{i}s = lshr i32 %a2, {sh}\n  %sel{i} = and i32 %sel{i}s, 15\n  %idx{i} = and i32 %sel{i}, 7\n  %bit{i}32 = shl i32 %idx{i}, 3\n  %bit{i} = zext i32 %bit{i}32 to i64\n  %byte{i}w = lshr i64 %x, %bit{i}\n  %byte{i}t = trunc i64 %byte{i}w to i32\n  %byte{i} = and i32 %byte{i}t, 255\n  %neg{i} = icmp ugt i32 %byte{i}, 127\n  %repl{i} = select i1 %neg{i}, i32 255, i32 0\n  %sign{i}b = and i32 %sel{i}, 8\n  %sign{i} = icmp ne i32 %sign{i}b, 0\n  %out{i} = select i1 %sign{i}, i32 %repl{i}, i32 %byte{i}\n  %pos{i} = shl i32 %out{i}, {pos}\n  %acc{i} = or i32 {acc}, %pos{i}\n",
            sh = 4 * i,
            pos = 8 * i,
        );
        acc = format!("%acc{i}");
    }
    s + &format!("  ret i32 {acc}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_follow_the_declarations_types() {
        let d = definition(
            "atomic.add.gen.i.cta.i32.p3",
            "f",
            "i32",
            &["ptr addrspace(3)".into(), "i32".into()],
        )
        .unwrap();
        assert!(d.contains("atomicrmw add ptr addrspace(3) %a0, i32 %a1 seq_cst"));
        let d = definition("f2ll.rn", "f", "i64", &["float".into()]).unwrap();
        assert!(d.contains("@llvm.roundeven.f32") && d.contains("@llvm.fptosi.sat.i64.f32"));
        // Directed roundings call the runner, which sets the host's mode.
        let d = definition("div.rz.f", "f", "float", &["float".into(), "float".into()]).unwrap();
        assert!(d.contains("@kperf_simt_rounded_f32(i32 3, i32 3,"), "{d}");
        assert!(definition("fns.b32", "f", "i32", &vec!["i32".to_string(); 3]).is_none());
        assert!(definition("ex2.approx.ftz.f32", "f", "float", &["float".into()]).is_some());
        assert!(definition("prmt.b4e", "f", "i32", &vec!["i32".to_string(); 3]).is_none());
    }
}
