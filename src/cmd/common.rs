//! Turning shared clap arguments into plain options.
use crate::audit::GroupBy;
use crate::cli::audit::GroupByArg;
use crate::cli::{AuditArgs, InputArgs};
use crate::pipeline::{AuditOptions, Origin, ReportRequest};
use crate::samples::UserMap;
use crate::source::{InputFormat, ReadOptions};
use crate::timeparse::{parse_cli_time, parse_duration_us};
use anyhow::{Context, Result, bail};

pub fn read_options(input: &InputArgs, quiet: bool) -> Result<ReadOptions> {
    let maps = input
        .maps
        .iter()
        .map(|m| UserMap::parse(m))
        .collect::<Result<Vec<_>>>()?;
    let format = input
        .input_format
        .as_deref()
        .map(|f| {
            InputFormat::parse(f).with_context(|| {
                format!(
                    "--input-format '{f}': not a format (expected one of: {})",
                    crate::source::format::values()
                        .iter()
                        .map(|v| v.0)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        })
        .transpose()?;
    let at = input
        .at
        .as_deref()
        .map(|t| parse_cli_time(t, None))
        .transpose()
        .context("--at")?;
    let align_us = match input.align.as_deref() {
        Some(a) => {
            let ms = parse_duration_us(a).context("--align")?;
            if ms < 0 {
                bail!("--align must not be negative");
            }
            Some(ms)
        }
        None => None,
    };
    let columns = input
        .columns
        .as_ref()
        .map(|c| c.iter().map(|s| s.trim().to_string()).collect());
    Ok(ReadOptions {
        format,
        maps,
        quiet,
        at,
        job_label: input.job_label.clone(),
        team_label: input.team_label.clone(),
        align_us,
        columns,
        held_mem_bytes: None,
        stream_text_above: stream_text_above()?,
    })
}

/// GPUAUDIT_STREAM_TEXT_ABOVE: the memory bound above which CSV/NDJSON
/// inputs are streamed in blocks (a size: `64MiB`, `4MB`, `0`: always);
/// read once here. Not a flag: tuning and tests.
fn stream_text_above() -> Result<Option<u64>> {
    let Ok(text) = std::env::var("GPUAUDIT_STREAM_TEXT_ABOVE") else {
        return Ok(None);
    };
    crate::timeparse::parse_size_bytes(&text)
        .map(Some)
        .with_context(|| {
            format!("GPUAUDIT_STREAM_TEXT_ABOVE={text:?}: expected a size such as 64MiB")
        })
}

/// The audit's flags as plain options (parsed by the pipeline once the
/// data's end is known).
pub fn audit_options(args: &AuditArgs) -> AuditOptions {
    AuditOptions {
        since: args.since.clone(),
        until: args.until.clone(),
        max_gap: args.max_gap.clone(),
        interval: args.interval.clone(),
        idle_below: args.idle_below.clone(),
        min_idle: args.min_idle.clone(),
        held_mem: args.held_mem.clone(),
        assume_held: args.assume_held,
        price: args.price,
        prices: args.prices.clone(),
        no_builtin_prices: args.no_builtin_prices,
        by: args.by.map(group_by),
        top: args.top,
        bucket: args.bucket.clone(),
        leak_thresholds: args.leak_thresholds.clone(),
        want: args.want,
        queue: args.queue.clone(),
        queue_tz: args.queue_tz.clone(),
        min_window: args.min_window.clone(),
        own_cost: args.own_cost.clone(),
        jobs: args.jobs.clone(),
        // validated (exit 2) when the command started: see cmd::run
        threads: args
            .threads
            .as_deref()
            .and_then(|t| crate::pipeline::parse_threads(t).ok()),
    }
}

/// `--by` as the audit's grouping.
pub fn group_by(b: GroupByArg) -> GroupBy {
    match b {
        GroupByArg::Team => GroupBy::Team,
        GroupByArg::User => GroupBy::User,
        GroupByArg::Job => GroupBy::Job,
        GroupByArg::Host => GroupBy::Host,
        GroupByArg::Model => GroupBy::Model,
    }
}

/// What `report` (and `check` on samples) reads and audits, as plain options.
pub fn report_request(input: &InputArgs, audit: &AuditArgs, quiet: bool) -> Result<ReportRequest> {
    let origin = match &input.live.prometheus {
        _ if input.partials.is_some() => {
            Origin::Partials(input.partials.clone().unwrap_or_default())
        }
        Some(url) => {
            if !input.inputs.is_empty() {
                bail!("give either input files or --prometheus, not both");
            }
            Origin::Prometheus(super::prometheus::options(&input.live, url))
        }
        None => Origin::Files(input.inputs.clone()),
    };
    let mut read = read_options(input, quiet)?;
    read.held_mem_bytes =
        Some(crate::timeparse::parse_size_bytes(&audit.held_mem).context("--held-mem")?);
    Ok(ReportRequest {
        origin,
        read,
        audit: audit_options(audit),
        quiet,
    })
}
