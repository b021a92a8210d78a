//! `gpuaudit convert`: any input's canonical sample table, as parquet.
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: super::InputArgs,

    /// The parquet file to write (replaced whole, never left half-written).
    #[arg(long, short = 'o', value_name = "FILE", required = true, value_hint = clap::ValueHint::FilePath)]
    pub output: std::path::PathBuf,

    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}
