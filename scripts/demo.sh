#!/usr/bin/env bash
# The main job on the host target, no GPU needed: instrument a bundled tiled
# matmul, JIT-run it on every CTA of its grid, replay the profile, write a
# Perfetto trace (protobuf) and a Chrome trace (JSON), and print the summary;
# then the same from Python (kperf package). Outputs land in out/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh
cargo build -q -p kperf
kperf=target/debug/kperf
mkdir -p out
# 1. The instrumented kernel at the kperfgpu level and as PTX for sm_90a (shows what the GPU would run).
$kperf instrument examples/matmul_host.mlir --target host --regions kernel,loops --emit kperfgpu -o out/matmul.kperfgpu.mlir
$kperf instrument examples/reduce.mlir --target nvptx:sm_90a --regions kernel,loops -o out/reduce.ptx
# 2. Calibrate this machine (cost of one record, tick rate), then run on the
#    host: CTAs spread over OS threads, same lowering as the GPU path.
$kperf calibrate --target host -o out/host-device.json
$kperf run examples/matmul_host.mlir --target host --spec examples/matmul_host.toml --regions kernel,loops --slots 4096 --calibration out/host-device.json -o out/matmul.kprof
# 3. Replay: pairing, overhead correction, trace + summary + feedback JSON.
$kperf replay out/matmul.kprof -o out/trace.json --json out/feedback.json --summary
#    The same trace in Perfetto's own protobuf format (smaller, loads faster).
$kperf replay out/matmul.kprof -o out/trace.pftrace
#    Loaded by Perfetto's trace processor, the engine ui.perfetto.dev runs.
.tools/triton-venv/bin/python scripts/pftrace_tp.py out/trace.pftrace --summary
# 4. The same profile from Python (python/: maturin + PyO3), and a benchmark.
PATH="$root/.tools/triton-venv/bin:$PATH" pip install -q --disable-pip-version-check --no-build-isolation ./python
KPERF_BIN="$root/$kperf" .tools/triton-venv/bin/python scripts/demo-python.py out
echo "demo: open out/trace.pftrace (or out/trace.json) in ui.perfetto.dev"
