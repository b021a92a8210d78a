//! Where samples come from and how their columns are named.
use clap::Args;

/// The `--input-format` values: one per registered format (src/source/format.rs).
fn input_format_values() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::source::format::values().into_iter().map(
        |(id, help, also)| {
            clap::builder::PossibleValue::new(id)
                .help(help)
                .aliases(also.iter().copied())
        },
    ))
}

#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Metric dumps: files, globs or directories of parquet files (hive partitions).
    /// `-` reads CSV from standard input.
    #[arg(value_name = "INPUT", required_unless_present_any = ["prometheus", "partials", "clickhouse", "trino"], value_hint = clap::ValueHint::AnyPath)]
    pub inputs: Vec<String>,

    /// Report from an engine's partial sums: the answer of `gpuaudit sql`, exported
    /// as parquet or CSV, instead of samples.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["inputs", "prometheus"])]
    pub partials: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub live: super::prometheus::PrometheusArgs,

    #[command(flatten)]
    pub engine: super::sqlengine::SqlEngineArgs,

    /// Read every input as this format instead of going by its extension.
    #[arg(long, value_name = "FORMAT", value_parser = input_format_values())]
    pub input_format: Option<String>,

    /// Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of
    /// percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent.
    /// Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent.
    #[arg(long = "map", value_name = "SOURCE=CANONICAL[:UNIT]")]
    pub maps: Vec<String>,

    /// Time for samples without a timestamp (a scrape without timestamps, an
    /// nvidia-smi snapshot). Default: the file's modification time.
    #[arg(long, value_name = "TIME", value_parser = super::absolute_time_arg)]
    pub at: Option<i64>,

    /// Scrape / Prometheus label that names the job. Default: the workload's
    /// pod (exported_pod, or pod when it is not the exporter's own), else hpc_job.
    /// Prometheus' own job and instance labels name the scrape target, never a workload.
    #[arg(long, value_name = "LABEL")]
    pub job_label: Option<String>,

    /// Scrape / Prometheus label that names the team. Default: the workload's namespace.
    #[arg(long, value_name = "LABEL")]
    pub team_label: Option<String>,

    /// Samples of one GPU stamped this close form one sample: metrics of one
    /// scrape stamped apart (Prometheus; default half the series' step, else
    /// 5s), or two exporters scraping one GPU (every input; default 0: only
    /// the same instant).
    #[arg(long, value_name = "DURATION",
        value_parser = super::duration_us_arg)]
    pub align: Option<i64>,

    /// Column names of an nvidia-smi log written with `noheader`, in order,
    /// e.g. timestamp,index,uuid,utilization.gpu,memory.used; with --clickhouse
    /// or --trino, the table's columns as `gpuaudit sql --columns` takes them.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
}
