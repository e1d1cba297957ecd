use anyhow::Result;
use clap::Args;
#[derive(Args)]
pub struct ReplayArgs {}
#[derive(Args)]
pub struct ReportArgs {}
pub fn replay(_a: ReplayArgs) -> Result<()> { anyhow::bail!("WIP") }
pub fn report(_a: ReportArgs) -> Result<()> { anyhow::bail!("WIP") }
