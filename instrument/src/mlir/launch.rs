//! What the host code in the same file fixes about a kernel: the block
//! size and the constant arguments its `gpu.launch_func`s pass. Upstream
//! tests launch their kernels from `func.func @main`, and outlining turns
//! the launch body's constants (hoisted to the host by any conversion that
//! folds) into kernel arguments; the launches still say their values.

use super::ir::{self, type_string, Op, Value};
use super::regions;
use mlir_sys::*;

/// The `gpu.launch_func`s of kernel `f` anywhere in its top-level module.
fn launches_of(f: Op) -> Vec<Op> {
    let Some(module) = f.parent().filter(|m| m.name() == "gpu.module") else {
        return Vec::new();
    };
    let target = format!(
        "@{}::@{}",
        regions::symbol_name(module),
        regions::symbol_name(f)
    );
    let mut top = module;
    while let Some(p) = top.parent() {
        top = p;
    }
    top.nested_ops()
        .into_iter()
        .filter(|l| {
            l.name() == "gpu.launch_func"
                && l.attr("kernel").map(ir::attr_string).as_deref() == Some(target.as_str())
        })
        .collect()
}

/// The one value all of `values` agree on; None when empty or they differ.
fn agreed<T: PartialEq>(values: impl IntoIterator<Item = Option<T>>) -> Option<T> {
    let mut found: Option<T> = None;
    for v in values {
        let v = v?;
        match &found {
            Some(prev) if *prev != v => return None,
            _ => found = Some(v),
        }
    }
    found
}

/// The block size of the `gpu.launch_func`s of kernel `f` in the same file,
/// when they all launch it with the same constant sizes (an upstream test's
/// host code, already outlined).
pub fn launch_block_size(f: Op) -> Option<[u32; 3]> {
    agreed(launches_of(f).into_iter().map(|launch| {
        // Operands: async tokens, grid x/y/z, block x/y/z, ...
        let tokens = (0..launch.num_operands())
            .take_while(|&i| type_string(launch.operand(i).ty()).starts_with("!gpu.async.token"))
            .count() as isize;
        let mut d = [0u32; 3];
        for (k, slot) in d.iter_mut().enumerate() {
            let i = tokens + 3 + k as isize;
            if i >= launch.num_operands() {
                return None;
            }
            *slot = u32::try_from(constant_index(launch.operand(i))?)
                .ok()
                .filter(|v| *v > 0)?;
        }
        Some(d)
    }))
}

/// The dynamic shared memory each `gpu.launch_func` of kernel `f` in the
/// same file gives it (a `gpu.launch ... dynamic_shared_memory_size %c`
/// outlined), in bytes where it is a constant, `None` where it is computed;
/// launches giving none are left out.
pub fn launch_dynamic_shared(f: Op) -> Vec<Option<u32>> {
    launches_of(f)
        .into_iter()
        .filter_map(|launch| {
            let sizes = operand_segments(launch)?;
            // The segment just before the kernel operands.
            let segment = KERNEL_OPERANDS - 1;
            let at = sizes[..segment].iter().sum::<usize>();
            (sizes[segment] == 1 && at < launch.num_operands() as usize).then(|| {
                constant_index(launch.operand(at as isize)).and_then(|b| u32::try_from(b).ok())
            })
        })
        .collect()
}

/// The value of `v` inside kernel `f` when the file fixes it: an
/// `arith.constant` in the kernel, or an argument of the kernel that every
/// `gpu.launch_func` of it in the file passes as the same constant.
pub fn known_index(f: Op, v: Value) -> Option<i64> {
    if let Some(c) = constant_index(v) {
        return Some(c);
    }
    if !unsafe { mlirValueIsABlockArgument(v.0) } {
        return None;
    }
    let owner = unsafe { mlirBlockArgumentGetOwner(v.0) };
    let entry = f.regions().first()?.first_block()?;
    if owner.ptr != entry.0.ptr {
        return None;
    }
    let arg = unsafe { mlirBlockArgumentGetArgNumber(v.0) } as usize;
    agreed(launches_of(f).into_iter().map(|launch| {
        let operand = kernel_operand(launch, arg)?;
        constant_index(operand)
    }))
}

/// Where a kernel's parameters come from in the host function that
/// launches it ([`host_argument_order`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HostArguments {
    /// The launching `func.func`.
    pub host: String,
    /// Per kernel parameter: the host argument it is, or `None` for a value
    /// the host computes.
    pub order: Vec<Option<usize>>,
    /// The host function's argument count.
    pub host_args: usize,
}

