//! `gpuaudit scan`: sample this node's GPUs live through NVML.
use super::AuditArgs;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

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
#[command(
    after_help = "Run a command and sample for exactly its lifetime:\n  gpuaudit scan --out run.parquet -- python bench.py\nSIGINT or SIGTERM stops sampling, writes what was sampled and prints the report."
)]
pub struct ScanArgs {
    /// How long to sample (e.g. 5s, 1m). With a CMD, its lifetime instead.
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = super::duration_at_least_arg::<1>,
        default_value = "5s",
        conflicts_with = "command"
    )]
    pub duration: Duration,

    /// Time between samples (at least 100ms).
    #[arg(
        id = "sample_interval",
        long = "interval",
        value_name = "DURATION",
        value_parser = super::duration_at_least_arg::<100_000>,
        default_value = "1s"
    )]
    pub sample_interval: Duration,

    /// Take one sample per GPU (after one interval) and report it as a snapshot.
    #[arg(long, conflicts_with = "command")]
    pub once: bool,

    /// With a CMD: sample this long before starting it (e.g. 10s, for the idle baseline).
    #[arg(long, value_name = "DURATION",
        value_parser = super::duration_at_least_arg::<0>, requires = "command")]
    pub pre: Option<Duration>,

    /// With a CMD: go on sampling this long after it exits (e.g. 10s).
    #[arg(long, value_name = "DURATION",
        value_parser = super::duration_at_least_arg::<0>, requires = "command")]
    pub post: Option<Duration>,

    /// Give up on a GPU whose NVML reading takes longer than this (a hung driver
    /// call); the other GPUs go on being sampled.
    #[arg(long, value_name = "DURATION",
        value_parser = super::duration_at_least_arg::<1>, default_value = "10s")]
    pub nvml_timeout: Duration,

    /// The NVML library to load instead of the driver's libnvidia-ml.so.1.
    #[arg(long, value_name = "PATH", env = "GPUAUDIT_NVML_LIB")]
    pub nvml_lib: Option<PathBuf>,

    /// With a CMD: exit 2 without running it when sampling cannot start (NVML
    /// missing, no driver, no GPU). Without this flag CMD runs unmonitored,
    /// gpuaudit exits with its code and says why on one stderr line.
    #[arg(long)]
    pub require_nvml: bool,

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

    /// Run CMD (after `--`) and sample for exactly its lifetime (plus --pre and
    /// --post); gpuaudit exits with CMD's exit code (2 if gpuaudit itself failed).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}
