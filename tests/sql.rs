//! The SQL plan on a real engine (issue 33): `gpuaudit sql` printed, run by
//! DuckDB over the samples, its answer read back by `report --partials`, and
//! every figure that report renders compared with `report` on the same
//! samples (tests/sql/compare.py: 1e-9 relative). DuckDB is the PyPI package;
//! without it the engine tests print a skip line, unless CI is set, where
//! they fail (.ci/run installs it).
mod common;

use common::{assert_close, data, gpuaudit, num, report_json};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const SQL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sql");

/// Whether python3 can import `module`; under CI a missing engine fails the test.
fn installed(module: &str) -> anyhow::Result<bool> {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        anyhow::ensure!(
            !ci,
            "CI is set but the Python package {module} is missing (pip install {module}; .ci/run does)"
        );
        println!("SKIPPED: python3 package {module} not found (pip install {module})");
    }
    Ok(ok)
}

/// An engine the plan is verified on: its Python package, its dialect and
/// how a query names the samples.
#[derive(Debug, Clone, Copy)]
enum Engine {
    DuckDb,
    /// chDB: ClickHouse embedded
    ClickHouse,
    /// Spark SQL, local mode
    Spark,
    /// chDB over the OpenTelemetry exporter's otel_metrics_gauge table
    ClickHouseOtel,
    /// Trino's SQL read by sqlglot's Trino grammar, transpiled to DuckDB
    TrinoSqlglot,
    /// BigQuery's SQL read by sqlglot's BigQuery grammar, transpiled to DuckDB
    BigQuerySqlglot,
}

impl Engine {
    fn dialect(self) -> &'static str {
        match self {
            Engine::DuckDb => "duckdb",
            Engine::ClickHouse | Engine::ClickHouseOtel => "clickhouse",
            Engine::Spark => "spark",
            Engine::TrinoSqlglot => "trino",
            Engine::BigQuerySqlglot => "bigquery",
        }
    }

    /// The table expression of a file (Spark: the view the runner registers).
    fn table(self, path: &str) -> String {
        let quoted = path.replace('\'', "''");
        let parquet = path.ends_with(".parquet");
        match self {
            Engine::DuckDb if parquet => format!("read_parquet('{quoted}')"),
            Engine::DuckDb => format!("read_csv('{quoted}')"),
            Engine::ClickHouse if parquet => format!("file('{quoted}', Parquet)"),
            Engine::ClickHouse => format!("file('{quoted}', CSVWithNames)"),
            Engine::Spark | Engine::TrinoSqlglot | Engine::BigQuerySqlglot => "samples".to_string(),
            Engine::ClickHouseOtel => "otel_metrics_gauge".to_string(),
        }
    }

    fn runner(self) -> &'static str {
        match self {
            Engine::DuckDb => "duckdb",
            Engine::ClickHouse => "chdb",
            Engine::Spark => "spark",
            Engine::ClickHouseOtel => "chdb-otel",
            Engine::TrinoSqlglot => "sqlglot-trino",
            Engine::BigQuerySqlglot => "sqlglot-bigquery",
        }
    }
}

/// The query for `input` with `flags`, run by `engine`, its answer written as
/// `export` (parquet or csv) in `dir`; the path of the answer.
fn partials(
    engine: Engine,
    dir: &Path,
    input: &str,
    columns: Option<&str>,
    flags: &[&str],
    export: &str,
) -> anyhow::Result<String> {
    let query = dir.join("query.sql");
    let mut sql = gpuaudit()?;
    sql.args([
        "sql",
        "--dialect",
        engine.dialect(),
        "--table",
        &engine.table(input),
    ])
    .args(flags)
    .arg("-o")
    .arg(&query);
    if let Some(c) = columns {
        sql.args(["--columns", c]);
    }
    if let Engine::ClickHouseOtel = engine {
        sql.args(["--schema", "otel"]);
    }
    let out = sql.output()?;
    anyhow::ensure!(
        out.status.success(),
        "sql {flags:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer = dir.join(format!("partials.{export}"));
    let run = Command::new("python3")
        .arg(format!("{SQL_DIR}/engine_run.py"))
        .arg(engine.runner())
        .arg(&query)
        .arg(&answer)
        .arg(input)
        .output()?;
    anyhow::ensure!(
        run.status.success(),
        "{engine:?} on {input} {flags:?}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    Ok(answer.display().to_string())
}

/// The flags `report --partials` takes again: --by and prices (the rest
/// were the query's).
fn report_flags<'a>(flags: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        if *f == "--by" {
            out.push(*f);
            out.extend(it.next());
        }
    }
    out
}