/// Where kernel `f`'s parameters come from in the host function that
/// launches it (when one `gpu.launch_func` in the file does, from a
/// `func.func`): for each parameter, the host argument it is (`Some(i)`) or
/// `None` for a value the host computes; and the host's name and argument
/// count. Outlining orders a `gpu.launch` body's parameters by first use,
/// not as the host declares them: `kperf run` matches its spec (the host's
/// arguments) through this.
pub fn host_argument_order(f: Op) -> Option<HostArguments> {
    let [launch] = launches_of(f)[..] else {
        return None;
    };
    let mut host = launch.parent();
    while let Some(h) = host {
        if h.name() == "func.func" {
            break;
        }
        host = h.parent();
    }
    let host = host?;
    let entry = host.regions().first()?.first_block()?;
    let params = lower_num_inputs(f);
    let order = (0..params)
        .map(|k| {
            let v = kernel_operand(launch, k)?;
            if !unsafe { mlirValueIsABlockArgument(v.0) } {
                return Some(None);
            }
            let owner = unsafe { mlirBlockArgumentGetOwner(v.0) };
            Some(
                (owner.ptr == entry.0.ptr)
                    .then(|| unsafe { mlirBlockArgumentGetArgNumber(v.0) } as usize),
            )
        })
        .collect::<Option<Vec<_>>>()?;
    Some(HostArguments {
        host: regions::symbol_name(host),
        order,
        host_args: entry.num_args() as usize,
    })
}

fn lower_num_inputs(f: Op) -> usize {
    super::lower::num_inputs(f) as usize
}

/// The index of the kernel operands among a `gpu.launch_func`'s operand
/// segments: async deps, grid xyz, block xyz, cluster xyz, dynamic shared
/// memory, kernel operands, async object.
pub(super) const KERNEL_OPERANDS: usize = 11;

/// Kernel operand `k` of a `gpu.launch_func`, located by its operand
/// segments ([`KERNEL_OPERANDS`]).
fn kernel_operand(launch: Op, k: usize) -> Option<Value> {
    let sizes = operand_segments(launch)?;
    if k >= sizes[KERNEL_OPERANDS] {
        return None;
    }
    let at = sizes[..KERNEL_OPERANDS].iter().sum::<usize>() + k;
    (at < launch.num_operands() as usize).then(|| launch.operand(at as isize))
}

/// A `gpu.launch_func`'s operand segment sizes, when it has the kernel
/// operands' segment ([`KERNEL_OPERANDS`]).
fn operand_segments(launch: Op) -> Option<Vec<usize>> {
    let seg = launch.attr("operandSegmentSizes")?;
    let n = unsafe { mlirDenseArrayGetNumElements(seg) } as usize;
    if n <= KERNEL_OPERANDS {
        return None;
    }
    Some(
        (0..n)
            .map(|i| unsafe { mlirDenseI32ArrayGetElement(seg, i as isize) }.max(0) as usize)
            .collect(),
    )
}

/// The value of an index the host code fixes: an `arith.constant`, an
/// `arith.index_cast` of one, or the `memref.dim` of a static dimension
/// (through `memref.cast`s, which upstream tests use to size their blocks
/// by a buffer: `memref.dim` of a cast of `memref<13xf32>` is 13).
fn constant_index(v: Value) -> Option<i64> {
    let op = v.defining_op()?;
    match op.name().as_str() {
        "arith.constant" => op.int_attr("value"),
        "arith.index_cast" | "arith.index_castui" => constant_index(op.operand(0)),
        "memref.dim" => {
            let dim = usize::try_from(constant_index(op.operand(1))?).ok()?;
            let mut source = op.operand(0);
            loop {
                let ty = type_string(source.ty());
                if let Some(size) = static_dims(&ty).and_then(|d| d.get(dim).copied().flatten()) {
                    return Some(size);
                }
                let cast = source.defining_op().filter(|c| c.name() == "memref.cast")?;
                source = cast.operand(0);
            }
        }
        _ => None,
    }
}

/// The dimensions of a ranked `memref<4x?x8xf32...>` (None for `?`).
fn static_dims(ty: &str) -> Option<Vec<Option<i64>>> {
    let inner = ty.strip_prefix("memref<")?;
    let shape = inner.split([',', '>']).next()?;
    let parts: Vec<&str> = shape.split('x').collect();
    if parts.len() < 2 {
        return Some(Vec::new()); // rank 0 or unranked (`*xf32` has no dims to read)
    }
    Some(
        parts[..parts.len() - 1]
            .iter()
            .map(|d| d.trim().parse::<i64>().ok())
            .collect(),
    )
}
