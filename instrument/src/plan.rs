//! Decisions both instrumentation paths (MLIR and LLVM IR) make the same
//! way: how many units and ring slots a kernel's profile gets, and which id
//! and parent each region gets. Keeping them here is what makes the two
//! paths produce the same buffer for the same kernel.

use crate::error::{InstrumentError, Result};
use crate::options::{InstrumentOptions, Target};
use kperf_dialects::abi::{RegionId, Strategy, MAX_REGION_ID};
use kperf_dialects::meta::{BufferKind, RegionKind, RegionMeta};
use std::collections::HashMap;

/// The shape of one kernel's profile: units per CTA and slots per unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentPlan {
    pub cta_threads: u32,
    pub unit_threads: u32,
    /// Segments per CTA block (sampled units only).
    pub units: u32,
    /// Ring slots per unit (a power of two).
    pub slots: u32,
    /// Slots per unit in the global block (== slots for circular).
    pub global_slots: u32,
}

/// Size the segments of `kernel` (block shape `block`, `static_shared` bytes
/// of its own shared memory, `not_sized` naming shared buffers whose size is
/// unknown) for `opts`: the user's slot count, or the largest that fits the
/// shared memory the kernel leaves free.
pub fn plan_segments(
    opts: &InstrumentOptions,
    kernel: &str,
    block: [u32; 3],
    static_shared: u64,
    not_sized: &[String],
) -> Result<SegmentPlan> {
    let cta_threads = block.iter().product::<u32>();
    let unit_threads = opts.target.unit_threads(opts.granularity, cta_threads);
    let all_units = if opts.target.is_host() {
        1
    } else {
        cta_threads.div_ceil(unit_threads)
    };
    for (i, u) in opts.sample_units.iter().enumerate() {
        if opts.sample_units[..i].contains(u) {
            // Each entry is a segment: a repeated unit left a second,
            // empty segment named like the first (or unit 0's, for an
            // unsampled unit 0) in every CTA.
            return Err(InstrumentError::Option(format!(
                "--sample-units names unit {u} twice: list each unit once"
            )));
        }
        if *u >= all_units {
            return Err(InstrumentError::Option(format!(
                "sampled unit {u} does not exist: a CTA of {cta_threads} threads has {all_units} {} units",
                opts.granularity.name()
            )));
        }
    }
    let units = if opts.sample_units.is_empty() {
        all_units
    } else {
        opts.sample_units.len() as u32
    };
    // Shared memory left for the segments: the device's capacity less what
    // the kernel uses statically and the dynamic shared memory it launches with.
    let capacity = opts.target.shared_capacity(opts.shared_capacity) as u64;
    let used = static_shared + opts.dynamic_shared as u64;
    // The rings are static shared memory, which ptxas caps at 48 KiB per
    // kernel whatever the launch opts in to.
    let static_room = match opts.target {
        Target::Nvptx { simt: false, .. } => {
            PTXAS_STATIC_SHARED_LIMIT.saturating_sub(static_shared)
        }
        _ => u64::MAX,
    };
    let available = capacity.saturating_sub(used).min(static_room);
    let on_device_shared = opts.buffer == BufferKind::Shared && !opts.target.is_host();
    // The init stamp slot sits after the rings (templates::INIT_STAMP_BYTES),
    // and a trash ring after it where records store unpredicated.
    let stamp = crate::mlir::templates::INIT_STAMP_BYTES;
    let trash = crate::mlir::templates::uses_trash_ring(&opts.target, opts.buffer, opts.strategy);
    let budget = if on_device_shared {
        (opts.shared_budget as u64).min(available.saturating_sub(stamp))
    } else {
        opts.shared_budget as u64
    };
    // The budget is the recording rings'; the trash ring comes on top.
    let mut slots = choose_slots(opts, units, budget)?;
    // ptxas may place kperf's 1024-aligned shared memory after the kernel's
    // own, leaving a gap up to the next multiple of 1024.
    let align_gap = if on_device_shared && matches!(opts.target, Target::Nvptx { .. }) {
        let a = crate::mlir::templates::SHARED_ALIGN;
        (a - static_shared % a) % a
    } else {
        0
    };
    let shared_bytes = |slots: u32| {
        crate::mlir::templates::shared_layout(
            &opts.target,
            opts.buffer,
            opts.strategy,
            units,
            slots,
        )
        .bytes
            + align_gap
    };
    // Sized automatically, rings shrink until the whole profile fits: the
    // budget above counts neither the trash ring nor the padding to 1024
    // bytes, and a kernel with 9948 bytes free got an error (or, with
    // --buffer auto, global memory) where 64 slots fit.
    if on_device_shared && opts.slots.is_none() {
        while slots > 8 && shared_bytes(slots) > available {
            slots /= 2;
        }
    }
    let global_slots = match opts.strategy {
        Strategy::Circular => slots,
        // Even, so every CTA block stays 16-byte aligned (abi::RECORDS_ALIGN).
        Strategy::Flush => {
            let g = opts.flush_slots.unwrap_or(slots.saturating_mul(16));
            crate::options::check_flush_slots(g)?;
            // A given size is kept or refused, never raised in silence
            // (`--flush-slots 8` kept 1024 records a unit on the host).
            let staged = !crate::mlir::templates::flushes_in_place(opts.strategy, opts.buffer);
            if let Some(g) = opts.flush_slots {
                // Staged: whole rings are copied, so the segment holds a
                // whole number of them (6 slots for rings of 4: the second
                // copy wrote past the profile buffer). Straight to the
                // segment: the segment is the ring, a power of two.
                let fits = if staged {
                    g >= slots && g.is_multiple_of(slots)
                } else {
                    g.is_power_of_two()
                };
                if !fits {
                    return Err(InstrumentError::Option(if staged {
                        format!(
                            "--flush-slots {g}: a unit's global segment takes whole rings of \
                             {slots} records (--slots), copied at once: a multiple of {slots}"
                        )
                    } else {
                        format!(
                            "--flush-slots {g}: with --buffer global records go straight to the \
                             unit's segment, which is its ring: a power of two"
                        )
                    }));
                }
            }
            if staged {
                g.max(slots).next_multiple_of(2)
            } else {
                // Straight into the segment: the ring's size is not its.
                g.next_multiple_of(2)
            }
        }
    };
    // Flushed into a global buffer, records go straight to their segment
    // (templates::flushes_in_place): the segment is the ring.
    let slots = if crate::mlir::templates::flushes_in_place(opts.strategy, opts.buffer) {
        global_slots
    } else {
        slots
    };
    if on_device_shared {
        let needed = shared_bytes(slots);
        if needed > available {
            let trash_note = if trash { " (and one trash ring)" } else { "" };
            let pad_note = match (matches!(opts.target, Target::Nvptx { .. }), align_gap) {
                (false, _) => String::new(),
                (true, 0) => ", padded to a multiple of 1024 bytes (dynamic shared memory keeps its alignment)".to_string(),
                (true, gap) => format!(
                    ", padded to a multiple of 1024 bytes (dynamic shared memory keeps its alignment), \
                     and up to {gap} bytes ptxas may leave between the kernel's shared memory and kperf's"
                ),
            };
            let mut detail = format!(
                "{units} units{trash_note} × {slots} slots × 8 bytes + {stamp} bytes of init stamps{pad_note} for kernel `{kernel}`; the device has {capacity}, the kernel uses {static_shared} statically and {} dynamically (--dynamic-shared)",
                opts.dynamic_shared
            );
            if static_room < capacity.saturating_sub(used) {
                detail.push_str(&format!(
                    "; ptxas allows {PTXAS_STATIC_SHARED_LIMIT} bytes of static shared memory per kernel, the rings included"
                ));
            }
            if !not_sized.is_empty() {
                detail.push_str(&format!("; not counted: {}", not_sized.join(", ")));
            }
            detail.push_str("; use fewer --slots, --sample-units, or --buffer global");
            return Err(InstrumentError::SharedMemory {
                needed,
                available,
                detail,
            });
        }
    }
    Ok(SegmentPlan {
        cta_threads,
        unit_threads,
        units,
        slots,
        global_slots,
    })
}

