"""kperf.bench: kperf-bench's sampling loop and statistics on Python
callables, checked against known durations, and its files against the
kperf CLI (`roofline`, `bench --baseline`)."""

import json
import os
import re
import subprocess
import sys
import time
import types

import pytest

import kperf
import kperf.bench as kb

FAST = dict(min_samples=10, min_time=0.05, max_noise=0.02, timeout=2.0, warmup=2, warmup_time=0.0, flush=False)


def spin(seconds):
    """Busy-wait: a known duration that does not depend on the scheduler."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pytest.mark.parametrize("ms", [0.2, 2.0])
def test_known_durations(ms):
    r = kb.benchmark(spin, ms / 1e3, **FAST)
    # The host cycle timer against perf_counter: never under the spin, and
    # over it by no more than scheduling noise on a busy 2-core CI machine.
    assert ms <= r["median_ms"] < ms * 1.25 + 0.2
    assert r["min_ms"] <= r["p5_ms"] <= r["median_ms"] <= r["p95_ms"] <= r["max_ms"]
    assert r["samples"] >= 10 and r["noise"] >= 0
    assert r["stop_reason"]["kind"] in ("noise_target", "timeout")


def test_work_gives_rates_at_the_reported_center():
    r = kb.benchmark(spin, 1e-3, flops=2e9, bytes=4e9, **FAST)
    t = (r["median_ms"] if r["center"]["kind"] == "median" else r["mean_ms"]) / 1e3
    assert r["tflops"] == pytest.approx(2e9 / t / 1e12)
    assert r["gbps"] == pytest.approx(4e9 / t / 1e9)


def test_sync_runs_inside_the_timed_region():
    r = kb.benchmark(lambda: None, sync=lambda: spin(1e-3), **FAST)
    assert r["median_ms"] >= 1.0
    assert r["settings"]["timed"] == "one call followed by sync()"


def test_exceptions_from_the_function_propagate():
    def boom():
        raise ZeroDivisionError("inside")
    with pytest.raises(ZeroDivisionError, match="inside"):
        kb.benchmark(boom, **FAST)


def test_one_sample_has_no_noise_figure(tmp_path):
    # A call longer than the timeout stops after one sample: its noise read
    # 0.00% with std 0 and no note (adversarial test, 2026-11-27).
    import math, time
    r = kb.benchmark(time.sleep, 0.2, timeout=0.05, flush=False, warmup=0, warmup_time=0)
    assert r["samples"] == 1
    assert math.isnan(r["noise"]) and math.isnan(r["std_ms"])
    table = _kperf_table(kb.save([r], tmp_path / "one.json", name="sleep"))
    assert "stopped after one sample (the timeout): its noise cannot be measured" in table, table


def _kperf_table(text):
    return kperf._kperf.results_table(text)


def test_bad_settings_are_refused():
    with pytest.raises(kperf.KperfError, match="min_samples"):
        kb.benchmark(spin, 0.0, min_samples=1)


@pytest.mark.parametrize("setting, error, message", [
    # (argument, exception, what it must say): NaN reached the core as JSON
    # it could not read ("expected value at line 1 column 72"), a negative
    # count as "expected usize", NaN work as "bytes = 0".
    ({"min_time": float("nan")}, ValueError, "min_time must be finite"),
    ({"timeout": float("inf")}, ValueError, "timeout must be finite"),
    ({"warmup_time": float("nan")}, ValueError, "warmup_time must be finite"),
    ({"min_samples": -1}, ValueError, "min_samples must be >= 0"),
    ({"max_samples": 2.5}, ValueError, "max_samples must be a whole number"),
    ({"flops": float("nan")}, ValueError, "flops must be finite"),
    ({"bytes": "many"}, TypeError, "bytes must be a number"),
])
def test_bad_arguments_name_themselves(setting, error, message):
    with pytest.raises(error, match=message):
        kb.benchmark(spin, 0.0, **{**FAST, **setting})


def test_a_grid_naming_one_point_twice_is_refused_before_measuring():
    import numpy as np
    with pytest.raises(ValueError, match="name the same point"):
        kb.parametrize({"n": [4, np.int64(4)]}, show=False)(lambda n: (lambda: None))


def test_a_sweep_to_an_unwritable_path_is_refused_before_measuring(tmp_path):
    # The path was checked after the whole sweep, and every measurement
    # was lost (adversarial test, 2026-11-28).
    calls = []
    sweep = kb.parametrize({"n": [1, 2]}, show=False, out=tmp_path / "no" / "such.json", **FAST)(
        lambda n: (lambda: calls.append(n)))
    with pytest.raises(kperf.KperfError, match="is not a directory"):
        sweep()
    assert calls == []


def test_grid_axes_are_lists_of_values():
    # A string axis ran one point per letter; a generator axis was consumed
    # by the duplicate check and measured nothing (adversarial test,
    # 2026-11-27).
    with pytest.raises(ValueError, match="is the string 'float32'"):
        kb.parametrize({"dtype": "float32"}, show=False)
    with pytest.raises(ValueError, match="lists no values"):
        kb.parametrize({"n": []}, show=False)
    sweep = kb.parametrize({"n": (n for n in (1, 2))}, show=False, **FAST)(lambda n: (lambda: None))()
    assert len(sweep.results) == 2


def test_a_baseline_from_elsewhere_warns(tmp_path):
    # No point in common: the CLI warns; Python said nothing and passed.
    a = kb.benchmark(spin, 0.0, name="a", **FAST)
    b = kb.benchmark(spin, 0.0, name="b", **FAST)
    with pytest.warns(kb.ComparabilityWarning, match="no point of the baseline matches"):
        c = kb.compare([a], [b])
    assert c.compared == 0 and c.warnings


def test_results_with_one_point_twice_are_refused(tmp_path):
    # Two lambdas are both named "<lambda>" with no parameters: one point,
    # twice, which a comparison paired with whichever it met first.
    a = kb.benchmark(lambda: None, **FAST)
    b = kb.benchmark(lambda: None, **FAST)
    with pytest.raises(kperf.KperfError, match="appears 2 times"):
        kb.save([a, b], tmp_path / "r.json")


class FakeTorch(types.ModuleType):
    """Just enough of torch for benchmark's choice of timing: CUDA events
    that always measure 1.5 ms, a synchronize that takes 1 ms."""

    def __init__(self, initialized=True):
        super().__init__("torch")
        outer = self

        class Tensor:
            is_cuda = True

        class Event:
            def __init__(self, enable_timing=False):
                pass

            def record(self):
                pass

            def synchronize(self):
                pass

            def elapsed_time(self, other):
                return 1.5

        class Cuda:
            def is_available(self):
                return True

            def is_initialized(self):
                return initialized

            def synchronize(self):
                outer.syncs += 1
                spin(1e-3)

            def get_device_name(self):
                return "FakeGPU"

        self.Tensor, self.syncs = Tensor, 0
        self.cuda = Cuda()
        self.cuda.Event = Event


def test_cuda_tensor_arguments_are_timed_with_events(monkeypatch):
    torch = FakeTorch()
    monkeypatch.setitem(sys.modules, "torch", torch)
    r = kb.benchmark(lambda x: None, torch.Tensor(), **FAST)
    assert r["median_ms"] == pytest.approx(1.5) and r["min_ms"] == r["max_ms"]
    assert r["settings"]["timed"] == "one call between two CUDA events"
    assert r["device"]["name"] == "FakeGPU" and r["device"]["kind"] == "cuda"
    r = kb.benchmark(lambda x=None: None, x=torch.Tensor(), **FAST)  # keyword arguments count too
    assert r["median_ms"] == pytest.approx(1.5)


def test_closures_over_gpu_work_wait_for_the_device(monkeypatch):
    torch = FakeTorch(initialized=True)
    monkeypatch.setitem(sys.modules, "torch", torch)
    r = kb.benchmark(lambda: None, **FAST)
    assert r["median_ms"] >= 1.0 and torch.syncs >= r["samples"]
    assert "torch.cuda.synchronize" in r["settings"]["timed"]


def test_jax_results_are_waited_for(monkeypatch):
    jax = types.ModuleType("jax")
    jax.block_until_ready = lambda x: (spin(1e-3), x)[1]
    jax.default_backend = lambda: "cpu"
    monkeypatch.setitem(sys.modules, "jax", jax)
    r = kb.benchmark(lambda: 1, **FAST)
    assert r["median_ms"] >= 1.0 and "block_until_ready" in r["settings"]["timed"]


def test_results_of_different_devices_are_not_saved_together(tmp_path):
    a = kb.benchmark(spin, 1e-4, **FAST)
    b = dict(a, device=dict(a["device"], name="other"))
    with pytest.raises(kperf.KperfError, match="different devices"):
        kb.save([a, b], tmp_path / "x.json")


def test_one_machine_at_two_clock_readings_is_one_device(tmp_path):
    # A host with frequency scaling reads another clock (and calibrates its
    # timer anew) for each result; save refused a sweep of one machine as
    # "results from different devices (AMD EPYC)" (adversarial test,
    # 2026-11-27).
    a = kb.benchmark(spin, 1e-4, name="a", **FAST)
    host = dict(a["device"]["host"], frequency={"mhz": 3187.5, "source": "cpufreq", "note": None})
    host["timer"] = dict(host["timer"] or {}, ticks_per_ns=3.1)
    b = dict(a, device=dict(a["device"], host=host), point=dict(a["point"], implementation="b"))
    kb.save([a, b], tmp_path / "x.json")
    other = dict(b, device=dict(a["device"], host=dict(host, cpu_model="Other CPU")))
    with pytest.raises(kperf.KperfError, match="different devices"):
        kb.save([a, other], tmp_path / "y.json")


def test_results_of_different_settings_are_not_saved_together(tmp_path):
    a = kb.benchmark(spin, 1e-4, name="a", **FAST)
    b = kb.benchmark(spin, 1e-4, name="b", **dict(FAST, min_samples=12))
    with pytest.raises(kperf.KperfError, match=r"different settings \(stopping\)"):
        kb.save([a, b], tmp_path / "x.json")


def test_numpy_function():
    np = pytest.importorskip("numpy")
    a = np.random.default_rng(0).random(1 << 14)
    r = kb.benchmark(np.sort, a, bytes=2 * a.nbytes, **FAST)
    assert r["name"] == "sort" and r["gbps"] > 0


def test_compare_flags_a_regression_and_not_noise():
    base = [kb.benchmark(spin, 1e-3, name="f", **FAST)]
    same = [kb.benchmark(spin, 1e-3, name="f", **FAST)]
    slow = [kb.benchmark(spin, 1.5e-3, name="f", **FAST)]
    assert kb.compare(slow, base).regression
    assert not kb.compare(same, base).regression
    assert "REGRESSION" in str(kb.compare(slow, base))


def test_saved_results_are_read_by_kperf_roofline(tmp_path):
    r = kb.benchmark(spin, 1e-3, flops=1e9, bytes=1e9, params={"n": 127}, name="spin", **FAST)
    path = tmp_path / "res.json"
    kb.save([r], path)
    doc = json.loads(path.read_text())
    assert doc["schema_version"] == 1 and doc["points"][0]["implementation"] == "spin"
    peaks = tmp_path / "peaks.json"
    peaks.write_text(json.dumps({"version": 1, "device": "test", "source": "measured",
                                 "bandwidth_bytes_per_s": 1e11, "compute_flops_per_s": {"fp32": 1e12}}))
    out = subprocess.run([os.environ["KPERF_BIN"], "roofline", path, "--peaks", peaks, "-o", tmp_path / "r.svg"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "r.svg").read_text().startswith("<svg")


def test_saved_results_are_a_kperf_bench_baseline(tmp_path, root):
    # A baseline claiming the example's point took 1 ns: the CLI's own run
    # must be judged a regression against it (exit status 3).
    r = kb.benchmark(lambda: None, params={"n": 4096}, name="mlir", **FAST)
    r["point"]["samples_ns"] = [1.0 + 0.01 * i for i in range(len(r["point"]["samples_ns"]))]
    base = tmp_path / "base.json"
    kb.save([r], base)
    out = subprocess.run([os.environ["KPERF_BIN"], "bench", root / "examples/bench/fma_chain.toml",
                          "--baseline", base, "-o", tmp_path / "new.json", "--min-time", "0.05",
                          "--timeout", "2", "--max-noise", "0.05", "--no-flush", "--quiet"], capture_output=True, text=True)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "REGRESSION" in out.stdout + out.stderr


def test_parametrize_sweeps_unaligned_sizes(tmp_path, capsys):
    @kb.parametrize({"n": [127, 513], "scale": [1, 2]}, flops=lambda n, scale: 2.0 * n,
                    out=tmp_path / "sweep.json", **{**FAST, "max_noise": 0.5, "timeout": 1.0})
    def work(n, scale):
        return {"short": lambda: spin(1e-5 * scale), "long": lambda: spin(2e-5 * scale)}

    sweep = work()
    assert len(sweep.results) == 8
    assert {(r["params"]["n"], r["name"]) for r in sweep.results} == \
        {(n, i) for n in (127, 513) for i in ("short", "long")}
    printed = capsys.readouterr().out
    assert "n=127" in printed and "| 513 |" in printed and "```json" in printed
    assert json.loads((tmp_path / "sweep.json").read_text())["speedups"]


def test_bad_work_is_refused_before_measuring():
    start = time.perf_counter()
    with pytest.raises(ValueError, match="flops must be finite and >= 0"):
        kb.benchmark(spin, 0.0, flops=-1.0, **{**FAST, "min_time": 5.0, "timeout": 10.0})
    assert time.perf_counter() - start < 1.0


def test_sweep_markdown_keeps_one_cell_per_value():
    """A `|` in a parameter split its row into extra columns and a newline
    ended the table (found by an adversarial pass, 2026-11-27)."""
    sweep = kb.parametrize({"layout": ["a|b", "row\nmajor"]}, show=False, **FAST)(
        lambda layout: (lambda: None))()
    table = sweep.markdown().split("\n\n")[0].splitlines()
    assert len(table) == 4
    columns = [len(re.findall(r"(?<!\\)\|", line)) for line in table]
    assert columns == [columns[0]] * 4
    assert "| a\\|b |" in table[2] and "| row\\nmajor |" in table[3]


@pytest.mark.parametrize("params, message", [
    ({"n": float("nan")}, "params: `n` = nan is not a finite number"),
    ({"n": float("inf")}, "params: `n` = inf is not a finite number"),
    ({"n": 2**64}, "params: `n` = 18446744073709551616 is beyond a 64-bit integer"),
])
def test_parameters_kperf_files_cannot_hold_are_refused_by_name(params, message):
    """NaN reached the core as 'expected value at line 1 column 7', and 2**64
    and 2**64 + 1 read as one point (adversarial pass, 2026-11-28)."""
    with pytest.raises(ValueError, match=re.escape(message)):
        kb.benchmark(lambda: None, params=params, **FAST)


def test_a_warm_up_count_beyond_the_core_is_refused_by_name():
    with pytest.raises(ValueError, match="warmup must be at most"):
        kb.benchmark(lambda: None, **{**FAST, "warmup": 1e30})
