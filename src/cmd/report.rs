//! `gpuaudit report`: metric dumps in, held-vs-used report out.
use super::common::report_request;
use crate::cli::{CsvTable, ReportArgs, ReportCommand, ReportFormat};
use crate::output::write_stdout;
use crate::render;
use crate::render::diagnostics::{Diagnostic, Diagnostics};
use anyhow::{Context, Result, bail};

pub fn run(cmd: ReportCommand, said: &mut Diagnostics) -> Result<u8> {
    let (args, layout) = (&cmd.report, &cmd.layout);
    let format = super::format::report_format(args.format, args.output.as_deref())?;
    if layout.table != CsvTable::Layers && format != ReportFormat::Csv {
        bail!("--table picks the table of --format csv; add --format csv");
    }
    let report = crate::pipeline::report(&report_request(&args.input, &args.audit, args.quiet)?)?;
    if let (Some(rows), false) = (report.sources.text_rows_streamed, args.quiet) {
        // a big text export is read again on every report: say once how not to
        said.push(Diagnostic::TextReadInBlocks { rows });
    }
    let top_default = args.audit.top.unwrap_or(10);
    // JSON and CSV are written as produced: every job and GPU listed, no whole document in memory
    if format == ReportFormat::Json {
        let write = |out: &mut dyn std::io::Write| render::json::write(&report, out);
        crate::output::write_streamed(args.output.as_deref(), &write)?;
        return Ok(0);
    }
    if format == ReportFormat::Csv {
        let table = csv_table(layout.table);
        render::csv::check(&report, table)?;
        let write =
            |out: &mut dyn std::io::Write| render::csv::write(&report, table, layout.per_gpu, out);
        crate::output::write_streamed(args.output.as_deref(), &write)?;
        return Ok(0);
    }
    let text = match format {
        ReportFormat::Table => {
            let width =
                render::table::detect_width(layout.width).unwrap_or(render::table::UNLIMITED);
            let opts = render::table::TableOptions {
                width,
                top: top_default,
                per_gpu: layout.per_gpu,
                bold: render::table::bold_wanted(),
            };
            render::table::render(&report, &opts)
        }
        ReportFormat::Json => render::json::render(&report)?,
        ReportFormat::Csv => render::csv::render(&report, csv_table(layout.table), layout.per_gpu)?,
        ReportFormat::Markdown => render::markdown::render(&report, top_default, layout.per_gpu),
        ReportFormat::Html => render::html::render(
            &report,
            &html_options(args, layout.title.clone(), top_default),
        )?,
    };
    match &args.output {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("--output {}: cannot write", path.display()))?,
        None => write_stdout(&text)?,
    }
    Ok(0)
}

fn csv_table(t: CsvTable) -> render::csv::Table {
    match t {
        CsvTable::Layers => render::csv::Table::Layers,
        CsvTable::Groups => render::csv::Table::Groups,
        CsvTable::Episodes => render::csv::Table::Episodes,
        CsvTable::Gpus => render::csv::Table::Gpus,
        CsvTable::Jobs => render::csv::Table::Jobs,
        CsvTable::Timeline => render::csv::Table::Timeline,
    }
}

/// The thresholds the audit ran with, so the HTML page stands alone.
fn html_options(args: &ReportArgs, title: Option<String>, top: usize) -> render::html::HtmlOptions {
    let a = &args.audit;
    render::html::HtmlOptions {
        top,
        title,
        settings: Some(render::html::AuditSettings {
            idle_below: a.idle_below,
            min_idle_us: a.min_idle,
            max_gap_us: a.max_gap,
            interval_us: a.interval,
            held_mem_bytes: a.held_mem,
            since: a.since,
            until: a.until,
        }),
    }
}
