//! `gpuaudit report`: metric dumps in, held-vs-used report out.
use super::common::{audit_config, read_options};
use crate::audit::{audit, model::Report};
use crate::cli::{ReportArgs, ReportFormat};
use crate::output::write_stdout;
use crate::render;
use anyhow::Result;

/// Read, audit: the report model for the given arguments (also used by `check`).
pub fn build(args: &ReportArgs) -> Result<Report> {
    if let Some(url) = &args.input.live.prometheus {
        return super::prometheus::build(args, url);
    }
    let opts = read_options(&args.input, args.quiet)?;
    // Parquet datasets stream through the audit in bounded memory, unless a
    // jobs file needs the whole table (MFU looks at each job's GPUs first).
    if args.audit.jobs.is_none()
        && let Some(report) = streamed(args, &opts)?
    {
        return Ok(report);
    }
    let table = crate::source::load(&args.input.inputs, &opts)?;
    let mut cfg = audit_config(&args.audit, &table)?;
    let mfu = super::mfu::declare_jobs(args.audit.jobs.as_deref(), &table, &mut cfg)?;
    let mut report = audit(&table, &cfg)?;
    super::mfu::annotate(&mut report, mfu);
    Ok(report)
}

/// The streaming audit of a parquet dataset; None when the inputs are not all
/// parquet, or their samples are not in time order (then the in-memory path sorts them).
fn streamed(args: &ReportArgs, opts: &crate::source::ReadOptions) -> Result<Option<Report>> {
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
    match crate::audit::audit_chunks(&stream, &cfg) {
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

pub fn run(args: ReportArgs) -> Result<u8> {
    let report = build(&args)?;
    let top_default = args.audit.top.unwrap_or(10);
    let text = match args.format {
        ReportFormat::Table => {
            render::table::render(&report, &render::table::TableOptions::detect(top_default))
        }
        ReportFormat::Json => render::json::render(&report)?,
        ReportFormat::Csv => render::csv::render(&report),
        ReportFormat::Markdown => render::markdown::render(&report, top_default),
    };
    write_stdout(&text)?;
    Ok(0)
}
