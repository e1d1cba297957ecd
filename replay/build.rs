//! Generates the Rust types of the Perfetto trace schema kperf writes
//! (`proto/perfetto_trace.binpb`: a subset of Perfetto's official
//! `perfetto_trace.proto`, made by `scripts/perfetto-proto.py`) with
//! prost-build. The schema is a compiled descriptor, so no `protoc` is needed.

use prost::Message;

fn main() {
    let path = "proto/perfetto_trace.binpb";
    println!("cargo:rerun-if-changed={path}");
    let bytes = std::fs::read(path).expect("replay/proto/perfetto_trace.binpb is part of the repo");
    let fds = prost_types::FileDescriptorSet::decode(bytes.as_slice())
        .expect("proto/perfetto_trace.binpb is a FileDescriptorSet");
    prost_build::Config::new()
        .compile_fds(fds)
        .expect("prost-build generates the Perfetto trace types");
}
