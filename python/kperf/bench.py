"""Benchmarks from Python with `kperf bench`'s own core.

    import numpy as np, kperf.bench as kb
    a = np.random.rand(1 << 20)
    r = kb.benchmark(np.sort, a, bytes=2 * a.nbytes)
    print(r["median_ms"], r["noise"], r["gbps"])
    kb.save([r], "sort.json", name="numpy")      # `kperf roofline sort.json`
    kb.compare("new.json", "sort.json")           # `kperf bench --baseline`

The warm-up, the stopping rule (minimum samples and time, target noise,
timeout), the summary statistics and the regression test are the Rust code
`kperf bench` runs (kperf-bench), not a Python copy; results use the same
JSON schema, so `kperf roofline` plots them and `kperf bench --baseline`
compares against them.

Timing (unless `sync` is given, which then runs inside the timed region
after each call, on the host cycle timer): with PyTorch and a GPU and a
CUDA tensor among the arguments, each sample is one call between two CUDA
events and `flush` zeroes a buffer twice the L2 size before it; with JAX
loaded, each result is waited for with `jax.block_until_ready`; with
PyTorch using the GPU but no tensor among the arguments (a closure), each
call is followed by `torch.cuda.synchronize()` inside the timed region;
otherwise the call alone is timed on the host cycle timer. The host cache
flush (when `flush`) applies to every path timed on the host.
"""

from __future__ import annotations

import itertools
import json
import numbers
import math
import os
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from . import _kperf
from ._kperf import KperfError

__all__ = ["benchmark", "save", "compare", "parametrize", "Comparison", "ComparabilityWarning", "Sweep", "SIZES"]

#: Sizes worth sweeping: powers of two and their unaligned neighbours,
#: where tiled kernels fall off their fast path.
SIZES = (127, 128, 513, 1024, 4096)

PathLike = Union[str, os.PathLike]


def _flat(args: Sequence[Any], kwargs: Mapping[str, Any]) -> List[Any]:
    out = []
    for a in [*args, *kwargs.values()]:
        out.extend(a if isinstance(a, (list, tuple)) else [a])
    return out


def _torch_cuda():
    """torch, when the program has imported it and a GPU is there."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return None
    return torch


def _torch_cuda_args(values: Sequence[Any]) -> bool:
    torch = _torch_cuda()
    return torch is not None and any(isinstance(a, torch.Tensor) and a.is_cuda for a in values)


def _jax():
    return sys.modules.get("jax")


def _l2_flusher():
    """A prepare step that evicts the GPU's L2: write a buffer twice its size."""
    import torch
    l2 = getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "L2_cache_size", 0) or (64 << 20)
    scratch = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")

    def flush():
        scratch.zero_()
    return flush


def _check_settings(**values: Any) -> None:
    """Refuse bad settings with a ValueError naming the argument, before
    they reach the Rust core as JSON (NaN is not JSON; a negative count is
    no usize)."""
    counts = ("min_samples", "max_samples", "warmup")
    for name, v in values.items():
        if v is None:
            continue
        # numbers.Real: numpy's scalars too (np.prod(shape) * 4 for bytes).
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"{name} must be a number, not {type(v).__name__}")
        v = float(v)
        if name in counts:
            if not math.isfinite(v) or not v.is_integer():
                raise ValueError(f"{name} must be a whole number, got {v!r}")
            if v < 0:
                raise ValueError(f"{name} must be >= 0, got {v!r}")
            # The Rust core counts in 64 bits (warmup in 32): 1e30 reached
            # it as a JSON number no integer holds.
            limit = 2**32 - 1 if name == "warmup" else 2**63 - 1
            if v > limit:
                raise ValueError(f"{name} must be at most {limit}, got {v!r}")
        elif not math.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be finite and >= 0, got {v!r}")


