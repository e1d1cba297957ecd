#!/usr/bin/env bash
# Build the kperf Python package (python/: maturin + PyO3) and test it.
#   1. `pip install ./python` into .tools/triton-venv (which has Triton,
#      numpy and pytest), then pytest python/tests against the installed
#      package, with the kperf binary of this checkout ($KPERF_BIN).
#   2. A wheel from `maturin build`, installed into a fresh venv with
#      nothing else (no numpy): `import kperf` loads and replays a profile.
# Needs scripts/setup.sh first and a built kperf (cargo build -p kperf).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
say() { printf 'python: %s\n' "$*"; }
die() { printf 'python: error: %s\n' "$*" >&2; exit 1; }
venv="$root/.tools/triton-venv"
[ -x "$venv/bin/maturin" ] || die "no maturin in $venv: run scripts/setup.sh"
export KPERF_BIN=${KPERF_BIN:-$root/target/debug/kperf}
[ -x "$KPERF_BIN" ] || die "no kperf binary at $KPERF_BIN: run cargo build -p kperf"
# maturin's PEP 517 hooks call `maturin` by name.
export PATH="$venv/bin:$PATH"

say "pip install ./python into $venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-build-isolation ./python \
  || die "pip install ./python failed"
say "pytest python/tests"
# From a directory outside the source tree, so `import kperf` is the installed package.
(cd python/tests && TRITON_DEFAULT_FP_FUSION=1 "$venv/bin/python" -m pytest -q -p no:cacheprovider .) \
  || die "pytest failed"
source "$root/scripts/versions.sh"
t36="$root/.tools/triton-gpu-image"
[ -d "$t36/triton" ] || die "no Triton $TRITON_GPU_IMAGE_VERSION in $t36: run scripts/setup.sh"
say "pytest test_triton.py against Triton $TRITON_GPU_IMAGE_VERSION (the GPU image's)"
t36cache=$(mktemp -d)
(cd python/tests && PYTHONPATH="$t36" TRITON_CACHE_DIR="$t36cache" TRITON_DEFAULT_FP_FUSION=1 \
   "$venv/bin/python" -m pytest -q -p no:cacheprovider test_triton.py) \
  || { rm -rf "$t36cache"; die "pytest test_triton.py failed against Triton $TRITON_GPU_IMAGE_VERSION"; }
rm -rf "$t36cache"

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
say "maturin build, then the wheel in a fresh venv"
"$venv/bin/maturin" build --release -q -m python/Cargo.toml -o "$tmp/wheels" >/dev/null \
  || die "maturin build failed"
python3 -m venv "$tmp/fresh"
"$tmp/fresh/bin/python" -m pip install -q --disable-pip-version-check --no-index "$tmp"/wheels/kperf-*.whl \
  || die "the wheel does not install into a fresh venv"
(cd "$tmp" && "$tmp/fresh/bin/python" - "$root/python/tests/fixtures/reduce_simt.kprof" "$tmp/t.pftrace" <<'PY'
import sys, kperf
p = kperf.load_profile(sys.argv[1])
assert [r.name for r in p.regions][:1] == ["kernel"] and p.ctas == 4, p
assert len(p.instances("kernel", as_="array")["duration_ns"]) == 16
p.write_trace(sys.argv[2])
r = kperf.bench.benchmark(sum, range(1000), min_time=0.01, timeout=1, flush=False)
assert r["samples"] >= 10
print(f"python: fresh venv: kperf {kperf.__version__} imports, {p!r}, bench median {r['median_ms']:.4f} ms")
PY
) || die "the wheel does not work in a fresh venv"
say "ok"
