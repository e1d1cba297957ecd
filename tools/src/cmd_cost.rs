//! `kperf cost`: what instrumentation adds to a kernel's SASS, proven by
//! assembling the plain and instrumented PTX with ptxas (see
//! kperf_instrument::cost for the method).

use crate::cmd_instrument::{apply_triton_metadata, LoweringArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use kperf_dialects::abi::Counter;
use kperf_dialects::meta::Granularity;
use kperf_dialects::meta::{InstrumentMeta, KernelMeta};
use kperf_instrument::cost::{self, Compiled, CostReport, InstClass, Labels, Variants};
use kperf_instrument::{Emit, InstrumentOptions, KperfContext, RegionMode, Target};
use std::path::PathBuf;

#[derive(Args)]
pub struct CostArgs {
    /// Kernels (.mlir, .ll, .llir, .bc)
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Print JSON (one report per kernel and configuration)
    #[arg(long)]
    pub json: bool,
    /// Print a Markdown table (for docs/cost.md)
    #[arg(long)]
    pub markdown: bool,
    /// Empty regions of the probe (2 records each): one record's cost is the SASS that probe=2N adds over probe=N, per extra record
    #[arg(long, default_value_t = 16)]
    pub probe: u32,
    /// Counters to report, comma-separated (default: --counter)
    #[arg(long)]
    pub counters: Option<String>,
    /// Granularities to report, comma-separated (default: --granularity)
    #[arg(long)]
    pub granularities: Option<String>,
    #[command(flatten)]
    pub lowering: LoweringArgs,
}

/// PTX of `input` under `opts` (instrumented unless `plain`), and its
/// metadata when instrumented.
fn ptx_of(
    kctx: &KperfContext,
    input: &std::path::Path,
    bytes: &[u8],
    opts: &InstrumentOptions,
    plain: bool,
    triton: bool,
) -> Result<(Vec<u8>, Option<InstrumentMeta>, RegionLines)> {
    let file = input.display().to_string();
    if kperf_instrument::llvm::is_llvm_input(&file, bytes) {
        let out = kperf_instrument::llvm::instrument_llvm(
            kctx,
            bytes,
            &file,
            opts,
            Emit::Ptx,
            plain,
            triton,
        )?;
        return Ok((out.bytes, out.meta, out.region_lines));
    }
    let source = std::str::from_utf8(bytes).with_context(|| format!("{file}: not UTF-8"))?;
    if plain {
        let ptx =
            kperf_instrument::mlir::pipeline::compile_plain(kctx, source, &file, opts, Emit::Ptx)?;
        return Ok((ptx, None, RegionLines::new()));
    }
    let out = kperf_instrument::instrument(kctx, source, &file, opts, Emit::Ptx)?;
    Ok((out.bytes, Some(out.meta), RegionLines::new()))
}

/// Per kernel, the input lines each region owns (line-tagged LLVM IR).
type RegionLines = std::collections::BTreeMap<String, std::collections::BTreeMap<u16, Vec<u32>>>;

fn loop_related(modes: &[RegionMode]) -> bool {
    modes
        .iter()
        .any(|m| !matches!(m, RegionMode::Kernel | RegionMode::Probe(_)))
}

/// The hollow reference of one kernel (see
/// [`kperf_instrument::llvm::hollow_kernel`]): the same lowering with the
/// same ring, assembled plain and with the kernel region; shaped by `body`
/// as the kernel is where ptxas's call ABI is concerned.
fn hollow_reference(
    kctx: &KperfContext,
    opts: &InstrumentOptions,
    meta: &InstrumentMeta,
    km: &KernelMeta,
    chip: &str,
    body: kperf_instrument::llvm::HollowBody,
    copy_loop: bool,
) -> Result<(Compiled, Compiled)> {
    let ir = kperf_instrument::llvm::hollow_kernel(&km.name, km.block, body);
    let mut o = opts.clone();
    o.regions = vec![RegionMode::Kernel];
    o.markers = false;
    o.block = Some(km.block);
    // The very ring the kernel got, whatever shared memory the hollow one has.
    if o.strategy == kperf_dialects::abi::Strategy::Flush {
        o.slots = Some(meta.shared_slots);
        o.flush_slots = Some(km.layout.slots);
    } else {
        o.slots = Some(km.layout.slots);
    }
    o.dynamic_shared = 0;
    // Finalize's copy as the kernel has it: its two records alone would
    // get the copy without a loop.
    o.copy_loop = copy_loop;
    o.register_limits.clear();
    o.profile_param = kperf_instrument::options::ProfileParam::Append;
    let file = format!("hollow reference of `{}`", km.name);
    let build = |plain: bool| -> Result<Compiled> {
        let out = kperf_instrument::llvm::instrument_llvm(
            kctx,
            ir.as_bytes(),
            &file,
            &o,
            Emit::Ptx,
            plain,
            false,
        )?;
        cost::compile_ptx(&out.bytes, chip, &km.name).with_context(|| file.clone())
    };
    Ok((build(true)?, build(false)?))
}

/// One report per kernel of `input`.
fn reports(
    kctx: &KperfContext,
    input: &std::path::Path,
    bytes: &[u8],
    opts: &InstrumentOptions,
    probe: u32,
    triton: bool,
) -> Result<Vec<CostReport>> {
    let Target::Nvptx { chip, simt: false } = &opts.target else {
        bail!("kperf cost reads NVIDIA SASS: use --target nvptx:<sm> (default sm_90a)");
    };
    // Init and finalize alone: the kernel region, no markers (records that
    // markers put in loops cost index arithmetic that is theirs, not init's
    // or finalize's; the instrumented column counts them).
    // Every build line-tagged (LLVM IR input): the SASS line table then
    // says which instructions are kperf's.
    let opts = &InstrumentOptions {
        line_tags: true,
        ..opts.clone()
    };
    let mut kernel_only = opts.clone();
    kernel_only.regions = vec![RegionMode::Kernel];
    kernel_only.markers = false;
    let mut probed = kernel_only.clone();
    // Both probes copy their rings out in the same form (a loop), so that
    // their difference is records alone: 2 + 2N records would otherwise
    // be copied straight-line and 2 + 4N in a loop for some N.
    probed.copy_loop = true;
    let mut probed_double = probed.clone();
    probed.regions.push(RegionMode::Probe(probe));
    probed_double.regions.push(RegionMode::Probe(2 * probe));
    let (plain_ptx, _, _) = ptx_of(kctx, input, bytes, opts, true, triton)?;
    let (inst_ptx, imeta, mut region_lines) = ptx_of(kctx, input, bytes, opts, false, triton)?;
    // As `kperf instrument` says it, once for all counters and granularities:
    // `--regions calls=helper*` matched nothing here, silently.
    static MODES_REPORTED: std::sync::Once = std::sync::Once::new();
    if let Some(m) = &imeta {
        MODES_REPORTED.call_once(|| {
            let kind = if kperf_instrument::llvm::is_llvm_input(&input.display().to_string(), bytes)
            {
                crate::cmd_instrument::InputKind::Llvm
            } else {
                crate::cmd_instrument::InputKind::Mlir
            };
            crate::cmd_instrument::report_modes_without_regions(opts, m, kind, None);
        });
    }
    let (kern_ptx, kmeta, _) = ptx_of(kctx, input, bytes, &kernel_only, false, triton)?;
    let (probe_ptx, _, _) = ptx_of(kctx, input, bytes, &probed, false, triton)?;
    let (probe2_ptx, _, _) = ptx_of(kctx, input, bytes, &probed_double, false, triton)?;
    let kmeta = kmeta.context("no instrumented kernel")?;
    let assemble = |ptx: &[u8], what: &str| {
        cost::assemble(ptx, chip).with_context(|| format!("{what} build of {}", input.display()))
    };
    let plain = assemble(&plain_ptx, "plain")?;
    let inst = assemble(&inst_ptx, "instrumented")?;
    let kern = assemble(&kern_ptx, "kernel-only")?;
    let probed = assemble(&probe_ptx, "probed")?;
    let probed2 = assemble(&probe2_ptx, "probed-2N")?;
    let regions = if opts.regions.is_empty() {
        "markers".to_string()
    } else {
        format!("{:?}", opts.regions)
    };
    let llvm_input = kperf_instrument::llvm::is_llvm_input(&input.display().to_string(), bytes);
    let mut out = Vec::new();
    for km in &kmeta.kernels {
        let name = km.name.as_str();
        let plain_kernel = plain.kernel(name)?;
        let instrumented = inst.kernel(name)?;
        let (hollow_plain, hollow_kernel) = hollow_reference(
            kctx,
            opts,
            &kmeta,
            km,
            chip,
            plain_kernel.hollow_body(),
            // The MLIR path always lowers the copy as a loop (which LLVM
            // may then unroll where it knows the count, as it does in the
            // hollow kernel).
            !llvm_input || instrumented.finalize_copies_in_a_loop(),
        )?;
        let v = Variants {
            plain: plain_kernel,
            instrumented,
            kernel_only: kern.kernel(name)?,
            probed: probed.kernel(name)?,
            probed_double: probed2.kernel(name)?,
            records_instrumented: cost::record_stores(&inst_ptx, &plain_ptx, name),
            records_kernel_only: cost::record_stores(&kern_ptx, &plain_ptx, name),
            records_probed: cost::record_stores(&probe_ptx, &plain_ptx, name),
            records_probed_double: cost::record_stores(&probe2_ptx, &plain_ptx, name),
            hollow_plain,
            hollow_kernel,
            region_names: imeta
                .as_ref()
                .and_then(|m| m.kernel(name))
                .map(|k| k.regions.iter().map(|r| (r.id.0, r.name.clone())).collect())
                .unwrap_or_default(),
            region_lines: region_lines.remove(name).unwrap_or_default(),
            loop_regions_requested: loop_related(&opts.regions) || name_has_markers(bytes),
            threads: km.block.iter().product(),
            max_registers: km.max_registers,
            dynamic_shared: opts.dynamic_shared,
            unrolled_as_plain: imeta
                .as_ref()
                .map(|m| m.unrolled_as_plain.clone())
                .unwrap_or_default(),
        };
        out.push(cost::report(
            &Labels {
                kernel: name,
                arch: chip,
                counter: opts.counter.name(),
                granularity: opts.granularity.name(),
                regions: &regions,
            },
            &v,
        ));
    }
    Ok(out)
}

/// Explicit markers may sit in loops on purpose.
fn name_has_markers(bytes: &[u8]) -> bool {
    let t = String::from_utf8_lossy(bytes);
    t.contains("kperf_region_start") || t.contains("kperf:start") || t.contains("kperf.record")
}

fn table(reports: &[CostReport], markdown: bool) -> String {
    let mut s = String::new();
    let header = [
        "kernel",
        "counter",
        "granularity",
        "records",
        "added SASS",
        "per record",
        "clock",
        "store",
        "index",
        "move",
        "pred",
        "fixed",
        "fixed ref",
        "unexplained",
        "out of line",
        "regs",
        "spill B",
        "smem B",
        "loops w/ records",
    ];
    let rows: Vec<Vec<String>> = reports
        .iter()
        .map(|r| {
            let c = |k: InstClass| {
                format!(
                    "{:.2}",
                    r.per_record_by_class.get(&k).copied().unwrap_or(0.0)
                )
            };
            vec![
                r.kernel.clone(),
                r.counter.clone(),
                r.granularity.clone(),
                r.record_sites.to_string(),
                r.added_total.to_string(),
                format!("{:.2}", r.per_record),
                c(InstClass::ClockRead),
                c(InstClass::Store),
                c(InstClass::IndexArith),
                c(InstClass::Move),
                c(InstClass::Predicate),
                format!("{:.0}", r.fixed),
                format!(
                    "{:.0}{}",
                    r.fixed_reference,
                    if r.calls_functions { " (call ABI)" } else { "" }
                ),
                format!(
                    "{:.0} ({:.1}%){}",
                    r.fidelity.unexplained,
                    100.0 * r.fidelity.unexplained_share,
                    if r.fidelity.guarded_changes.is_empty() {
                        ""
                    } else {
                        " !"
                    }
                ),
                r.fidelity.out_of_line_added.to_string(),
                format!(
                    "{} → {}{}",
                    r.plain.registers,
                    r.instrumented.registers,
                    match r.occupancy.max_registers {
                        Some(_) => " (capped)",
                        None => "",
                    }
                ),
                format!(
                    "{} → {}",
                    r.plain.spill_bytes(),
                    r.instrumented.spill_bytes()
                ),
                format!("{} → {}", r.plain.shared_bytes, r.instrumented.shared_bytes),
                format!(
                    "{}/{}{}",
                    r.loops_with_records,
                    r.loops_instrumented,
                    if r.unexpected_loop_records {
                        " (unexpected)"
                    } else {
                        ""
                    }
                ),
            ]
        })
        .collect();
    if markdown {
        s.push_str(&format!("| {} |\n", header.join(" | ")));
        s.push_str(&format!("|{}\n", "---|".repeat(header.len())));
        for r in rows {
            s.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        s.push_str(&residuals(reports, "\n", "- "));
        s.push_str(&region_lines(reports, "\n", "- "));
        s.push_str(&unrolled_lines(reports, "\n", "- "));
        return s;
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:>w$}", w = widths[i]))
            .collect::<Vec<_>>()
            .join("  ")
    };
    s.push_str(&line(header.iter().map(|h| h.to_string()).collect()));
    s.push('\n');
    for r in rows {
        s.push_str(&line(r));
        s.push('\n');
    }
    s.push_str(&residuals(reports, "", "  "));
    s.push_str(&region_lines(reports, "", "  "));
    s.push_str(&unrolled_lines(reports, "", "  "));
    s
}

/// Per kernel, the opcode families the instrumentation does not explain
/// (instrumented − expected), guarded families first: where to look when
/// `unexplained` is not small.
fn residuals(reports: &[CostReport], lead: &str, bullet: &str) -> String {
    let mut s = String::new();
    for r in reports {
        for why in &r.fidelity.induced {
            let text = format!("kperf's, though ptxas tags it as the kernel's: {why}");
            push_kernel_line(&mut s, lead, bullet, r, &text);
        }
        for d in &r.fidelity.loop_drift {
            let list = |v: &[usize]| {
                if v.is_empty() {
                    "no loop".to_string()
                } else {
                    v.iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            };
            let text = format!(
                "loop at {}: {} → {} of the kernel's own instructions per iteration",
                d.at,
                list(&d.plain),
                list(&d.instrumented)
            );
            push_kernel_line(&mut s, lead, bullet, r, &text);
        }
        if !r.fidelity.by_readers.is_empty() {
            let list: Vec<String> = r
                .fidelity
                .by_readers
                .iter()
                .map(|(f, n)| format!("{n:.0} {f}"))
                .collect();
            let text = format!(
                "kperf's by their readers, though the line table gives them the kernel's lines \
                 (only kperf's code reads them: its ring counter as LLVM rewrote it): {}",
                list.join(", ")
            );
            push_kernel_line(&mut s, lead, bullet, r, &text);
        }
        let mut fams: Vec<&cost::FamilyDelta> = r
            .fidelity
            .families
            .iter()
            .filter(|f| f.unexplained().abs() >= 0.5)
            .collect();
        if fams.is_empty() {
            continue;
        }
        fams.sort_by(|a, b| {
            let key = |f: &cost::FamilyDelta| {
                (
                    f.guarded.is_none(),
                    -(f.unexplained().abs() as i64),
                    f.family.clone(),
                )
            };
            key(a).cmp(&key(b))
        });
        let cells: Vec<String> = fams
            .iter()
            .map(|f| {
                format!(
                    "{}{} {:+.0} ({} → {}, kperf's {:.0})",
                    f.family,
                    if f.guarded.is_some() { "!" } else { "" },
                    f.unexplained(),
                    f.plain,
                    f.instrumented,
                    f.instrumentation
                )
            })
            .collect();
        push_kernel_line(
            &mut s,
            lead,
            bullet,
            r,
            &format!("unexplained {}", cells.join(", ")),
        );
    }
    s
}

/// Per kernel, the source loops unrolled completely as the plain build
/// unrolls them, which the records would have kept rolled.
fn unrolled_lines(reports: &[CostReport], lead: &str, bullet: &str) -> String {
    let mut s = String::new();
    for r in reports.iter().filter(|r| !r.unrolled_as_plain.is_empty()) {
        let text = format!(
            "unrolled completely as in the plain build: {}",
            r.unrolled_as_plain.join(", ")
        );
        push_kernel_line(&mut s, lead, bullet, r, &text);
    }
    s
}

/// One line about kernel report `r` in a list after the table; the first
/// line of the list opens it with `lead`.
fn push_kernel_line(s: &mut String, lead: &str, bullet: &str, r: &CostReport, text: &str) {
    if s.is_empty() {
        s.push_str(lead);
    }
    s.push_str(&format!(
        "{bullet}{} {} {}: {text}\n",
        r.kernel, r.counter, r.granularity
    ));
}

/// Per kernel, the regions ptxas did not keep together: the share of each
/// region's own instructions scheduled between its records, and other
/// code scheduled inside it.
fn region_lines(reports: &[CostReport], lead: &str, bullet: &str) -> String {
    let mut s = String::new();
    for r in reports {
        let cells: Vec<String> = r
            .region_fidelity
            .iter()
            .filter(|f| f.inside < f.own || !f.intruders.is_empty())
            .map(|f| {
                let mut c = format!("{} {}/{} inside", f.region, f.inside, f.own);
                if !f.intruders.is_empty() {
                    let who: Vec<String> = f
                        .intruders
                        .iter()
                        .map(|(k, n)| format!("{n} of {k}"))
                        .collect();
                    c.push_str(&format!(", holds {}", who.join(", ")));
                }
                c
            })
            .collect();
        if cells.is_empty() {
            continue;
        }
        push_kernel_line(
            &mut s,
            lead,
            bullet,
            r,
            &format!("regions {}", cells.join("; ")),
        );
    }
    s
}

pub fn run(a: CostArgs) -> Result<()> {
    let base = a.lowering.options()?;
    let counters: Vec<Counter> = match &a.counters {
        Some(c) => c
            .split(',')
            .map(|n| Counter::from_name(n.trim()).with_context(|| format!("unknown counter `{n}`")))
            .collect::<Result<_>>()?,
        None => vec![base.counter],
    };
    let grans: Vec<Granularity> = match &a.granularities {
        Some(g) => g
            .split(',')
            .map(|n| {
                Granularity::from_name(n.trim())
                    .with_context(|| format!("unknown granularity `{n}`"))
            })
            .collect::<Result<_>>()?,
        None => vec![base.granularity],
    };
    // Say how to get the tools before doing any work.
    kperf_instrument::tools::find_tool("ptxas")?;
    kperf_instrument::tools::find_tool("cuobjdump")?;
    let kctx = KperfContext::new()?;
    let mut out = Vec::new();
    for input in &a.inputs {
        let bytes = kperf_runtime::input::read(input)
            .with_context(|| format!("cannot read {}", input.display()))?;
        let mut opts = base.clone();
        let triton = apply_triton_metadata(input, &mut opts, false).is_some();
        for &counter in &counters {
            for &g in &grans {
                let mut o = opts.clone();
                o.counter = counter;
                o.granularity = g;
                // Every instrumented build as `kperf instrument` makes it:
                // capped where it would lose occupancy, unless --registers free.
                crate::registers::hold_occupancy(
                    &kctx,
                    &bytes,
                    &input.display().to_string(),
                    &mut o,
                    a.lowering.registers()?,
                    triton,
                )?;
                out.extend(reports(&kctx, input, &bytes, &o, a.probe, triton)?);
            }
        }
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print!("{}", table(&out, a.markdown));
    }
    Ok(())
}
