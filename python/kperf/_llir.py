"""Triton's LLVM IR for kperf's LLVM 22: floating-point literals and the kernel's name.

Triton 3.9 prints LLVM IR with the floating-point literal syntax of its newer
bundled LLVM (f0x3FB8AA3B, -inf, +qnan, ...), which LLVM 22 (kperf's LLVM)
cannot parse. `llir_to_llvm22` rewrites those literals into the legacy hex
forms that every LLVM version parses; the Triton hook applies it before
calling kperf. Triton's LLVM parses the legacy forms, so the instrumented IR
can go straight back to Triton.

This module needs nothing but the standard library (scripts load it by path).
"""

from __future__ import annotations

import re
import struct

__all__ = ["llir_to_llvm22", "kernel_name_of"]

# ---------------------------------------------------------------------------
# LLVM IR floating-point literals: new syntax -> legacy syntax (LLVM 22)
# ---------------------------------------------------------------------------

# (exponent bits, mantissa bits) of the IEEE-like types LLVM prints.
_FP_FORMATS = {"half": (5, 10), "bfloat": (8, 7), "float": (8, 23), "double": (11, 52)}
_FP_TYPE = re.compile(r"\b(half|bfloat|float|double|fp128|x86_fp80|ppc_fp128)\b")
# A literal in the syntax LLVM started printing in 2026 (llvm-project #190641
# parser, #190649 printer): f0x<bits in the type's own width>, +inf/-inf,
# +qnan/-qnan, +nan(0x..)/-nan(0x..), +snan(0x..)/-snan(0x..); and C99 hex
# floats, which the new parser accepts. Legacy hex (0x.., 0xH.., 0xR..) is
# left alone. Preceded by a character that cannot end an identifier.
_NEW_LITERAL = re.compile(r"(?<![\w.$%@-])(f0x[0-9A-Fa-f]+|[-+](?:inf|qnan)\b|[-+]s?nan\(0x[0-9A-Fa-f]+\)"
                          r"|[-+]?0x[0-9A-Fa-f]*\.?[0-9A-Fa-f]*p[-+]?\d+)")
# Decimal literals in exponent form (the form LLVM prints); checked for
# exactness in their type, since LLVM 22 rejects an inexact one for
# half/bfloat/float.
_DECIMAL = re.compile(r"(?<![\w.$%@-])([-+]?\d+\.\d+e[-+]\d+)")


def _bits_to_legacy(ty: str, bits: int) -> str:
    """Legacy LLVM text for the value with IEEE bit pattern `bits` in type `ty`."""
    if ty == "double":
        return f"0x{bits:016X}"
    if ty == "half":
        return f"0xH{bits:04X}"
    if ty == "bfloat":
        return f"0xR{bits:04X}"
    # float: legacy syntax writes a float as the double with the same value
    # (NaN/inf: the same sign, all-ones exponent and the payload shifted up).
    sign = bits >> 31
    exp = (bits >> 23) & 0xFF
    man = bits & 0x7FFFFF
    if exp == 0xFF:
        dbits = (sign << 63) | (0x7FF << 52) | (man << 29)
    else:
        (value, ) = struct.unpack("<f", struct.pack("<I", bits))
        (dbits, ) = struct.unpack("<Q", struct.pack("<d", value))
    return f"0x{dbits:016X}"


def _special_bits(ty: str, tok: str) -> int:
    e, m = _FP_FORMATS[ty]
    sign = 1 if tok[0] == "-" else 0
    body = tok[1:]
    exp_all = (1 << e) - 1
    if body == "inf":
        man = 0
    elif body == "qnan":
        man = 1 << (m - 1)
    else:
        payload = int(body[body.index("(") + 1:-1], 16)
        quiet = body.startswith("nan")
        man = ((1 << (m - 1)) if quiet else 0) | payload
        if man == 0 or man >= (1 << m):
            raise ValueError(f"NaN payload {tok} does not fit {ty}")
    return (sign << (e + m)) | (exp_all << m) | man


def _value_bits(ty: str, value: float) -> int:
    """Bit pattern of `value` rounded to nearest-even in `ty`."""
    if ty == "double":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if ty == "float":
        return struct.unpack("<I", struct.pack("<f", value))[0]
    if ty == "half":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    # bfloat: round the float32 pattern to its upper 16 bits, ties to even.
    f = struct.unpack("<I", struct.pack("<f", value))[0]
    return (f + 0x7FFF + ((f >> 16) & 1)) >> 16