/// Pulled and pushed-down reports of `input`, compared figure by figure.
fn parity(
    engine: Engine,
    input: &str,
    columns: Option<&str>,
    flags: &[&str],
    export: &str,
) -> anyhow::Result<(Value, Value)> {
    // whom to reclaim from needs each sample (leaks, episodes): never in sums
    parity_ignoring(engine, input, columns, flags, export, &["reclaim"])
}

/// The same, skipping fields the engine's source cannot carry.
fn parity_ignoring(
    engine: Engine,
    input: &str,
    columns: Option<&str>,
    flags: &[&str],
    export: &str,
    ignored: &[&str],
) -> anyhow::Result<(Value, Value)> {
    let dir = tempfile::tempdir()?;
    let answer = partials(engine, dir.path(), input, columns, flags, export)?;
    let mut pushed_args = vec!["--partials", answer.as_str()];
    pushed_args.extend(report_flags(flags));
    let pushed = report_json(&pushed_args)?;
    let mut pulled_args = vec![input, "-q"];
    pulled_args.extend(flags);
    let pulled = report_json(&pulled_args)?;
    let (a, b) = (
        dir.path().join("pulled.json"),
        dir.path().join("pushed.json"),
    );
    std::fs::write(&a, serde_json::to_vec(&pulled)?)?;
    std::fs::write(&b, serde_json::to_vec(&pushed)?)?;
    let mut cmp = Command::new("python3");
    cmp.arg(format!("{SQL_DIR}/compare.py")).arg(&a).arg(&b);
    for i in ignored {
        cmp.args(["--ignore", i]);
    }
    let cmp = cmp.output()?;
    anyhow::ensure!(
        cmp.status.success(),
        "{engine:?} on {input} {flags:?}: report --partials differs from report:\n{}",
        String::from_utf8_lossy(&cmp.stdout)
    );
    Ok((pulled, pushed))
}

#[test]
fn the_demo_fleet_through_duckdb_equals_the_report() -> anyhow::Result<()> {
    if !installed("duckdb")? {
        return Ok(());
    }
    let demo = data("demo-fleet.parquet");
    let (pulled, pushed) = parity(Engine::DuckDb, &demo, None, &[], "parquet")?;
    assert_eq!(pushed["gpu_count"], 40);
    assert_eq!(pushed["gpus"].as_array().map(Vec::len), Some(40));
    assert_eq!(num(&pushed, "/sources/rows_used"), 80_448.0);
    assert_eq!(pushed["idle_episodes_total"], 0);
    assert_close(
        num(&pushed, "/layers/held_gpu_hours"),
        num(&pulled, "/layers/held_gpu_hours"),
        "held",
    );
    // the timeline and the purchase answer from bucket sums
    let (_, timed) = parity(Engine::DuckDb, &demo, None, &["--bucket", "1h"], "parquet")?;
    assert_eq!(
        timed["timeline"]["buckets"].as_array().map(Vec::len),
        Some(168)
    );
    assert!(timed["purchase"].is_object());
    // showback through a CSV export, and by host
    let (_, by_team) = parity(Engine::DuckDb, &demo, None, &["--by", "team"], "csv")?;
    assert!(by_team["groups"].as_array().is_some_and(|g| g.len() > 1));
    parity(
        Engine::DuckDb,
        &demo,
        None,
        &["--by", "host", "--idle-below", "5%"],
        "parquet",
    )?;
    Ok(())
}

#[test]
fn a_real_sparse_trace_with_unknown_held_values_agrees() -> anyhow::Result<()> {
    if !installed("duckdb")? {
        return Ok(());
    }
    let philly = data("real/philly-dre/excerpt.parquet");
    let columns = Some("time,host,gpu,held,job,user,device_util");
    let (pulled, pushed) = parity(
        Engine::DuckDb,
        &philly,
        columns,
        &["--by", "user"],
        "parquet",
    )?;
    assert_eq!(pushed["gpu_count"], 42);
    assert!(num(&pulled, "/data_quality/held_unknown_gpu_hours") > 0.0);
    assert!(num(&pulled, "/data_quality/unobserved_gpu_hours") > 0.0);
    assert_eq!(pushed["held_rule"], pulled["held_rule"]);
    parity(Engine::DuckDb, &philly, columns, &["--by", "job"], "csv")?;
    Ok(())
}

