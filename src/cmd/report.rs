//! `gpuaudit report`: metric dumps in, held-vs-used report out.
use super::common::{audit_config, read_options};
use crate::audit::{audit_with_jobs, model::Report};
use crate::cli::{CsvTable, ReportArgs, ReportCommand, ReportFormat};
use crate::output::write_stdout;
use crate::render;
use anyhow::{Context, Result, bail};

/// Read, audit: the report model for the given arguments (also used by `check`).
pub fn build(args: &ReportArgs) -> Result<Report> {
    if let Some(url) = &args.input.live.prometheus {
        return super::prometheus::build(args, url);
    }
    let opts = read_options(&args.input, args.quiet)?;
    let jobs = super::mfu::declared_jobs(args.audit.jobs.as_deref())?;
    // Parquet datasets stream through the audit in bounded memory (a jobs file too).
    if let Some(report) = streamed(args, &opts, jobs.as_ref())? {
        return Ok(report);
    }
    let table = crate::source::load(&args.input.inputs, &opts)?;
    let cfg = audit_config(&args.audit, &table)?;
    audit_with_jobs(&table, &cfg, jobs.as_ref())
}

/// The streaming audit of a parquet dataset; None when the inputs are not all
/// parquet, or their samples are not in time order (then the in-memory path sorts them).
fn streamed(
    args: &ReportArgs,
    opts: &crate::source::ReadOptions,
    jobs: Option<&crate::audit::mfu::DeclaredJobs>,
) -> Result<Option<Report>> {
    let inputs = crate::source::resolve_inputs(&args.input.inputs)?;
    let forced_other = opts
        .format
        .is_some_and(|f| f != crate::source::InputFormat::Parquet);
    let Some(stream) =
        crate::source::stream::ParquetStream::open(&inputs, &opts.maps, forced_other)?
    else {
        return Ok(None);
    };
    let cfg = super::common::audit_config_with_end(&args.audit, &|| stream.max_time())?;
    let bytes = inputs
        .iter()
        .filter_map(|(_, i)| match i {
            crate::source::Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            _ => None,
        })
        .sum();
    // a jobs file: two passes for each job's held time, before the audit's two
    let passes = if jobs.is_some() { 4 } else { 2 };
    let progressed = super::progress::Progressed::new(&stream, args.quiet, bytes, passes);
    let result = crate::audit::audit_chunks_with_jobs(&progressed, &cfg, jobs);
    progressed.finish();
    match result {
        Ok(r) => Ok(Some(r)),
        Err(e)
            if e.downcast_ref::<crate::audit::engine::OutOfOrder>()
                .is_some() =>
        {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

pub fn run(cmd: ReportCommand) -> Result<u8> {
    let (args, layout) = (&cmd.report, &cmd.layout);
    if layout.table != CsvTable::Layers && args.format != ReportFormat::Csv {
        bail!("--table picks the table of --format csv; add --format csv");
    }
    let report = build(args)?;
    let top_default = args.audit.top.unwrap_or(10);
    let text = match args.format {
        ReportFormat::Table => {
            let width =
                render::table::detect_width(layout.width).unwrap_or(render::table::UNLIMITED);
            let opts = render::table::TableOptions {
                width,
                top: top_default,
                per_gpu: layout.per_gpu,
            };
            render::table::render(&report, &opts)
        }
        ReportFormat::Json => render::json::render(&report)?,
        ReportFormat::Csv => render::csv::render(&report, layout.table, layout.per_gpu)?,
        ReportFormat::Markdown => render::markdown::render(&report, top_default, layout.per_gpu),
        ReportFormat::Html => render::html::render(&report, &html_options(args, top_default))?,
    };
    match &args.output {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("--output {}: cannot write", path.display()))?,
        None => write_stdout(&text)?,
    }
    Ok(0)
}

/// The thresholds the audit ran with, as given, so the HTML page stands alone.
fn html_options(args: &ReportArgs, top: usize) -> render::html::HtmlOptions {
    let a = &args.audit;
    let or = |v: &Option<String>, default: &str| v.clone().unwrap_or_else(|| default.to_string());
    let settings = [
        ("idle when device activity is below", a.idle_below.clone()),
        ("idle episodes listed from", a.min_idle.clone()),
        (
            "max gap (longer is unobserved)",
            or(&a.max_gap, "3 × the GPU's median sample step"),
        ),
        ("a single sample stands for", or(&a.interval, "1h")),
        (
            "held by memory (when that is the rule) above",
            a.held_mem.clone(),
        ),
        ("since", or(&a.since, "first sample")),
        ("until", or(&a.until, "end of the last sample")),
    ];
    render::html::HtmlOptions {
        top,
        settings: settings
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}
