#!/usr/bin/env bash
# The GPU acceptance check (issue 18 §4), for a machine with an NVIDIA GPU:
#
#   bash scripts/gpu-check.sh            # run everything, results under bench/results/<date>-<gpu>/
#   bash scripts/gpu-check.sh --dry-run  # on a CPU machine: everything up to the launch
#   bash scripts/gpu-check.sh --quick    # on a GPU, with the SASS step on two kernels
#                                        # (the corpus takes ~75 s that a lease may not have)
#
# Steps (each logged to <out>/log.txt, figures to <out>/summary.md):
#  1. calibrate the record cost and tick rate on the GPU (clock32, clock64);
#  2. every GPU example with a launch spec (examples/*.toml whose kernel is a
#     gpu.func) and every CUDA corpus kernel with one (tests/simt/cuda_*):
#     run it instrumented and with --no-instrument, compare the buffers
#     (outputs must be identical), replay the profile (summary + feedback
#     JSON), and time the plain launch against the instrumented one;
#     the same kernel also runs on the SIMT host target (in the dry run too)
#     and the GPU's outputs must equal its outputs;
#  3. the Hopper tile (examples/hopper_matmul_tile.mlir) and the corpus: instrument
#     for the device's chip and assemble (kperf cost), so SASS fidelity is
#     checked on the chip the GPU has;
#  4. kperf peak --target cuda (measured roofs), then kperf bench --target
#     cuda on the bench examples;
#  5. the Triton hook: Triton compiles through kperf and takes the IR back;
#  6. the Python package: `python -m kperf.triton` profiles the Triton matmul
#     in examples/triton/matmul.py (PyTorch optional) and the .kprof it
#     writes is replayed.
# On a machine without cargo or network (the lent GPU machines), pack here
# with scripts/pack-for-gpu.sh, carry .carry/ and set KPERF_BIN to the
# unpacked binary; ptxas comes from the machine's CUDA toolkit, Triton
# from its python3.
# Exits non-zero on any mismatch or failed step; the dry run stops before
# anything needs a driver and says which steps it skipped.
set -uo pipefail
cd "$(dirname "$0")/.."

DRY=0
QUICK=0
for a in "$@"; do
  case "$a" in
    --dry-run) DRY=1 ;;
    --quick) QUICK=1 ;;
    -h|--help) sed -n 2,32p "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $a" >&2; exit 2 ;;
  esac
done

say() { echo "gpu-check: $*" | tee -a "$LOG"; }
fail() { say "FAIL: $*"; FAILED=$((FAILED + 1)); }
FAILED=0

if [ "$DRY" = 1 ]; then
  GPU="dry-run"; CHIP="sm_90a"
else
  command -v nvidia-smi >/dev/null || { echo "gpu-check: no nvidia-smi: no GPU here (use --dry-run)" >&2; exit 1; }
  GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9._-')
  # Not CC: a machine that exports CC (the lent H200's image does) would
  # hand "90" to Triton as its C compiler.
  CAP=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '.')
  CHIP="sm_${CAP}"
  [ "$CAP" = 90 ] && CHIP="sm_90a"
fi
OUT="bench/results/$(date +%F)-${GPU}"
# A second run the same day gets its own folder (-2, -3, ...): an earlier
# run's results are never mixed with or replaced by this one's.
if [ "$DRY" = 0 ] && [ -e "$OUT" ]; then
  n=2; while [ -e "$OUT-$n" ]; do n=$((n + 1)); done; OUT="$OUT-$n"
fi
[ "$DRY" = 1 ] && OUT="out/gpu-check-dry-run" && rm -rf "$OUT"
mkdir -p "$OUT"
LOG="$OUT/log.txt"; : > "$LOG"
SUMMARY="$OUT/summary.md"
{
  echo "# GPU check $(date +%F) on ${GPU} (${CHIP})"
  echo
  echo "Command: \`bash scripts/gpu-check.sh $*\`; commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo
} > "$SUMMARY"

# Tools (ptxas & co.): the project's, else a CUDA toolkit's on PATH (a GPU
# machine that cannot fetch them has its own).
if [ ! -x .tools/bin/ptxas ] && ! command -v ptxas >/dev/null; then
  bash scripts/setup.sh >>"$LOG" 2>&1 || { say "setup failed"; exit 1; }
fi
export PATH="$PWD/.tools/bin:$PATH"
# The binary: $KPERF_BIN (built elsewhere and carried), else built here.
# Timings want the release build; the dry run checks the same steps with the
# debug build CI already has.
PROFILE=release; [ "$DRY" = 1 ] && PROFILE=debug
if [ -n "${KPERF_BIN:-}" ]; then
  K=$(realpath "$KPERF_BIN")
  [ -x "$K" ] || { say "KPERF_BIN=$KPERF_BIN is not an executable"; exit 1; }
