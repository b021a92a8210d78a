//! Turning shared clap arguments into plain options.
use super::env::Tuning;
use crate::audit::GroupBy;
use crate::cli::audit::GroupByArg;
use crate::cli::{AuditArgs, InputArgs};
use crate::pipeline::{AuditOptions, Origin, ReportRequest};
use crate::samples::UserMap;
use crate::source::{InputFormat, ReadOptions};
use anyhow::{Context, Result, bail};

pub fn read_options(input: &InputArgs, quiet: bool, tuning: &Tuning) -> Result<ReadOptions> {
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
    let columns = input
        .columns
        .as_ref()
        .map(|c| c.iter().map(|s| s.trim().to_string()).collect());
    Ok(ReadOptions {
        format,
        maps,
        quiet,
        at: input.at,
        job_label: input.job_label.clone(),
        team_label: input.team_label.clone(),
        align_us: input.align,
        columns,
        held_mem_bytes: None,
        stream_text_above: tuning.stream_text_above,
        read_ahead: tuning.read_ahead,
        slice_rows: tuning.slice_rows,
        text_block_bytes: tuning.text_block_bytes,
    })
}

/// The audit's flags as typed options (only --since/--until wait for the
/// data's end, in the pipeline).
pub fn audit_options(args: &AuditArgs) -> Result<AuditOptions> {
    let leak_thresholds = args
        .leak_thresholds
        .as_deref()
        .map(crate::audit::diagnosis::LeakThresholds::from_file)
        .transpose()
        .context("--leak-thresholds")?;
    Ok(AuditOptions {
        since: args.since,
        until: args.until,
        max_gap_us: args.max_gap,
        interval_us: args.interval,
        idle_below: Some(args.idle_below),
        min_idle_us: Some(args.min_idle),
        held_mem_bytes: Some(args.held_mem),
        assume_held: args.assume_held,
        price: args.price,
        prices: args.prices.clone(),
        no_builtin_prices: args.no_builtin_prices,
        by: args.by.map(group_by),
        top: args.top,
        bucket_us: args.bucket,
        leak_thresholds,
        want: args.want,
        queue: args.queue.clone(),
        queue_tz: args.queue_tz,
        min_window_us: Some(args.min_window),
        own_cost: args.own_cost,
        jobs: args.jobs.clone(),
        threads: args.threads,
    })
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
    let tuning = Tuning::from_env()?;
    let origin = match &input.live.prometheus {
        _ if input.partials.is_some() => {
            let path = input.partials.clone().unwrap_or_default();
            refuse_on_partials(audit, &path)?;
            Origin::Partials(path)
        }
        Some(url) => {
            if !input.inputs.is_empty() {
                bail!("give either input files or --prometheus, not both");
            }
            if input.live.pushdown && audit.jobs.is_some() {
                bail!("--jobs needs each job's samples: it cannot be combined with --pushdown");
            }
            Origin::Prometheus(super::prometheus::options(&input.live, url, &tuning)?)
        }
        None => Origin::Files(input.inputs.clone()),
    };
    let mut read = read_options(input, quiet, &tuning)?;
    read.held_mem_bytes = Some(audit.held_mem);
    Ok(ReportRequest {
        origin,
        read,
        audit: audit_options(audit)?,
        quiet,
    })
}

/// Partial sums were computed by the query: a flag that would change the
/// window, weights, held or jobs is refused, naming where it belongs.
fn refuse_on_partials(audit: &AuditArgs, path: &std::path::Path) -> Result<()> {
    let given = [
        ("--since", audit.since.is_some()),
        ("--until", audit.until.is_some()),
        ("--max-gap", audit.max_gap.is_some()),
        ("--interval", audit.interval.is_some()),
        ("--assume-held", audit.assume_held),
        ("--jobs", audit.jobs.is_some()),
        ("--bucket", audit.bucket.is_some()),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, on)| *on) {
        bail!(
            "{flag} cannot change partial sums: give it to `gpuaudit sql`, which computed {}",
            path.display()
        );
    }
    Ok(())
}
