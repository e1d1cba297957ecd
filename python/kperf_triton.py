"""Profile Triton kernels with kperf: instrument Triton's LLVM IR, launch it, save the profile.

The workflow (docs/triton.md explains each step with references into Triton's
source):

    import kperf_triton
    hook = kperf_triton.install(regions="kernel,loops,asm=wgmma", work_dir="kperf-out")
    my_kernel[grid](...)          # compiled with the instrumented `llir` stage
    hook.save()                   # kperf-out/<kernel>.bin (raw profile scratch)
    # then: kperf replay --raw kperf-out/<kernel>.bin --meta kperf-out/<kernel>.llir.instrumented.kperf.json

How it plugs into Triton 3.9:
  * `triton.knobs.runtime.add_stages_inspection_hook` is set to a KperfHook.
    Triton calls it with no arguments for a cache key (compiler.py:compile,
    jit.py:JITFunction.run) and with (backend, stages, options, language,
    capability) at the end of CUDABackend.add_stages. The hook wraps
    stages["llir"]: Triton's own make_llir runs, the LLVM IR it returns is
    written to a file, `kperf instrument` rewrites it, and the instrumented IR
    is returned to Triton, which goes on to make_ptx and make_cubin.
  * The wrapper sets metadata["profile_scratch_size"] to the kernel's
    `profile_bytes_per_cta` from `<out>.kperf.json`. Triton writes that
    metadata into the compiled kernel (compiler.py:compile) and its launcher
    (backends/nvidia/driver.py:CudaLauncher.__call__) allocates
    gridX*gridY*gridZ*num_ctas*profile_scratch_size bytes and passes them as
    the kernel's last parameter (the profile scratch pointer).
  * A profile allocator (triton.runtime._allocation.set_profile_allocator)
    keeps every buffer so `save()` can copy it to the host afterwards.

Triton 3.9 prints LLVM IR with the floating-point literal syntax of its newer
bundled LLVM (f0x3FB8AA3B, -inf, +qnan, ...), which LLVM 22 (kperf's LLVM)
cannot parse. `llir_to_llvm22` rewrites those literals into the legacy hex
forms that every LLVM version parses; the hook applies it before calling
kperf. Triton's LLVM parses the legacy forms, so the instrumented IR can go
straight back to Triton.

Importing this module needs neither Triton nor a GPU; `install` needs Triton,
`save` needs PyTorch and a GPU. `python kperf_triton.py --selftest` checks the
hook against the installed Triton on a machine without a GPU, using a
stand-in for `kperf instrument`.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import re
import shlex
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Union

__all__ = ["llir_to_llvm22", "install", "uninstall", "KperfHook", "kernel_name_of"]

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


# ---------------------------------------------------------------------------
# The stage hook
# ---------------------------------------------------------------------------

# instrument(in_path, out_path, target, regions, extra_args) -> None; must
# write out_path and out_path + ".kperf.json".
Instrumenter = Callable[[Path, Path, str, str, list], None]


def _run_kperf_cli(kperf: str) -> Instrumenter:

    def run(inp: Path, out: Path, target: str, regions: str, extra: list) -> None:
        cmd = [*shlex.split(kperf), "instrument", str(inp), "--target", target, "--regions", regions, "--emit", "llvm",
               "--profile-param", "auto", *extra, "-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"kperf instrument failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")

    return run


@dataclass
class Instrumented:
    kernel: str
    llir: Path  # Triton's LLVM IR as given to kperf
    out: Path  # the instrumented LLVM IR
    meta: Path  # <out>.kperf.json
    bytes_per_cta: int


@dataclass
class Launch:
    size: int
    buffer: object  # torch.Tensor (uint8, on the GPU)
    kernel: Optional[str] = None


@dataclass
class KperfHook:
    """Callable installed as triton.knobs.runtime.add_stages_inspection_hook."""
    kperf: Union[str, Instrumenter] = "kperf"
    regions: str = "kernel,loops"
    work_dir: Path = Path("kperf-triton")
    kernels: Optional[set] = None  # kernel names to instrument; None: all
    extra_args: list = field(default_factory=list)
    profile_align: int = 128
    instrumented: dict = field(default_factory=dict)  # kernel name -> Instrumented
    launches: list = field(default_factory=list)  # Launch, in launch order

    def __post_init__(self):
        self.work_dir = Path(self.work_dir)
        self._instrument = _run_kperf_cli(self.kperf) if isinstance(self.kperf, str) else self.kperf

    # -- cache key ------------------------------------------------------------
    def cache_key(self) -> str:
        who = self.kperf if isinstance(self.kperf, str) else getattr(self.kperf, "__qualname__", repr(self.kperf))
        return json.dumps(["kperf", who, self.regions, sorted(self.kernels or []), self.extra_args])

    def __call__(self, *args):
        # compiler.py:compile and jit.py:JITFunction.run call the hook with no
        # arguments and expect (key, hash) to fold into their cache keys, so a
        # kernel compiled with instrumentation never reuses an uninstrumented
        # cache entry (and vice versa).
        if not args:
            key = self.cache_key()
            return key, hashlib.sha256(key.encode()).hexdigest()
        # CUDABackend.add_stages(stages, options, language, capability) calls
        # hook(self, stages, options, language, capability).
        backend, stages, options, language, capability = args
        if "llir" not in stages:
            raise RuntimeError(f"no llir stage to instrument (stages: {list(stages)})")
        make_llir = stages["llir"]
        target = f"nvptx:sm_{capability}a" if capability >= 90 else f"nvptx:sm_{capability}"

        def llir_stage(src, metadata):
            return self._instrument_stage(make_llir(src, metadata), metadata, target)

        stages["llir"] = llir_stage

    def _instrument_stage(self, llir: str, metadata: dict, target: str) -> str:
        name = kernel_name_of(llir)
        if self.kernels is not None and name not in self.kernels:
            return llir
        if metadata.get("profile_scratch_size", 0):
            raise RuntimeError(f"{name}: Triton already uses the profile scratch "
                               f"({metadata['profile_scratch_size']} B, Proton instrumentation?); "
                               "kperf needs it to itself")
        self.work_dir.mkdir(parents=True, exist_ok=True)
        inp = self.work_dir / f"{name}.llir"
        out = self.work_dir / f"{name}.llir.instrumented"
        meta_path = Path(str(out) + ".kperf.json")
        inp.write_text(llir_to_llvm22(llir))
        # Triton's metadata beside the IR, as TRITON_KERNEL_DUMP writes it:
        # kperf sizes the ring from the warps and the dynamic shared memory.
        if "num_warps" in metadata:
            inp.with_suffix(".json").write_text(json.dumps({
                "name": name,
                "num_warps": int(metadata["num_warps"]),
                "shared": int(metadata.get("shared", 0)),
            }))
        for stale in (out, meta_path):
            stale.unlink(missing_ok=True)
        self._instrument(inp, out, target, self.regions, list(self.extra_args))
        if not out.exists() or not meta_path.exists():
            raise RuntimeError(f"{name}: the instrumenter wrote no {out} or {meta_path}")
        meta = json.loads(meta_path.read_text())
        entries = [k for k in meta.get("kernels", []) if k.get("name") == name] or meta.get("kernels", [])
        if len(entries) != 1 or "profile_bytes_per_cta" not in entries[0]:
            raise RuntimeError(f"{name}: {meta_path} has no single kernel entry with profile_bytes_per_cta")
        per_cta = int(entries[0]["profile_bytes_per_cta"])
        if per_cta <= 0:
            raise RuntimeError(f"{name}: profile_bytes_per_cta is {per_cta}")
        # Read by make_llir's caller into the kernel's metadata json and, at
        # launch, by CudaLauncher (size per program, times the grid).
        metadata["profile_scratch_size"] = per_cta
        metadata["profile_scratch_align"] = int(entries[0].get("profile_align", self.profile_align))
        self.instrumented[name] = Instrumented(name, inp, out, meta_path, per_cta)
        return out.read_text()

    # -- launch side ------------------------------------------------------------
    def allocate(self, size: int, alignment: int, stream: Optional[int]):
        """Profile allocator (triton.runtime._allocation.set_profile_allocator)."""
        import torch
        # Zeroed like Triton's default profile scratch (GPUDriver.allocate_default_profile_scratch).
        # cudaMalloc'd blocks are 256-byte aligned; more is not available.
        if alignment > 256:
            raise RuntimeError(f"profile scratch alignment {alignment} > 256 is not supported")
        if stream:
            with torch.cuda.stream(torch.cuda.ExternalStream(stream)):
                buf = torch.zeros(size, dtype=torch.uint8, device="cuda")
        else:
            buf = torch.zeros(size, dtype=torch.uint8, device="cuda")
        self.launches.append(Launch(size, buf))
        return buf

    def on_launch(self, metadata) -> None:
        """launch_enter_hook: names the buffer just allocated for this launch."""
        data = metadata.get() if hasattr(metadata, "get") else {}
        name = data.get("name")
        if self.launches and self.launches[-1].kernel is None and name in self.instrumented:
            self.launches[-1].kernel = name

    def save(self, directory: Optional[Path] = None) -> list:
        """Synchronize and write each launch's profile scratch as <kernel>.bin (<kernel>.<i>.bin after the first)."""
        import torch
        torch.cuda.synchronize()
        directory = Path(directory or self.work_dir)
        directory.mkdir(parents=True, exist_ok=True)
        written, seen = [], {}
        for launch in self.launches:
            name = launch.kernel or "unknown"
            i = seen.get(name, 0)
            seen[name] = i + 1
            path = directory / (f"{name}.bin" if i == 0 else f"{name}.{i}.bin")
            host = launch.buffer.cpu().contiguous()
            path.write_bytes(ctypes.string_at(host.data_ptr(), host.numel()))
            written.append(path)
        self.launches.clear()
        return written


