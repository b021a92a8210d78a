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

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub audit: AuditArgs,

    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReportFormat,

    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,

    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}
