//! `gpuaudit scan`: sample this node's GPUs live through NVML.
use super::AuditArgs;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScanFormat {
    Table,
    Json,
}

// The audit's `--interval` (what a snapshot sample stands for) is renamed
// `--snapshot-interval` here: `--interval` is the sampling interval.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("interval", |a| a.long("snapshot-interval")))]
#[command(mut_arg("held_mem", |a| a.help("A GPU using more memory than this is held, even with no process visible (e.g. 1GiB, 512MiB)")))]
pub struct ScanArgs {
    /// How long to sample (e.g. 5s, 1m).
    #[arg(long, value_name = "DURATION", default_value = "5s")]
    pub duration: String,

    /// Time between samples (at least 100ms).
    #[arg(
        id = "sample_interval",
        long = "interval",
        value_name = "DURATION",
        default_value = "1s"
    )]
    pub sample_interval: String,

    /// Take one sample per GPU (after one interval) and report it as a snapshot.
    #[arg(long)]
    pub once: bool,

    /// The NVML library to load instead of the driver's libnvidia-ml.so.1.
    #[arg(long, value_name = "PATH", env = "GPUAUDIT_NVML_LIB")]
    pub nvml_lib: Option<PathBuf>,

    /// Also write the samples (canonical columns) to FILE: .parquet, .csv or .ndjson.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ScanFormat,

    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,

    #[command(flatten)]
    pub audit: AuditArgs,

    #[command(flatten)]
    pub work: crate::cli::mfu::DeclaredWorkArgs,
}
