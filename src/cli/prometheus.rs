//! Where a live Prometheus (or Thanos, Mimir, VictoriaMetrics) is and how to query it.
use clap::{Args, ValueEnum};

/// How answers travel from the server (`Accept-Encoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PromCompressionArg {
    /// ask for gzip: about a sixth of the bytes, but the server spends CPU compressing
    Gzip,
    /// ask for plain answers: faster on the same host or a fast network
    None,
}

#[derive(Debug, Clone, Args)]
pub struct PrometheusArgs {
    /// Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090)
    /// instead of reading files. --since/--until then count back from NOW
    /// [default window: --since 7d --until now].
    #[arg(long, value_name = "URL", help_heading = "Live Prometheus")]
    pub prometheus: Option<String>,

    /// Query resolution: one sample per GPU and metric every STEP (match the scrape interval).
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = super::positive_duration_us_arg,
        default_value = "30s",
        requires = "prometheus",
        help_heading = "Live Prometheus"
    )]
    pub step: i64,

    /// Narrow the series with label matchers, e.g. '{cluster="a"}'.
    #[arg(
        long,
        value_name = "MATCHERS",
        requires = "prometheus",
        help_heading = "Live Prometheus"
    )]
    pub selector: Option<String>,

    /// Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the
    /// aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs;
    /// see the report's notes).
    #[arg(long, requires = "prometheus", help_heading = "Live Prometheus")]
    pub pushdown: bool,

    /// Also read demand from the server's kube-state-metrics: pods Pending with
    /// nvidia_com_gpu requests over the window (as `--queue` does from a file).
    #[arg(long, requires = "prometheus", help_heading = "Live Prometheus")]
    pub prom_queue: bool,

    /// Bearer token for the server (never printed).
    #[arg(
        long,
        env = "GPUAUDIT_PROM_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN",
        help_heading = "Live Prometheus"
    )]
    pub prom_token: Option<String>,

    /// Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD).
    #[arg(
        long,
        env = "GPUAUDIT_PROM_USER",
        value_name = "USER",
        help_heading = "Live Prometheus"
    )]
    pub prom_user: Option<String>,

    /// Basic-auth password (never printed; prefer the environment variable).
    #[arg(
        long,
        env = "GPUAUDIT_PROM_PASSWORD",
        hide_env_values = true,
        value_name = "PASSWORD",
        help_heading = "Live Prometheus"
    )]
    pub prom_password: Option<String>,

    /// Give up on one request after this long.
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = super::positive_duration_us_arg,
        default_value = "2m",
        help_heading = "Live Prometheus"
    )]
    pub prom_timeout: i64,

    /// Retries of a request that failed to connect, was cut off mid-answer or got
    /// 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 3,
        help_heading = "Live Prometheus"
    )]
    pub prom_retries: u32,

    /// Hosts per query: smaller keeps memory lower, larger makes fewer requests.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 8,
        help_heading = "Live Prometheus"
    )]
    pub hosts_per_query: usize,

    /// Requests in flight at once (each fetched and decoded on its own thread); the report is
    /// the same for any number.
    #[arg(
        long,
        value_name = "N",
        default_value = "4",
        value_parser = super::whole_number_arg::<64>,
        allow_hyphen_values = true,
        help_heading = "Live Prometheus"
    )]
    pub prom_concurrency: usize,

    /// Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server
    /// spends CPU on it) or plain (faster on the same host or a fast network).
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        default_value = "gzip",
        help_heading = "Live Prometheus"
    )]
    pub prom_compression: PromCompressionArg,
}