def _exact_in(ty: str, value: float) -> bool:
    if ty == "double":
        return True
    bits = _value_bits(ty, value)
    if ty == "float":
        back = struct.unpack("<f", struct.pack("<I", bits))[0]
    elif ty == "half":
        back = struct.unpack("<e", struct.pack("<H", bits))[0]
    else:
        back = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    return back == value


def _type_before(line: str, pos: int, tok: str) -> str:
    types = _FP_TYPE.findall(line, 0, pos)
    if not types:
        raise ValueError(f"no floating-point type before literal {tok!r} in: {line.strip()}")
    ty = types[-1]
    if ty not in _FP_FORMATS:
        raise ValueError(f"literal {tok!r} of type {ty} is not supported: {line.strip()}")
    return ty


def llir_to_llvm22(text: str) -> str:
    """Rewrite floating-point literals of newer LLVM text IR into forms LLVM 22 parses.

    Each literal's type is the nearest floating-point type written before it
    on the same line (LLVM prints every constant operand after its type or
    after the instruction's type: `fmul float %5, f0x3FB8AA3B`,
    `phi float [ -inf, %bb ]`, `splat (float -inf)`). Metadata lines are not
    touched. Raises ValueError on a literal it cannot type.
    """

    def fix_line(line: str) -> str:
        if line.startswith("!") or not _FP_TYPE.search(line):
            return line

        def new_literal(m: re.Match) -> str:
            tok = m.group(1)
            ty = _type_before(line, m.start(), tok)
            if tok.startswith("f0x"):
                bits = int(tok[3:], 16)
                width = 1 + sum(_FP_FORMATS[ty])
                if len(tok) - 3 != width // 4:
                    raise ValueError(f"{tok} has the wrong width for {ty}: {line.strip()}")
                return _bits_to_legacy(ty, bits)
            if "inf" in tok or "nan" in tok:
                return _bits_to_legacy(ty, _special_bits(ty, tok))
            value = float.fromhex(tok)
            return _bits_to_legacy(ty, _value_bits(ty, value))

        def decimal(m: re.Match) -> str:
            tok = m.group(1)
            ty = _type_before(line, m.start(), tok)
            value = float(tok)
            if _exact_in(ty, value):
                return tok
            return _bits_to_legacy(ty, _value_bits(ty, value))

        line = _NEW_LITERAL.sub(new_literal, line)
        return _DECIMAL.sub(decimal, line)

    return "".join(fix_line(line) for line in text.splitlines(keepends=True))


_KERNEL_DEF = re.compile(r"^define\s+(?:[\w()\"=.]+\s+)*?ptx_kernel\s+void\s+@\"?([\w.$]+)\"?\(", re.M)


def kernel_name_of(llir: str) -> str:
    """Name of the (single) ptx_kernel function defined in Triton's LLVM IR."""
    names = _KERNEL_DEF.findall(llir)
    if len(names) != 1:
        raise ValueError(f"expected one ptx_kernel definition, found {names}")
    return names[0]


_NVVM_NAME = re.compile(r"@(llvm\.nvvm\.[A-Za-z0-9_.]+)")


def restore_intrinsic_names(instrumented: str, original: str) -> str:
    """Give NVVM intrinsics back the names the producer's LLVM wrote.

    kperf's LLVM 22 upgrades old intrinsic names as it reads the IR
    (`llvm.nvvm.ex2.approx.ftz.f` becomes `...ftz.f32`). Triton's own LLVM
    builds the PTX from kperf's output, and an older one (Triton 3.6's)
    does not know the new names: it emits them as external functions and
    ptxas fails. A name the original never used, whose old spelling (the
    `.f32` suffix written `.f`) it did use, is renamed back.
    """
    used = set(_NVVM_NAME.findall(original))

    def rename(m: re.Match) -> str:
        name = m.group(1)
        if name not in used and name.endswith(".f32") and name[:-2] in used:
            return "@" + name[:-2]
        return m.group(0)

    return _NVVM_NAME.sub(rename, instrumented)
