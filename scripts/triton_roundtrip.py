"""Triton → kperf → Triton on a machine without a GPU.

Compiles a small looped Triton kernel for sm_90 with kperf.triton's
stage hook calling the real `kperf instrument`, and checks that Triton takes
the instrumented LLVM IR back through its own PTX and cubin stages, with the
profile scratch sized from kperf's metadata.

    .tools/triton-venv/bin/python scripts/triton_roundtrip.py [path/to/kperf]
"""
import os
import re
import sys
import tempfile
from pathlib import Path

root = Path(__file__).resolve().parent.parent
import kperf.triton as kt  # noqa: E402  (pip install ./python; scripts/setup.sh does)
import triton  # noqa: E402

os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="kperf-rt-cache-"))
kperf = sys.argv[1] if len(sys.argv) > 1 else str(root / "target/debug/kperf")


# The kernel and its compile call are the pytest suite's (python/tests/triton_kernels.py).
sys.path.insert(0, str(root / "python" / "tests"))
from triton_kernels import compile_scale_rows  # noqa: E402  (no pytest needed)


hook = kt.install("kernel,loops", Path(tempfile.mkdtemp(prefix="kperf-rt-")), kperf=kperf,
                  profile_allocator=False)
try:
    k = compile_scale_rows()
finally:
    kt.uninstall()
inst = hook.instrumented["scale_rows"]
clocks = len(re.findall(r"%clock\b", k.asm["ptx"]))
assert k.metadata.profile_scratch_size == inst.bytes_per_cta > 0, k.metadata
assert clocks >= 4, f"expected the records' clock reads in Triton's PTX, found {clocks}"
assert len(k.asm["cubin"]) > 0
print(f"triton roundtrip: ok (triton {triton.__version__}; profile_scratch_size "
      f"{k.metadata.profile_scratch_size} B per program, {clocks} clock reads in Triton's PTX, "
      f"cubin {len(k.asm['cubin'])} bytes)")
