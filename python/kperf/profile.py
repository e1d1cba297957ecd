"""Replayed profiles and compiler feedback.

A `Profile` is a profile decoded and replayed by kperf's Rust replay (the
code behind `kperf replay`), held in memory; a `Feedback` is what a compiler
pass reads: the same per-region figures from a feedback file
(`kperf replay --json`). Both give `Region` objects, so a pass written
against one works with the other.
"""

from __future__ import annotations

import json
import math
import numbers
import os
import stat
from array import array
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Union

from . import _kperf
from ._kperf import KperfError

FEEDBACK_VERSION = 1
PathLike = Union[str, os.PathLike]

_KPROF_MAGIC = b"KPROF\0\0"


@dataclass(frozen=True)
class Region:
    """Figures of one instrumented region over the whole launch.

    Times are corrected for the instrumentation's own cost unless the
    profile was loaded with `correction=False`. `*_cycles` count the
    profile's ticks (`Feedback.tick_unit`: cycles, or ns for nanosecond
    counters). `below_resolution`: the region is shorter than two records'
    cost, so its corrected figures say less than their digits suggest.
    """

    id: int
    name: str
    kind: str
    count: int
    # None for a region with no complete instance (count 0): its records
    # were lost, and 0.0 would read as a region that costs nothing.
    mean_ns: Optional[float]
    p95_ns: Optional[float]
    total_ns: float
    mean_cycles: Optional[float]
    mean_raw_cycles: Optional[float]
    share: float
    on_critical_path: bool
    critical_path_fraction: float
    unmatched_records: int
    below_resolution: bool = False
    # Absent from feedback files written before they were added.
    p50_ns: Optional[float] = None
    max_ns: Optional[float] = None
    p50_cycles: Optional[float] = None
    p95_cycles: Optional[float] = None
    critical_path_ns: Optional[float] = None
    critical_path_share: Optional[float] = None
    location: str = ""
    parent: Optional[int] = None
    not_in_metadata: bool = False

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Region":
        """A region from its feedback entry; a field of the wrong type
        (`count: "many"`, a list as `name`) is a KperfError naming it, not
        a silently wrong object or a TypeError later."""
        if not isinstance(d, Mapping):
            raise KperfError(f"a region entry is {type(d).__name__}, not an object")
        out = {}
        for f in fields(cls):
            if f.name not in d:
                continue
            v = d[f.name]
            kind = _FIELD_KINDS.get(str(f.type))
            if kind is not None and not kind(v):
                raise KperfError(f"region field `{f.name}` is {v!r} ({type(v).__name__}), "
                                 f"not {f.type}")
            # Every figure of a region is a count, an id, a time or a share:
            # `count: -5`, `mean_ns: NaN` were accepted (adversarial pass,
            # 2026-11-28).
            if _is_number(v) and not (math.isfinite(v) and v >= 0):
                raise KperfError(f"region field `{f.name}` is {v!r}: not a finite number >= 0")
            out[f.name] = v
        return cls(**out)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# What each annotated type of `Region` accepts from JSON.
_FIELD_KINDS = {
    "int": _is_int,
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "float": _is_number,
    "Optional[float]": lambda v: v is None or _is_number(v),
    "Optional[int]": lambda v: v is None or _is_int(v),
}

# Top-level fields and list entries, by what they must be.
_TOP_FIELDS = {
    "kernel": (lambda v: isinstance(v, str), "a string"),
    "target": (lambda v: isinstance(v, str), "a string"),
    "granularity": (lambda v: isinstance(v, str), "a string"),
    "tick_unit": (lambda v: isinstance(v, str), "a string"),
    "clock": (lambda v: isinstance(v, str), "a string"),
    "unit_time_ns": (_is_number, "a number"),
    "wall_span_ns": (_is_number, "a number"),
    "ctas": (lambda v: _is_int(v) and v >= 0, "a count"),
    "corrected": (lambda v: isinstance(v, bool), "true or false"),
}
_LIST_ENTRIES = {
    "corrections": (lambda v: isinstance(v, str), "a string"),
    "caveats": (lambda v: isinstance(v, str), "a string"),
    "overlaps": (lambda v: isinstance(v, Mapping), "an object"),
    "critical_paths": (lambda v: isinstance(v, Mapping), "an object"),
    "async_waits": (lambda v: isinstance(v, Mapping), "an object"),
}

