"""kperf.triton without a GPU: Triton compiles for sm_90 through the hook
with the real `kperf instrument`; the launch side (allocator, launch hook,
keep-last, .kprof writing) runs with host buffers in place of CUDA ones."""

import inspect
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import kperf
import kperf.cuda
import kperf.triton as kt
from kperf._llir import llir_to_llvm22

triton = pytest.importorskip("triton")  # scripts/setup.sh installs it
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402


from triton_kernels import compile_scale_rows, scale_rows  # noqa: E402


@pytest.fixture(autouse=True)
def triton_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    yield
    kt.uninstall()


def test_hook_instruments_with_the_real_kperf(tmp_path):
    plain = compile_scale_rows()
    hook = kt.install("kernel,loops", tmp_path / "prof", profile_allocator=False)
    k = compile_scale_rows()
    kt.uninstall()
    inst = hook.instrumented["scale_rows"]
    assert k.hash != plain.hash, "the hook's cache key must separate instrumented builds"
    assert plain.metadata.profile_scratch_size == 0
    assert k.metadata.profile_scratch_size == inst.bytes_per_cta > 0
    assert inst.block == 32 * k.metadata.num_warps
    clocks = len(re.findall(r"%clock\b", k.asm["ptx"]))
    assert clocks >= 4, f"expected the records' clock reads in Triton's PTX, found {clocks}"
    assert len(k.asm["cubin"]) > 0
    assert inst.meta.exists() and inst.out.exists()


def test_kernels_filter_leaves_others_plain(tmp_path):
    hook = kt.install("kernel", tmp_path, kernels=["other"], profile_allocator=False)
    k = compile_scale_rows()
    assert not hook.instrumented and k.metadata.profile_scratch_size == 0


def test_kernels_as_one_name_is_that_kernel(tmp_path):
    # A string is one name, not a set of its letters (which matched no
    # kernel, silently).
    hook = kt.install("kernel", tmp_path, kernels="scale_rows", profile_allocator=False)
    assert hook.kernels == {"scale_rows"}
    compile_scale_rows()
    assert "scale_rows" in hook.instrumented
    with pytest.raises(TypeError, match="kernel names"):
        kt.install("kernel", tmp_path, kernels=["ok", 3], profile_allocator=False)


class HostDriver(kperf.cuda.Driver):
    """kperf.cuda.Driver over host memory, so the launch side runs (and is
    checked: buffers freed, kernels opted in) without a GPU."""

    def __init__(self, static_shared=0, opt_in_limit=227 * 1024):
        super().__init__(lib=None)
        self.memory, self.freed, self.attributes = {}, [], {}
        self.next_ptr = 0x7F0000000000
        self.static_shared, self.opt_in_limit = static_shared, opt_in_limit

    def alloc(self, size, stream):
        ptr, self.next_ptr = self.next_ptr, self.next_ptr + (size + 511) // 512 * 512
        self.memory[ptr] = bytearray(size)
        return ptr

    def free(self, ptr, stream, context=None):
        del self.memory[ptr]
        self.freed.append(ptr)

    def copy_to_host(self, ptr, size, stream=None, context=None):
        return bytes(self.memory[ptr][:size])

    def current_context(self):
        return 0xC0

    def stream_capturing(self, stream):
        return stream == "capturing"

    def copy_to_device(self, ptr, data):
        self.memory[ptr][:len(data)] = data

    def make_current(self, device=0):
        pass

    def synchronize(self):
        pass

    def function_attribute(self, function, attribute):
        if attribute == kperf.cuda.FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES:  # the driver's default
            return self.attributes.get((function, attribute), 48 * 1024 - self.static_shared)
        assert attribute == kperf.cuda.FUNC_SHARED_SIZE_BYTES
        return self.static_shared

    def set_function_attribute(self, function, attribute, value):
        self.attributes[(function, attribute)] = value

    def current_device_attribute(self, attribute):
        assert attribute == kperf.cuda.DEVICE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        return self.opt_in_limit


