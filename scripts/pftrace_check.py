#!/usr/bin/env python3
"""Reads a .pftrace with Perfetto's official trace schema (the `perfetto`
Python package's perfetto_trace_pb2) the way trace_processor interprets it,
checks it, and prints what it holds as JSON.

Checks: the file parses as a `perfetto.protos.Trace` with no unknown fields;
every track a packet names was described, every parent exists; interned names
and source locations resolve in their sequence's incremental state (cleared
by SEQ_INCREMENTAL_STATE_CLEARED); on every track, slice begins and ends
balance and nest in file order with non-decreasing timestamps; every flow is
started once and terminated once.

Prints {"packets", "tracks", "slice_count", "instant_count", "counters":
{track: n}, "flows", "metadata": {name: [values]}}; with --slices also
"slices": [[track, name, ts, dur, file, line]] and "instants": [[track,
name, ts]].

Usage: pftrace_check.py TRACE.pftrace [--slices]   (exit 1 on a failed check)
"""
import json
import sys

from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb

SEQ_INCREMENTAL_STATE_CLEARED = 1


def fail(msg):
    print(f"pftrace_check: {msg}", file=sys.stderr)
    sys.exit(1)


def unknown_fields(msg, path="Trace"):
    """Fields the official schema does not know (a wrong number or type)."""
    from google.protobuf.unknown_fields import UnknownFieldSet

    if len(UnknownFieldSet(msg)):
        yield path
    for field, value in msg.ListFields():
        if field.type != field.TYPE_MESSAGE:
            continue
        values = value if field.is_repeated else [value]
        for i, v in enumerate(values):
            yield from unknown_fields(v, f"{path}.{field.name}[{i}]")


def main():
    path = sys.argv[1]
    want_slices = "--slices" in sys.argv
    trace = pb.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    for where in unknown_fields(trace):
        fail(f"unknown field(s) at {where}")

    tracks = {}  # uuid -> (name, parent)
    names, locations = {}, {}  # per sequence: iid -> value
    open_slices = {}  # track uuid -> [(ts, name, loc)]
    last_ts = {}
    slices, instants, counters, metadata = [], [], {}, {}
    flows_started, flows_ended = {}, {}
    for i, p in enumerate(trace.packet):
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & SEQ_INCREMENTAL_STATE_CLEARED:
            names[seq], locations[seq] = {}, {}
        if p.HasField("interned_data"):
            for n in p.interned_data.event_names:
                names.setdefault(seq, {})[n.iid] = n.name
            for l in p.interned_data.source_locations:
                locations.setdefault(seq, {})[l.iid] = (l.file_name, l.line_number, l.function_name)
        if p.HasField("track_descriptor"):
            t = p.track_descriptor
            if t.uuid in tracks:
                fail(f"packet {i}: track {t.uuid} described twice")
            name = t.name or (t.process.process_name if t.HasField("process") else "")
            tracks[t.uuid] = (name, t.parent_uuid if t.HasField("parent_uuid") else None)
        if not p.HasField("track_event"):
            continue
        e = p.track_event
        if e.track_uuid not in tracks:
            fail(f"packet {i}: event on undescribed track {e.track_uuid}")
        track = tracks[e.track_uuid][0]
        if e.type == pb.TrackEvent.TYPE_COUNTER:
            counters[track] = counters.get(track, 0) + 1
            continue
        ts = p.timestamp
        if e.type == pb.TrackEvent.TYPE_INSTANT:
            for a in e.debug_annotations:
                metadata.setdefault(a.name, []).append(a.string_value)
            if e.HasField("name_iid"):
                if e.name_iid not in names.get(seq, {}):
                    fail(f"packet {i}: name iid {e.name_iid} not interned on sequence {seq}")
                instants.append([track, names[seq][e.name_iid], ts])
            for f in e.terminating_flow_ids:
                if f in flows_ended:
                    fail(f"packet {i}: flow {f} terminated twice")
                flows_ended[f] = i
            continue
        if ts < last_ts.get(e.track_uuid, 0):
            fail(f"packet {i}: time goes back on track {track!r} ({ts} < {last_ts[e.track_uuid]})")
        last_ts[e.track_uuid] = ts
        stack = open_slices.setdefault(e.track_uuid, [])
        if e.type == pb.TrackEvent.TYPE_SLICE_BEGIN:
            if e.HasField("name_iid"):
                if e.name_iid not in names.get(seq, {}):
                    fail(f"packet {i}: name iid {e.name_iid} not interned on sequence {seq}")
                name = names[seq][e.name_iid]
            else:
                name = e.name
            loc = None
            if e.HasField("source_location_iid"):
                if e.source_location_iid not in locations.get(seq, {}):
                    fail(f"packet {i}: source location {e.source_location_iid} not interned")
                loc = locations[seq][e.source_location_iid]
            for f in e.flow_ids:
                if f in flows_started:
                    fail(f"packet {i}: flow {f} started twice")
                flows_started[f] = i
            for f in e.terminating_flow_ids:
                if f in flows_ended:
                    fail(f"packet {i}: flow {f} terminated twice")
                flows_ended[f] = i
            stack.append((ts, name, loc))
        elif e.type == pb.TrackEvent.TYPE_SLICE_END:
            if not stack:
                fail(f"packet {i}: slice end without begin on track {track!r}")
            start, name, loc = stack.pop()
            slices.append([track, name, start, ts - start, loc[0] if loc else None, loc[1] if loc else None])
        else:
            fail(f"packet {i}: unexpected event type {e.type}")
    for uuid, (name, parent) in tracks.items():
        if parent is not None and parent not in tracks:
            fail(f"track {name!r} has a parent {parent} never described")
    for uuid, stack in open_slices.items():
        if stack:
            fail(f"track {tracks[uuid][0]!r}: {len(stack)} slice(s) never ended")
    if set(flows_started) != set(flows_ended):
        fail(f"flows started {len(flows_started)} and terminated {len(flows_ended)} differ")
    out = {
        "packets": len(trace.packet),
        "tracks": len(tracks),
        "slice_count": len(slices),
        "instant_count": len(instants),
        "counters": counters,
        "flows": len(flows_started),
        "metadata": metadata,
    }
    if want_slices:
        out["slices"] = slices
        out["instants"] = instants
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
