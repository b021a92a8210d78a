use super::{AuditArgs, InputArgs};
use clap::{Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
    Markdown,
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

    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
}