/// Run `instrument` with `opts`; under `--buffer auto` (shared rings
/// asked for, `buffer_auto` set), a module whose rings do not fit the shared
/// memory a kernel leaves is instrumented again recording straight into
/// global memory. The choice is the output metadata's `buffer`.
pub fn with_buffer_choice<T>(
    opts: &InstrumentOptions,
    mut instrument: impl FnMut(&InstrumentOptions) -> Result<T>,
) -> Result<T> {
    if !opts.buffer_auto || opts.buffer != BufferKind::Shared {
        return instrument(opts);
    }
    match instrument(opts) {
        Err(InstrumentError::SharedMemory { .. }) => {
            let mut global = opts.clone();
            global.buffer = BufferKind::Global;
            global.buffer_auto = false;
            instrument(&global)
        }
        done => done,
    }
}

/// Static shared memory ptxas accepts in one kernel (bytes).
const PTXAS_STATIC_SHARED_LIMIT: u64 = 48 * 1024;

/// Pick the slot count: the user's, or the largest power of two whose
/// segments fit `budget` bytes (at least 8, at most 1024).
/// Most records one unit's segment holds (128 MiB of records per unit):
/// beyond it sizes overflow the 32-bit offsets the lowering uses long
/// before any device could hold the buffer.
pub const MAX_SLOTS: u32 = 1 << 24;

