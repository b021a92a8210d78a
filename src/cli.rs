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
pub(crate) mod sqlengine;

pub use audit::AuditArgs;
pub use check::CheckArgs;
pub use demo::DemoArgs;
pub use input::InputArgs;
pub use mfu::{MfuArgs, PeaksArgs};
pub use report::{CsvTable, LayoutArgs, ReportArgs, ReportCommand, ReportFormat};
pub use scan::ScanArgs;

/// clap's check of every duration flag: the one grammar
/// ([`crate::timeparse::parse_duration_us`]), so each refuses at the door in
/// the same words; the text goes on as given (flags whose command still
/// parses it itself).
pub(crate) fn duration_arg(text: &str) -> Result<String, String> {
    duration_us_arg(text).map(|_| text.to_string())
}

/// A duration flag, typed: microseconds, in the one grammar.
pub(crate) fn duration_us_arg(text: &str) -> Result<i64, String> {
    crate::timeparse::parse_duration_us(text).map_err(|e| format!("{e:#}"))
}

/// A duration flag that must be positive (a gap, a step, a bucket).
pub(crate) fn positive_duration_us_arg(text: &str) -> Result<i64, String> {
    match duration_us_arg(text)? {
        us if us > 0 => Ok(us),
        _ => Err(format!("'{}' must be positive", text.trim())),
    }
}

/// A duration flag as a `Duration`, at least `min_us` microseconds (a
/// sampling interval, a timeout, a margin); `min_us` 0 allows zero.
pub(crate) fn duration_at_least_arg<const MIN_US: i64>(
    text: &str,
) -> Result<std::time::Duration, String> {
    match duration_us_arg(text)? {
        us if us >= MIN_US && us >= 0 => Ok(std::time::Duration::from_micros(us as u64)),
        _ if MIN_US <= 0 => Err(format!("'{}' must not be negative", text.trim())),
        _ if MIN_US == 1 => Err(format!("'{}' must be positive", text.trim())),
        _ => Err(format!(
            "'{}' must be at least {}",
            text.trim(),
            crate::timeparse::format_duration_us(MIN_US)
        )),
    }
}

/// A size flag (`1GiB`, `512MiB`) in bytes.
pub(crate) fn size_arg(text: &str) -> Result<u64, String> {
    crate::timeparse::parse_size_bytes(text).map_err(|e| format!("{e:#}"))
}

/// A share flag (`0.01` or `1%`) as a fraction 0..1.
pub(crate) fn share_arg(text: &str) -> Result<f64, String> {
    crate::units::parse_share(text).map_err(|e| format!("{e:#}"))
}

/// A time flag: RFC 3339, a date, `now`, or a span back (resolved later
/// against the data's end, or the clock for a live source).
pub(crate) fn time_arg(text: &str) -> Result<crate::timeparse::TimeSpec, String> {
    crate::timeparse::TimeSpec::parse(text).map_err(|e| format!("{e:#}"))
}

/// A time that needs no anchor (`--at`): RFC 3339 or a date.
pub(crate) fn absolute_time_arg(text: &str) -> Result<i64, String> {
    crate::timeparse::parse_cli_time(text, None).map_err(|e| format!("{e:#}"))
}

/// A count flag: a whole number from 1 to `MAX` (`--threads`, `--prom-concurrency`).
pub(crate) fn whole_number_arg<const MAX: usize>(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX).contains(&n) => Ok(n),
        _ => Err(format!("must be a whole number from 1 to {MAX}")),
    }
}

/// `--own-cost`: the owned GPU's cost spec.
pub(crate) fn own_cost_arg(text: &str) -> Result<crate::catalog::own_cost::OwnCost, String> {
    crate::catalog::own_cost::OwnCost::parse(text)
        .map_err(|e| format!("{e:#}").replacen("--own-cost: ", "", 1))
}

/// `--queue-tz`: UTC or a fixed offset.
pub(crate) fn zone_arg(text: &str) -> Result<chrono::FixedOffset, String> {
    crate::source::queue::parse_zone(text)
        .map_err(|e| format!("{e:#}").replacen("--queue-tz: ", "", 1))
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