elif [ "$PROFILE" = release ]; then
  cargo build --release -p kperf >>"$LOG" 2>&1 || { say "build failed (see $LOG)"; exit 1; }
  K="$PWD/target/release/kperf"
else
  cargo build -p kperf >>"$LOG" 2>&1 || { say "build failed (see $LOG)"; exit 1; }
  K="$PWD/target/debug/kperf"
fi
TARGET="nvptx:${CHIP}"

run() { # run DESCRIPTION CMD...: log, record failure
  local what="$1"; shift
  echo "\$ $*" >>"$LOG"
  if "$@" >>"$LOG" 2>&1; then say "ok: $what"; return 0; fi
  fail "$what"; return 1
}

# 1. calibration
if [ "$DRY" = 1 ]; then
  say "skipped (dry run): calibrate on the GPU"
else
  for c in clock32 clock64; do
    run "calibrate $c" "$K" calibrate --target "$TARGET" --counter "$c" -o "$OUT/calibration-$c.json"
  done
fi

# 2. kernels with launch specs: instrumented vs plain, GPU vs SIMT host
echo "## Kernels with launch specs: instrumented vs plain" >> "$SUMMARY"
check_launch() { # check_launch NAME SOURCE SPEC
  local name="$1" src="$2" spec="$3"
  run "$name: instrument and assemble for $CHIP" "$K" instrument "$src" --target "$TARGET" --emit cubin -o "$OUT/$name.cubin" || return
  # The same kernel on the SIMT host target (every thread of every CTA on the
  # CPU): its outputs are what the GPU's must be, and its profile has the
  # same regions and record counts per unit.
  # --check takes the GPU check's steps on the CPU (a plain launch and a
  # build of the kernel region alone); on the GPU they are on by default.
  # A SIMT failure is a failure, but the GPU launch still runs.
  run "$name: run on the SIMT host target" "$K" run "$src" --target simt --spec "$spec" --check \
      -o "$OUT/$name.simt.kprof" --outputs "$OUT/$name.simt.json" &&
  run "$name: replay the SIMT profile" "$K" replay "$OUT/$name.simt.kprof" \
      -o "$OUT/$name.simt.trace.json" --json "$OUT/$name.simt.feedback.json" --summary
  if [ "$DRY" = 1 ]; then
    say "skipped (dry run): launch $name"
    return
  fi
  local cal=(); [ -f "$OUT/calibration-clock32.json" ] && cal=(--calibration "$OUT/calibration-clock32.json")
  local t0 t1 t2
  t0=$(date +%s%N)
  run "$name: run instrumented" "$K" run "$src" --target "$TARGET" --spec "$spec" "${cal[@]}" \
      -o "$OUT/$name.kprof" --outputs "$OUT/$name.instrumented.json" || return
  t1=$(date +%s%N)
  run "$name: run plain" "$K" run "$src" --target "$TARGET" --spec "$spec" --no-instrument \
      --outputs "$OUT/$name.plain.json" || return
  t2=$(date +%s%N)
  if cmp -s "$OUT/$name.instrumented.json" "$OUT/$name.plain.json"; then
    say "ok: $name outputs identical instrumented and plain"
  else
    fail "$name outputs differ instrumented vs plain"
  fi
  if cmp -s "$OUT/$name.instrumented.json" "$OUT/$name.simt.json"; then
    say "ok: $name outputs identical on the GPU and the SIMT host target"
  else
    fail "$name outputs differ between the GPU and the SIMT host target"
  fi
  run "$name: replay" "$K" replay "$OUT/$name.kprof" -o "$OUT/$name.trace.json" \
      --json "$OUT/$name.feedback.json" --summary
  # The profile's own check compares a corrected kernel region with the
  # kernel region built alone, so it needs a kernel region: the same
  # launch again with --regions kernel,loops (the author's regions stay).
  run "$name: run with --regions kernel,loops" "$K" run "$src" --target "$TARGET" --spec "$spec" "${cal[@]}" \
      --regions kernel,loops -o "$OUT/$name.kernel-loops.kprof" &&
  run "$name: replay kernel,loops" "$K" replay "$OUT/$name.kernel-loops.kprof" \
      -o "$OUT/$name.kernel-loops.trace.json" --json "$OUT/$name.kernel-loops.feedback.json" --summary
  # Its corrected kernel region against the kernel region alone, and each
  # launch against the plain launch.
  local checked
  checked=$(python3 - "$OUT/$name.feedback.json" "$OUT/$name.kernel-loops.feedback.json" <<'PY' 2>/dev/null || echo "check unreadable"
import json, os, sys
out = []
for path, what in zip(sys.argv[1:], ["author's regions", "--regions kernel,loops"]):
    if not os.path.exists(path):
        out.append("%s: no profile" % what)
        continue
    f = json.load(open(path))
    c, r = f.get("check"), f.get("run_time")
    if c:
        out.append("%s: corrected kernel region %+.1f%% off the kernel region alone%s" % (what, 100 * c["error"], " (fitted)" if c.get("fitted") else ""))
    if r:
        out.append("%s: run time %+.1f%% over plain (%.1f vs %.1f us)" % (what, 100 * r["overhead"], r["profiled_ns"] / 1e3, r["uninstrumented_ns"] / 1e3))
print("; ".join(out) or "no check")
PY
)
  echo "- $name: $checked" >> "$SUMMARY"
  echo "- $name: outputs $(cmp -s "$OUT/$name.instrumented.json" "$OUT/$name.plain.json" && echo identical || echo DIFFER) instrumented vs plain, $(cmp -s "$OUT/$name.instrumented.json" "$OUT/$name.simt.json" && echo identical || echo DIFFER) GPU vs SIMT host; kperf run wall (incl. JIT) instrumented $(( (t1 - t0) / 1000000 )) ms, plain $(( (t2 - t1) / 1000000 )) ms" >> "$SUMMARY"
}
# The examples whose kernel is a gpu.func or gpu.launch.
for spec in examples/*.toml; do
  src="${spec%.toml}.mlir"
  [ -f "$src" ] || continue
  grep -q "gpu.func\|gpu.launch" "$src" || continue
  check_launch "$(basename "${spec%.toml}")" "$src" "$spec"
done
# The CUDA corpus kernels with a launch spec (clang's NVPTX LLVM IR).
for spec in tests/simt/cuda_*/spec.toml; do
  [ -f "$spec" ] || continue
  src=$(sed -n 's/^kernel = "\(.*\)"$/\1/p' "$(dirname "$spec")/case.toml")
  src=$(realpath -m "$(dirname "$spec")/$src")
  [ -f "$src" ] || continue
  check_launch "$(basename "$(dirname "$spec")")" "$src" "$spec"
