#!/usr/bin/env bash
# kperf bench end to end on the host target:
#   1. kperf peak: measured bandwidth and FP32 rate of this machine;
#   2. kperf bench on examples/bench/axpy.toml (two implementations, four
#      sizes) and fma_chain.toml, with the peaks: a results table;
#   3. a rerun of fma_chain against its own baseline must stay quiet (exit 0);
#   4. the same kernel with 10% more multiply-adds must be flagged (exit 3);
#   5. kperf roofline: an SVG with both results.
# Usage: scripts/bench-demo.sh [OUT_DIR]   (default bench/results/host-demo)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/bench/results/host-demo}
if [ -n "${KPERF:-}" ]; then
  kperf=$KPERF
else
  # Release: the timing loop itself must not add overhead to the samples.
  (cd "$root" && cargo build --release -p kperf)
  kperf=$root/target/release/kperf
fi
mkdir -p "$out"
quick=(--quiet --min-time 0.3 --timeout 3)

"$kperf" peak --target host -o "$out/peaks.json"
"$kperf" bench "$root/examples/bench/axpy.toml" --peaks "$out/peaks.json" -o "$out/axpy.json" "${quick[@]}"
"$kperf" bench "$root/examples/bench/fma_chain.toml" --peaks "$out/peaks.json" -o "$out/fma-base.json" "${quick[@]}"

echo "== rerun of the same code against its baseline (must pass)"
"$kperf" bench "$root/examples/bench/fma_chain.toml" --baseline "$out/fma-base.json" -o "$out/fma-rerun.json" "${quick[@]}" \
  || { echo "bench-demo: the rerun of unchanged code was flagged (exit $?)" >&2; exit 1; }

echo "== the same kernel with 10% more work (must be flagged)"
slow=$(mktemp -d)
trap 'rm -rf "$slow"' EXIT
cp "$root/examples/bench/fma_chain.toml" "$slow/"
sed 's/arith.constant 100 : index/arith.constant 110 : index/' "$root/examples/bench/fma_chain.mlir" > "$slow/fma_chain.mlir"
grep -q 'arith.constant 110 : index' "$slow/fma_chain.mlir"
set +e
"$kperf" bench "$slow/fma_chain.toml" --baseline "$out/fma-base.json" -o "$out/fma-slow.json" "${quick[@]}"
rc=$?
set -e
if [ "$rc" -ne 3 ]; then
  echo "bench-demo: expected exit status 3 (regression) for the 10% slowdown, got $rc" >&2
  exit 1
fi
echo "bench-demo: the 10% slowdown was flagged (exit 3)"

"$kperf" roofline "$out/axpy.json" "$out/fma-base.json" -o "$out/roofline.svg"
echo "bench-demo: results in $out"