def fake_device(hook, **kw):
    hook.driver = HostDriver(**kw)
    return hook.driver


def test_launches_become_kprof_files_and_old_ones_are_dropped(tmp_path):
    hook = kt.install("kernel,loops", tmp_path / "prof", keep_last=2, profile_allocator=False)
    compile_scale_rows()
    device = fake_device(hook)
    per_cta = hook.instrumented["scale_rows"].bytes_per_cta
    for _ in range(5):  # an autotuning loop
        buf = hook.allocate(3 * per_cta, 128, None)
        assert buf.data_ptr() in device.memory and buf.data_ptr() % 128 == 0
        hook.on_launch({"name": "scale_rows"})
    assert [l.index for l in hook.launches["scale_rows"]] == [3, 4]
    assert len(device.memory) == 2, "buffers of launches no longer kept must be freed"
    written = hook.save()
    assert [p.name for p in written] == ["scale_rows.3.kprof", "scale_rows.4.kprof"]
    assert not hook.launches["scale_rows"] and not device.memory, "saved launches release their buffers"
    # Nothing ran, so every CTA block is unwritten: kperf says so.
    p = kperf.load_profile(written[0])
    assert (p.kernel, p.grid, p.block, p.ctas) == ("scale_rows", (3, 1, 1), (128, 1, 1), 0)
    assert any("none of the 3 CTA block(s) was written" in c for c in p.caveats), p.caveats


def test_a_second_hook_on_one_directory_numbers_on(tmp_path, capsys):
    # Two `profile()` blocks with one `out` both wrote scale_rows.0.kprof,
    # and `summary=False` was summarized anyway by the exit handler's later
    # `finish()` (adversarial test, 2026-11-27).
    names, compiled = [], {}
    for ctas in (3, 5):
        hook = kt.install("kernel", tmp_path / "prof", profile_allocator=False)
        compile_scale_rows()
        hook.instrumented.update(compiled)  # the second block finds it compiled
        compiled = dict(hook.instrumented)
        fake_device(hook)
        per_cta = hook.instrumented["scale_rows"].bytes_per_cta
        hook.allocate(ctas * per_cta, 128, None)
        hook.on_launch({"name": "scale_rows"})
        kt.uninstall()
        hook.finish(summary=False)
        hook.finish()  # as the exit handler calls it
        names += [p.name for p in hook.written]
    assert names == ["scale_rows.0.kprof", "scale_rows.1.kprof"]
    # Another process (a second run of the program) numbers on after the
    # files there; a new process starts with no numbers of its own.
    kt._LAUNCH_NUMBERS.clear()
    hook = kt.install("kernel", tmp_path / "prof", profile_allocator=False)
    hook.instrumented.update(compiled)
    fake_device(hook)
    hook.allocate(per_cta, 128, None)
    hook.on_launch({"name": "scale_rows"})
    kt.uninstall()
    assert [p.name for p in hook.finish(summary=False)] == ["scale_rows.2.kprof"]
    assert [kperf.load_profile(tmp_path / "prof" / n).grid[0] for n in names] == [3, 5]
    assert "kperf:" not in capsys.readouterr().err


def test_a_launch_that_cannot_be_written_loses_itself_only(tmp_path, monkeypatch):
    # A failing write left the launches already written queued with their
    # buffers released: every later save failed, the exit handler too
    # (adversarial test, 2026-11-28).
    hook = kt.install("kernel", tmp_path / "prof", keep_last=3, profile_allocator=False)
    compile_scale_rows()
    device = fake_device(hook)
    per_cta = hook.instrumented["scale_rows"].bytes_per_cta
    for _ in range(3):
        hook.allocate(per_cta, 128, None)
        hook.on_launch({"name": "scale_rows"})
    kt.uninstall()
    real = kt._kperf.write_kprof
    calls = []

    def second_fails(path, *a, **kw):
        calls.append(path)
        if len(calls) == 2:
            raise kperf.KperfError("disk full")
        return real(path, *a, **kw)

    monkeypatch.setattr(kt._kperf, "write_kprof", second_fails)
    with pytest.raises(kperf.KperfError, match=r"1 launch\(es\) not written \(2 written\): scale_rows.1.kprof: disk full"):
        hook.save()
    assert [p.name for p in hook.written] == ["scale_rows.0.kprof", "scale_rows.2.kprof"]
    assert not hook.launches["scale_rows"] and not device.memory
    assert hook.save() == [] and hook.finish(summary=False) == hook.written