# The feedback fields that are lists, and the most bytes read of a file.
_LIST_FIELDS = ("corrections", "overlaps", "critical_paths", "async_waits", "caveats", "regions")
_MAX_FEEDBACK_BYTES = 1 << 30


class Feedback:
    """A feedback document (`feedback_version` 1): per-region figures,
    overlaps, critical paths and async waits of one launch."""

    def __init__(self, doc: Mapping[str, Any], origin: str = "<feedback>"):
        version = doc.get("feedback_version")
        if not _is_int(version):
            raise KperfError(f"{origin}: not a kperf feedback file (no feedback_version)")
        if version < 1:
            raise KperfError(f"{origin}: feedback_version {version}: versions start at 1")
        if version > FEEDBACK_VERSION:
            raise KperfError(f"{origin}: feedback_version {version} is newer than this kperf reads "
                             f"({FEEDBACK_VERSION}); upgrade the kperf package")
        self.raw: Dict[str, Any] = dict(doc)
        self.origin = origin
        for name in _LIST_FIELDS:
            if name in doc and not isinstance(doc[name], list):
                raise KperfError(f"{origin}: `{name}` is {doc[name]!r}, not a list")
        for name, (kind, what) in _TOP_FIELDS.items():
            if name in doc and not kind(doc[name]):
                raise KperfError(f"{origin}: `{name}` is {doc[name]!r}, not {what}")
        for name, (kind, what) in _LIST_ENTRIES.items():
            for k, entry in enumerate(doc.get(name, [])):
                if not kind(entry):
                    raise KperfError(f"{origin}: `{name}[{k}]` is {entry!r}, not {what}")
        try:
            self.regions: List[Region] = [Region.from_json(r) for r in doc["regions"]]
        except KperfError as e:
            raise KperfError(f"{origin}: malformed region entry ({e})") from None
        except (KeyError, TypeError, AttributeError) as e:
            raise KperfError(f"{origin}: malformed region entry ({e})") from None
        self._by_name = {r.name: r for r in self.regions}
        # Names two regions share (hand-written metadata, merged profiles):
        # `region(name)` refuses them rather than pick one silently.
        seen: Dict[str, int] = {}
        for r in self.regions:
            seen[r.name] = seen.get(r.name, 0) + 1
        self._repeated = {n for n, k in seen.items() if k > 1}

    kernel = property(lambda self: self.raw.get("kernel", ""), doc="The kernel's name.")
    target = property(lambda self: self.raw.get("target", ""), doc="`host`, `simt`, `nvptx:sm_90a`, ...")
    granularity = property(lambda self: self.raw.get("granularity", ""), doc="thread, warp, warpgroup or cta.")
    tick_unit = property(lambda self: self.raw.get("tick_unit", ""), doc="What `*_cycles` count.")
    corrected = property(lambda self: bool(self.raw.get("corrected")), doc="Overhead was subtracted.")
    corrections = property(lambda self: list(self.raw.get("corrections", [])))
    clock = property(lambda self: self.raw.get("clock", ""), doc="How ticks became ns.")
    unit_time_ns = property(lambda self: self.raw.get("unit_time_ns", 0.0), doc="The share basis.")
    wall_span_ns = property(lambda self: self.raw.get("wall_span_ns", 0.0),
                            doc="Latest CTA end minus earliest CTA start.")
    ctas = property(lambda self: self.raw.get("ctas", 0), doc="CTAs replayed.")
    overlaps = property(lambda self: list(self.raw.get("overlaps", [])))
    critical_paths = property(lambda self: list(self.raw.get("critical_paths", [])))
    async_waits = property(lambda self: list(self.raw.get("async_waits", [])))
    caveats = property(lambda self: list(self.raw.get("caveats", [])),
                       doc="Limits of the data: lost records, assumed clock rates, estimated costs.")
    check = property(lambda self: self.raw.get("check"),
                     doc="The corrected kernel region against the same launch uninstrumented "
                         "(measured_ticks, truth_ticks, error, method, fitted), or None.")
    run_time = property(lambda self: self.raw.get("run_time"),
                        doc="The profiled launch against the plain one timed alike "
                            "(profiled_ns, uninstrumented_ns, overhead), or None.")

    def region(self, name: str) -> Region:
        """The region called `name`; KeyError lists the known names, and
        a name two regions share (look them up in `regions` by `id`)."""
        if name in self._repeated:
            ids = ", ".join(str(r.id) for r in self.regions if r.name == name)
            raise KeyError(f"{name!r} names {len(ids.split(', '))} regions "
                           f"in {self.origin} (ids {ids}): pick one from `regions` by its id")
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no region {name!r} in {self.origin} (regions: "
                           f"{', '.join(sorted(self._by_name)) or 'none'})") from None

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.kernel!r} on {self.target}: {self.ctas} CTAs, "
                f"{len(self.regions)} regions>")


