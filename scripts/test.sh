#!/usr/bin/env bash
# Set up (idempotent) and run every check CI runs: formatting, clippy with
# warnings as errors, the whole test suite, the Python package's tests, and
# the GPU check's dry run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
# The Python package: built with maturin, its pytest suite, a fresh-venv wheel.
bash scripts/python.sh
# The GPU acceptance script, up to the launch (no GPU here).
bash scripts/gpu-check.sh --dry-run
