"""Shared setup for the Python package's tests.

The tests use only files in the repository (python/tests/fixtures, made by
fixtures/make.sh; tests/fixtures/proton) and the `kperf` binary of this
checkout: $KPERF_BIN if set, else target/debug/kperf or target/release/kperf
(`cargo build -p kperf`). A missing binary is an error, not a skip: the
Triton hook must be tested with the real `kperf instrument`.
"""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _find_kperf() -> str:
    if os.environ.get("KPERF_BIN"):
        return os.environ["KPERF_BIN"]
    for build in ("debug", "release"):
        p = ROOT / "target" / build / "kperf"
        if p.is_file():
            return str(p)
    raise RuntimeError("no kperf binary: run `cargo build -p kperf` or set KPERF_BIN")


os.environ["KPERF_BIN"] = _find_kperf()


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def root() -> Path:
    return ROOT
