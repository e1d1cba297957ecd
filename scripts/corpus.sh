#!/usr/bin/env bash
# Builds kperf's corpus of real GPU kernels in LLVM IR, without a GPU:
#   corpus/triton/<name>.{llir,ptx,json}  Triton kernels (corpus/triton/kernels.py)
#                                         compiled for sm_90 by a pinned Triton
#   corpus/cuda/<name>.ll                 CUDA C++ kernels with kperf region markers,
#                                         compiled for sm_90a by clang-22
# then checks every output: ptxas -v on each .ptx, LLVM 22's llc on each .llir
# and .ll (and ptxas on what llc makes of each .llir).
#
# Installs what it needs, skipping what is already there:
#   - Debian package clang-22 (llc/opt come with llvm-22, which setup.sh installs);
#   - a project-local, git-ignored venv .tools/triton-venv with triton==$TRITON_VERSION.
# ptxas: .tools/bin/ptxas (scripts/setup.sh) if present, else the ptxas bundled
# in the Triton wheel.
# Idempotent: a second run does no install work and rewrites identical files.
# Fails loudly with the reason.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/versions.sh"

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/.tools"
venv="$tools/triton-venv"
llvm=/usr/lib/llvm-22/bin
say() { printf 'corpus: %s\n' "$*"; }
die() { printf 'corpus: error: %s\n' "$*" >&2; exit 1; }

# ---- Debian packages -------------------------------------------------------
debs=(clang-22 llvm-22)
source "$root/scripts/lib.sh"
ensure_debs "${debs[@]}"
command -v clang++-22 >/dev/null || die "clang++-22 missing after install"
for t in llc opt; do [ -x "$llvm/$t" ] || die "$llvm/$t missing after install"; done

# ---- Triton venv -------------------------------------------------------------
ensure_triton_venv "$venv" "$TRITON_VERSION"
py="$venv/bin/python"

ptxas="$tools/bin/ptxas"
if [ ! -x "$ptxas" ]; then
  ptxas=$("$py" -c 'import triton.backends.nvidia as n, pathlib; print(pathlib.Path(n.__file__).parent / "bin" / "ptxas")')
  [ -x "$ptxas" ] || die "no ptxas: run scripts/setup.sh (installs .tools/bin/ptxas) or check the Triton wheel"
fi
say "ptxas: $("$ptxas" --version | tail -n 1)"

# ---- Triton kernels ----------------------------------------------------------
"$py" "$root/scripts/corpus_compile.py" "$root/corpus/triton" || die "compiling the Triton kernels failed"

# ---- CUDA kernels ------------------------------------------------------------
# No CUDA installation: -nocudainc/-nocudalib, and kperf_cuda.h defines the
# CUDA keywords. Without a CUDA install clang assumes PTX 4.2, which sm_90a
# rejects ("PTX version 4.2 does not support target 'sm_90a'"); --cuda-feature
# names the PTX version. Compiled from corpus/cuda with relative paths so the
# .ll does not depend on the checkout's location.
cuda_flags=(-x cuda --cuda-gpu-arch=sm_90a --cuda-device-only -nocudainc -nocudalib
            --cuda-feature=+ptx80 -O3 -S -emit-llvm)
(
  cd "$root/corpus/cuda"
  for src in *.cu; do
    clang++-22 "${cuda_flags[@]}" "$src" -o "${src%.cu}.ll" || die "clang++-22 failed on corpus/cuda/$src"
    say "cuda: ${src%.cu}.ll"
  done
)

# ---- checks --------------------------------------------------------------------
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ptxas_summary() {  # regs, spills, smem from ptxas -v
  grep -E 'Used [0-9]+ registers|spill' "$1" | tr -s ' ' | sed 's/^ptxas info : //' | paste -sd' ' -
}
for f in "$root"/corpus/triton/*.ptx; do
  n=$(basename "$f")
  "$ptxas" -arch=sm_90a -v "$f" -o "$tmp/out.cubin" 2>"$tmp/log" || { cat "$tmp/log" >&2; die "ptxas rejects corpus/triton/$n"; }
  say "ptxas $n: $(ptxas_summary "$tmp/log")"
done
for f in "$root"/corpus/triton/*.llir "$root"/corpus/cuda/*.ll; do
  n=${f#"$root"/}
  "$llvm/llc" -march=nvptx64 -mcpu=sm_90a -mattr=+ptx80 "$f" -o "$tmp/out.ptx" 2>"$tmp/log" \
    || { cat "$tmp/log" >&2; die "llc-22 rejects $n"; }
  # The whole LLVM 22 path: llc, then ptxas. PTX 8.6, not 8.0: Triton's inline
  # TMA asm (cp.async.bulk.tensor ... .shared::cta) needs PTX ISA 8.6. The CUDA
  # kernels call the unresolved marker functions, so ptxas compiles them with -c.
  "$llvm/llc" -march=nvptx64 -mcpu=sm_90a -mattr=+ptx86 "$f" -o "$tmp/out.ptx" 2>"$tmp/log" \
    || { cat "$tmp/log" >&2; die "llc-22 (+ptx86) rejects $n"; }
  reloc=(); case "$n" in *.ll) reloc=(-c);; esac
  "$ptxas" -arch=sm_90a "${reloc[@]}" -v "$tmp/out.ptx" -o "$tmp/out.cubin" 2>"$tmp/log" \
    || { cat "$tmp/log" >&2; die "ptxas rejects llc-22's PTX for $n"; }
  say "llc-22 $n: ok; its PTX through ptxas${reloc:+ -c}: $(ptxas_summary "$tmp/log")"
done
# Triton takes kperf's instrumented IR back (needs a built kperf binary).
if [ -x "$root/target/debug/kperf" ]; then
  TRITON_DEFAULT_FP_FUSION=1 "$venv/bin/python" "$root/scripts/triton_roundtrip.py" "$root/target/debug/kperf" \
    || die "Triton rejected kperf's instrumented IR"
else
  say "skipping the Triton round trip: build kperf first (cargo build -p kperf)"
fi
say "done"
