"""Profiles and feedback in-process, checked against what the kperf CLI
computes from the same files (the CLI is the reference: same Rust code,
independent entry point)."""

import os
import json
import shutil
import subprocess

import pytest

import kperf

KPROF = "reduce_simt.kprof"


def cli(*args):
    import os
    return subprocess.run([os.environ["KPERF_BIN"], *map(str, args)], capture_output=True, text=True)


def test_regions_equal_the_cli_feedback(fixtures):
    p = kperf.load_profile(fixtures / KPROF)
    fb = kperf.read_feedback(fixtures / "reduce_simt.feedback.json")
    assert p.regions == fb.regions
    assert [r.name for r in p.regions] == ["kernel", "tree", "loop@29:7", "loop@20:14"]
    assert (p.kernel, p.target, p.ctas, p.grid, p.block) == ("reduce", "simt", 4, (4, 1, 1), (128, 1, 1))
    k = p.region("kernel")
    assert k.count == 16 and k.kind == "kernel"  # 4 CTAs x 4 warps
    assert k.p50_ns is not None and k.p50_ns <= k.p95_ns <= k.max_ns
    assert k.p50_cycles is not None and 0 < k.p50_cycles <= k.p95_cycles
    assert 0 < k.share <= 1 and 0 < k.critical_path_share <= 1 and k.critical_path_fraction == 1.0


def test_summary_is_the_cli_summary(fixtures, tmp_path):
    p = kperf.load_profile(fixtures / KPROF)
    out = cli("replay", fixtures / KPROF, "-o", tmp_path / "t.json", "--summary")
    assert out.returncode == 0, out.stderr
    assert p.summary() == out.stdout


def test_instances_agree_with_region_figures(fixtures):
    np = pytest.importorskip("numpy")
    p = kperf.load_profile(fixtures / KPROF)
    inst = p.instances()
    assert inst["cta"].dtype == np.uint32 and inst["duration_ns"].dtype == np.float64
    assert len(inst["cta"]) == sum(r.count for r in p.regions) == 64
    for r in p.regions:
        d = p.instances(r.name)["duration_ns"]
        assert len(d) == r.count
        assert d.mean() == pytest.approx(r.mean_ns, rel=1e-9)
        assert set(p.instances(r.name)["region_name"]) == {r.name}
    assert np.all(inst["end_ns"] >= inst["start_ns"])
    inst["start_ns"] -= inst["start_ns"].min()  # columns are the caller's to change
    # Row by row, the names are those of the rows' region ids, as the
    # array path (no numpy) names them.
    names = {r.id: r.name for r in p.regions}
    assert list(inst["region_name"]) == [names[int(i)] for i in inst["region"]]
    assert list(inst["region_name"]) == list(p.instances(as_="array")["region_name"])
    assert inst["region_name"].dtype.kind == "U"


def test_tables_without_numpy(fixtures):
    p = kperf.load_profile(fixtures / KPROF)
    inst = p.instances("kernel", as_="array")
    assert inst["duration_ns"].typecode == "d" and len(inst["duration_ns"]) == 16
    ctas = p.cta_table(as_="array")
    assert list(ctas["cta"]) == [0, 1, 2, 3]
    units = p.unit_table(as_="array")
    assert len(units["unit"]) == 16 and sum(units["records"]) == 128 and sum(units["records_lost"]) == 0
    assert len(p.async_wait_table(as_="array")["cta"]) == 0


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_frames(fixtures, kind):
    pytest.importorskip(kind)  # scripts/setup.sh installs both
    p = kperf.load_profile(fixtures / KPROF)
    df = p.instances(as_=kind)
    assert len(df) == 64 and set(df["region_name"]) == {"kernel", "tree", "loop@29:7", "loop@20:14"}
    k = p.instances("kernel", as_=kind)
    assert len(k) == 16 and float(k["duration_ns"].mean()) == pytest.approx(p.region("kernel").mean_ns)
    assert len(p.cta_table(as_=kind)) == 4


def test_raw_buffer_with_metadata_decodes_the_same_records(fixtures):
    raw = kperf.load_profile(fixtures / "reduce_simt.buf", meta=fixtures / "reduce_simt.kperf.json", grid=[4])
    ref = kperf.load_profile(fixtures / KPROF)
    # The raw buffer carries no calibration or uninstrumented timing, so only
    # what does not depend on correction must match.
    assert [(r.name, r.count, r.mean_raw_cycles) for r in raw.regions] == \
        [(r.name, r.count, r.mean_raw_cycles) for r in ref.regions]


def test_raw_buffer_options_need_metadata(fixtures):
    with pytest.raises(kperf.KperfError, match="give its metadata with meta="):
        kperf.load_profile(fixtures / "reduce_simt.buf", grid=[4])
    with pytest.raises(kperf.KperfError, match="a raw buffer needs meta="):
        kperf.load_profile(fixtures / "reduce_simt.buf")