def test_the_programs_own_double_dash_reaches_it(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    prog = tmp_path / "argv.py"
    out = tmp_path / "argv.json"
    prog.write_text(f"import json, sys\njson.dump(sys.argv[1:], open({str(out)!r}, 'w'))\n")
    assert kt.main(["--out", os.fspath(tmp_path / "prof"), "--no-summary", os.fspath(prog), "--", "--x"]) == 0
    assert json.loads(out.read_text()) == ["--", "--x"]


def launch(hook, function, name, ctas, per_cta):
    hook.allocate(ctas * per_cta, 128, None)
    hook.on_launch({"name": name, "function": function})


def test_kernels_from_triton_cache_find_their_metadata(tmp_path):
    first = kt.install("kernel,loops", tmp_path / "a", profile_allocator=False)
    k1 = compile_scale_rows()
    kt.uninstall()
    second = kt.install("kernel,loops", tmp_path / "b", profile_allocator=False)
    k2 = compile_scale_rows()  # from Triton's cache: no llir stage runs
    kt.uninstall()
    assert "scale_rows" in first.instrumented and not second.instrumented and k2.hash == k1.hash
    fake_device(second)
    # What Triton calls when it loads the kernel, then one launch of it.
    second.on_load(None, 0xF00, "scale_rows", k2.metadata_group, k2.hash)
    launch(second, 0xF00, "scale_rows", 2, k2.metadata.profile_scratch_size)
    [path] = second.save()
    p = kperf.load_profile(path)
    assert (p.kernel, p.grid, p.block) == ("scale_rows", (2, 1, 1), (128, 1, 1))


@pytest.mark.parametrize("own_shared, static, opted_in", [
    (48 * 1024, 736, 48 * 1024),  # at 48 KiB: the rings push it over, kperf opts in
    (40 * 1024, 736, None),  # fits the default 48 KiB with the rings
    (64 * 1024, 736, None),  # over 48 KiB: Triton opted in itself (simulated below)
])
def test_loading_opts_kernels_in_to_the_shared_memory_the_rings_need(tmp_path, monkeypatch, own_shared, static,
                                                                     opted_in):
    monkeypatch.setattr(kt, "_VARIANTS", {})
    hook = kt.install("kernel", tmp_path / "prof", profile_allocator=False)
    k = compile_scale_rows()
    kt.uninstall()
    device = fake_device(hook, static_shared=static)
    if own_shared > 48 * 1024:  # what Triton's loadBinary sets: the opt-in limit less static
        for fn in (0xF00, 0xF01):
            device.attributes[(fn, kperf.cuda.FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES)] = 227 * 1024 - static
    group = dict(k.metadata_group)
    name = "scale_rows.json"
    md = json.loads(open(group[name]).read())
    md["shared"] = own_shared  # as if Triton's kernel used that much dynamic shared memory
    (tmp_path / name).write_text(json.dumps(md))
    group[name] = str(tmp_path / name)
    hook.on_load(None, 0xF00, "scale_rows", group, k.hash)
    got = device.attributes.get((0xF00, kperf.cuda.FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES))
    assert got == (opted_in or (227 * 1024 - static if own_shared > 48 * 1024 else None))
    assert 0xF00 in kt._VARIANTS
    if own_shared + static > 48 * 1024:
        device.opt_in_limit = own_shared + static - 1  # a device with less shared memory per block
        with pytest.raises(kperf.KperfError, match="--buffer global"):
            hook.on_load(None, 0xF01, "scale_rows", group, k.hash)
        assert 0xF01 not in kt._VARIANTS, "a kernel that cannot launch is not registered"


def test_launches_captured_into_a_cuda_graph_are_refused(tmp_path):
    hook = kt.install("kernel", tmp_path, profile_allocator=False)
    fake_device(hook)
    with pytest.raises(kperf.KperfError, match="CUDA graph"):
        hook.allocate(64, 128, "capturing")


def test_the_hook_tells_kperf_it_opts_kernels_in(tmp_path):
    seen = []

    def instrument(inp, out, target, regions, extra):
        seen.append(extra)
        raise kperf.KperfError("stop here")

    hook = kt.install("kernel", tmp_path, kperf=instrument)  # with the profile allocator
    with pytest.raises(Exception, match="stop here"):
        compile_scale_rows()
    kt.uninstall()
    assert seen == [["--shared-opt-in"]]


def two_variants_loaded(tmp_path):
    """A hook with scale_rows compiled for 4 and 8 warps, loaded as CUfunctions 4 and 8."""
    hook = kt.install("kernel,loops", tmp_path, profile_allocator=False)
    k4, k8 = compile_scale_rows(4), compile_scale_rows(8)
    kt.uninstall()
    fake_device(hook)
    for fn, k in ((4, k4), (8, k8)):
        hook.on_load(None, fn, "scale_rows", k.metadata_group, k.hash)
    return hook, k4, k8


def test_variants_of_one_kernel_keep_their_own_metadata(tmp_path):
    hook, k4, k8 = two_variants_loaded(tmp_path)
    launch(hook, 4, "scale_rows", 3, k4.metadata.profile_scratch_size)
    launch(hook, 8, "scale_rows", 5, k8.metadata.profile_scratch_size)
    blocks = [kperf.load_profile(p).block[0] for p in hook.save()]
    assert blocks == [128, 256]
    assert len(list(tmp_path.glob("build/scale_rows.*.llir.instrumented.kperf.json"))) == 2


def test_two_threads_launching_keep_their_own_buffers(tmp_path):
    # Triton allocates the profile scratch, then calls the launch hook, in
    # the launching thread. One pending buffer for the process gave thread
    # A's launch thread B's buffer and dropped B's (adversarial test,
    # 2026-11-27); the interleaving is forced here.
    import threading
    hook, k4, k8 = two_variants_loaded(tmp_path)
    step = [threading.Event() for _ in range(3)]

    def a():
        hook.allocate(3 * k4.metadata.profile_scratch_size, 128, None)
        step[0].set(); step[1].wait()
        hook.on_launch({"name": "scale_rows", "function": 4})
        step[2].set()

    def b():
        step[0].wait()
        hook.allocate(5 * k8.metadata.profile_scratch_size, 128, None)
        step[1].set(); step[2].wait()
        hook.on_launch({"name": "scale_rows", "function": 8})

    threads = [threading.Thread(target=a), threading.Thread(target=b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kept = [(l.variant.block, l.size // l.variant.bytes_per_cta) for l in hook.launches["scale_rows"]]
    assert kept == [(128, 3), (256, 5)]
    assert [kperf.load_profile(p).grid[0] for p in hook.save()] == [3, 5]


def test_uninstrumented_launches_are_not_kept(tmp_path):
    hook = kt.install("kernel", tmp_path, profile_allocator=False)
    fake_device(hook)
    hook.allocate(64, 128, None)
    hook.on_launch({"name": "someone_elses_kernel"})
    assert hook.save() == []


def test_written_kprof_replays_like_kperf_run(tmp_path, fixtures):
    # The writer behind hook.save(): a raw buffer, its metadata, grid and block.
    out = tmp_path / "r.kprof"
    kperf._kperf.write_kprof(str(out), (fixtures / "reduce_simt.buf").read_bytes(),
                             str(fixtures / "reduce_simt.kperf.json"), grid=[4], block=[128])
    got = kperf.load_profile(out)
    ref = kperf.load_profile(fixtures / "reduce_simt.kprof")
    assert (got.grid, got.block) == ((4, 1, 1), (128, 1, 1))
    assert [(r.name, r.count, r.mean_raw_cycles) for r in got.regions] == \
        [(r.name, r.count, r.mean_raw_cycles) for r in ref.regions]
    with pytest.raises(kperf.KperfError, match="refusing"):
        kperf._kperf.write_kprof(str(fixtures / "reduce_simt.kperf.json"), b"", str(fixtures / "reduce_simt.kperf.json"))


def test_python_m_kperf_triton_profiles_an_unmodified_program(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_triton import compile_scale_rows
        k = compile_scale_rows()
        assert k.metadata.profile_scratch_size > 0, "not instrumented"
        print("program ran with", sys.argv[1:])
    """))
    out = subprocess.run([sys.executable, "-m", "kperf.triton", "--regions", "kernel", "--out", tmp_path / "prof",
                          script, "--flag", "x"], capture_output=True, text=True,
                         env={**os.environ, "TRITON_CACHE_DIR": str(tmp_path / "cache")})
    assert out.returncode == 0, out.stderr
    assert "program ran with ['--flag', 'x']" in out.stdout
    assert list((tmp_path / "prof/build").glob("scale_rows.*.llir.instrumented.kperf.json"))


def test_a_program_that_profiles_itself_runs_under_python_m_kperf_triton(tmp_path):
    # `python -m kperf.triton` ran the module as `__main__`, so the
    # program's own `kperf.triton` saw kperf's hook as foreign ("another
    # add_stages_inspection_hook is installed (Proton?)"); adversarial
    # test, 2026-11-27.
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        import kperf.triton as kt
        from test_triton import compile_scale_rows
        with kt.profile("kernel", {str(tmp_path / "inner")!r}, summary=False):
            compile_scale_rows()
        print("inner block ran")
    """))
    out = subprocess.run([sys.executable, "-m", "kperf.triton", "--regions", "kernel", "--out", tmp_path / "prof",
                          script], capture_output=True, text=True,
                         env={**os.environ, "TRITON_CACHE_DIR": str(tmp_path / "cache")})
    assert out.returncode == 0, out.stderr
    assert "inner block ran" in out.stdout


def test_a_profile_block_inside_another_gives_the_outer_hook_back(tmp_path):
    # The inner block's end left the outer block uninstrumented, silently
    # (adversarial test, 2026-11-27).
    from triton import knobs
    with kt.profile("kernel", tmp_path / "outer", summary=False, profile_allocator=False) as outer:
        with kt.profile("kernel", tmp_path / "inner", summary=False, profile_allocator=False) as inner:
            assert knobs.runtime.add_stages_inspection_hook is inner
        assert knobs.runtime.add_stages_inspection_hook is outer
    assert knobs.runtime.add_stages_inspection_hook is None


def test_a_missing_calibration_is_reported_at_install(tmp_path):
    with pytest.raises(kperf.KperfError, match="no such file"):
        kt.install("kernel", tmp_path, calibration=tmp_path / "typo.json")
    # A file that is not a calibration (a bench result, say) too: found at
    # the end, every profile of the program was lost.
    (tmp_path / "bench.json").write_text('{"results_version": 1}')
    with pytest.raises(kperf.KperfError, match="not a `kperf calibrate` device profile"):
        kt.install("kernel", tmp_path, calibration=tmp_path / "bench.json")
    out = subprocess.run([sys.executable, "-m", "kperf.triton", "--calibration", tmp_path / "typo.json",
                          __file__], capture_output=True, text=True)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert "no such file" in out.stderr


def test_an_output_that_is_a_file_is_reported_at_install(tmp_path):
    """A file where the output directory goes failed with a raw
    NotADirectoryError inside Triton's compile (adversarial pass, 2026-11-28)."""
    (tmp_path / "out").write_text("")
    with pytest.raises(kperf.KperfError, match="not a directory"):
        kt.install("kernel", tmp_path / "out")


def test_missing_kperf_binary_is_reported_before_compiling(tmp_path, monkeypatch):
    monkeypatch.setenv("KPERF_BIN", str(tmp_path / "nope"))
    with pytest.raises(kperf.KperfError, match="KPERF_BIN"):
        kt.install("kernel", tmp_path)


@pytest.mark.parametrize("given, expected", [
    ("  %1 = fmul float %0, f0x3FB8AA3B\n", "  %1 = fmul float %0, 0x3FF7154760000000\n"),
    ("  %2 = select i1 %c, float -inf, float %x\n", "  %2 = select i1 %c, float 0xFFF0000000000000, float %x\n"),
    ("  %3 = fadd half %a, f0x3C00\n", "  %3 = fadd half %a, 0xH3C00\n"),
    ("  %4 = fadd bfloat %a, f0x3F80\n", "  %4 = fadd bfloat %a, 0xR3F80\n"),
    ("  %5 = fmul double %a, 1.5e+00\n", "  %5 = fmul double %a, 1.5e+00\n"),
    ("!0 = !{float -inf}\n", "!0 = !{float -inf}\n"),  # metadata is left alone
])
def test_llvm22_literals(given, expected):
    assert llir_to_llvm22(given) == expected


def test_example_matmul_compiles_for_sm90_through_the_hook(tmp_path, root):
    # examples/triton/matmul.py, the kernel gpu-check.sh profiles on a GPU:
    # instrumented here for sm_90a with its wgmma kept.
    sys.path.insert(0, str(root / "examples/triton"))
    try:
        import matmul
    finally:
        sys.path.pop(0)
    sig = {n: "*fp16" for n in ("a_ptr", "b_ptr", "c_ptr")}
    sig.update({n: "i32" for n in ("M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn",
                                   "stride_cm", "stride_cn")})
    sig.update({n: "constexpr" for n in ("BLOCK_M", "BLOCK_N", "BLOCK_K")})
    src = lambda: ASTSource(matmul.matmul_kernel, signature=sig,  # noqa: E731
                            constexprs={"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64})
    plain = triton.compile(src(), target=GPUTarget("cuda", 90, 32), options={"num_warps": 8})
    hook = kt.install("kernel,loops", tmp_path, profile_allocator=False)
    k = triton.compile(src(), target=GPUTarget("cuda", 90, 32), options={"num_warps": 8})
    kt.uninstall()
    assert hook.instrumented["matmul_kernel"].block == 256
    assert k.metadata.profile_scratch_size > 0
    wgmma = k.asm["ptx"].count("wgmma.mma_async")
    assert wgmma == plain.asm["ptx"].count("wgmma.mma_async") > 0


def test_device_arrays_are_pointer_arguments_triton_specializes():
    # examples/triton/matmul.py without PyTorch passes kperf.cuda.DeviceArrays:
    # Triton must type them from their dtype and see their 16-byte alignment.
    import numpy as np
    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend
    host = np.arange(32, dtype=np.float16).reshape(4, 8)
    a = kperf.cuda.DeviceArray.from_numpy(host, drv=HostDriver())
    assert native_specialize_impl(BaseBackend, a, False, True, True) == ("*fp16", "D")
    assert (a.stride(0), a.stride(1)) == (8, 1)
    assert (a.numpy() == host).all()


class FakeLauncher:
    """Stands in for Triton's CudaLauncher: its __call__ takes the grid
    first and allocates the profile scratch inside, as Triton's does."""

    def __init__(self, hook, name, num_ctas=1):
        self.hook, self.name, self.num_ctas = hook, name, num_ctas

    def __call__(self, gridX, gridY, gridZ, stream, *args):
        per_cta = self.hook.instrumented[self.name].bytes_per_cta
        self.hook.allocate(gridX * gridY * gridZ * self.num_ctas * per_cta, 128, stream)
        self.hook.on_launch({"name": self.name})


@pytest.mark.parametrize("num_ctas, grid", [(1, (4, 3, 2)), (2, (8, 3, 2))])
def test_kprof_has_the_launch_grid_shape(tmp_path, num_ctas, grid):
    hook = kt.install("kernel,loops", tmp_path / "prof", profile_allocator=False)
    compile_scale_rows()
    fake_device(hook)
    own_call = FakeLauncher.__call__
    kt.wrap_launchers([FakeLauncher])
    try:
        FakeLauncher(hook, "scale_rows", num_ctas)(4, 3, 2, None)
    finally:
        kt.unwrap_launchers()
    assert FakeLauncher.__call__ is own_call, "unwrapping restores the launcher"
    p = kperf.load_profile(hook.save()[0])
    assert p.grid == grid


def test_without_the_launcher_wrapper_the_grid_is_linear():
    assert kt.cuda_grid(None, 24) == (24, 1, 1)
    assert kt.cuda_grid((5, 1, 1), 24) == (24, 1, 1), "a grid that does not divide the size is not trusted"


def test_triton_launchers_take_the_grid_first():
    from triton.backends.nvidia.driver import CudaLauncher
    params = list(inspect.signature(CudaLauncher.__call__).parameters)
    assert params[1:4] == ["gridX", "gridY", "gridZ"], params


def test_install_wraps_tritons_launcher_and_uninstall_restores_it(tmp_path):
    from triton.backends.nvidia.driver import CudaLauncher
    own_call = CudaLauncher.__call__
    kt.install("kernel", tmp_path / "prof", save_at_exit=False)
    try:
        assert CudaLauncher.__call__ is not own_call and CudaLauncher.__call__.__wrapped__ is own_call
    finally:
        kt.uninstall()
    assert CudaLauncher.__call__ is own_call


EX2_OLD = "%y = call float @llvm.nvvm.ex2.approx.ftz.f(float %x)\ndeclare float @llvm.nvvm.ex2.approx.ftz.f(float)"
EX2_NEW = "%y = call float @llvm.nvvm.ex2.approx.ftz.f32(float %x)\ndeclare float @llvm.nvvm.ex2.approx.ftz.f32(float)"
CLOCK = "%c = call i32 @llvm.nvvm.read.ptx.sreg.clock()"


@pytest.mark.parametrize("original, instrumented, expected", [
    # Triton 3.6's LLVM wrote the old name; kperf's LLVM 22 upgraded it.
    (EX2_OLD, EX2_NEW + "\n" + CLOCK, EX2_OLD + "\n" + CLOCK),
    # Triton 3.9's LLVM already writes the new name.
    (EX2_NEW, EX2_NEW + "\n" + CLOCK, EX2_NEW + "\n" + CLOCK),
    # kperf's own intrinsics, which the original never used, stay.
    ("", CLOCK, CLOCK),
])
def test_intrinsics_get_back_the_names_tritons_llvm_wrote(original, instrumented, expected):
    assert kt.restore_intrinsic_names(instrumented, original) == expected


def test_cache_keys_fold_the_hook_where_triton_does_not(tmp_path, monkeypatch):
    from triton import knobs
    from triton.compiler import compiler
    monkeypatch.setattr(kt, "_triton_folds_hook_key", lambda module: False)  # as on Triton 3.6
    monkeypatch.setattr(compiler, "get_cache_key", lambda *args, **kwargs: "triton's key")
    own, mode = compiler.get_cache_key, knobs.compilation.instrumentation_mode
    hook = kt.install("kernel", tmp_path / "prof", profile_allocator=False, save_at_exit=False)
    try:
        assert compiler.get_cache_key("src", "backend", {}, env_vars={}) == "triton's key" + hook.cache_key()
        assert knobs.compilation.instrumentation_mode.startswith("kperf:")
    finally:
        kt.uninstall()
    assert compiler.get_cache_key is own and knobs.compilation.instrumentation_mode == mode


def test_triton_39_folds_the_hook_key_itself():
    from triton.compiler import compiler
    version = tuple(int(p) for p in triton.__version__.split(".")[:2])
    assert kt._triton_folds_hook_key(compiler) == (version >= (3, 9))
