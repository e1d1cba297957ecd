"""Finding and running the `kperf` binary (instrumentation needs LLVM/MLIR,
which the Python extension does not link)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Sequence, Union

from ._kperf import KperfError

ENV = "KPERF_BIN"


def kperf_binary() -> str:
    """The `kperf` executable: `$KPERF_BIN` if set, else `kperf` on PATH.

    Raises KperfError naming both places when neither has one.
    """
    env = os.environ.get(ENV)
    if env:
        path = Path(env).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise KperfError(f"${ENV} = {env}: not an executable file")
        return str(path)
    found = shutil.which("kperf")
    if found:
        return found
    raise KperfError(
        f"the kperf binary was not found: set ${ENV} to it or put it on PATH "
        "(build it with `cargo build --release -p kperf` in a kperf checkout)"
    )


def run_kperf(args: Sequence[Union[str, os.PathLike]], *, binary: str | None = None,
              check: bool = True) -> subprocess.CompletedProcess:
    """Run `kperf ARGS...` and capture its output.

    With `check`, a non-zero exit raises KperfError carrying the command and
    kperf's own error message.
    """
    # An explicit `binary` may carry arguments ("kperf --flag"); the found
    # one is a path, which may contain spaces.
    cmd = [*(shlex.split(binary) if binary else [kperf_binary()]), *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise KperfError(f"`{shlex.join(cmd)}` failed (exit {proc.returncode}):\n{proc.stderr.strip()}")
    return proc
