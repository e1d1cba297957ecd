//! Rows of a unit's region instances on a trace's own time grid, shared by
//! the Chrome ([`crate::chrome`]) and Perfetto ([`crate::perfetto`]) writers.
//!
//! A viewer draws each row (a Chrome thread, a Perfetto track) as one stack
//! of slices, so on every row the instances must nest or be disjoint *as the
//! viewer computes their times*: the layout is made on the quantised times
//! the file holds, not on the replay's f64 nanoseconds. Quantising is
//! monotone, so order and nesting survive it; instances that quantise to
//! zero length go on one extra row after the others (drawn as instants, they
//! would otherwise break the nesting of events starting at the same time).
//! One more rule: an instance never lies inside an open instance *of the
//! same name* on its row (speedscope pairs ends with begins by name).

use crate::pair::{RowPlacer, UnitReplay};

/// One instance of a unit on the trace's time grid.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    pub start: i64,
    pub end: i64,
    /// Index in `UnitReplay::instances`.
    pub index: usize,
    /// The instance's name id (equal names, equal ids).
    pub name: u32,
    pub row: u32,
}

/// Most slices nested on one row of a trace. Perfetto's importer keeps a
/// stack of 512 per track and leaves deeper slices unfinished (513 nested
/// regions: "1 slices begin and never end", drawn to the trace's end); a
/// deeper instance goes to a row of its own, in both formats.
pub(crate) const MAX_ROW_DEPTH: usize = 500;

/// The layout of one unit, reused from unit to unit for its allocations.
pub(crate) struct UnitLayout {
    /// Ordered by start ascending, end descending (ties keep the replay's
    /// order): on each row, a parent before its children.
    pub spans: Vec<Span>,
    /// Rows holding spans of nonzero length (at least 1).
    pub span_rows: u32,
    /// Spans of zero length; they are on row `span_rows`.
    pub zero_length: usize,
    /// Of those, the ones whose corrected length is exactly 0.
    pub corrected_to_zero: usize,
    rows: RowPlacer<i64, u32>,
}

impl Default for UnitLayout {
    fn default() -> Self {
        UnitLayout {
            spans: Vec::new(),
            span_rows: 0,
            zero_length: 0,
            corrected_to_zero: 0,
            rows: RowPlacer::with_max_depth(MAX_ROW_DEPTH),
        }
    }
}

impl UnitLayout {
    /// Lay out `unit`'s instances with times quantised by `quantise` (ns on
    /// the axis to grid steps; must be monotone) and names by `name_of`.
    pub fn lay_out(
        &mut self,
        unit: &UnitReplay,
        quantise: impl Fn(f64) -> i64,
        mut name_of: impl FnMut(&crate::pair::RegionInstance) -> u32,
    ) {
        self.spans.clear();
        self.spans.reserve(unit.instances.len());
        self.zero_length = 0;
        self.corrected_to_zero = 0;
        for (index, inst) in unit.instances.iter().enumerate() {
            let start = quantise(inst.start_ns);
            let end = quantise(inst.end_ns.max(inst.start_ns));
            if end == start {
                self.zero_length += 1;
                if inst.corrected_ticks == 0.0 {
                    self.corrected_to_zero += 1;
                }
            }
            self.spans.push(Span {
                start,
                end,
                index,
                name: name_of(inst),
                row: 0,
            });
        }
        self.spans
            .sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        self.rows.clear();
        for span in self.spans.iter_mut().filter(|s| s.end > s.start) {
            span.row = self.rows.place(span.start, span.end, Some(span.name)).0;
        }
        self.span_rows = self.rows.rows().max(1);
        for span in self.spans.iter_mut().filter(|s| s.end == s.start) {
            span.row = self.span_rows;
        }
    }

    /// Rows in all: the span rows, and one more if any span has zero length.
    pub fn rows(&self) -> u32 {
        self.span_rows + u32::from(self.zero_length > 0)
    }
}