def _columns(cols: Mapping[str, Any], as_: Optional[str], extra: Optional[Mapping[str, Any]] = None):
    """Columns from the extension ({name: (dtype, bytes)}) as numpy arrays
    (default when numpy is installed), a pandas or polars frame, or
    array.array (`as_="array"`)."""
    kind = as_ or ("numpy" if _has("numpy") else "array")
    if kind == "array":
        codes = {"<u2": "H", "<u4": "I", "<u8": "Q", "<i8": "q", "<f8": "d"}
        out: Dict[str, Any] = {}
        for name, (dtype, data) in cols.items():
            a = array(codes[dtype])
            a.frombytes(data)
            out[name] = a
        out.update(extra or {})
        return out
    import numpy as np
    # Writable arrays without a copy: the extension hands out bytearrays
    # (frombuffer over bytes would be read-only, and copying each column
    # held it twice).
    arrays = {name: _writable(np.frombuffer(data, dtype=np.dtype(dtype)))
              for name, (dtype, data) in cols.items()}
    arrays.update({k: np.asarray(v) for k, v in (extra or {}).items()})
    if kind == "numpy":
        return arrays
    if kind == "pandas":
        import pandas as pd
        return pd.DataFrame(arrays)
    if kind == "polars":
        import polars as pl
        return pl.DataFrame(arrays)
    raise ValueError(f"as_={as_!r}: expected 'numpy', 'pandas', 'polars' or 'array'")


def _writable(a):
    return a if a.flags.writeable else a.copy()


