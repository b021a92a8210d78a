//! `gpuaudit report`: metric dumps in, held-vs-used report out.
use super::common::{audit_config, read_options};
use crate::audit::{audit, model::Report};
use crate::cli::{ReportArgs, ReportFormat};
use crate::output::write_stdout;
use crate::render;
use anyhow::Result;

/// Read, audit: the report model for the given arguments (also used by `check`).
pub fn build(args: &ReportArgs) -> Result<Report> {
    let opts = read_options(&args.input, args.quiet)?;
    let table = crate::source::load(&args.input.inputs, &opts)?;
    let mut cfg = audit_config(&args.audit, &table)?;
    let mfu = super::mfu::declare_jobs(args.audit.jobs.as_deref(), &table, &mut cfg)?;
    let mut report = audit(&table, &cfg)?;
    super::mfu::annotate(&mut report, mfu);
    Ok(report)
}

pub fn run(args: ReportArgs) -> Result<u8> {
    let report = build(&args)?;
    let top_default = args.audit.top.unwrap_or(10);
    let text = match args.format {
        ReportFormat::Table => render::table::render(&report, &render::table::TableOptions::detect(top_default)),
        ReportFormat::Json => render::json::render(&report)?,
        ReportFormat::Csv => render::csv::render(&report),
        ReportFormat::Markdown => render::markdown::render(&report, top_default),
    };
    write_stdout(&text)?;
    Ok(0)
}
