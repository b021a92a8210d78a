//! The options of the audit itself, shared by every command that reports.
use crate::catalog::own_cost::OwnCost;
use crate::timeparse::TimeSpec;
use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GroupByArg {
    Team,
    User,
    Job,
    Host,
    Model,
}

#[derive(Debug, Clone, Args)]
pub struct AuditArgs {
    /// Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a
    /// date (2026-07-01), or a span back from the end of the data (7d, 12h).
    #[arg(long, value_name = "TIME", value_parser = super::time_arg)]
    pub since: Option<TimeSpec>,

    /// Keep samples before this time: RFC 3339, a date, or a span back from the
    /// end of the data (1d).
    #[arg(long, value_name = "TIME", value_parser = super::time_arg)]
    pub until: Option<TimeSpec>,

    /// A gap between two samples of a GPU longer than this is unobserved time
    /// [default: 3 x the GPU's median sample step].
    #[arg(long, value_name = "DURATION",
        value_parser = super::positive_duration_us_arg)]
    pub max_gap: Option<i64>,

    /// What one sample of a single-sample GPU (a snapshot) stands for [default: 1h].
    #[arg(long, value_name = "DURATION",
        value_parser = super::positive_duration_us_arg)]
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

    /// List idle episodes at least this long; shorter ones still count in idle hours.
    #[arg(long, value_name = "DURATION",
        value_parser = super::duration_us_arg, default_value = "30m")]
    pub min_idle: i64,

    /// Without a held or job column, a GPU using more memory than this is held
    /// (e.g. 1GiB, 512MiB).
    #[arg(long, value_name = "SIZE", value_parser = super::size_arg, default_value = "1GiB")]
    pub held_mem: u64,

    /// Treat every sample as held when the input has no held, job or memory column.
    #[arg(long)]
    pub assume_held: bool,

    /// One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile).
    // hyphen values allowed: `--price -1` reaches the price's own check (>= 0)
    #[arg(long, value_name = "USD", allow_hyphen_values = true)]
    pub price: Option<f64>,

    /// Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd).
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,

    /// Do not fall back to the built-in dated price profile for unpriced models.
    #[arg(long)]
    pub no_builtin_prices: bool,

    /// Showback: group layers and cost by this label.
    #[arg(long, value_enum, value_name = "LABEL")]
    pub by: Option<GroupByArg>,

    /// How many idle episodes to list (all in JSON output unless set).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,

    /// Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m,
    /// 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets].
    #[arg(long, value_name = "DURATION",
        value_parser = super::positive_duration_us_arg)]
    pub bucket: Option<i64>,

    /// Leak map thresholds from a TOML file (starved_below, underfilled_below,
    /// memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below);
    /// a key left out keeps its default, the idle row is --idle-below.
    #[arg(long, value_name = "FILE")]
    pub leak_thresholds: Option<std::path::PathBuf>,

    /// GPUs asked for: the purchase answer says whether idle capacity covers them.
    #[arg(long, value_name = "N")]
    pub want: Option<u32>,

    /// A scheduler queue whose waiting requests are demand (repeatable): a Slurm
    /// `sacct -a -X -P --format=JobID,User,Account,Partition,Submit,Start,End,State,ReqTRES,AllocTRES`
    /// dump (times without a zone read as UTC), or kube-state-metrics series
    /// (kube_pod_status_phase, kube_pod_container_resource_requests) as a scrape
    /// or a Prometheus API response.
    #[arg(long, value_name = "FILE")]
    pub queue: Vec<std::path::PathBuf>,

    /// The zone of `--queue` times printed without one (sacct prints the
    /// cluster's local time): UTC or a fixed offset (+02:00) [default: UTC].
    #[arg(long, value_name = "ZONE", value_parser = super::zone_arg, allow_hyphen_values = true)]
    pub queue_tz: Option<chrono::FixedOffset>,
    /// Shortest window the purchase verdict decides on (e.g. 12h); a window
    /// shorter than 24 h that this lets through gives a provisional verdict.
    #[arg(long, value_name = "DURATION",
        value_parser = super::positive_duration_us_arg, default_value = "24h")]
    pub min_window: i64,

    /// What an owned GPU costs: capex=USD,years=N[,power_usd_per_kwh=X][,overhead=0.3]
    /// gives an amortized $/GPU-h; the purchase plan prices "buy N" with it too.
    #[arg(long, value_name = "SPEC", value_parser = super::own_cost_arg)]
    pub own_cost: Option<OwnCost>,

    /// Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a
    /// job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job's
    /// total), or model_flops (over its run); optional dtype (default bf16), peak_tflops;
    /// optional kind (training, inference, interactive, batch) for the jobs section.
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<std::path::PathBuf>,

    /// Worker threads for reading and auditing [default: every core]; the figures
    /// are the same for any number (sums to 1e-12, counts exactly).
    #[arg(long, value_name = "N", value_parser = super::whole_number_arg::<1024>, allow_hyphen_values = true)]
    pub threads: Option<usize>,
}
