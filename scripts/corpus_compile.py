"""Compiles the corpus's Triton kernels for sm_90 without a GPU (run by scripts/corpus.sh).

The kernels come from two files in corpus/triton, each with a KERNELS dict
(name -> compile specification): kernels.py (written for this corpus) and
tutorials.py (copied from Triton's tutorials). Names are unique across both.
For each kernel it writes into the output directory:
  <name>.llir  Triton's LLVM IR (the `llir` stage, input to its NVPTX backend)
  <name>.ptx   Triton's PTX (the `ptx` stage)
  <name>.json  Triton's metadata for the compiled kernel (what the launcher
               reads: name, num_warps, num_ctas, shared, global/profile
               scratch sizes, ...), pretty-printed with sorted keys.

Two rewrites, nothing else is changed:
  * LLVM 22 compatibility: Triton 3.9 bundles a newer LLVM whose printer
    writes floating-point literals in a syntax LLVM 22 cannot parse
    (`fmul float %5, f0x3FB8AA3B`, `splat (float -inf)`: "expected value
    token"). python/kperf/_llir.py:llir_to_llvm22 rewrites exactly those
    literals into the legacy hex forms (0x3FF7154760000000,
    0xFFF0000000000000) that LLVM 22 and Triton's LLVM both parse; the values
    are bit-identical.
  * Reproducibility across checkouts: absolute paths under the repository root
    (source file names in debug info, the libdevice path in the metadata) are
    rewritten relative to the root.

Usage: python corpus_compile.py OUT_DIR [NAME ...]
"""

import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ inside corpus/ or python/
ROOT = Path(__file__).resolve().parent.parent
# (file, module name it is loaded under); kernels.py's module name is the one
# it always had, so its outputs do not change.
KERNEL_FILES = [
    (ROOT / "corpus" / "triton" / "kernels.py", "kperf_corpus_kernels"),
    (ROOT / "corpus" / "triton" / "tutorials.py", "kperf_corpus_tutorials"),
]
# The literal rewriter is loaded by path: it needs only the standard
# library, while importing the kperf package needs its compiled part.
_spec = importlib.util.spec_from_file_location("kperf_llir", ROOT / "python" / "kperf" / "_llir.py")
_llir = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_llir)
llir_to_llvm22 = _llir.llir_to_llvm22


def die(msg):
    print(f"corpus: error: {msg}", file=sys.stderr)
    sys.exit(1)


def load_kernels():
    kernels = {}
    for path, module_name in KERNEL_FILES:
        spec = importlib.util.spec_from_file_location(module_name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        clash = sorted(set(kernels) & set(mod.KERNELS))
        if clash:
            die(f"{path.name}: kernel names {clash} already defined in an earlier file")
        kernels.update(mod.KERNELS)
    return kernels


def relativize(text):
    # Debug info and metadata carry absolute paths of this checkout; make them
    # relative to the repository root so the files do not depend on where the
    # repository lives. (DIFile(directory: "/x/corpus/triton") becomes
    # "corpus/triton"; a ".file" line in PTX likewise.)
    root = str(ROOT)
    return text.replace(root + "/", "").replace(root, ".")


def compile_one(name, spec, target):
    import triton
    from triton.compiler import ASTSource

    fn = spec["fn"]
    sig = spec["signature"]
    missing = [a for a in fn.arg_names if a not in sig]
    if missing:
        die(f"{name}: signature lacks parameters {missing}")
    attrs = {(fn.arg_names.index(a), ): [["tt.divisibility", 16]] for a in spec.get("aligned", [])}
    src = ASTSource(fn, signature=sig, constexprs=spec.get("constexprs"), attrs=attrs)
    # enable_fp_fusion given explicitly (True is Triton's default) so Triton
    # does not warn about the default changing.
    options = {"enable_fp_fusion": True, **spec.get("options", {})}
    try:
        k = triton.compile(src, target=target, options=options)
    except Exception as e:  # noqa: BLE001 - report any compiler failure with the kernel's name
        die(f"{name}: triton.compile failed: {type(e).__name__}: {e}")
    for stage in ("llir", "ptx"):
        if stage not in k.asm:
            die(f"{name}: Triton produced no {stage} stage (stages: {sorted(k.asm)})")
    meta_path = next(p for c, p in k.metadata_group.items() if c.endswith(".json"))
    meta = json.loads(Path(meta_path).read_text())
    return k.asm["llir"], k.asm["ptx"], meta


def main():
    if len(sys.argv) < 2:
        die("usage: corpus_compile.py OUT_DIR [NAME ...]")
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    # A fresh, private cache: every run really compiles, nothing from
    # ~/.triton is reused or written.
    cache = tempfile.mkdtemp(prefix="kperf-triton-cache-")
    os.environ["TRITON_CACHE_DIR"] = cache
    for var in ("TRITON_KERNEL_OVERRIDE", "TRITON_KERNEL_DUMP", "TRITON_DISABLE_LINE_INFO", "TRITON_ALWAYS_COMPILE"):
        os.environ.pop(var, None)

    import triton
    from triton.backends.compiler import GPUTarget

    kernels = load_kernels()
    names = sys.argv[2:] or list(kernels)
    unknown = [n for n in names if n not in kernels]
    if unknown:
        die(f"unknown kernel(s) {unknown}; known: {list(kernels)}")
    target = GPUTarget("cuda", 90, 32)
    for name in names:
        llir, ptx, meta = compile_one(name, kernels[name], target)
        try:
            llir = llir_to_llvm22(llir)
        except ValueError as e:
            die(f"{name}: cannot rewrite Triton's LLVM IR for LLVM 22: {e}")
        (out / f"{name}.llir").write_text(relativize(llir))
        (out / f"{name}.ptx").write_text(relativize(ptx))
        meta_text = relativize(json.dumps(meta, indent=1, sort_keys=True))
        (out / f"{name}.json").write_text(meta_text + "\n")
        print(f"corpus: {name}: kernel {meta['name']}, num_warps {meta['num_warps']}, "
              f"shared {meta['shared']} B, global_scratch {meta['global_scratch_size']} B, "
              f"profile_scratch {meta['profile_scratch_size']} B (triton {triton.__version__})")


if __name__ == "__main__":
    main()