fn choose_slots(opts: &InstrumentOptions, units: u32, budget: u64) -> Result<u32> {
    if let Some(s) = opts.slots {
        crate::options::check_ring_slots(s)?;
        return Ok(s);
    }
    let per_unit = budget / (units.max(1) as u64 * 8);
    let mut s = 1u32;
    while (s as u64) * 2 <= per_unit && s < 1024 {
        s *= 2;
    }
    Ok(s.max(8))
}

/// One record site in program order, as either path found it.
#[derive(Clone, Debug)]
pub struct SiteInfo<'a> {
    pub name: &'a str,
    pub is_start: bool,
    pub kind: RegionKind,
    pub location: &'a str,
    /// For an async wait: the issue region it measures against.
    pub pairs_with: Option<&'a str>,
}

/// Region ids in order of first appearance and lexical parents (by a stack
/// of open regions over the sites in program order).
#[derive(Clone, Debug, Default)]
pub struct RegionTable {
    pub ids: HashMap<String, u32>,
    pub regions: Vec<RegionMeta>,
}

impl RegionTable {
    pub fn build<'a>(sites: impl IntoIterator<Item = SiteInfo<'a>>) -> Result<RegionTable> {
        let mut t = RegionTable::default();
        let mut stack: Vec<String> = Vec::new();
        let mut pairs: Vec<(u32, String)> = Vec::new();
        for s in sites {
            let next = t.ids.len() as u32;
            let id = *t.ids.entry(s.name.to_string()).or_insert(next);
            if id > MAX_REGION_ID {
                return Err(InstrumentError::At {
                    location: s.location.to_string(),
                    message: format!("more than {} regions", MAX_REGION_ID + 1),
                });
            }
            if id == next {
                let parent = if s.is_start {
                    stack.last().map(|p| t.ids[p])
                } else {
                    None
                };
                t.regions.push(RegionMeta {
                    id: RegionId(id as u16),
                    name: s.name.to_string(),
                    kind: s.kind,
                    parent: parent.map(|p| RegionId(p as u16)),
                    location: s.location.to_string(),
                    pairs_with: None,
                });
                if let Some(p) = s.pairs_with {
                    pairs.push((id, p.to_string()));
                }
            }
            if s.is_start && s.kind != RegionKind::AsyncWait {
                stack.push(s.name.to_string());
            } else if !s.is_start {
                if let Some(pos) = stack.iter().rposition(|n| n == s.name) {
                    stack.truncate(pos);
                }
            }
        }
        for (id, p) in pairs {
            if let Some(pid) = t.ids.get(&p) {
                t.regions[id as usize].pairs_with = Some(RegionId(*pid as u16));
            }
        }
        Ok(t)
    }
}

/// A block of up to three dimensions given as a list (`[128]`,
/// `[16, 8]`), the rest 1; `None` when the list is empty. What both paths
/// read from the kernels' attributes (`known_block_size`, `nvvm.reqntid`).
pub(crate) fn block_dims(dims: &[u32]) -> Option<[u32; 3]> {
    if dims.is_empty() {
        return None;
    }
    let mut d = [1u32; 3];
    for (i, v) in dims.iter().take(3).enumerate() {
        d[i] = *v;
    }
    Some(d)
}

/// Threads in a block of `b`.
pub(crate) fn block_threads(b: [u32; 3]) -> u64 {
    b.iter().map(|&d| u64::from(d)).product()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site<'a>(name: &'a str, is_start: bool) -> SiteInfo<'a> {
        SiteInfo {
            name,
            is_start,
            kind: RegionKind::Explicit,
            location: "k.ll:1:1",
            pairs_with: None,
        }
    }

    #[test]
    fn ids_follow_first_appearance_and_parents_the_open_stack() {
        let t = RegionTable::build([
            site("kernel", true),
            site("loop", true),
            site("body", true),
            site("body", false),
            site("loop", false),
            site("tail", true),
            site("tail", false),
            site("kernel", false),
        ])
        .unwrap();
        let got: Vec<(&str, u16, Option<u16>)> = t
            .regions
            .iter()
            .map(|r| (r.name.as_str(), r.id.0, r.parent.map(|p| p.0)))
            .collect();
        assert_eq!(
            got,
            vec![
                ("kernel", 0, None),
                ("loop", 1, Some(0)),
                ("body", 2, Some(1)),
                ("tail", 3, Some(0)),
            ]
        );
    }
}
