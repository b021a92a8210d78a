//! Where samples come from and how their columns are named.
use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormatArg {
    Parquet,
    Csv,
    Ndjson,
}

#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Metric dumps: files, globs or directories of parquet files (hive partitions).
    /// `-` reads CSV from standard input.
    #[arg(value_name = "INPUT", required_unless_present = "prometheus")]
    pub inputs: Vec<String>,

    #[command(flatten)]
    pub live: super::prometheus::PrometheusArgs,

    /// Read every input as this format instead of going by its extension.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,

    /// Map a source column onto a canonical one: SOURCE=CANONICAL[:percent|:mib].
    /// Repeatable. Example: --map gpu_busy=device_util:percent
    #[arg(long = "map", value_name = "SOURCE=CANONICAL[:UNIT]")]
    pub maps: Vec<String>,
}