def benchmark(fn: Callable[..., Any], *args: Any, sync: Optional[Callable[[], Any]] = None, flush: bool = True,
              min_samples: int = 10, min_time: float = 0.5, max_noise: float = 0.005, timeout: float = 15.0,
              max_samples: int = 1_000_000, warmup: int = 3, warmup_time: float = 0.05,
              flops: Optional[float] = None, bytes: Optional[float] = None, name: Optional[str] = None,
              params: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Dict[str, Any]:
    """Time `fn(*args, **kwargs)` until the stopping rule is met.

    Stops once at least `min_samples` samples adding up to `min_time`
    seconds have a relative noise (std/mean) at or under `max_noise`, or
    after `timeout` seconds, or at `max_samples`. `flush` evicts the cache
    before every sample, outside the timed region (the GPU L2 on the
    CUDA-event path, the host's last-level cache otherwise).
    `flops` / `bytes` per call give TFLOP/s and GB/s.

    Returns a dict: mean_ms, median_ms, min_ms, max_ms, std_ms, p5_ms,
    p95_ms, samples, noise (std/mean), robust_noise, stop_reason, tflops and
    gbps (given work), and `point` / `settings` / `device`, which `save`
    writes in `kperf bench`'s results schema.
    """
    _check_settings(min_samples=min_samples, max_samples=max_samples, warmup=warmup,
                    min_time=min_time, max_noise=max_noise, timeout=timeout, warmup_time=warmup_time,
                    flops=flops, bytes=bytes)
    settings = json.loads(_kperf.default_settings())
    settings["stopping"].update(min_samples=int(min_samples), min_time_s=float(min_time),
                                max_relative_noise=float(max_noise), timeout_s=float(timeout),
                                max_samples=int(max_samples))
    settings["warmup"].update(iterations=int(warmup), min_time_s=float(warmup_time))
    settings["flush"] = bool(flush)
    call = (lambda: fn(*args, **kwargs)) if kwargs else (lambda: fn(*args))
    prepare = None
    callee_times = False
    gpu = None
    values = _flat(args, kwargs)
    torch = _torch_cuda()
    if sync is None and _torch_cuda_args(values):
        import torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        gpu = torch.cuda.get_device_name()

        def run():
            start.record()
            call()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) * 1e6  # ms -> ns

        callee_times = True
        if flush:
            prepare = _l2_flusher()
        settings["timed"] = "one call between two CUDA events"
    elif sync is None and _jax() is not None:
        jax = _jax()

        # block_until_ready waits for JAX arrays in the result and passes
        # anything else through, so closures over JAX arrays are timed whole.
        def run():
            jax.block_until_ready(call())
        settings["timed"] = "one call and jax.block_until_ready on its result"
        if jax.default_backend() != "cpu":
            gpu = f"jax:{jax.devices()[0].device_kind}"
    elif sync is None and torch is not None and torch.cuda.is_initialized():
        # The program uses the GPU but no CUDA tensor is among the arguments
        # (a closure): wait for the device inside the timed region.
        def run():
            call()
            torch.cuda.synchronize()
        torch.cuda.synchronize()
        gpu = torch.cuda.get_device_name()
        settings["timed"] = "one call followed by torch.cuda.synchronize()"
    elif sync is not None:
        def run():
            call()
            sync()
        settings["timed"] = "one call followed by sync()"
    else:
        run = call
        settings["timed"] = "one call"
    implementation = name or getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "python")
    point = json.loads(_kperf.measure(run, settings=json.dumps(settings), prepare=prepare,
                                      callee_times=callee_times, params=json.dumps(_params(params or {})),
                                      implementation=implementation, flops=flops, bytes=bytes))
    device = json.loads(_kperf.host_device(gpu))
    return _result(point, settings, device)


def _params(params: Mapping[str, Any]) -> Dict[str, Any]:
    out = {}
    for k, v in params.items():
        # numpy's integers and floats register with `numbers`: np.int64(4)
        # is the number 4, not the string "4".
        if isinstance(v, bool):
            v = str(v)
        elif isinstance(v, numbers.Integral):
            v = int(v)
            # A parameter is a JSON number kperf's files keep exactly: 2**64
            # and 2**64 + 1 read as one point and the sweep was lost at save.
            if not -(2**63) <= v < 2**63:
                raise ValueError(f"params: `{k}` = {v} is beyond a 64-bit integer")
        elif isinstance(v, numbers.Real):
            v = float(v)
            # NaN is not JSON: it reached the core as "expected value at
            # line 1 column 7".
            if not math.isfinite(v):
                raise ValueError(f"params: `{k}` = {v} is not a finite number")
        elif not isinstance(v, str):
            v = str(v)
        out[str(k)] = v
    return out


