use super::{AuditArgs, InputArgs};
use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
    Markdown,
    // one self-contained page with charts and the JSON embedded (render/html)
    Html,
}

/// Which table `--format csv` writes (one per invocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CsvTable {
    /// the fleet's layers, ratios and dollars (and one row per group with --by)
    Layers,
    /// one row per showback group (needs --by)
    Groups,
    /// idle episodes: one row per job and span, or per GPU with --per-gpu
    Episodes,
    /// one row per GPU (or MIG instance)
    Gpus,
    /// one row per job: shape, ETT, dollars (and MFU with --jobs)
    Jobs,
    /// one row per timeline bucket (GPUs observed, held, active, spare...)
    Timeline,
}

/// `gpuaudit report`: what to read and audit (also built by `check`), and how to lay it out.
#[derive(Debug, Clone, Args)]
// clap prints inputs that are required unless --prometheus (or an engine) as optional ("[INPUT]...")
#[command(
    override_usage = "gpuaudit report [OPTIONS] <INPUT>...\n       gpuaudit report [OPTIONS] --prometheus <URL>\n       gpuaudit report [OPTIONS] --clickhouse <URL> --sql-table <NAME>\n       gpuaudit report [OPTIONS] --trino <URL> --sql-table <NAME>"
)]
pub struct ReportCommand {
    #[command(flatten)]
    pub report: ReportArgs,

    #[command(flatten)]
    pub layout: LayoutArgs,
}

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub audit: AuditArgs,

    /// Output format [default: from -o's extension (.html, .json, .csv, .md), else table].
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,

    /// Write the report to FILE instead of standard output; its extension picks the format.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,

    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}

/// How the rendered report is laid out (not what it computes).
#[derive(Debug, Clone, Args)]
pub struct LayoutArgs {
    /// The table `--format csv` writes.
    #[arg(long, value_enum, value_name = "TABLE", default_value = "layers")]
    pub table: CsvTable,

    /// Idle episodes one row per GPU, not one per job and span.
    #[arg(long)]
    pub per_gpu: bool,

    /// Lay tables out for this many columns [default: COLUMNS, else the
    /// terminal's width; no limit when stdout is not a terminal].
    #[arg(long, value_name = "COLUMNS", value_parser = clap::value_parser!(u16).range(40..))]
    pub width: Option<u16>,

    /// The HTML page's heading (--format html) [default: "GPU audit: held vs used"].
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
}