_installed: Optional[KperfHook] = None


def install(kperf: Union[str, Instrumenter] = None, regions: str = "kernel,loops", work_dir="kperf-triton",
            kernels=None, extra_args=(), profile_allocator: bool = True) -> KperfHook:
    """Install the hook (and, with profile_allocator, the buffer-keeping allocator).

    kperf: the kperf command (default: $KPERF or "kperf"), or a Python callable
    standing in for `kperf instrument`.
    """
    global _installed
    from triton import knobs
    if knobs.runtime.add_stages_inspection_hook is not None and knobs.runtime.add_stages_inspection_hook is not _installed:
        raise RuntimeError("another add_stages_inspection_hook is installed")
    hook = KperfHook(kperf=kperf or os.environ.get("KPERF", "kperf"), regions=regions, work_dir=Path(work_dir),
                     kernels=set(kernels) if kernels else None, extra_args=list(extra_args))
    knobs.runtime.add_stages_inspection_hook = hook
    if profile_allocator:
        from triton.runtime._allocation import set_profile_allocator
        set_profile_allocator(hook.allocate)
        knobs.runtime.launch_enter_hook.add(hook.on_launch)
    _installed = hook
    return hook


def uninstall() -> None:
    global _installed
    from triton import knobs
    from triton.runtime._allocation import set_profile_allocator
    if _installed is not None:
        if knobs.runtime.add_stages_inspection_hook is _installed:
            knobs.runtime.add_stages_inspection_hook = None
        knobs.runtime.launch_enter_hook.remove(_installed.on_launch)
        set_profile_allocator(None)
    _installed = None


