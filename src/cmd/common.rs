//! Turning shared clap arguments into plain options.
use super::env::Tuning;
use crate::audit::diagnosis::LeakThresholds;
use crate::audit::{AuditConfig, GroupBy};
use crate::catalog::prices::PriceBook;
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

/// The audit's flags as typed options: its configuration whole (prices and
/// queues read), only --since/--until left for the data's end.
pub fn audit_options(args: &AuditArgs) -> Result<AuditOptions> {
    let prices = PriceBook::new(args.price, args.prices.as_deref(), !args.no_builtin_prices)?;
    let mut cfg = AuditConfig::new(prices);
    cfg.weights.max_gap_us = args.max_gap;
    cfg.weights.interval_us = args.interval;
    cfg.idle.below = args.idle_below;
    cfg.idle.min_episode_us = args.min_idle;
    cfg.held.mem_bytes = args.held_mem;
    cfg.held.assume = args.assume_held;
    cfg.by = args.by.map(group_by);
    cfg.top = args.top;
    cfg.timeline.bucket_us = args.bucket;
    if let Some(path) = &args.leak_thresholds {
        cfg.leak_thresholds = LeakThresholds::from_file(path).context("--leak-thresholds")?;
    }
    cfg.purchase.want = args.want;
    let zone = args.queue_tz.unwrap_or(chrono::Offset::fix(&chrono::Utc));
    cfg.purchase.queue = crate::source::queue::read_queues(&args.queue, zone)?;
    cfg.purchase.min_window_hours = args.min_window as f64 / crate::audit::interval::TICKS_PER_HOUR;
    cfg.purchase.own_cost = args.own_cost;
    cfg.threads = args
        .threads
        .unwrap_or_else(crate::pipeline::default_threads);
    Ok(AuditOptions {
        config: cfg,
        since: args.since,
        until: args.until,
        jobs: args.jobs.clone(),
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
        _ if input.engine.given() => {
            Origin::SqlEngine(super::sqlengine::engine_query(input, audit)?)
        }
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
    let mut audit_opts = audit_options(audit)?;
    if let Origin::SqlEngine(_) = origin {
        super::sqlengine::applied_by_the_query(&mut audit_opts);
    }
    Ok(ReportRequest {
        origin,
        read,
        audit: audit_opts,
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
