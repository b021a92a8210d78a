use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// Where to write the synthetic fleet (.parquet, .csv or .ndjson); a path
    /// without extension with --partition-by-day becomes a hive-partitioned directory.
    #[arg(long, value_name = "FILE")]
    pub out: std::path::PathBuf,

    /// Number of GPUs (rounded up to whole 8-GPU nodes).
    #[arg(long, default_value_t = 40)]
    pub gpus: usize,

    /// Days of samples.
    #[arg(long, default_value_t = 7.0)]
    pub days: f64,

    /// Sampling interval (e.g. 5m, 30s).
    #[arg(long, value_name = "DURATION", value_parser = super::duration_arg, default_value = "5m")]
    pub interval: String,

    /// Seed of the deterministic generator.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,

    /// First sample time (RFC 3339).
    #[arg(long, default_value = "2026-07-06T00:00:00Z")]
    pub start: String,

    /// Write one parquet file per day under OUT/day=YYYY-MM-DD/ (hive partitions).
    #[arg(long)]
    pub partition_by_day: bool,
}