# ---------------------------------------------------------------------------
# Self test without a GPU
# ---------------------------------------------------------------------------


def _selftest() -> None:
    """Compile a kernel for sm_90 through the hook with a stand-in instrumenter.

    Checks: the hook is called without a GPU; the llir stage receives Triton's
    IR; the text handed to the instrumenter has no new-syntax float literals;
    the IR returned goes through Triton's make_ptx and ptxas; the compiled
    kernel's metadata carries profile_scratch_size; the cache key changes.
    """
    import tempfile
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="kperf-selftest-cache-"))
    work = Path(tempfile.mkdtemp(prefix="kperf-selftest-"))
    calls = []

    def fake_kperf(inp: Path, out: Path, target: str, regions: str, extra: list) -> None:
        # Stands in for `kperf instrument`: each program stores clock64 into
        # its own slot of the profile scratch (the last parameter), indexed by
        # the linear program id like Triton's global scratch.
        text = inp.read_text()
        assert "f0x" not in text and "float -inf" not in text, "new-syntax literal reached the instrumenter"
        calls.append((inp.name, target, regions))
        define = re.search(r"^define .*\(.*, ptr addrspace\(1\) ([^%]*)(%\d+)\) .*\{$", text, re.M)
        assert define, "no kernel definition with a trailing ptr addrspace(1) parameter"
        attrs, prof = define.group(1), define.group(2)
        head = define.group(0).replace(f"ptr addrspace(1) {attrs}{prof})", f"ptr addrspace(1) {prof})")
        body = (f"\n  %kp.x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()"
                f"\n  %kp.y = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()"
                f"\n  %kp.z = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()"
                f"\n  %kp.nx = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()"
                f"\n  %kp.ny = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()"
                f"\n  %kp.zy = mul i32 %kp.z, %kp.ny\n  %kp.zyy = add i32 %kp.zy, %kp.y"
                f"\n  %kp.r = mul i32 %kp.zyy, %kp.nx\n  %kp.id = add i32 %kp.r, %kp.x"
                f"\n  %kp.id64 = zext i32 %kp.id to i64\n  %kp.off = mul i64 %kp.id64, 4096"
                f"\n  %kp.p = getelementptr i8, ptr addrspace(1) {prof}, i64 %kp.off"
                f"\n  %kp.c = call i64 @llvm.nvvm.read.ptx.sreg.clock64()"
                f"\n  store volatile i64 %kp.c, ptr addrspace(1) %kp.p, align 8")
        text = text.replace(define.group(0), head + body, 1)
        for fn, ty in (("ctaid.x", "i32"), ("ctaid.y", "i32"), ("ctaid.z", "i32"), ("nctaid.x", "i32"),
                       ("nctaid.y", "i32"), ("clock64", "i64")):
            if f"declare {ty} @llvm.nvvm.read.ptx.sreg.{fn}()" not in text and \
               f"@llvm.nvvm.read.ptx.sreg.{fn}() #" not in text.split("declare", 1)[-1]:
                text += f"\ndeclare {ty} @llvm.nvvm.read.ptx.sreg.{fn}()\n"
        out.write_text(text)
        name = kernel_name_of(text)
        Path(str(out) + ".kperf.json").write_text(json.dumps({"kernels": [{"name": name, "profile_bytes_per_cta": 4096}]}))

    @triton.jit
    def selftest_scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=float("-inf"))
        tl.store(y_ptr + offs, tl.exp2(x * 1.4426950408889634), mask=offs < n)

    src = lambda: ASTSource(selftest_scale, signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                            constexprs={"BLOCK": 256})
    target = GPUTarget("cuda", 90, 32)
    plain = triton.compile(src(), target=target, options={"enable_fp_fusion": True})
    assert plain.metadata.profile_scratch_size == 0
    hook = install(kperf=fake_kperf, regions="kernel,loops,asm=wgmma", work_dir=work, profile_allocator=False)
    try:
        k = triton.compile(src(), target=target, options={"enable_fp_fusion": True})
    finally:
        uninstall()
    assert calls == [("selftest_scale.llir", "nvptx:sm_90a", "kernel,loops,asm=wgmma")], calls
    assert k.hash != plain.hash, "the hook's cache key did not change the kernel's hash"
    assert k.metadata.profile_scratch_size == 4096, k.metadata
    assert k.metadata.profile_scratch_align == 128, k.metadata
    assert "ptx" in k.asm and "cubin" in k.asm
    ptx = k.asm["ptx"]
    last_param = re.findall(r"\.param \.u64 \.ptr \.global \.align \d+ (\w+)|\.param \.u64 (\w+)", ptx)[-1]
    last_param = last_param[0] or last_param[1]
    assert f"[{last_param}]" in ptx and re.search(r"st\.volatile\.global\.(?:u|b)64", ptx), \
        "the store into the profile scratch parameter did not reach the PTX"
    assert "selftest_scale" in hook.instrumented
    print(f"selftest: ok (triton {triton.__version__}; hook called without a GPU, profile_scratch_size "
          f"{k.metadata.profile_scratch_size}, ptx {len(k.asm['ptx'])} chars, cubin {len(k.asm['cubin'])} bytes)")


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        _selftest()
    elif len(sys.argv) == 3 and sys.argv[1] == "--to-llvm22":
        # python kperf_triton.py --to-llvm22 FILE.llir > out.ll
        sys.stdout.write(llir_to_llvm22(Path(sys.argv[2]).read_text()))
    else:
        print("usage: kperf_triton.py --selftest | --to-llvm22 FILE.llir", file=sys.stderr)
        sys.exit(2)