def _axes(grid: Mapping[str, Sequence[Any]]) -> Dict[str, tuple]:
    """Each axis as a tuple of its values, read once: a generator axis was
    consumed by the duplicate check and measured nothing, and a string axis
    ("float32") ran one point per letter."""
    axes = {}
    for name, values in grid.items():
        if isinstance(values, (str, bytes)):
            raise ValueError(f"grid `{name}` is the string {values!r}: give a list of values ([{values!r}])")
        try:
            axes[name] = tuple(values)
        except TypeError:
            raise ValueError(f"grid `{name}` is {values!r}, not a list of values") from None
        if not axes[name]:
            raise ValueError(f"grid `{name}` lists no values: the sweep would measure nothing")
    return axes


def _check_grid(grid: Mapping[str, Sequence[Any]]) -> None:
    """Refuse a grid axis listing one value twice (4, 4.0 and np.int64(4)
    name the same point) before anything is measured: the sweep's results
    could not be saved or compared, and were lost after the whole run."""
    for name, values in grid.items():
        seen: Dict[Any, Any] = {}
        for v in values:
            # The label kperf gives the point: 4, 4.0, np.int64(4) and "4"
            # all read n=4.
            key = _params({name: v})[str(name)]
            if isinstance(key, (int, float)) and float(key).is_integer():
                key = str(int(key))
            else:
                key = str(key)
            if key in seen:
                raise ValueError(f"grid `{name}` lists {seen[key]!r} and {v!r}, which name the same point")
            seen[key] = v


def _result(point: Dict[str, Any], settings: Dict[str, Any], device: Dict[str, Any]) -> Dict[str, Any]:
    s = point["summary"]
    ms = 1e-6
    r: Dict[str, Any] = {
        "name": point["implementation"],
        "params": point["params"],
        "mean_ms": s["mean"] * ms, "median_ms": s["median"] * ms,
        "min_ms": s["min"] * ms, "max_ms": s["max"] * ms, "std_ms": s["std"] * ms,
        "p5_ms": s["p5"] * ms, "p95_ms": s["p95"] * ms,
        "samples": s["count"], "noise": s["rel_noise"], "robust_noise": s["robust_noise"],
        "center": s["center"], "stop_reason": point.get("stop_reason"),
    }
    if s["count"] < 2:
        # One sample (a timeout) has no spread to measure: NaN, not a
        # confident 0% (the table prints "-" and a note).
        r["std_ms"] = r["noise"] = r["robust_noise"] = float("nan")
    work = point.get("work")
    if work:
        # At the reported center (mean, or median for skewed samples), as
        # kperf bench's table and roofline compute them.
        t = (s["median"] if s["center"]["kind"] == "median" else s["mean"]) * 1e-9
        r["tflops"] = work["flops"] / t / 1e12 if work["flops"] and t > 0 else None
        r["gbps"] = work["bytes"] / t / 1e9 if work["bytes"] and t > 0 else None
    r["point"], r["settings"], r["device"] = point, settings, device
    return r


def _points(results: Union[Mapping[str, Any], Iterable[Mapping[str, Any]]]) -> List[Mapping[str, Any]]:
    if isinstance(results, Mapping):
        return [results]
    return list(results)


def _device_identity(device) -> Any:
    """What names a device, without what it reads as its state at each
    call (the CPU clock, the timer's calibration, the GPU's clocks and
    temperature): on a host with frequency scaling those differ between
    any two results of one machine, and `save` refused them as results of
    different devices."""
    if not isinstance(device, Mapping):
        return device
    host = device.get("host")
    return {
        "name": device.get("name"),
        "kind": device.get("kind"),
        "host": None
        if not isinstance(host, Mapping)
        else {k: host.get(k) for k in ("cpu_model", "logical_cpus", "llc")},
    }


