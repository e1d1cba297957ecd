#!/usr/bin/env bash
# Pack what a lent GPU machine needs to run scripts/gpu-check.sh when it has
# no cargo, no Rust and no network: the release `kperf` (LLVM and MLIR are
# linked in), stripped and xz-compressed to ~35 MB of the 64 MiB a device
# call may carry, and the kperf Python wheel (abi3, any CPython >= 3.9).
#
#   bash scripts/pack-for-gpu.sh        # -> .carry/kperf.xz, .carry/kperf-*.whl
#
# On the GPU machine (carry `.carry`):
#   xz -dc .carry/kperf.xz > /tmp/kperf && chmod +x /tmp/kperf && \
#     KPERF_BIN=/tmp/kperf bash scripts/gpu-check.sh
# gpu-check takes ptxas from the machine's CUDA toolkit and Triton from its
# python3, and installs the wheel from .carry/ when that python lacks kperf.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh >/dev/null
cargo build --release -p kperf
mkdir -p .carry
rm -f .carry/kperf.xz .carry/kperf-*.whl
strip -o .carry/kperf target/release/kperf
xz -T0 -f .carry/kperf
PATH="$root/.tools/triton-venv/bin:$PATH" .tools/triton-venv/bin/maturin build --release -q \
  -m python/Cargo.toml -o .carry >/dev/null
du -b .carry/* | awk '{s += $1; print} END {printf "total %.1f MiB (a device call carries at most 64 MiB)\n", s / 1048576}'
