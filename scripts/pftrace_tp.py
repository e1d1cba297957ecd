#!/usr/bin/env python3
"""Loads a trace into Perfetto's trace processor (the engine ui.perfetto.dev
runs, see scripts/trace-processor-shell) and prints what it imported as JSON.

Fails (exit 1) when the trace processor cannot load the file or when its
`stats` table reports an import error or data loss (a malformed packet, a
slice end without a begin, an unknown track, ...): what the UI would then
drop or show wrongly. Also fails when a slice begins and never ends.

Prints {"engine", "slices", "tracks", "flows", "unfinished", "args": {key:
[values]} of kperf's run-metadata instant, "import_stats": [[name, idx,
severity, value]]}; with --slices also "slice_list": [[track, name, ts,
dur]], instants included (dur 0).
--summary prints one line instead.

Usage: pftrace_tp.py TRACE [--slices | --summary]
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHELL = os.path.join(ROOT, "scripts", "trace-processor-shell")


def fail(msg):
    print(f"pftrace_tp: {msg}", file=sys.stderr)
    sys.exit(1)


def rows(tp, sql):
    return [r.__dict__ for r in tp.query(sql)]


def main():
    if len(sys.argv) < 2:
        fail("usage: pftrace_tp.py TRACE [--slices | --summary]")
    path = sys.argv[1]
    from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig

    try:
        tp = TraceProcessor(trace=path, config=TraceProcessorConfig(bin_path=SHELL))
    except Exception as e:  # the engine's own message says what it could not parse
        fail(f"{path}: the trace processor did not load it: {e}")
    try:
        bad = rows(
            tp,
            "select name, idx, severity, value from stats "
            "where value > 0 and severity in ('error', 'data_loss')",
        )
        out = {
            "engine": "Perfetto v52.0-6b9586def (WebAssembly)",
            "slices": rows(tp, "select count(*) as n from slice")[0]["n"],
            "tracks": rows(tp, "select count(*) as n from track")[0]["n"],
            "flows": rows(tp, "select count(*) as n from flow")[0]["n"],
            # A begin without its end: the UI draws it to the end of the trace.
            "unfinished": rows(tp, "select count(*) as n from slice where dur < 0")[0]["n"],
            "import_stats": [[r["name"], r["idx"], r["severity"], r["value"]] for r in bad],
            "args": {},
        }
        for r in rows(
            tp,
            "select key, display_value from args where arg_set_id = "
            "(select arg_set_id from slice where name = 'kperf replay' limit 1)",
        ):
            out["args"].setdefault(r["key"], []).append(r["display_value"])
        if "--slices" in sys.argv:
            out["slice_list"] = [
                [r["track"], r["name"], r["ts"], r["dur"]]
                for r in rows(
                    tp,
                    "select t.name as track, s.name as name, s.ts as ts, s.dur as dur "
                    "from slice s join track t on s.track_id = t.id order by s.ts, s.id",
                )
            ]
    finally:
        tp.close()
    if bad:
        fail(f"{path}: the trace processor reports import problems: {out['import_stats']}")
    if out["unfinished"]:
        fail(f"{path}: {out['unfinished']} slices begin and never end")
    if "--summary" in sys.argv:
        print(
            f"pftrace_tp: {path}: {out['slices']} slices on {out['tracks']} tracks, "
            f"{out['flows']} flows, no import errors ({out['engine']}, as ui.perfetto.dev loads it)"
        )
    else:
        json.dump(out, sys.stdout)
        print()


if __name__ == "__main__":
    main()
