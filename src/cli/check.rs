use super::{AuditArgs, InputArgs};
use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Table,
    Json,
    Markdown,
    Junit,
}

/// CURRENT is the flattened input list: a "gpuaudit.report/1" JSON document or
/// anything `report` reads, audited with the same options.
#[derive(Debug, Clone, Args)]
#[command(mut_arg("inputs", |a| a
    .value_name("CURRENT")
    .required(false)
    .required_unless_present("list_metrics")
    .help("The run to check: a gpuaudit.report/1 JSON (from `report --format json`) or metric dumps as `report` reads them")))]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// The run to compare with: a gpuaudit.report/1 JSON or a metric dump, read
    /// and audited like CURRENT. Needed by --max-drop and --max-rise.
    #[arg(long, value_name = "BASELINE")]
    pub baseline: Option<String>,

    /// A floor on CURRENT: METRIC=VALUE (a ratio as 0.35 or 35%). Repeatable.
    #[arg(long = "min", value_name = "METRIC=VALUE")]
    pub min: Vec<String>,

    /// A ceiling on CURRENT: METRIC=VALUE. Repeatable.
    #[arg(long = "max", value_name = "METRIC=VALUE")]
    pub max: Vec<String>,

    /// How far CURRENT may fall below BASELINE: METRIC=AMOUNT, AMOUNT being 2pp
    /// (percentage points, ratios), 5% (relative) or a number in the metric's unit
    /// (for a ratio a fraction: 0.02 is 2pp).
    #[arg(long = "max-drop", value_name = "METRIC=AMOUNT")]
    pub max_drop: Vec<String>,

    /// How far CURRENT may rise above BASELINE: METRIC=AMOUNT (2pp, 5% or a number).
    #[arg(long = "max-rise", value_name = "METRIC=AMOUNT")]
    pub max_rise: Vec<String>,

    /// Read more rules from a TOML file: [min], [max], [max-drop], [max-rise]
    /// tables of metric = limit.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<std::path::PathBuf>,

    /// A rule whose metric is null (not measured) is skipped instead of an error.
    #[arg(long)]
    pub allow_missing: bool,

    /// Comparability warnings (prices, window lengths, GPU count, held rule differ
    /// between CURRENT and BASELINE) fail the check instead of being reported.
    #[arg(long)]
    pub strict: bool,

    /// Print the metrics a rule can name and exit.
    #[arg(long, exclusive = true)]
    pub list_metrics: bool,

    #[command(flatten)]
    pub audit: AuditArgs,

    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: CheckFormat,

    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}
