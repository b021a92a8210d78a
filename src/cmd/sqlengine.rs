//! `report --clickhouse URL` / `--trino URL`: `gpuaudit sql`'s query for the
//! engine, built from the report's own flags (one parser of each), and the
//! connection's options typed for `source::sqlhttp`.
use crate::cli::sql::{DialectArg, SqlArgs};
use crate::cli::{AuditArgs, InputArgs};
use crate::pipeline::AuditOptions;
use crate::source::sqlhttp::{EngineKind, EngineQuery};
use anyhow::{Result, bail};
use std::time::Duration;

/// The query and the connection, when --clickhouse or --trino was given.
pub fn engine_query(input: &InputArgs, audit: &AuditArgs) -> Result<EngineQuery> {
    let e = &input.engine;
    let (kind, url, dialect) = match (&e.clickhouse, &e.trino) {
        (Some(url), None) => (EngineKind::ClickHouse, url, DialectArg::Clickhouse),
        (None, Some(url)) => (EngineKind::Trino, url, DialectArg::Trino),
        _ => bail!("give one engine: --clickhouse URL or --trino URL"),
    };
    if audit.jobs.is_some() {
        bail!(
            "--jobs needs each job's samples: it cannot be combined with --clickhouse or --trino"
        );
    }
    let Some(table) = e.sql_table.clone() else {
        bail!("--sql-table must name the engine's table of samples");
    };
    let args = SqlArgs {
        dialect,
        table,
        columns: input.columns.clone(),
        schema: e.sql_schema,
        since: audit.since,
        until: audit.until,
        max_gap: audit.max_gap,
        interval: audit.interval,
        idle_below: audit.idle_below,
        held_mem: audit.held_mem,
        assume_held: audit.assume_held,
        by: audit.by,
        bucket: audit.bucket,
        output: None,
    };
    let plan = super::sql::plan_of(&args)?;
    Ok(EngineQuery {
        kind,
        url: url.clone(),
        query: crate::plan::sql::render(&plan, super::sql::dialect(dialect)),
        user: e.sql_user.clone(),
        password: e.sql_password.clone(),
        // positive: clap's parser refused anything else
        timeout: Duration::from_micros(e.sql_timeout.unsigned_abs()),
        retries: e.sql_retries,
    })
}

/// The settings the query applied (window, weights, held, bucket) are not
/// applied again to its partial sums.
pub fn applied_by_the_query(opts: &mut AuditOptions) {
    opts.since = None;
    opts.until = None;
    let c = &mut opts.config;
    c.weights.max_gap_us = None;
    c.weights.interval_us = None;
    c.held.assume = false;
    c.timeline.bucket_us = None;
}
