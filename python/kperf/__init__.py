"""kperf from Python: profiles, compiler feedback, benchmarks and the Triton hook.

    import kperf
    p = kperf.load_profile("run.kprof")          # decoded and replayed in Rust
    for r in p.regions:                          # largest share first
        print(r.name, r.count, r.mean_ns, r.p95_ns, r.share)
    p.instances(as_="pandas")                    # one row per region instance
    p.write_trace("trace.pftrace")               # Perfetto (or .json: Chrome)

    fb = kperf.read_feedback("run.feedback.json")  # the same Region objects

Submodules: `kperf.bench` (benchmarks with `kperf bench`'s statistics),
`kperf.triton` (instrument and profile Triton kernels; imported on demand,
it needs Triton). Instrumentation itself runs the `kperf` binary: see
`kperf.kperf_binary`.
"""

from ._kperf import KperfError
from ._kperf import __version__ as __version__
from ._binary import kperf_binary, run_kperf
from .profile import Feedback, Profile, Region, load_profile, read_feedback
from . import bench

__all__ = [
    "KperfError",
    "Feedback",
    "Profile",
    "Region",
    "bench",
    "kperf_binary",
    "load_profile",
    "read_feedback",
    "run_kperf",
]
