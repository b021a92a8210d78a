//! `gpuaudit sql`: the audit's plan rendered for a SQL engine; its answer is
//! read back by `report --partials` (docs/semantics.md §14).
use crate::audit::AuditConfig;
use crate::catalog::prices::PriceBook;
use crate::cli::sql::{DialectArg, SchemaArg, SqlArgs};
use crate::output::write_stdout;
use crate::pipeline::AuditOptions;
use crate::plan::sql::{Dialect, OTEL_COLUMNS, otel_table, render};
use crate::plan::{AuditPlan, DEFAULT_COLUMNS, parse_columns};
use anyhow::{Context, Result, bail};

pub fn run(args: SqlArgs) -> Result<u8> {
    let query = render(&plan_of(&args)?, dialect(args.dialect));
    match &args.output {
        Some(path) => std::fs::write(path, &query)
            .with_context(|| format!("--output {}: cannot write", path.display()))?,
        None => write_stdout(&query)?,
    }
    Ok(0)
}

pub fn dialect(d: DialectArg) -> Dialect {
    match d {
        DialectArg::Duckdb => Dialect::DuckDb,
        DialectArg::Clickhouse => Dialect::ClickHouse,
        DialectArg::Spark => Dialect::Spark,
        DialectArg::Trino => Dialect::Trino,
        DialectArg::Bigquery => Dialect::BigQuery,
    }
}

/// The plan from the flags, by the same rules as `report` (one parser of each flag).
pub fn plan_of(args: &SqlArgs) -> Result<AuditPlan> {
    if args.table.trim().is_empty() {
        bail!("--table must name the table of samples");
    }
    let (table, columns) = match (args.schema, &args.columns) {
        (SchemaArg::Otel, Some(_)) => {
            bail!("--columns names a wide table's columns; --schema otel has its own")
        }
        (SchemaArg::Otel, None) if args.dialect != DialectArg::Clickhouse => {
            bail!(
                "--schema otel is ClickHouse's OpenTelemetry exporter table: use it with --dialect clickhouse"
            )
        }
        (SchemaArg::Otel, None) => (
            otel_table(&args.table),
            parse_columns(&OTEL_COLUMNS.map(str::to_string))?,
        ),
        (SchemaArg::Wide, Some(c)) => (args.table.clone(), parse_columns(c)?),
        (SchemaArg::Wide, None) => (
            args.table.clone(),
            parse_columns(&DEFAULT_COLUMNS.map(str::to_string))?,
        ),
    };
    let mut config = AuditConfig::new(PriceBook::new(None, None, false)?);
    config.weights.max_gap_us = args.max_gap;
    config.weights.interval_us = args.interval;
    config.idle.below = args.idle_below;
    config.held.mem_bytes = args.held_mem;
    config.held.assume = args.assume_held;
    config.by = args.by.map(super::common::group_by);
    config.timeline.bucket_us = args.bucket;
    let opts = AuditOptions {
        config,
        since: args.since,
        until: args.until,
        jobs: None,
    };
    let cfg = crate::pipeline::audit_config(&opts, &|_| {
        bail!(
            "--since/--until: a span counts back from the end of the data, which the query has not seen; give a time (RFC 3339 or a date)"
        )
    })?;
    let has = |c: &str| columns.iter().any(|(canonical, _)| canonical == c);
    let held = crate::audit::held_rule_from(&has, std::slice::from_ref(&args.table), &cfg)?;
    Ok(AuditPlan {
        table,
        columns,
        held,
        idle_below: cfg.idle.below,
        max_gap_us: cfg.weights.max_gap_us,
        interval_us: cfg.weights.interval_us,
        since_us: cfg.since,
        until_us: cfg.until,
        by: cfg.by,
        bucket_us: cfg.timeline.bucket_us,
    })
}