done

# 3. SASS on this chip: the Hopper tile and the corpus through kperf cost
echo >> "$SUMMARY"; echo "## kperf cost on ${CHIP}" >> "$SUMMARY"
# The dry run (in CI) and --quick assemble two kernels; the real run the whole corpus.
kernels=(examples/hopper_matmul_tile.mlir corpus/triton/*.llir)
[ "$DRY" = 1 ] || [ "$QUICK" = 1 ] && kernels=(examples/hopper_matmul_tile.mlir corpus/triton/tut01_add.llir)
for k in "${kernels[@]}"; do
  [ -f "$k" ] || continue
  n=$(basename "$k")
  if run "cost $n" "$K" cost "$k" --target "$TARGET" --markdown; then
    echo "- $n: ok" >> "$SUMMARY"
  else
    echo "- $n: FAILED" >> "$SUMMARY"
  fi
done

# 4. roofs
if [ "$DRY" = 1 ]; then
  say "skipped (dry run): kperf peak --target cuda"
else
  run "peak" "$K" peak --target cuda -o "$OUT/peaks.json"
fi

# 4b. kperf bench on CUDA (events, L2 flush, clock probe, roofs): the
# bench examples, whose kernels are plain (instrumented-vs-plain run time
# is the `kperf run` check of step 2).
if [ "$DRY" = 1 ]; then
  say "skipped (dry run): kperf bench --target cuda"
else
  echo >> "$SUMMARY"; echo "## kperf bench --target cuda" >> "$SUMMARY"
  peaks=(); [ -f "$OUT/peaks.json" ] && peaks=(--peaks "$OUT/peaks.json")
  # The GPU bench specs (the others' func.func kernels are host-only).
  for b in examples/bench/*_gpu.toml; do
    n=$(basename "${b%.toml}")
    echo "\$ $K bench $b --target cuda ${peaks[*]}" >> "$LOG"
    if timeout 120 "$K" bench "$b" --target cuda "${peaks[@]}" -o "$OUT/bench-$n.json" > "$OUT/bench-$n.txt" 2>>"$LOG"; then
      say "ok: bench $n"
      { echo '```'; cat "$OUT/bench-$n.txt"; echo '```'; } >> "$SUMMARY"
    else
      fail "bench $n"; cat "$OUT/bench-$n.txt" >> "$LOG"
      echo "- bench $n: FAILED" >> "$SUMMARY"
    fi
  done
fi

# Python for steps 5 and 6: the project's venv, else a python3 that has
# Triton (a GPU machine's image), with the kperf wheel from target/wheels
# (built by scripts/python.sh, carried) when it lacks kperf.
PY=""
if [ -x .tools/triton-venv/bin/python ]; then
  PY=.tools/triton-venv/bin/python
else
  # python3 on PATH, else the image's own venv (PyTorch and Triton).
  for candidate in python3 /opt/torch/.venv/bin/python; do
    if "$candidate" -c "import triton" 2>/dev/null; then PY=$candidate; break; fi
  done
fi
if [ -n "$PY" ] && ! "$PY" -c "import kperf" 2>/dev/null; then
  wheel=$(ls .carry/kperf-*.whl target/wheels/kperf-*.whl 2>/dev/null | head -1)
  if [ "$PY" = .tools/triton-venv/bin/python ]; then
    run "pip install ./python" env PATH="$PWD/.tools/triton-venv/bin:$PATH" "$PY" -m pip install -q --no-build-isolation ./python
  elif [ -n "$wheel" ]; then
    run "install $wheel" "$PY" -m pip install -q --no-index --no-deps --target "$OUT/site" "$wheel" \
      && export PYTHONPATH="$PWD/$OUT/site${PYTHONPATH:+:$PYTHONPATH}"
  fi
fi
[ -n "$PY" ] && say "python for the Triton steps: $PY ($("$PY" -c 'import triton; print("triton", triton.__version__)' 2>&1))"

# 5. the Triton hook: Triton compiles through kperf's stage hook and takes
# the instrumented IR back (no GPU needed).
if [ -n "$PY" ]; then
  run "Triton hook round trip (compile)" "$PY" scripts/triton_roundtrip.py "$K"
else
  fail "Triton hook: no .tools/triton-venv (run scripts/setup.sh) and no python3 with Triton"
fi

# 6. The Python package and the Triton hook as a module, on a real launch
# (inputs as torch tensors, or numpy arrays through kperf.cuda without
# PyTorch; the profile scratch always through kperf.cuda).
if [ -z "$PY" ]; then
  fail "Python package: no python with Triton"
elif [ "$DRY" = 1 ]; then
  run "python -m kperf.triton --help" env KPERF_BIN="$K" "$PY" -m kperf.triton --help
  say "skipped (dry run): python -m kperf.triton examples/triton/matmul.py"
else
  # The plain run first: its result and time are what the instrumented
  # run is compared with. A failure is reported, and the profiled run
  # still happens.
  run "Triton matmul plain (correct and timed)" env TRITON_DEFAULT_FP_FUSION=1 "$PY" examples/triton/matmul.py 4096 4096 4096 --time ||
    echo "- Triton matmul plain: FAILED (see log.txt)" >> "$SUMMARY"
  plain_time=$(grep -h 'a launch (median' "$LOG" | tail -1)
  if run "python -m kperf.triton matmul" env KPERF_BIN="$K" TRITON_DEFAULT_FP_FUSION=1 "$PY" -m kperf.triton \
      --regions kernel,loops --out "$OUT/triton" examples/triton/matmul.py 4096 4096 4096; then
    log_from=$(($(wc -l < "$LOG") + 1))
    for f in "$OUT"/triton/*.kprof; do
      run "replay $(basename "$f")" "$K" replay "$f" -o "${f%.kprof}.pftrace" --json "${f%.kprof}.feedback.json" --summary
    done
    # The plain launch's time (do_bench, with PyTorch) against the profiled
    # launch's wall span, both as printed; the span read from this step's
    # replays only.
    echo "- Triton matmul plain: ${plain_time:-not timed (no PyTorch, or the plain run failed)}" >> "$SUMMARY"
    span=$(tail -n +"$log_from" "$LOG" | grep -h '^kernel: wall span' | tail -1)
    echo "- Triton matmul instrumented (--regions kernel,loops): ${span:-no replay}" >> "$SUMMARY"
    echo "- Triton matmul through python -m kperf.triton: ok ($(ls "$OUT"/triton/*.kprof 2>/dev/null | wc -l) profiles)" >> "$SUMMARY"
  else
    echo "- Triton matmul through python -m kperf.triton: FAILED" >> "$SUMMARY"
  fi
fi

echo >> "$SUMMARY"
echo "Failed steps: $FAILED (details in log.txt)" >> "$SUMMARY"
say "results in $OUT ($FAILED failed)"
[ "$FAILED" = 0 ]
