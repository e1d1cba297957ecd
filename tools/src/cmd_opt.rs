//! `kperf opt`: a textual pipeline of upstream MLIR passes and kperf's.

use crate::cmd_instrument::{meta_path, write_atomically, write_pair, LoweringArgs};
use anyhow::{Context, Result};
use clap::Args;
use kperf_instrument::mlir::pipeline::run_opt;
use kperf_instrument::mlir::print_module;
use kperf_instrument::KperfContext;
use std::path::PathBuf;

#[derive(Args)]
pub struct OptArgs {
    /// Input (.mlir)
    pub input: PathBuf,
    /// Comma-separated passes: any upstream pass (`canonicalize`,
    /// `convert-gpu-to-nvvm`, `gpu-kernel-outlining`, ...) and kperf's:
    /// `kperf-insert{regions=kernel,loops}`, `kperf-lower-gpu`,
    /// `kperf-lower-llvm`, `kperf-instrument` (all three)
    #[arg(long, short = 'p')]
    pub pipeline: String,
    /// Output (.mlir); metadata goes to <output>.kperf.json when kernels were lowered
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub lowering: LoweringArgs,
}

pub fn run(a: OptArgs) -> Result<()> {
    let opts = a.lowering.options()?;
    kperf_runtime::output::check_output(&a.output, &[("the input", &a.input)])?;
    kperf_runtime::output::check_output(&meta_path(&a.output), &[("the input", &a.input)])?;
    let file = a.input.display().to_string();
    let source = kperf_runtime::input::read_to_string(&a.input)
        .with_context(|| format!("cannot read {file}"))?;
    let kctx = KperfContext::new()?;
    let mut module = kctx.parse(&source, &file)?;
    let mut meta = run_opt(&kctx, &mut module, &file, &a.pipeline, &opts)?;
    meta.source_sha256 = Some(kperf_instrument::source_digest(source.as_bytes()));
    let text = print_module(&module);
    let meta_bytes = (!meta.kernels.is_empty())
        .then(|| serde_json::to_vec_pretty(&meta))
        .transpose()?;
    match meta_bytes {
        Some(m) => {
            let text = crate::binding::bind(text.as_bytes(), &m, &file)?;
            write_pair(&a.output, &text, &meta_path(&a.output), &m)?
        }
        None => write_atomically(&a.output, text.as_bytes())?,
    }
    eprintln!("kperf: wrote {}", a.output.display());
    Ok(())
}