def _results_json(results, name: Optional[str] = None, baseline: Optional[str] = None) -> str:
    items = _points(results)
    if not items:
        raise KperfError("no benchmark results to save")
    devices = {json.dumps(_device_identity(r.get("device")), sort_keys=True) for r in items}
    if len(devices) > 1:
        names = sorted({str((r.get("device") or {}).get("name")) for r in items})
        raise KperfError(f"results from different devices ({', '.join(names)}): save them to separate files")
    # A results file has one `settings`: the first result's were written
    # for every point, so a point run with flush=False and its own sync was
    # filed as flushed and timed as "one call".
    first = items[0].get("settings") or {}
    differ = sorted({k for r in items[1:] for k in set(first) | set(r.get("settings") or {})
                     if (r.get("settings") or {}).get(k) != first.get(k)})
    if differ:
        raise KperfError(f"results measured with different settings ({', '.join(differ)}): a results file "
                         "holds one set; save them to separate files")
    points = []
    for r in items:
        if "point" not in r:
            raise KperfError("not a kperf.bench result (no `point`): pass what benchmark() returned")
        p = dict(r["point"])
        if name is not None:
            p["implementation"] = name
        points.append(json.dumps(p))
    return _kperf.make_results(json.dumps(items[0]["device"]), json.dumps(items[0]["settings"]), points, baseline)


def save(results, path: PathLike, *, name: Optional[str] = None, baseline: Optional[str] = None) -> str:
    """Write results (one or a list of `benchmark` dicts) as a `kperf bench`
    results file at `path` (atomically): `kperf roofline path` plots it and
    `kperf bench --baseline path` / `compare` judge later runs against it.
    `name` renames the implementation; `baseline` names the implementation
    speedups are computed against. Returns the JSON written."""
    text = _results_json(results, name, baseline)
    _kperf.save_results(text, os.fspath(path))
    return text


