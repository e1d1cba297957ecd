#!/usr/bin/env bash
# Set up (idempotent) and run every check CI runs: formatting, clippy with
# warnings as errors, and the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash scripts/setup.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
