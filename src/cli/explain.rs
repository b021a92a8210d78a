use clap::Args;

/// `gpuaudit explain [TERM]`: the glossary the HTML page carries.
#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// One term (any case; "memory_bound" and "memory bound" are the same);
    /// without it, every term.
    #[arg(value_name = "TERM")]
    pub term: Option<String>,
}
