"""Profile Triton kernels with kperf: instrument Triton's LLVM IR, keep each
launch's profile buffer, write it as a `.kprof`.

    import kperf.triton
    with kperf.triton.profile(regions="kernel,loops", out="prof/"):
        my_kernel[grid](...)
    # prof/my_kernel.0.kprof ...; a summary is printed on exit
    p = kperf.load_profile("prof/my_kernel.0.kprof")

or, for an unmodified program:

    python -m kperf.triton --regions kernel,loops --out prof/ train.py --steps 10

How it plugs into Triton 3.9 (docs/triton.md has the references):
  * `triton.knobs.runtime.add_stages_inspection_hook` is set to a KperfHook.
    Triton calls it with no arguments for a cache key (so instrumented and
    plain builds never share a cache entry) and with (backend, stages,
    options, language, capability) when it builds the stage list. The hook
    wraps stages["llir"]: Triton's make_llir runs, its LLVM IR is written to
    a file, `kperf instrument` rewrites it, and the instrumented IR goes back
    to Triton's make_ptx and make_cubin.
  * The wrapper sets metadata["profile_scratch_size"] to the kernel's
    `profile_bytes_per_cta` from kperf's metadata. Triton's launcher then
    allocates grid x num_ctas x that many bytes through the profile
    allocator and passes them as the kernel's last parameter.
  * The wrapper also stores the path of kperf's metadata in the kernel's
    metadata (`kperf_meta`), which Triton caches with the kernel; the build
    files are named by a digest of the IR, one set per variant (autotuning
    configs share a kernel name). When Triton loads a kernel
    (kernel_load_end_hook), its CUfunction is mapped to that metadata, so a
    launch finds its own variant even when the kernel came from Triton's
    cache, compiled by an earlier hook or process.
  * The profile allocator (triton.runtime._allocation.set_profile_allocator)
    hands out zeroed CUDA buffers (kperf.cuda: the driver API through
    ctypes, stream-ordered on the launch's stream; no PyTorch needed); the
    launch-enter hook ties each to the launched variant. The last
    `keep_last` launches of every kernel are kept (older buffers are freed,
    so autotuning loops do not leak); `save()` copies them to the host and
    writes one `.kprof` per launch with the variant's metadata, grid, block
    and, if given, a `kperf calibrate` device profile. Uninstalling restores
    the allocator that was there.
  * Shared memory: kperf's rings are static shared memory. Triton's launcher
    opts a kernel in to more than 48 KiB only when its own dynamic size
    exceeds 48 KiB, so when the rings push a kernel over 48 KiB the load
    hook opts it in (cuFuncSetAttribute) and the instrumenter is told so
    (--shared-opt-in).

  * The grid's shape: Triton's allocator sees only the grid's size, so
    `install` wraps the backend launcher's `__call__` (CudaLauncher, whose
    first three arguments are the grid in Triton 3.6 to 3.9) to note
    (gridX, gridY, gridZ) for the allocation made inside that call. The
    `.kprof` then has the CUDA grid (gridX x num_ctas, gridY, gridZ); a
    launch made without the wrapper (or whose size does not match it) is
    written with grid (CTAs, 1, 1), which loses only the x/y/z split.

Importing this module needs neither Triton nor a GPU; `install` needs
Triton; launching and `save` need a GPU and its driver (not PyTorch).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import hashlib
import inspect
import json
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Deque, Dict, Iterator, List, Optional, Sequence, Union

from . import _kperf
from ._binary import kperf_binary, run_kperf
from .cuda import DeviceBuffer, Driver, driver as cuda_driver, opt_in_shared
from ._kperf import KperfError
from ._llir import kernel_name_of, llir_to_llvm22, restore_intrinsic_names

__all__ = ["install", "uninstall", "profile", "KperfHook", "main", "llir_to_llvm22", "kernel_name_of",
           "restore_intrinsic_names"]

# instrument(in_path, out_path, target, regions, extra_args) -> None; must
# write out_path and out_path + ".kperf.json".
Instrumenter = Callable[[Path, Path, str, str, list], None]


def _kperf_cli(binary: Optional[str]) -> Instrumenter:
    def run(inp: Path, out: Path, target: str, regions: str, extra: list) -> None:
        run_kperf(["instrument", inp, "--target", target, "--regions", regions, "--emit", "llvm",
                   "--profile-param", "auto", *extra, "-o", out], binary=binary)
    return run


@dataclass
class Instrumented:
    kernel: str
    llir: Path  # Triton's LLVM IR as given to kperf
    out: Path  # the instrumented LLVM IR
    meta: Path  # <out>.kperf.json
    bytes_per_cta: int
    block: int  # threads per CTA (num_warps x 32)
    align: int  # alignment of the profile scratch

    @classmethod
    def from_meta(cls, kernel: str, meta: Path, num_warps: int, profile_align: int = 128) -> "Instrumented":
        """What kperf instrument wrote for `kernel`, read back from its metadata."""
        doc = json.loads(meta.read_text())
        entries = [k for k in doc.get("kernels", []) if k.get("name") == kernel] or doc.get("kernels", [])
        if len(entries) != 1 or "profile_bytes_per_cta" not in entries[0]:
            raise KperfError(f"{kernel}: {meta} has no single kernel entry with profile_bytes_per_cta")
        per_cta = int(entries[0]["profile_bytes_per_cta"])
        if per_cta <= 0:
            raise KperfError(f"{kernel}: profile_bytes_per_cta is {per_cta} in {meta}")
        out = Path(str(meta)[:-len(".kperf.json")])
        align = int(entries[0].get("profile_align", profile_align))
        return cls(kernel, out.with_suffix(""), out, meta, per_cta, 32 * int(num_warps), align)


# What kperf made of each loaded kernel, by its CUfunction handle: one entry
# per compiled variant (autotuning configs and specializations share a
# name), for this process, whichever hook compiled it; filled when Triton
# loads a kernel (kernel_load_end_hook) from the metadata Triton stores with
# it, so kernels from Triton's cache are found too.
_VARIANTS: Dict[object, Instrumented] = {}
# The metadata key through which a compiled kernel names its kperf metadata.
META_KEY = "kperf_meta"


@dataclass
class Launch:
    size: int
    buffer: object  # a kperf.cuda.DeviceBuffer, or any bytes-like object
    variant: Optional[Instrumented] = None
    index: int = 0  # the n-th launch of its kernel since install
    grid: Optional[tuple] = None  # Triton's (gridX, gridY, gridZ), when the launcher wrapper saw it


def cuda_grid(triton_grid: Optional[tuple], blocks: int) -> tuple:
    """The CUDA grid of a launch of `blocks` CTA blocks that Triton made with
    `triton_grid`: Triton launches gridX x num_ctas CTAs along x (clusters of
    num_ctas), so x takes whatever factor the size leaves; (blocks, 1, 1)
    when the grid is unknown or does not divide the size."""
    if triton_grid is not None and len(triton_grid) == 3:
        gx, gy, gz = (int(g) for g in triton_grid)
        size = gx * gy * gz
        if size > 0 and blocks % size == 0:
            return (gx * (blocks // size), gy, gz)
    return (blocks, 1, 1)


@dataclass
class KperfHook:
    """Callable installed as triton.knobs.runtime.add_stages_inspection_hook."""
    kperf: Union[str, Instrumenter, None] = None  # binary (None: $KPERF_BIN / PATH) or a stand-in
    regions: str = "kernel,loops"
    out: Path = Path("kperf-triton")
    kernels: Optional[set] = None  # kernel names to instrument; None: all
    extra_args: list = field(default_factory=list)
    keep_last: int = 4
    calibration: Optional[Path] = None
    profile_align: int = 128
    # The launch side's CUDA driver (None: libcuda, loaded on first launch);
    # tests put a host-memory stand-in here.
    driver: Optional[Driver] = None
    # The load hook opts kernels in to the shared memory kperf's rings need
    # (on_load), so the instrumenter may use the device's full capacity.
    opts_in_shared: bool = False
    instrumented: Dict[str, Instrumented] = field(default_factory=dict)  # by name: the latest compiled here
    launches: Dict[str, Deque[Launch]] = field(default_factory=dict)
    written: List[Path] = field(default_factory=list)

    def __post_init__(self):
        if self.keep_last < 1:
            raise ValueError(f"keep_last = {self.keep_last}: keep at least one launch per kernel")
        self.out = Path(self.out)
        self._instrument = self.kperf if callable(self.kperf) else _kperf_cli(self.kperf)
        # The buffer allocated for the launch this thread is making: one per
        # thread, as Triton allocates and then calls the launch hook in the
        # launching thread (one for the process swapped two threads'
        # buffers, and dropped one).
        self._pending_by_thread = threading.local()
        # Launch numbers continue across the hooks of one process writing
        # to one directory: a second `profile()` block with the same `out`
        # overwrote the first's `<kernel>.0.kprof`.
        self._counts = _LAUNCH_NUMBERS.setdefault(os.path.abspath(self.out), collections.Counter())
        self._summarized = False

    # -- cache key and the llir stage -----------------------------------------
    def cache_key(self) -> str:
        if callable(self.kperf):
            who = getattr(self.kperf, "__qualname__", repr(self.kperf))
        else:
            who = self.kperf or "kperf"
        # With the shared-memory opt-in or without, a kernel loads
        # differently: one cached by the other hook got no opt-in.
        return json.dumps(["kperf", who, self.regions, sorted(self.kernels or []), self.extra_args,
                           self.opts_in_shared])

    def __call__(self, *args):
        # compiler.py:compile and jit.py:JITFunction.run call the hook with no
        # arguments and fold (key, hash) into their cache keys.
        if not args:
            key = self.cache_key()
            return key, hashlib.sha256(key.encode()).hexdigest()
        # CUDABackend.add_stages calls hook(self, stages, options, language, capability).
        backend, stages, options, language, capability = args
        if not isinstance(capability, int):
            raise KperfError(f"kperf.triton instruments NVIDIA kernels only (this backend's capability: "
                             f"{capability!r})")
        if "llir" not in stages:
            raise KperfError(f"no llir stage to instrument (stages: {list(stages)})")
        make_llir = stages["llir"]
        target = f"nvptx:sm_{capability}a" if capability >= 90 else f"nvptx:sm_{capability}"

        def llir_stage(src, metadata):
            return self._instrument_stage(make_llir(src, metadata), metadata, target)

        stages["llir"] = llir_stage

    def _instrument_stage(self, llir: str, metadata: dict, target: str) -> str:
        name = kernel_name_of(llir)
        if self.kernels is not None and name not in self.kernels:
            return llir
        if metadata.get("profile_scratch_size", 0):
            raise KperfError(f"{name}: Triton already uses the profile scratch "
                             f"({metadata['profile_scratch_size']} B, Proton instrumentation?); "
                             "kperf needs it to itself")
        warps = int(metadata.get("num_warps", 4))
        text = llir_to_llvm22(llir)
        # One set of files per variant (same name, other IR), kept: a kernel
        # Triton later takes from its cache still finds its metadata.
        digest = hashlib.sha256(f"{self.cache_key()}\n{warps}\n{text}".encode()).hexdigest()[:16]
        build = (self.out / "build").resolve()
        build.mkdir(parents=True, exist_ok=True)
        inp = build / f"{name}.{digest}.llir"
        out = build / f"{name}.{digest}.llir.instrumented"
        meta_path = Path(str(out) + ".kperf.json")
        inp.write_text(text)
        # Triton's metadata beside the IR, as TRITON_KERNEL_DUMP writes it:
        # kperf sizes the ring from the warps and the dynamic shared memory.
        inp.with_suffix(".json").write_text(json.dumps({
            "name": name, "num_warps": warps, "shared": int(metadata.get("shared", 0)),
        }))
        for stale in (out, meta_path):
            stale.unlink(missing_ok=True)
        extra = list(self.extra_args)
        if self.opts_in_shared:
            extra.append("--shared-opt-in")
        self._instrument(inp, out, target, self.regions, extra)
        if not out.exists() or not meta_path.exists():
            raise KperfError(f"{name}: the instrumenter wrote no {out} or {meta_path}")
        inst = Instrumented.from_meta(name, meta_path, warps, self.profile_align)
        metadata["profile_scratch_size"] = inst.bytes_per_cta
        metadata["profile_scratch_align"] = inst.align
        metadata[META_KEY] = str(meta_path)
        self.instrumented[name] = inst
        return restore_intrinsic_names(out.read_text(), llir)

    # -- launch side ------------------------------------------------------------
    def on_load(self, module, function, name, metadata_group, hash) -> None:
        """kernel_load_end_hook: remember which kperf metadata the loaded
        kernel (this variant, from this hook or Triton's cache) was built with."""
        # Triton files the metadata under the JITFunction's name (which a
        # repr= or a long name makes differ from the IR's): take the one
        # .json in the group, as CompiledKernel does.
        path = next((p for k, p in (metadata_group or {}).items() if k.endswith(".json")), None)
        if function is None or not path:
            return
        try:
            with open(path, encoding="utf-8") as f:
                md = json.load(f)
        except (OSError, ValueError):
            return
        meta = md.get(META_KEY)
        if not meta:
            return  # compiled without kperf
        if not Path(meta).exists():
            raise KperfError(f"{name}: Triton's cached kernel names kperf metadata {meta}, which is gone; "
                             "clear Triton's cache (TRITON_CACHE_DIR) or keep the hook's out directory")
        variant = Instrumented.from_meta(name, Path(meta), int(md.get("num_warps", 4)), self.profile_align)
        # kperf's rings may push the kernel past the 48 KiB a block gets
        # without an opt-in, which Triton makes only above 48 KiB of its own.
        # First: a kernel that cannot launch is not registered.
        opt_in_shared(function, int(md.get("shared", 0)), self._driver())
        _VARIANTS[function] = variant

    def _driver(self) -> Driver:
        if self.driver is None:
            self.driver = cuda_driver()
        return self.driver

    def allocate(self, size: int, alignment: int, stream: Optional[int]):
        """Profile allocator (triton.runtime._allocation.set_profile_allocator):
        a zeroed device buffer, stream-ordered on the launch's stream."""
        if self._driver().stream_capturing(stream):
            raise KperfError("kperf.triton cannot profile a launch captured into a CUDA graph (torch.compile's "
                             "reduce-overhead mode, CUDA graphs): its profile buffer would belong to the graph")
        buf = DeviceBuffer(size, stream, self._driver())
        if buf.data_ptr() % max(alignment, 1):
            buf.release()
            raise KperfError(f"the driver gave a profile scratch at {buf.data_ptr():#x}, "
                             f"not {alignment}-byte aligned as the kernel needs")
        self._pending_by_thread.launch = Launch(size, buf, grid=getattr(_launching, "grid", None))
        return buf

    def on_launch(self, metadata) -> None:
        """launch_enter_hook: ties the buffer just allocated to the launched
        kernel's variant and keeps the last `keep_last` launches per kernel."""
        launch = getattr(self._pending_by_thread, "launch", None)
        self._pending_by_thread.launch = None
        if launch is None:
            return  # a kernel without profile scratch
        # Triton passes a LazyDict: read its data without running the user's
        # launch_metadata callbacks.
        data = metadata if isinstance(metadata, dict) else getattr(metadata, "data", None) or {}
        name = data.get("name")
        variant = _VARIANTS.get(data.get("function")) or self.instrumented.get(name)
        if variant is None:
            return
        launch.variant = variant
        if name not in self._counts:
            # An earlier run's profiles in `out` are kept: number on after
            # them (a second run of a program replaced `<kernel>.0.kprof`).
            self._counts[name] = _next_launch_number(self.out, name)
        launch.index = self._counts[name]
        self._counts[name] += 1
        self.launches.setdefault(name, collections.deque(maxlen=self.keep_last)).append(launch)

    def save(self) -> List[Path]:
        """Synchronize and write every kept launch as
        `<out>/<kernel>.<n>.kprof` (n counts the kernel's launches); the
        written launches are released. A launch that cannot be written is
        released too and named in the KperfError raised once the others
        are written: one bad launch loses itself only (it used to leave the
        launches already written queued, their buffers released, and every
        later save failed)."""
        if not any(self.launches.values()):
            return []
        self.out.mkdir(parents=True, exist_ok=True)
        written: List[Path] = []
        failed: List[str] = []
        for q in self.launches.values():
            while q:
                launch = q.popleft()
                inst = launch.variant
                path = self.out / f"{inst.kernel}.{launch.index}.kprof"
                try:
                    blocks = launch.size // inst.bytes_per_cta
                    _kperf.write_kprof(os.fspath(path), _host_bytes(launch.buffer), os.fspath(inst.meta),
                                       kernel=inst.kernel, grid=list(cuda_grid(launch.grid, blocks)),
                                       block=[inst.block],
                                       calibration=None if self.calibration is None else os.fspath(self.calibration))
                    written.append(path)
                except (KperfError, OSError, ValueError) as e:
                    failed.append(f"{path.name}: {e}")
                finally:
                    if isinstance(launch.buffer, DeviceBuffer):
                        launch.buffer.release()
        self.written.extend(written)
        if failed:
            raise KperfError(f"{len(failed)} launch(es) not written ({len(written)} written): " + "; ".join(failed))
        return written

    def finish(self, summary: bool = True) -> List[Path]:
        """Save what is kept and, once, print the summary of every profile
        this hook wrote. A launch `save` cannot write raises its
        KperfError here, before any summary."""
        self.save()
        if not self._summarized and self.written:
            # Decided once: `profile(summary=False)` is not summarized by
            # the exit handler's later call either.
            self._summarized = True
            if summary:
                summarize(self.written)
        return self.written


def _host_bytes(buf) -> bytes:
    if isinstance(buf, DeviceBuffer):
        return buf.to_bytes()  # after everything queued on the context
    return bytes(buf)


def _next_launch_number(out: Path, kernel: str) -> int:
    """One past the largest n of the `<kernel>.<n>.kprof` files in `out`."""
    try:
        names = os.listdir(out)
    except OSError:
        return 0
    head, tail = f"{kernel}.", ".kprof"
    taken = [int(n[len(head):-len(tail)]) for n in names
             if n.startswith(head) and n.endswith(tail) and n[len(head):-len(tail)].isdigit()]
    return max(taken, default=-1) + 1


_installed: Optional[KperfHook] = None
# Launches numbered so far per output directory (absolute) and kernel.
_LAUNCH_NUMBERS: Dict[str, Dict[str, int]] = {}
_previous_allocator = None
# The grid of the launch this thread is making (set by the launcher wrapper
# around the profile allocator's call).
_launching = threading.local()
_wrapped_launchers: List[tuple] = []  # (class, its own __call__)


def _launcher_classes() -> list:
    """Triton's backend launcher classes that import (no GPU needed)."""
    found = []
    for module, name in (("triton.backends.nvidia.driver", "CudaLauncher"),
                         ("triton.backends.amd.driver", "HIPLauncher")):
        try:
            found.append(getattr(__import__(module, fromlist=[name]), name))
        except (ImportError, AttributeError):
            continue
    return found


def wrap_launchers(classes: Optional[Sequence[type]] = None) -> None:
    """Note each launch's grid for the profile allocator: wrap the launcher
    classes' `__call__(self, gridX, gridY, gridZ, ...)`. Idempotent."""
    for cls in _launcher_classes() if classes is None else classes:
        if any(c is cls for c, _ in _wrapped_launchers):
            continue
        original = cls.__dict__.get("__call__")
        if original is None:
            continue

        def call(self, gridX, gridY, gridZ, *args, _kperf_original=original, **kwargs):
            outer = getattr(_launching, "grid", None)
            _launching.grid = (gridX, gridY, gridZ)
            try:
                return _kperf_original(self, gridX, gridY, gridZ, *args, **kwargs)
            finally:
                _launching.grid = outer

        call.__wrapped__ = original
        cls.__call__ = call
        _wrapped_launchers.append((cls, original))


def unwrap_launchers() -> None:
    """Give the launcher classes their own `__call__` back."""
    while _wrapped_launchers:
        cls, original = _wrapped_launchers.pop()
        cls.__call__ = original


# What _fold_cache_key replaced, to restore: (module, get_cache_key, the
# instrumentation_mode knob's value).
_folded: Optional[tuple] = None


def _triton_folds_hook_key(compiler_module) -> bool:
    """Whether `triton.compile` adds the stages hook's key to its cache key
    itself (Triton 3.9 does; 3.6 only calls the hook from add_stages)."""
    try:
        return "add_stages_inspection_hook" in inspect.getsource(compiler_module.compile)
    except (OSError, TypeError):
        return False


def _fold_cache_key(hook: "KperfHook") -> None:
    """On a Triton that does not fold the hook's key into its cache keys
    (3.6), instrumented and plain builds would share cache entries: a kernel
    compiled before would be reused uninstrumented. Fold it in as 3.9 does:
    the on-disk key through `get_cache_key` (what `compile` hashes), the
    JIT's in-memory key through the `instrumentation_mode` knob, which
    `JITFunction.run` puts into the options (Proton separates its builds
    the same way)."""
    global _folded
    from triton import knobs
    from triton.compiler import compiler
    if _folded is not None or _triton_folds_hook_key(compiler):
        return
    original = compiler.get_cache_key

    def get_cache_key(*args, **kwargs):
        return original(*args, **kwargs) + hook.cache_key()

    get_cache_key.__wrapped__ = original
    _folded = (compiler, original, knobs.compilation.instrumentation_mode)
    compiler.get_cache_key = get_cache_key
    digest = hashlib.sha256(hook.cache_key().encode()).hexdigest()[:16]
    knobs.compilation.instrumentation_mode = f"kperf:{digest}"


def _unfold_cache_key() -> None:
    global _folded
    if _folded is None:
        return
    from triton import knobs
    compiler, original, mode = _folded
    compiler.get_cache_key = original
    knobs.compilation.instrumentation_mode = mode
    _folded = None


def install(regions: str = "kernel,loops", out: Union[str, os.PathLike] = "kperf-triton", *,
            kernels: Optional[Sequence[str]] = None, keep_last: int = 4,
            calibration: Union[str, os.PathLike, None] = None, extra_args: Sequence[str] = (),
            kperf: Union[str, Instrumenter, None] = None, profile_allocator: bool = True,
            save_at_exit: bool = True) -> KperfHook:
    """Instrument every Triton kernel compiled from now on (or only
    `kernels`) with `regions`, and keep their profile buffers.

    `out`: where profiles (and the instrumented IR, under build/) go;
    `keep_last`: launches kept per kernel; `calibration`: a `kperf
    calibrate` device profile (default: $KPERF_CALIBRATION); `extra_args`:
    more `kperf instrument` options; `kperf`: the binary (default
    $KPERF_BIN, then PATH) or a callable standing in for `kperf instrument`;
    `save_at_exit`: launches still kept when the program ends are written
    and summarized then (`hook.save()` / `hook.finish()` do it earlier).
    """
    global _installed
    # A string is one kernel's name: `set("matmul")` was its letters, and
    # no kernel was instrumented, silently.
    if isinstance(kernels, (str, bytes)):
        kernels = [kernels.decode() if isinstance(kernels, bytes) else kernels]
    if kernels is not None:
        kernels = list(kernels)
        bad = [k for k in kernels if not isinstance(k, str) or not k]
        if bad:
            raise TypeError(f"kernels: kernel names are non-empty strings, got {bad[0]!r}")
    from triton import knobs
    current = knobs.runtime.add_stages_inspection_hook
    if current is not None and current is not _installed:
        raise KperfError("another add_stages_inspection_hook is installed (Proton?); uninstall it first")
    if kperf is None:
        kperf_binary()  # fail now, not inside Triton's compiler
    calibration = calibration or os.environ.get("KPERF_CALIBRATION") or None
    if calibration is not None:
        _check_calibration(Path(calibration))
    # A file where the output directory goes failed with a raw
    # NotADirectoryError in the middle of Triton's compile.
    if Path(out).exists() and not Path(out).is_dir():
        raise KperfError(f"out = {os.fspath(out)}: not a directory (profiles and build/ go there)")
    hook = KperfHook(kperf=kperf, regions=regions, out=Path(out), kernels=set(kernels) if kernels else None,
                     extra_args=list(extra_args), keep_last=keep_last,
                     calibration=None if calibration is None else Path(calibration),
                     opts_in_shared=profile_allocator)
    if _installed is not None:
        uninstall()
    _attach(hook)
    if profile_allocator and save_at_exit:
        # Launches nobody saved are written (and summarized) at exit.
        atexit.register(hook.finish)
    return hook


def _check_calibration(path: Path) -> None:
    """Refuse at install what `save()` would refuse at the end, when the
    program's every profile would be lost: a missing file, or one that is
    not a `kperf calibrate` device profile (a bench result, say)."""
    what = f"calibration {os.fspath(path)}"
    if not path.is_file():
        raise KperfError(f"{what}: no such file (a `kperf calibrate` device profile, given or from "
                         f"$KPERF_CALIBRATION)")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise KperfError(f"{what}: not a `kperf calibrate` device profile ({e})") from None
    need = ("target", "counter", "record_cost_ticks", "ticks_per_ns")
    if not isinstance(doc, dict) or any(k not in doc for k in need):
        raise KperfError(f"{what}: not a `kperf calibrate` device profile (it needs {', '.join(need)})")


def _attach(hook: KperfHook) -> None:
    """Make `hook` Triton's: the compile hook, the cache key and, with its
    profile allocator, the allocator and the launch and load hooks."""
    global _installed, _previous_allocator
    from triton import knobs
    knobs.runtime.add_stages_inspection_hook = hook
    _fold_cache_key(hook)
    if hook.opts_in_shared:
        from triton.runtime import _allocation
        _previous_allocator = _allocation._profile_allocator.get()
        _allocation.set_profile_allocator(hook.allocate)
        knobs.runtime.launch_enter_hook.add(hook.on_launch)
        knobs.runtime.kernel_load_end_hook.add(hook.on_load)
        wrap_launchers()
    _installed = hook


def uninstall() -> None:
    """Remove the hook and the allocator (kept buffers stay with the hook)."""
    global _installed
    if _installed is None:
        return
    global _previous_allocator
    from triton import knobs
    from triton.runtime import _allocation
    if knobs.runtime.add_stages_inspection_hook is _installed:
        knobs.runtime.add_stages_inspection_hook = None
    for chain, fn in ((knobs.runtime.launch_enter_hook, _installed.on_launch),
                      (knobs.runtime.kernel_load_end_hook, _installed.on_load)):
        with contextlib.suppress(ValueError, KeyError):
            chain.remove(fn)
    if _previous_allocator is not None:
        _allocation._profile_allocator.set(_previous_allocator)  # e.g. Proton's
        _previous_allocator = None
    unwrap_launchers()
    _unfold_cache_key()
    _installed = None


def summarize(paths: Sequence[Path], top: int = 5, file=None) -> None:
    """Print the regions with the largest share of each profile."""
    from .profile import load_profile
    file = file or sys.stderr
    for path in paths:
        try:
            p = load_profile(path)
        except KperfError as e:
            print(f"kperf: {path}: {e}", file=file)
            continue
        print(f"kperf: {path}: {p.kernel} on {p.target}, {p.ctas} CTAs", file=file)
        for r in p.regions[:top]:
            flag = "  (below resolution)" if r.below_resolution else ""
            if r.mean_ns is None:  # no complete instance: nothing to time
                times = f"{'no complete instance':>40}"
            else:
                times = f"mean {r.mean_ns:>12.1f} ns  p95 {r.p95_ns:>12.1f} ns"
            print(f"  {r.name:<24} {r.count:>8}x  {times}  {100 * r.share:5.1f}%{flag}", file=file)
        for c in p.caveats:
            print(f"  caveat: {c}", file=file)


@contextlib.contextmanager
def profile(regions: str = "kernel,loops", out: Union[str, os.PathLike] = "kperf-triton", *,
            summary: bool = True, **kw) -> Iterator[KperfHook]:
    """Profile the Triton kernels compiled and launched inside the block;
    on exit their profiles are written (see `install` for the options) and,
    with `summary`, summarized on stderr."""
    outer = _installed
    hook = install(regions, out, **kw)
    try:
        yield hook
    finally:
        uninstall()
        hook.finish(summary)
        # A block inside another (or inside `python -m kperf.triton`) gives
        # the outer hook back: the outer block went on uninstrumented.
        if outer is not None and _installed is None:
            _attach(outer)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m kperf.triton [options] script.py args...`"""
    import argparse
    import runpy
    ap = argparse.ArgumentParser(prog="python -m kperf.triton",
                                 description="Run a Python program with every Triton kernel instrumented by "
                                             "kperf; write one .kprof per kept launch and print a summary.")
    ap.add_argument("--regions", default="kernel,loops", help="kperf instrument --regions (default: %(default)s)")
    ap.add_argument("--out", default="kperf-triton", help="output directory (default: %(default)s)")
    ap.add_argument("--kernels", help="comma-separated kernel names to instrument (default: all)")
    ap.add_argument("--keep-last", type=int, default=4, help="launches kept per kernel (default: %(default)s)")
    ap.add_argument("--calibration", help="a `kperf calibrate` device profile")
    ap.add_argument("--no-summary", action="store_true", help="do not print the summary")
    ap.add_argument("script", help="the Python program")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    raw = list(sys.argv[1:] if argv is None else argv)
    a = ap.parse_args(raw)
    # argparse's REMAINDER drops a `--` right after the script, which is
    # the program's own argument: `prog.py -- --x` must see `--` too.
    at = len(raw) - len(a.args)
    if at >= 2 and raw[at - 1] == "--" and raw[at - 2] == a.script:
        a.args = ["--", *a.args]
    # Kernels compiled before the hook (Triton's cache) would run
    # uninstrumented: the hook's cache key keeps them apart.
    sys.argv = [a.script, *a.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.script)))
    if a.keep_last < 1:
        ap.error(f"--keep-last {a.keep_last}: keep at least one launch per kernel")
    if not os.path.isfile(a.script):
        ap.error(f"{a.script}: no such program")
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(profile(a.regions, a.out, summary=not a.no_summary, keep_last=a.keep_last,
                                        kernels=a.kernels.split(",") if a.kernels else None,
                                        calibration=a.calibration))
        except (KperfError, TypeError, ValueError) as e:
            ap.error(str(e))
        try:
            runpy.run_path(a.script, run_name="__main__")
        except SystemExit as e:
            if e.code not in (None, 0):
                raise
    return 0


if __name__ == "__main__":
    # `python -m kperf.triton` runs this file as `__main__`, a second module
    # beside the `kperf.triton` a program imports: its hook looked foreign
    # to the program's ("another add_stages_inspection_hook is installed
    # (Proton?)"). The imported module runs it, so there is one state.
    import kperf.triton
    sys.exit(kperf.triton.main())
