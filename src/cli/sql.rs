//! `gpuaudit sql`: the audit's plan as one query for a SQL engine.
use super::audit::GroupByArg;
use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// DuckDB (verified by the tests)
    Duckdb,
    /// ClickHouse (a plain wide table of canonical columns)
    Clickhouse,
    /// Spark SQL
    Spark,
    /// Trino / Athena
    Trino,
    /// BigQuery
    Bigquery,
}

/// How the table lays samples out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaArg {
    /// one row per GPU per instant, canonical columns (or --columns)
    Wide,
    /// the OpenTelemetry ClickHouse exporter's otel_metrics_gauge (DCGM metrics, labels in Attributes)
    Otel,
}

#[derive(Debug, Clone, Args)]
pub struct SqlArgs {
    /// The engine the query is written for.
    #[arg(long, value_enum, value_name = "ENGINE")]
    pub dialect: DialectArg,

    /// The table (or view, or a table function such as read_parquet('x.parquet')) holding the samples.
    #[arg(long, value_name = "NAME")]
    pub table: String,

    /// The table's columns, canonical names (time, host, gpu, model, held, job,
    /// user, team, device_util, sm_active, sm_occupancy, tensor_active,
    /// dram_active, mem_used_bytes, mem_total_bytes, power_w) or
    /// CANONICAL=SOURCE [default: the columns `gpuaudit demo` writes].
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub columns: Option<Vec<String>>,

    /// How the table lays samples out (otel: ClickHouse only).
    #[arg(long, value_enum, value_name = "SCHEMA", default_value = "wide")]
    pub schema: SchemaArg,

    /// Keep samples at or after this time (RFC 3339 or a date; a span needs the data's end: not here).
    #[arg(long, value_name = "TIME", value_parser = super::time_arg)]
    pub since: Option<crate::timeparse::TimeSpec>,

    /// Keep samples before this time (RFC 3339 or a date).
    #[arg(long, value_name = "TIME", value_parser = super::time_arg)]
    pub until: Option<crate::timeparse::TimeSpec>,

    /// A gap longer than this is unobserved [default: 3 x the GPU's median sample step].
    #[arg(long, value_name = "DURATION", value_parser = super::positive_duration_us_arg)]
    pub max_gap: Option<i64>,

    /// What a single-sample GPU's sample stands for [default: 1h, or the fleet's step in a series].
    #[arg(long, value_name = "DURATION", value_parser = super::positive_duration_us_arg)]
    pub interval: Option<i64>,

    /// A held GPU is idle when device activity is below this fraction (0..1) or percent (1%).
    #[arg(
        long,
        value_name = "FRACTION",
        default_value = "0.01",
        value_parser = super::share_arg,
        allow_hyphen_values = true
    )]
    pub idle_below: f64,

    /// Without a held or job column, a GPU using more memory than this is held.
    #[arg(long, value_name = "SIZE", value_parser = super::size_arg, default_value = "1GiB")]
    pub held_mem: u64,

    /// Treat every sample as held when the table has no held, job or memory column.
    #[arg(long)]
    pub assume_held: bool,

    /// Showback: group the partial sums by this label (give report --partials the same --by).
    #[arg(long, value_enum, value_name = "LABEL")]
    pub by: Option<GroupByArg>,

    /// Timeline bucket (e.g. 1h): the answer carries the sums per bucket too, and
    /// report --partials renders the timeline and the purchase answer from them.
    #[arg(long, value_name = "DURATION", value_parser = super::positive_duration_us_arg)]
    pub bucket: Option<i64>,

    /// Write the query to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
}
