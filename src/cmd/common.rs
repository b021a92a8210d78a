//! Turning shared clap arguments into plain options.
use crate::audit::{AuditConfig, GroupBy};
use crate::cli::audit::GroupByArg;
use crate::cli::{AuditArgs, InputArgs};
use crate::prices::PriceBook;
use crate::samples::{SampleTable, UserMap};
use crate::source::{InputFormat, ReadOptions};
use crate::timeparse::{
    is_relative, parse_cli_time, parse_duration_us, parse_fraction, parse_size_bytes,
};
use anyhow::{Context, Result, bail};

pub fn read_options(input: &InputArgs, quiet: bool) -> Result<ReadOptions> {
    let maps = input
        .maps
        .iter()
        .map(|m| UserMap::parse(m))
        .collect::<Result<Vec<_>>>()?;
    let format = input.input_format.map(|f| match f {
        crate::cli::input::InputFormatArg::Parquet => InputFormat::Parquet,
        crate::cli::input::InputFormatArg::Csv => InputFormat::Csv,
        crate::cli::input::InputFormatArg::Ndjson => InputFormat::Ndjson,
        crate::cli::input::InputFormatArg::Prom => InputFormat::PromText,
        crate::cli::input::InputFormatArg::PromJson => InputFormat::PromJson,
        crate::cli::input::InputFormatArg::NvidiaSmi => InputFormat::NvidiaSmiCsv,
        crate::cli::input::InputFormatArg::NvidiaSmiDmon => InputFormat::NvidiaSmiDmon,
        crate::cli::input::InputFormatArg::NvidiaSmiXml => InputFormat::NvidiaSmiXml,
    });
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
    })
}

/// Build the audit options. Relative --since/--until count back from the end
/// of the data, so a report on an old dump means the same thing every time.
pub fn audit_config(args: &AuditArgs, table: &SampleTable) -> Result<AuditConfig> {
    audit_config_with_end(args, &|| {
        Ok(crate::audit::time_range(table)?.map(|(_, max)| max))
    })
}

/// The same, for a source that says its last sample time only when asked
/// (a streamed dataset reads it from parquet statistics).
pub fn audit_config_with_end(
    args: &AuditArgs,
    data_end: &dyn Fn() -> Result<Option<i64>>,
) -> Result<AuditConfig> {
    let prices = PriceBook::new(args.price, args.prices.as_deref(), !args.no_builtin_prices)?;
    let mut cfg = AuditConfig::new(prices);
    let needs_anchor = args.since.as_deref().is_some_and(is_relative)
        || args.until.as_deref().is_some_and(is_relative);
    let anchor = if needs_anchor { data_end()? } else { None };
    if let Some(s) = &args.since {
        cfg.since = Some(parse_cli_time(s, anchor).context("--since")?);
    }
    if let Some(u) = &args.until {
        cfg.until = Some(parse_cli_time(u, anchor).context("--until")?);
    }
    if let (Some(s), Some(u)) = (cfg.since, cfg.until)
        && s >= u
    {
        bail!("--since must be before --until");
    }
    if let Some(g) = &args.max_gap {
        let ms = parse_duration_us(g).context("--max-gap")?;
        if ms <= 0 {
            bail!("--max-gap must be positive");
        }
        cfg.max_gap_us = Some(ms);
    }
    if let Some(i) = &args.interval {
        let ms = parse_duration_us(i).context("--interval")?;
        if ms <= 0 {
            bail!("--interval must be positive");
        }
        cfg.interval_us = Some(ms);
    }
    cfg.idle_below = parse_fraction(&args.idle_below).context("--idle-below")?;
    cfg.min_idle_us = parse_duration_us(&args.min_idle).context("--min-idle")?;
    cfg.held_mem_bytes = parse_size_bytes(&args.held_mem).context("--held-mem")?;
    cfg.assume_held = args.assume_held;
    cfg.by = args.by.map(|b| match b {
        GroupByArg::Team => GroupBy::Team,
        GroupByArg::User => GroupBy::User,
        GroupByArg::Job => GroupBy::Job,
        GroupByArg::Host => GroupBy::Host,
        GroupByArg::Model => GroupBy::Model,
    });
    cfg.top = args.top;
    if let Some(b) = &args.bucket {
        let ms = parse_duration_us(b).context("--bucket")?;
        if ms <= 0 {
            bail!("--bucket must be positive");
        }
        cfg.bucket_us = Some(ms);
    }
    if let Some(path) = &args.leak_thresholds {
        cfg.leak_thresholds = crate::audit::diagnosis::LeakThresholds::from_file(path)
            .context("--leak-thresholds")?;
    }
    cfg.want = args.want;
    Ok(cfg)
}