def test_raw_buffer_grid_must_match(fixtures):
    with pytest.raises(kperf.KperfError, match=r"holds 4 CTA blocks, but grid 3x1x1 records 3"):
        kperf.load_profile(fixtures / "reduce_simt.buf", meta=fixtures / "reduce_simt.kperf.json", grid=[3])


@pytest.mark.parametrize("grid, error", [
    # "22" was read digit by digit as 2x2x1, 4.7 as 4, True as 1, and -4
    # failed as an OverflowError naming no argument (2026-11-27).
    ("22", TypeError), ([4.7], TypeError), ([True], TypeError), ([-4], ValueError),
    ([2**64], ValueError), ([], ValueError), ([1, 1, 1, 1], ValueError),
])
def test_raw_buffer_grid_is_checked(fixtures, grid, error):
    with pytest.raises(error, match="grid"):
        kperf.load_profile(fixtures / "reduce_simt.buf", meta=fixtures / "reduce_simt.kperf.json", grid=grid)


@pytest.mark.parametrize("name", ["t.json", "t.pftrace"])
def test_traces_are_the_cli_traces(fixtures, tmp_path, name):
    p = kperf.load_profile(fixtures / KPROF)
    mine = p.write_trace(tmp_path / ("py-" + name))
    out = cli("replay", fixtures / KPROF, "-o", tmp_path / name)
    assert out.returncode == 0, out.stderr
    assert mine.read_bytes() == (tmp_path / name).read_bytes()
    if name.endswith(".json"):
        assert json.loads(mine.read_text())["traceEvents"]


def test_trace_never_overwrites_the_profile(fixtures, tmp_path):
    copy = tmp_path / KPROF
    shutil.copy(fixtures / KPROF, copy)
    p = kperf.load_profile(copy)
    with pytest.raises(kperf.KperfError, match="refusing to write"):
        p.write_trace(copy)
    assert copy.read_bytes() == (fixtures / KPROF).read_bytes()


def test_proton_dump_is_detected(root):
    p = kperf.load_profile(root / "tests/fixtures/proton/loop.bin")
    assert p.target.startswith("proton:") and p.regions


@pytest.mark.parametrize("cut", [5, 12, 200, 1000])
def test_truncated_profile_names_file_and_offset(fixtures, tmp_path, cut):
    bad = tmp_path / "cut.kprof"
    bad.write_bytes((fixtures / KPROF).read_bytes()[:cut])
    with pytest.raises(kperf.KperfError, match=r"cut\.kprof.*byte \d+"):
        kperf.load_profile(bad, proton=False)


def test_feedback_errors(tmp_path):
    newer = tmp_path / "f.json"
    newer.write_text(json.dumps({"feedback_version": 99, "regions": []}))
    with pytest.raises(kperf.KperfError, match="feedback_version 99 is newer"):
        kperf.read_feedback(newer)
    (tmp_path / "r.json").write_text(json.dumps({"feedback_version": 1, "regions": [1]}))
    with pytest.raises(kperf.KperfError, match="malformed region"):
        kperf.read_feedback(tmp_path / "r.json")
    (tmp_path / "x.json").write_text("[1")
    with pytest.raises(kperf.KperfError, match="not JSON"):
        kperf.read_feedback(tmp_path / "x.json")
    with pytest.raises(kperf.KperfError, match="missing.json"):
        kperf.read_feedback(tmp_path / "missing.json")


@pytest.mark.parametrize("change, message", [
    # Mutations of a real feedback file (adversarial test, 2026-11-27): each
    # gave a RecursionError, a TypeError later, or a silently wrong Region.
    (lambda d: d["regions"][0].update(name=["a"]), "field `name` is \\['a'\\]"),
    (lambda d: d["regions"][0].update(count="many"), "field `count` is 'many'"),
    (lambda d: d["regions"][0].update(mean_ns="fast"), "field `mean_ns` is 'fast'"),
    (lambda d: d["regions"][0].update(count=True), "field `count` is True"),
    (lambda d: d.update(corrections=5), "`corrections` is 5, not a list"),
    (lambda d: d.update(caveats=None), "`caveats` is None, not a list"),
    (lambda d: d.update(unit_time_ns="x"), "`unit_time_ns` is 'x', not a number"),
    (lambda d: d.update(kernel=[1]), "`kernel` is \\[1\\], not a string"),
    (lambda d: d.update(corrections=[1, 2]), "`corrections\\[0\\]` is 1, not a string"),
    (lambda d: d.update(overlaps=[3]), "`overlaps\\[0\\]` is 3, not an object"),
    (lambda d: d.update(feedback_version=True), "no feedback_version"),
    # Values of the right type that no replay writes (adversarial test,
    # 2026-11-28): they were accepted.
    (lambda d: d["regions"][0].update(count=-5), "field `count` is -5: not a finite number >= 0"),
    (lambda d: d["regions"][0].update(mean_ns=-1.0), "field `mean_ns` is -1.0: not a finite number >= 0"),
    (lambda d: d["regions"][0].update(mean_ns=float("nan")), "field `mean_ns` is nan"),
    (lambda d: d["regions"][0].update(share=float("inf")), "field `share` is inf"),
    (lambda d: d.update(feedback_version=0), "feedback_version 0: versions start at 1"),
])
def test_feedback_fields_of_the_wrong_type(fixtures, tmp_path, change, message):
    doc = json.loads((fixtures / "reduce_simt.feedback.json").read_text())
    change(doc)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(kperf.KperfError, match=message):
        kperf.read_feedback(bad)


