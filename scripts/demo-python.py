"""The Python flow on the host (scripts/demo.sh runs it after the CLI demo):
load the profile `kperf run` wrote, look at regions and instances, write a
Perfetto trace, read the compiler feedback, and benchmark numpy matmuls
over unaligned sizes with kperf bench's statistics.

    .tools/triton-venv/bin/python scripts/demo-python.py [out/]
"""
import sys
from pathlib import Path

import numpy as np

import kperf
import kperf.bench as kb

out = Path(sys.argv[1] if len(sys.argv) > 1 else "out")

p = kperf.load_profile(out / "matmul.kprof")  # decoded and replayed in Rust, on all cores
print(f"{p!r}; grid {p.grid}, block {p.block}")
for r in p.regions[:4]:
    print(f"  {r.name:<14} {r.count:>6}x  mean {r.mean_ns:9.1f} ns  p50 {r.p50_ns:9.1f}  p95 {r.p95_ns:9.1f}  "
          f"share {100 * r.share:5.1f}%  critical path {100 * (r.critical_path_share or 0):5.1f}%")
inner = p.instances(p.regions[1].name)  # numpy columns
print(f"  {p.regions[1].name}: {len(inner['duration_ns'])} instances, slowest in CTA "
      f"{int(inner['cta'][inner['duration_ns'].argmax()])}")
p.write_trace(out / "python-trace.pftrace")
fb = kperf.read_feedback(out / "feedback.json")  # what `kperf replay --json` wrote: the same Region objects
assert [r.name for r in fb.regions] == [r.name for r in p.regions]
print(f"wrote {out / 'python-trace.pftrace'}; feedback has {len(fb.regions)} regions, caveats: {len(fb.caveats)}")


@kb.parametrize({"n": [127, 128, 513]}, flops=lambda n: 2.0 * n ** 3, bytes=lambda n: 3 * 4.0 * n * n,
                out=out / "python-bench.json", min_time=0.1, timeout=2.0, max_noise=0.02)
def numpy_matmul(n):
    a = np.ones((n, n), np.float32)
    b = np.ones((n, n), np.float32)
    return {"np.matmul": lambda: np.matmul(a, b), "np.dot": lambda: np.dot(a, b)}


numpy_matmul()
print(f"wrote {out / 'python-bench.json'} (kperf roofline / kperf bench --baseline read it)")