def _load(x) -> str:
    if isinstance(x, (str, os.PathLike)) and not (isinstance(x, str) and x.lstrip().startswith("{")):
        try:
            with open(x, encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            raise KperfError(f"{os.fspath(x)}: {e.strerror}") from None
    if isinstance(x, str):
        return x
    if isinstance(x, Mapping) and "schema_version" in x:
        return json.dumps(x)
    return _results_json(x)


class Comparison:
    """A baseline check: `table` (what `kperf bench --baseline` prints),
    `regression` (any point significantly slower by more than the
    threshold) and `points` (one entry per matched point)."""

    def __init__(self, table: str, regression: bool, points: List[Dict[str, Any]],
                 warnings: Optional[List[str]] = None):
        self.table, self.regression, self.points = table, regression, points
        #: Why the two sides are not like for like (another device, cache
        #: flushing, thread count) or that no point matched: also issued as
        #: `ComparabilityWarning`s, as `kperf bench --baseline` prints them.
        self.warnings = list(warnings or [])
        #: Points compared on both sides (0: nothing was compared).
        self.compared = sum(1 for p in points if p.get("outcome", {}).get("kind") == "compared")

    def __bool__(self) -> bool:  # truthy when the new results are acceptable
        return not self.regression

    def __str__(self) -> str:
        return self.table

    __repr__ = __str__


def compare(new, old, *, threshold: float = 0.05) -> Comparison:
    """Compare `new` against `old` (results files, `benchmark` dicts or
    lists of them) with `kperf bench --baseline`'s test: Mann-Whitney on the
    raw samples plus a bootstrap interval of the median ratio; a regression
    is a significant slowdown of more than `threshold` (5%)."""
    table, regression, points, notes = _kperf.compare_results(_load(old), _load(new), threshold)
    for note in notes:
        warnings.warn(note, ComparabilityWarning, stacklevel=2)
    return Comparison(table, regression, json.loads(points), notes)


class ComparabilityWarning(UserWarning):
    """A baseline check whose sides are not like for like, or that
    compared nothing (turn it into an error with
    `warnings.simplefilter("error", kperf.bench.ComparabilityWarning)`)."""


class Sweep:
    """The results of a `parametrize` run: `results` (benchmark dicts),
    `table()` (kperf bench's table), `markdown()` (for a pull request) and
    `save(path)`."""

    def __init__(self, results: List[Dict[str, Any]], baseline: Optional[str]):
        self.results, self.baseline = results, baseline

    def json(self) -> str:
        return _results_json(self.results, baseline=self.baseline)

    def table(self) -> str:
        return _kperf.results_table(self.json())

    def save(self, path: PathLike) -> str:
        return save(self.results, path, baseline=self.baseline)

    def markdown(self) -> str:
        keys = list(self.results[0]["params"]) if self.results else []
        head = [*map(_md_cell, keys), "implementation", "median", "p5-p95", "noise", "samples", "TFLOP/s", "GB/s"]
        rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in self.results:
            cells = [_md_cell(r["params"].get(k, "")) for k in keys]
            cells += [_md_cell(r["name"]), _fmt_ms(r["median_ms"]), f"{_fmt_ms(r['p5_ms'])}-{_fmt_ms(r['p95_ms'])}",
                      f"{100 * r['noise']:.2f}%", str(r["samples"]),
                      _fmt_rate(r.get("tflops")), _fmt_rate(r.get("gbps"))]
            rows.append("| " + " | ".join(cells) + " |")
        summary = [{"params": r["params"], "implementation": r["name"], "median_ms": r["median_ms"],
                    "noise": r["noise"], "samples": r["samples"]} for r in self.results]
        lines = ",\n ".join(json.dumps(x) for x in summary)
        return "\n".join(rows) + "\n\n```json\n[" + lines + "]\n```\n"


def _md_cell(value: Any) -> str:
    """One Markdown table cell: a `|` in a parameter or name split its row
    into extra columns, and a newline ended the table."""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|")
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _fmt_ms(ms: float) -> str:
    return f"{ms * 1e3:.2f} us" if ms < 1 else f"{ms:.3f} ms"


def _fmt_rate(x: Optional[float]) -> str:
    return "" if x is None else f"{x:.3g}"


def _check_writable(out: PathLike) -> None:
    """Refuse an output path whose directory is missing (or that is a
    directory) before a sweep spends its time: found only at the end, it
    threw every measurement away."""
    path = Path(os.fspath(out))
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise KperfError(f"cannot write {os.fspath(out)}: it is a directory")
    if not parent.is_dir():
        raise KperfError(f"cannot write {os.fspath(out)}: {parent} is not a directory")


def parametrize(grid: Mapping[str, Sequence[Any]], *, flops: Optional[Callable[..., float]] = None,
                bytes: Optional[Callable[..., float]] = None, baseline: Optional[str] = None,
                out: Optional[PathLike] = None, show: bool = True, **bench_kw: Any):
    """Benchmark a parameter matrix.

        @kperf.bench.parametrize({"n": kperf.bench.SIZES, "dtype": ["float32", "float64"]},
                                 bytes=lambda n, dtype: 3 * n * n * np.dtype(dtype).itemsize)
        def add(n, dtype):
            a = np.ones((n, n), dtype); b = np.ones((n, n), dtype)
            return {"numpy": lambda: np.add(a, b), "loop": lambda: a + b}

        sweep = add()          # runs every point; prints the table and markdown

    The decorated function builds one point's inputs and returns a callable
    (or {implementation name: callable}); `flops` / `bytes` take the same
    parameters. Every combination of the grid's values is measured with
    `benchmark(..., **bench_kw)`. Returns a `Sweep`; `out` also saves it.
    """
    grid = _axes(grid)
    names = list(grid)
    _check_grid(grid)

    def wrap(setup: Callable[..., Any]):
        def run() -> Sweep:
            if out is not None:
                _check_writable(out)
            results = []
            for values in itertools.product(*(grid[n] for n in names)):
                params = dict(zip(names, values))
                made = setup(**params)
                impls = made if isinstance(made, Mapping) else {getattr(setup, "__name__", "fn"): made}
                work = {}
                if flops is not None:
                    work["flops"] = float(flops(**params))
                if bytes is not None:
                    work["bytes"] = float(bytes(**params))
                for impl, fn in impls.items():
                    results.append(benchmark(fn, name=impl, params=params, **work, **bench_kw))
            sweep = Sweep(results, baseline)
            # Shown before saving: a save that fails still leaves the
            # measurements on the screen.
            if show:
                print(sweep.table())
                print(sweep.markdown())
            if out is not None:
                sweep.save(out)
            return sweep

        run.__name__ = getattr(setup, "__name__", "sweep")
        run.__doc__ = setup.__doc__
        return run

    return wrap