/// testdata/sql/mixed-vendors.csv: two H100s, two MI300X (one idle, held
/// for its first 20 minutes), one Gaudi 3 without a tensor column value; the
/// vendor lines come back from the engine's per-GPU sums as from the samples.
#[test]
fn a_mixed_vendor_fleet_keeps_its_vendor_lines_through_duckdb() -> anyhow::Result<()> {
    if !installed("duckdb")? {
        return Ok(());
    }
    let mixed = data("sql/mixed-vendors.csv");
    let columns = Some(
        "time,host,gpu,model,job,user,team,device_util,sm_active,tensor_active,mem_used_bytes",
    );
    let (pulled, pushed) = parity(
        Engine::DuckDb,
        &mixed,
        columns,
        &["--by", "team"],
        "parquet",
    )?;
    // (compare.py has checked every vendor figure against the samples' report)
    assert_eq!(pulled["vendors"].as_array().map(Vec::len), Some(3));
    let vendors: Vec<&str> = pushed["vendors"]
        .as_array()
        .map(|v| v.iter().filter_map(|l| l["vendor"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(vendors, ["NVIDIA", "AMD", "Intel"]);
    // AMD: GPU-a0 held the hour, GPU-a1 its first four 5-minute samples
    assert!((num(&pushed, "/vendors/1/held_gpu_hours") - 4.0 / 3.0).abs() < 1e-12);
    // the idle MI300X's 20 held minutes at $1.85/h
    assert!((num(&pushed, "/vendors/1/idle_held_usd") - 1.85 / 3.0).abs() < 1e-12);
    Ok(())
}

const AWKWARD_COLUMNS: &str =
    "time,host,gpu,model,held,job,user,team,device_util,sm_active,mem_used_bytes";

/// testdata/sql/awkward.csv worked by hand (docs/semantics.md §2): steps
/// h1/g0 60 s (diffs 60, 60, 60, 420, 60 after its repeat at 10:02), h2/g0
/// 30 s (30, 60, 30, 90, 30), h2/g1 180 s (300 and 60: the mean of two);
/// the fleet's step is their median, 60 s, which h1/g1's lone sample weighs.
/// Observed: h1/g0 60+60+60+180+60+60 = 480 s (240 s unobserved), h1/g1
/// 60 s, h2/g0 30+60+30+90+30+30 = 270 s, h2/g1 300+60+180 = 540 s:
/// 1350 s = 0.375 h. The unreadable held value ("maybe") is h1/g0's last
/// sample: 60 s held unknown.
#[test]
fn awkward_samples_agree_and_match_the_hand_worked_figures() -> anyhow::Result<()> {
    if !installed("duckdb")? {
        return Ok(());
    }
    let awkward = data("sql/awkward.csv");
    let (_, pushed) = parity(
        Engine::DuckDb,
        &awkward,
        Some(AWKWARD_COLUMNS),
        &[],
        "parquet",
    )?;
    assert_close(
        num(&pushed, "/layers/observed_gpu_hours"),
        0.375,
        "observed",
    );
    assert_close(
        num(&pushed, "/data_quality/unobserved_gpu_hours"),
        240.0 / 3600.0,
        "unobserved",
    );
    assert_close(
        num(&pushed, "/data_quality/held_unknown_gpu_hours"),
        60.0 / 3600.0,
        "held unknown",
    );
    assert_eq!(num(&pushed, "/data_quality/duplicates"), 1.0);
    for flags in [
        &["--by", "team"][..],
        &["--by", "model"],
        &[
            "--since",
            "2026-07-06T10:01:00Z",
            "--until",
            "2026-07-06T10:05:30Z",
        ],
        &["--max-gap", "2m", "--by", "job"],
        &["--interval", "10m", "--by", "user"],
        &[
            "--bucket",
            "5m",
            "--since",
            "2026-07-06T10:01:30Z",
            "--until",
            "2026-07-06T10:05:30Z",
        ],
        &["--bucket", "1m", "--by", "team"],
    ] {
        parity(
            Engine::DuckDb,
            &awkward,
            Some(AWKWARD_COLUMNS),
            flags,
            "csv",
        )?;
    }
    Ok(())
}

#[test]
fn a_table_that_is_not_partial_sums_is_refused_naming_the_column() -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args(["report", "--partials", &data("small-fleet.csv")])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no column 'grp'"), "{err}");
    assert!(err.contains("gpuaudit sql"), "{err}");
    Ok(())
}

#[test]
fn flags_the_query_decided_are_refused_by_report_partials() -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args(["report", "--partials", "x.parquet", "--max-gap", "5m"])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--max-gap cannot change partial sums"),
        "{err}"
    );
    let out = gpuaudit()?
        .args([
            "sql",
            "--dialect",
            "duckdb",
            "--table",
            "t",
            "--since",
            "7d",
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a span counts back from the end of the data"),
        "{err}"
    );
    let out = gpuaudit()?
        .args([
            "sql",
            "--dialect",
            "duckdb",
            "--table",
            "t",
            "--columns",
            "time,gpu,util",
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--columns: \"util\""), "{err}");
    Ok(())
}

#[test]
fn a_grouping_the_query_did_not_make_is_refused() -> anyhow::Result<()> {
    if !installed("duckdb")? {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let answer = partials(
        Engine::DuckDb,
        dir.path(),
        &data("small-fleet.csv"),
        Some(
            "time,host,gpu,model,job,user,team,device_util,sm_active,tensor_active,mem_used_bytes",
        ),
        &["--by", "team"],
        "parquet",
    )?;
    let out = gpuaudit()?
        .args(["report", "--partials", &answer, "--by", "user"])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("grouped with --by team (gpuaudit sql), the report asks --by user"),
        "{err}"
    );
    Ok(())
}

#[test]
fn every_dialect_renders_the_same_plan_in_its_own_spelling() -> anyhow::Result<()> {
    for (dialect, spelling) in [
        ("duckdb", "epoch_us(\"time\")"),
        ("clickhouse", "SETTINGS join_use_nulls = 1"),
        ("spark", "unix_micros(`time`)"),
        ("trino", "to_unixtime(\"time\")"),
        ("bigquery", "UNIX_MICROS(`time`)"),
    ] {
        let out = gpuaudit()?
            .args(["sql", "--dialect", dialect, "--table", "samples"])
            .output()?;
        assert!(out.status.success(), "{dialect}");
        let q = String::from_utf8_lossy(&out.stdout);
        assert!(q.contains(spelling), "{dialect}: {q}");
        let bucketed = gpuaudit()?
            .args([
                "sql",
                "--dialect",
                dialect,
                "--table",
                "samples",
                "--bucket",
                "1h",
            ])
            .output()?;
        let b = String::from_utf8_lossy(&bucketed.stdout);
        let split = match dialect {
            "duckdb" => "unnest(range(",
            "clickhouse" => "arrayJoin(range(",
            "spark" => "explode(sequence(",
            "trino" => "CROSS JOIN UNNEST(sequence(",
            _ => "CROSS JOIN UNNEST(GENERATE_ARRAY(",
        };
        assert!(b.contains(split), "{dialect}: {b}");
        assert!(b.contains("CAST(3600000000 AS"), "{dialect}");
        // the weight rule: LEAD over the GPU by time, capped at max gap
        assert!(q.contains("LEAD(t) OVER (PARTITION BY host, gpu ORDER BY t)"));
        assert!(q.contains("ELSE LEAST(g.diff, g.max_gap) END"));
    }
    Ok(())
}

#[test]
fn clickhouse_through_chdb_equals_the_report() -> anyhow::Result<()> {
    if !installed("chdb")? {
        return Ok(());
    }
    let demo = data("demo-fleet.parquet");
    parity(
        Engine::ClickHouse,
        &demo,
        None,
        &["--bucket", "6h"],
        "parquet",
    )?;
    parity(Engine::ClickHouse, &demo, None, &["--by", "team"], "csv")?;
    let philly = data("real/philly-dre/excerpt.parquet");
    let columns = Some("time,host,gpu,held,job,user,device_util");
    parity(
        Engine::ClickHouse,
        &philly,
        columns,
        &["--by", "user"],
        "parquet",
    )?;
    Ok(())
}

/// Spark starts a JVM (several seconds): one test, two audits in one run each.
#[test]
fn spark_sql_in_local_mode_equals_the_report() -> anyhow::Result<()> {
    if !installed("pyspark")? {
        return Ok(());
    }
    let philly = data("real/philly-dre/excerpt.parquet");
    let columns = Some("time,host,gpu,held,job,user,device_util");
    parity(
        Engine::Spark,
        &philly,
        columns,
        &["--by", "user", "--bucket", "1d"],
        "csv",
    )?;
    Ok(())
}

/// dcgm-exporter's series as the OpenTelemetry collector writes them to
/// ClickHouse (tests/sql/engine_run.py chdb-otel: GPU_UTIL in percent, FB_USED
/// in MiB, the exporter's own pod label on every point, the workload in
/// exported_pod): the same figures, but users and memory totals, which
/// DCGM's series do not carry.
#[test]
fn the_opentelemetry_gauge_table_in_clickhouse_equals_the_report() -> anyhow::Result<()> {
    if !installed("chdb")? {
        return Ok(());
    }
    let demo = data("demo-fleet.parquet");
    let ignored = ["users", "last_mem_total_bytes", "reclaim"];
    for flags in [&[][..], &["--by", "job"]] {
        parity_ignoring(
            Engine::ClickHouseOtel,
            &demo,
            None,
            flags,
            "parquet",
            &ignored,
        )?;
    }
    let out = gpuaudit()?
        .args([
            "sql",
            "--dialect",
            "duckdb",
            "--schema",
            "otel",
            "--table",
            "t",
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("use it with --dialect clickhouse"));
    Ok(())
}

/// `check` takes partial sums as CURRENT: the same figures as the samples.
#[test]
fn check_reads_partial_sums_as_current() -> anyhow::Result<()> {
    if !installed("duckdb")? {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let awkward = data("sql/awkward.csv");
    let answer = partials(
        Engine::DuckDb,
        dir.path(),
        &awkward,
        Some(AWKWARD_COLUMNS),
        &[],
        "parquet",
    )?;
    let baseline = dir.path().join("baseline.json");
    let out = gpuaudit()?
        .args(["report", &awkward, "-q", "--format", "json", "-o"])
        .arg(&baseline)
        .output()?;
    assert!(out.status.success());
    let check = |rule: &[&str]| -> anyhow::Result<Option<i32>> {
        let out = gpuaudit()?
            .args(["check", "--partials", &answer, "--baseline"])
            .arg(&baseline)
            .args(rule)
            .output()?;
        Ok(out.status.code())
    };
    assert_eq!(check(&["--max-drop", "active=0pp"])?, Some(0));
    assert_eq!(check(&["--min", "active=0.99"])?, Some(1));
    Ok(())
}

/// A snapshot (every GPU one sample) weighs what the query said: --interval.
#[test]
fn a_snapshot_weighs_the_querys_interval() -> anyhow::Result<()> {
    if !installed("duckdb")? {
        return Ok(());
    }
    let snap = data("sql/snapshot.csv");
    let columns = Some("time,host,gpu,model,job,device_util");
    let (_, pushed) = parity(
        Engine::DuckDb,
        &snap,
        columns,
        &["--interval", "10m"],
        "parquet",
    )?;
    assert_eq!(pushed["window"]["snapshot"], true);
    // three GPUs of 10 minutes each
    assert_close(num(&pushed, "/layers/observed_gpu_hours"), 0.5, "observed");
    let notes = pushed["data_quality"]["notes"].to_string();
    assert!(notes.contains("weighed 10m each"), "{notes}");
    Ok(())
}

/// No Trino or BigQuery installs here: their queries are read by sqlglot's
/// grammars (the first error fails), transpiled to DuckDB and run there
/// (tests/sql/engine_run.py sqlglot-*). This proves the text parses as the
/// dialect and means, as sqlglot reads it, the figures of the report; not
/// that the engines accept every function as sqlglot does (docs §14).
#[test]
fn trino_and_bigquery_sql_read_by_sqlglot_equal_the_report() -> anyhow::Result<()> {
    if !installed("duckdb")? || !installed("sqlglot")? {
        return Ok(());
    }
    let demo = data("demo-fleet.parquet");
    let awkward = data("sql/awkward.csv");
    for engine in [Engine::TrinoSqlglot, Engine::BigQuerySqlglot] {
        let (_, pushed) = parity(
            engine,
            &demo,
            None,
            &["--by", "team", "--bucket", "1h"],
            "parquet",
        )?;
        assert_eq!(
            pushed["timeline"]["buckets"].as_array().map(Vec::len),
            Some(168)
        );
        let (_, pushed) = parity(
            engine,
            &awkward,
            Some(AWKWARD_COLUMNS),
            &["--by", "job"],
            "csv",
        )?;
        assert_close(
            num(&pushed, "/layers/observed_gpu_hours"),
            0.375,
            "observed",
        );
    }
    Ok(())
}
