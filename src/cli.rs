//! The command-line definition: clap derive only. Each subcommand's arguments
//! live in `cli/<name>.rs`; `cmd/` turns them into plain options.
use clap::{Parser, Subcommand};

pub(crate) mod audit;
pub(crate) mod check;
pub(crate) mod convert;
pub(crate) mod demo;
pub(crate) mod explain;
pub(crate) mod input;
pub(crate) mod mfu;
pub(crate) mod prometheus;
pub(crate) mod report;
pub(crate) mod scan;
pub(crate) mod sql;

pub use audit::AuditArgs;
pub use check::CheckArgs;
pub use demo::DemoArgs;
pub use input::InputArgs;
pub use mfu::{MfuArgs, PeaksArgs};
pub use report::{CsvTable, LayoutArgs, ReportArgs, ReportCommand, ReportFormat};
pub use scan::ScanArgs;

/// clap's check of every duration flag: the one grammar
/// ([`crate::timeparse::parse_duration_us`]), so each refuses at the door in
/// the same words; the text goes on as given.
pub(crate) fn duration_arg(text: &str) -> Result<String, String> {
    crate::timeparse::parse_duration_us(text)
        .map(|_| text.to_string())
        .map_err(|e| format!("{e:#}"))
}

/// Audit GPU fleets: how much of the GPU time you pay for does work.
///
/// "Utilization" is three numbers that disagree: device activity (a kernel
/// ran), chip activity (SM / tensor-core active) and MFU (useful model FLOP/s
/// over peak). gpuaudit shows the gap as GPU-hours and dollars.
#[derive(Debug, Parser)]
#[command(name = "gpuaudit", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report held vs used GPU-hours, idle episodes and idle cost from metric dumps.
    Report(ReportCommand),
    /// Write the canonical sample table of any input as parquet: a CSV export read once, reports on the copy read it fast.
    Convert(convert::ConvertArgs),
    /// Write a synthetic demo fleet (deterministic; for demos, tests and benchmarks).
    Demo(DemoArgs),
    /// MFU calculator: model FLOP/s from throughput and model size over the GPUs' dense peak.
    Mfu(MfuArgs),
    /// The dense peak TFLOP/s table MFU is measured against, with sources.
    Peaks(PeaksArgs),
    /// Sample this node's GPUs live through NVML: who holds each card, is it busy, what idle costs.
    Scan(ScanArgs),
    /// Fail a CI build when utilization regresses: rules on a run's report, against a baseline.
    Check(CheckArgs),
    /// What a term of the report means (leak classes, shapes, gang, MTBI, spare...); every term without one.
    Explain(explain::ExplainArgs),
    /// The audit as one SQL query for an engine that holds the samples (DuckDB, ClickHouse, Spark, Trino, BigQuery); read its answer with report --partials.
    Sql(sql::SqlArgs),
}
