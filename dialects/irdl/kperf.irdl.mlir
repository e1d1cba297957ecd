// The kperf dialects, defined in IRDL and registered at run time
// (kperf_dialects::irdl::SOURCE; mlir-opt --irdl-file=this-file also works).
// IRDL ops exist in generic form only and carry no traits, so CSE/DCE keep them.

// High level: a region marker whose meaning the lowering decides (the
// paper's KPerfIR RecordOp). `name` is the region, `is_start` 1 opens it, 0
// closes it. `kind` is optional-by-convention and not constrained here.
irdl.dialect @kperf {
  irdl.operation @record {
    %name = irdl.base "#builtin.string"
    %is_start = irdl.base "#builtin.integer"
    irdl.attributes { "name" = %name, "is_start" = %is_start }
  }
}

// GPU level (the paper's KPerfGPUIR): what a record becomes once counter,
// granularity, buffer and strategy are chosen.
irdl.dialect @kperfgpu {
  // Shared (addr space 3), stack or global buffer for the unit segments.
  irdl.operation @local_alloc {
    %bytes = irdl.base "#builtin.integer"
    %space = irdl.base "#builtin.string"
    irdl.attributes { "bytes" = %bytes, "space" = %space }
  }
  // Index set-up at kernel entry: unit, leader predicate, segment base, header.
  irdl.operation @init {
    %counter = irdl.base "#builtin.string"
    %granularity = irdl.base "#builtin.string"
    %units = irdl.base "#builtin.integer"
    %slots = irdl.base "#builtin.integer"
    irdl.attributes { "counter" = %counter, "granularity" = %granularity, "units" = %units, "slots" = %slots }
  }
  // Read a counter into a register.
  irdl.operation @read_counter {
    %counter = irdl.base "#builtin.string"
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %ty = irdl.any_of(%i32, %i64)
    irdl.attributes { "counter" = %counter }
    irdl.results(value: %ty)
  }
  // Store {tag, clock} into the unit's ring (circular strategy).
  irdl.operation @circular_store {
    %region_id = irdl.base "#builtin.integer"
    %is_start = irdl.base "#builtin.integer"
    %any = irdl.any
    irdl.attributes { "region_id" = %region_id, "is_start" = %is_start }
    irdl.operands(clock: %any)
  }
  // Store {tag, clock}, writing a full segment through to global (flush strategy).
  irdl.operation @store_counter {
    %region_id = irdl.base "#builtin.integer"
    %is_start = irdl.base "#builtin.integer"
    %any = irdl.any
    irdl.attributes { "region_id" = %region_id, "is_start" = %is_start }
    irdl.operands(clock: %any)
  }
  // Before every return: CTA barrier, header, unit counters, segment copy-out.
  irdl.operation @finalize {
    %strategy = irdl.base "#builtin.string"
    irdl.attributes { "strategy" = %strategy }
  }
}