def test_feedback_nested_too_deeply_or_too_big(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(kperf.KperfError, match="nested too deeply"):
        kperf.read_feedback(deep)
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate((1 << 30) + 1)
    with pytest.raises(kperf.KperfError, match="1 GiB"):
        kperf.read_feedback(big)


def test_unknown_region_lists_the_known_ones(fixtures):
    with pytest.raises(KeyError, match="regions: kernel, loop@20:14"):
        kperf.read_feedback(fixtures / "reduce_simt.feedback.json").region("nope")


def test_check_and_run_time_are_the_cli_feedbacks(root, fixtures, tmp_path):
    # `kperf run --check` on the SIMT target takes a GPU check's steps: the
    # plain launch (run time) and the kernel region alone (the truth).
    prof = tmp_path / "checked.kprof"
    out = cli("run", root / "examples/reduce.mlir", "--target", "simt", "--spec", root / "examples/reduce.toml",
              "--regions", "kernel,iterations", "--check", "-o", prof)
    assert out.returncode == 0, out.stderr
    fb_path = tmp_path / "checked.feedback.json"
    out = cli("replay", prof, "-o", tmp_path / "t.json", "--json", fb_path)
    assert out.returncode == 0, out.stderr
    p = kperf.load_profile(prof)
    fb = kperf.read_feedback(fb_path)
    assert p.check is not None and p.check == fb.check
    assert p.check["region"] == "kernel" and p.check["truth_ticks"] > 0
    assert p.run_time is not None and p.run_time == fb.run_time
    assert p.run_time["uninstrumented_ns"] > 0 and p.run_time["profiled_ns"] > 0
    # A profile kperf run did not check has neither.
    plain = kperf.load_profile(fixtures / KPROF)
    assert plain.check is None and plain.run_time is None


def test_critical_path_takes_a_linear_cta_id(fixtures):
    p = kperf.load_profile(fixtures / KPROF)
    assert p.critical_path(0) is not None
    with pytest.raises(ValueError, match="cta"):
        p.critical_path(-1)  # was an OverflowError from the extension
    with pytest.raises(TypeError, match="cta"):
        p.critical_path(1.5)
    assert p.critical_path(2**70) is None
    # CTA ids are 32-bit: ids from 2**32 up were an OverflowError
    # (adversarial test, 2026-11-28).
    assert p.critical_path(2**32) is None and p.critical_path(2**63) is None
    # The package's own tables hold numpy ids (refused before, 2026-11-27).
    np = pytest.importorskip("numpy")
    assert p.critical_path(np.uint32(0)) == p.critical_path(0)


def test_a_name_two_regions_share_is_refused_not_picked(fixtures, tmp_path):
    doc = json.loads((fixtures / "reduce_simt.feedback.json").read_text())
    for r in doc["regions"]:
        if r["name"] == "tree":
            r["name"] = "kernel"
    path = tmp_path / "dup.feedback.json"
    path.write_text(json.dumps(doc))
    fb = kperf.read_feedback(path)
    with pytest.raises(KeyError, match="names 2 regions"):
        fb.region("kernel")
    assert fb.region("loop@29:7").name == "loop@29:7"


def test_a_region_without_instances_has_no_durations(fixtures, tmp_path):
    # count 0 (every record lost): the feedback writes its durations as
    # null, and they read as None, never 0.0.
    doc = json.loads((fixtures / "reduce_simt.feedback.json").read_text())
    r = doc["regions"][0]
    r.update(count=0, mean_ns=None, p95_ns=None, mean_cycles=None, mean_raw_cycles=None)
    path = tmp_path / "lost.feedback.json"
    path.write_text(json.dumps(doc))
    lost = kperf.read_feedback(path).region(r["name"])
    assert lost.count == 0 and lost.mean_ns is None and lost.p95_ns is None


def test_a_named_pipe_or_device_is_refused_not_waited_on(tmp_path):
    # Opening a FIFO waited for a writer forever; /dev/zero never ended
    # (read_feedback reached 15 GB in 10 s). The CLI refused both.
    fifo = tmp_path / "p.kprof"
    os.mkfifo(fifo)
    with pytest.raises(kperf.KperfError, match="a named pipe"):
        kperf.load_profile(fifo)
    with pytest.raises(kperf.KperfError, match="a named pipe"):
        kperf.read_feedback(fifo)
    with pytest.raises(kperf.KperfError, match="not a regular file"):
        kperf.read_feedback("/dev/zero")
    with pytest.raises(kperf.KperfError, match="a directory"):
        kperf.load_profile(tmp_path)