def _has(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


class Profile(Feedback):
    """A profile decoded and replayed in memory (see `load_profile`).

    Besides the feedback figures (`regions`, `region(name)`, `caveats`, ...)
    it holds every region instance: `instances()`, `cta_table()`,
    `unit_table()`, `async_wait_table()` return columns (numpy arrays by
    default), and `write_trace` writes Chrome or Perfetto traces.
    """

    def __init__(self, inner: "_kperf._Profile", origin: str):
        self._p = inner
        super().__init__(json.loads(inner.feedback_json()), origin)
        self.info: Dict[str, Any] = json.loads(inner.info_json())
        self.region_names: Dict[int, str] = dict(inner.region_names())

    grid = property(lambda self: tuple(self.info["grid"]), doc="Launch grid (x, y, z).")
    block = property(lambda self: tuple(self.info["block"]), doc="Threads per CTA (x, y, z).")

    def report(self) -> Dict[str, Any]:
        """The full replay report behind the summary and the feedback: per-unit
        statistics, idle gaps, overlaps, imbalance, lost records, caveats."""
        return json.loads(self._p.report_json())

    def feedback_json(self) -> str:
        """The feedback document, as `kperf replay --json` writes it."""
        return self._p.feedback_json()

    def summary(self) -> str:
        """The text `kperf replay --summary` prints."""
        return self._p.summary()

    def instances(self, region: Optional[str] = None, *, as_: Optional[str] = None):
        """Every region instance (of `region` only, if given): columns cta,
        unit, region (id), region_name, instance (k-th of its region in its
        unit), start_ns, end_ns, duration_ns (corrected, on the launch's time
        axis), raw_ticks, corrected_ticks, start_clock, end_clock, depth, row."""
        # One region is filtered in Rust: building every row first took
        # 25 s and 7.2 GB for 16 384 rows of a 33M-record profile.
        want = None if region is None else self.region(region).id
        cols = self._p.instances(want)
        return _columns(cols, as_, {"region_name": self._region_names_of(cols["region"], as_)})

    def _region_names_of(self, col, as_: Optional[str]):
        """The name of each row's region id: with numpy, one lookup per
        distinct id (a list built row by row took 4 of the 4.8 s that 5M
        rows took, and as much memory as the numbers)."""
        name = lambda i: self.region_names.get(i, f"region_{i}")
        if (as_ or ("numpy" if _has("numpy") else "array")) == "array":
            ids = _decode(col)
            names_of = {i: name(i) for i in set(ids)}
            return [names_of[i] for i in ids]
        import numpy as np
        dtype, data = col
        ids = np.frombuffer(data, dtype=np.dtype(dtype))
        if ids.size == 0:
            return np.array([], dtype=str)
        # Ids are u16: a table indexed by id, named where an id occurs.
        present = np.flatnonzero(np.bincount(ids))
        table = [""] * (int(present[-1]) + 1)
        for i in present:
            table[i] = name(int(i))
        return np.array(table, dtype=str)[ids]

    def cta_table(self, *, as_: Optional[str] = None):
        """One row per replayed CTA: cta, block_index, hw_id (SM), units,
        start_ns, end_ns, ticks_per_ns, header_span_ns, nonmonotone_clocks."""
        return _columns(self._p.ctas(), as_)

    def unit_table(self, *, as_: Optional[str] = None):
        """One row per (CTA, unit): records kept, written and lost; first and
        last record time (NaN without records)."""
        return _columns(self._p.units(), as_)

    def async_wait_table(self, *, as_: Optional[str] = None):
        """One row per measured async wait: CLK1 (issue START) to CLK2 (wait
        START), raw and corrected."""
        return _columns(self._p.async_waits(), as_)

    def critical_path(self, cta: int) -> Optional[Dict[str, Any]]:
        """The critical path of CTA `cta` (linear id): the unit whose last END
        bounds the CTA, its slack, and the steps in time order; None for a
        CTA the profile does not hold."""
        # numpy's integers too: the package's own tables hold np.uint32 ids.
        if isinstance(cta, bool) or not isinstance(cta, numbers.Integral):
            raise TypeError(f"cta: a linear CTA id (int), got {cta!r}")
        cta = int(cta)
        if cta < 0:
            raise ValueError(f"cta: a linear CTA id is >= 0, got {cta}")
        # CTA ids are 32-bit (`cta_table()`): none beyond holds a path.
        if cta >= 2**32:
            return None
        text = self._p.critical_path_json(cta)
        return None if text is None else json.loads(text)

    def write_trace(self, path: PathLike, *, format: Optional[str] = None, group_by: str = "sm") -> Path:
        """Write the trace: Perfetto protobuf for `.pftrace`,
        `.perfetto-trace`, `.pb`, else Chrome JSON (or `format="chrome"` /
        `"perfetto"`); one process per SM (`group_by="sm"`) or per CTA.
        Written atomically; never over the profile it was loaded from."""
        self._p.write_trace(os.fspath(path), format=format, group_by=group_by)
        return Path(path)


def _decode(col) -> List[int]:
    dtype, data = col
    a = array({"<u2": "H", "<u4": "I"}[dtype])
    a.frombytes(data)
    return list(a)


def _regular_file(p: str) -> None:
    """Refuse what is not a regular file before opening it: opening a FIFO
    waits for a writer, and /dev/zero never ends (read_feedback took 15 GB
    in 10 s)."""
    try:
        st = os.stat(p)
    except OSError as e:
        raise KperfError(f"{p}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        what = "a directory" if stat.S_ISDIR(st.st_mode) else \
            "a named pipe" if stat.S_ISFIFO(st.st_mode) else "not a regular file"
        raise KperfError(f"{p}: {what}; kperf reads profiles and feedback from regular files")


def _is_kprof(path: PathLike) -> bool:
    with open(path, "rb") as f:
        return f.read(len(_KPROF_MAGIC)) == _KPROF_MAGIC


def _grid(grid) -> List[int]:
    """`grid=` as 1 to 3 positive integers: "22" was read digit by digit as
    (2, 2, 1), 4.7 as 4 and True as 1, and -4 failed as an OverflowError
    that did not name `grid` (adversarial test, 2026-11-27)."""
    if isinstance(grid, (str, bytes)) or not isinstance(grid, Iterable):
        raise TypeError(f"grid: 1 to 3 CTA counts, got {grid!r}")
    dims = list(grid)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"grid: 1 to 3 CTA counts, got {len(dims)}")
    for g in dims:
        if isinstance(g, bool) or not isinstance(g, numbers.Integral):
            raise TypeError(f"grid: CTA counts are integers, got {g!r}")
        if not 1 <= int(g) <= 2**32 - 1:
            raise ValueError(f"grid: a CTA count is 1 to 2^32 - 1, got {g}")
    return [int(g) for g in dims]


def load_profile(path: PathLike, *, meta: Optional[PathLike] = None, kernel: Optional[str] = None,
                 grid: Optional[Iterable[int]] = None, proton: Optional[bool] = None, correction: bool = True,
                 record_cost_ticks: Optional[float] = None, ticks_per_ns: Optional[float] = None) -> Profile:
    """Decode and replay a profile in-process (all cores, the GIL released).

    - a `.kprof` written by `kperf run` or `kperf.triton`;
    - a Triton Proton host dump (detected, or `proton=True`);
    - a raw buffer as a kernel wrote it, with `meta=` its `.kperf.json`
      (`kernel=` when the metadata has several; `grid=` for sampled runs).

    `correction=False` shows raw timings; `record_cost_ticks` and
    `ticks_per_ns` override the calibrated record cost and clock rate.
    Raises KperfError naming the file, the byte offset and the cause.
    """
    p = os.fspath(path)
    if meta is None and (kernel is not None or grid is not None):
        raise KperfError(f"{p}: kernel= and grid= describe a raw buffer; give its metadata with meta=")
    _regular_file(p)
    if meta is not None:
        _regular_file(os.fspath(meta))
    detected = False
    if meta is None and proton is None:
        try:
            proton = not _is_kprof(p)
        except OSError as e:
            raise KperfError(f"{p}: {e.strerror}") from None
        detected = proton
    try:
        inner = _kperf.load(
            p, proton=bool(proton) and meta is None, meta=None if meta is None else os.fspath(meta), kernel=kernel,
            grid=None if grid is None else _grid(grid), correction=correction,
            record_cost_ticks=record_cost_ticks, ticks_per_ns=ticks_per_ns)
    except KperfError as e:
        if detected:
            raise KperfError(f"{e} (not a .kprof, so it was read as a Proton dump; a raw buffer needs "
                             "meta=<its .kperf.json>)") from None
        raise
    return Profile(inner, p)


def read_feedback(path: PathLike) -> Feedback:
    """Read a feedback file (`kperf replay --json`) into the same `Region`
    objects a `Profile` has."""
    p = os.fspath(path)
    _regular_file(p)
    size = os.stat(p).st_size
    if size > _MAX_FEEDBACK_BYTES:
        raise KperfError(f"{p}: {size} bytes, more than the {_MAX_FEEDBACK_BYTES} (1 GiB) a "
                         f"feedback file is read to")
    try:
        with open(p, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise KperfError(f"{p}: {e.strerror}") from None
    except ValueError as e:
        raise KperfError(f"{p}: not JSON ({e})") from None
    except RecursionError:
        raise KperfError(f"{p}: not a kperf feedback file (JSON nested too deeply)") from None
    if not isinstance(doc, dict):
        raise KperfError(f"{p}: not a kperf feedback file (a JSON object was expected)")
    return Feedback(doc, p)
