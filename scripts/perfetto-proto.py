#!/usr/bin/env python3
"""Writes replay/proto/perfetto_trace.binpb: the part of Perfetto's official
trace schema that kperf writes, as a FileDescriptorSet for prost-build.

Origin: protos/perfetto/trace/perfetto_trace.proto of Perfetto (Apache-2.0),
as compiled into the `perfetto` Python package (version pinned in
scripts/versions.sh as PERFETTO_VERSION; setup installs it into
.tools/triton-venv). Messages are copied from that descriptor unchanged
except that the large ones keep only the fields below (same names, numbers
and types; a subset of a message's fields is the same wire format), and only
the types reachable from `Trace` remain.

Run: .tools/triton-venv/bin/python scripts/perfetto-proto.py
"""
import pathlib
import sys

from google.protobuf import descriptor_pb2
from perfetto.protos.perfetto.trace import perfetto_trace_pb2

PACKAGE = "perfetto.protos"
KEEP_FIELDS = {
    "TracePacket": {
        "timestamp", "timestamp_clock_id", "track_event", "track_descriptor",
        "clock_snapshot", "trusted_packet_sequence_id", "interned_data",
        "sequence_flags", "incremental_state_cleared", "trace_packet_defaults",
        "first_packet_on_sequence", "previous_packet_dropped",
    },
    "TrackEvent": {
        "category_iids", "categories", "name_iid", "name", "type", "track_uuid",
        "counter_value", "double_counter_value", "flow_ids",
        "terminating_flow_ids", "debug_annotations", "source_location",
        "source_location_iid",
    },
    "InternedData": {
        "event_categories", "event_names", "debug_annotation_names",
        "source_locations",
    },
    "TrackDescriptor": {
        "uuid", "parent_uuid", "name", "description", "process", "thread",
        "counter", "child_ordering", "sibling_order_rank",
    },
    "DebugAnnotation": {
        "name_iid", "name", "bool_value", "uint_value", "int_value",
        "double_value", "string_value",
    },
    "TracePacketDefaults": {"timestamp_clock_id", "track_event_defaults"},
}


def main() -> int:
    src = descriptor_pb2.FileDescriptorProto()
    perfetto_trace_pb2.DESCRIPTOR.CopyToProto(src)

    # Index every message and enum by full name, with its proto object.
    messages, enums = {}, {}

    def index(prefix, msgs, ens):
        for e in ens:
            enums[f"{prefix}.{e.name}"] = e
        for m in msgs:
            full = f"{prefix}.{m.name}"
            messages[full] = m
            index(full, m.nested_type, m.enum_type)

    index(f".{PACKAGE}", src.message_type, src.enum_type)

    for short, keep in KEEP_FIELDS.items():
        m = messages[f".{PACKAGE}.{short}"]
        missing = keep - {f.name for f in m.field}
        if missing:
            sys.exit(f"{short} has no field(s) {sorted(missing)} in this Perfetto version")
        kept = [f for f in m.field if f.name in keep]
        del m.field[:]
        m.field.extend(kept)
        # Drop oneofs left without fields, renumbering the others.
        used = sorted({f.oneof_index for f in m.field if f.HasField("oneof_index")})
        remap = {old: new for new, old in enumerate(used)}
        decls = [m.oneof_decl[i] for i in used]
        del m.oneof_decl[:]
        m.oneof_decl.extend(decls)
        for f in m.field:
            if f.HasField("oneof_index"):
                f.oneof_index = remap[f.oneof_index]

    # Types reachable from Trace (a message's parents stay as namespaces).
    # SequenceFlags names the bits of the uint32 `sequence_flags`.
    reachable, todo = set(), [f".{PACKAGE}.Trace", f".{PACKAGE}.TracePacket.SequenceFlags"]
    while todo:
        name = todo.pop()
        if name in reachable:
            continue
        reachable.add(name)
        if name in messages:
            for f in messages[name].field:
                if f.type_name:
                    todo.append(f.type_name)
    needed = set(reachable)
    for name in reachable:
        parts = name.split(".")
        for i in range(3, len(parts)):
            needed.add(".".join(parts[:i]))

    def prune(prefix, msgs, ens):
        keep_e = [e for e in ens if f"{prefix}.{e.name}" in needed]
        del ens[:]
        ens.extend(keep_e)
        keep_m = [m for m in msgs if f"{prefix}.{m.name}" in needed]
        del msgs[:]
        msgs.extend(keep_m)
        for m in msgs:
            prune(f"{prefix}.{m.name}", m.nested_type, m.enum_type)
            # Extension ranges and reserved names do not matter to a writer.
            del m.extension_range[:]
            del m.extension[:]

    prune(f".{PACKAGE}", src.message_type, src.enum_type)
    del src.extension[:]
    del src.service[:]
    src.ClearField("source_code_info")

    out = descriptor_pb2.FileDescriptorSet()
    out.file.append(src)
    path = pathlib.Path(__file__).resolve().parent.parent / "replay/proto/perfetto_trace.binpb"
    path.write_bytes(out.SerializeToString(deterministic=True))
    kept = sorted(n.rsplit(".", 1)[1] if n.count(".") == 3 else n[len(PACKAGE) + 2:] for n in reachable)
    print(f"wrote {path} ({path.stat().st_size} bytes): {len(kept)} types")
    print(" ".join(kept))
    return 0


if __name__ == "__main__":
    sys.exit(main())
