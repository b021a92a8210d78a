//! `report --clickhouse URL` / `--trino URL` (issue 33): the plan's query sent
//! over the engine's HTTP API, its answer rendered as `--partials` renders
//! one. No ClickHouse server or Trino installs on the test machines, so
//! tests/sql/engine_http.py speaks each protocol on a loopback port and runs
//! the SQL on a real engine: ClickHouse's HTTP interface over chDB (the
//! ClickHouse engine), Trino's REST protocol over DuckDB after sqlglot has
//! read the Trino SQL and transpiled it. Without the Python package the test
//! prints a skip line, unless CI is set, where it fails (.ci/run installs them).
mod common;

use common::{data, gpuaudit};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

const SQL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sql");

/// Whether python3 can import every module; under CI a missing one fails the test.
fn installed(modules: &[&str]) -> anyhow::Result<bool> {
    for module in modules {
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
            return Ok(false);
        }
    }
    Ok(true)
}

/// The shim server, stopped when dropped.
struct Shim {
    child: Child,
    url: String,
}

impl Shim {
    fn start(args: &[&str]) -> anyhow::Result<Shim> {
        let mut child = Command::new("python3")
            .arg(format!("{SQL_DIR}/engine_http.py"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            BufReader::new(out).read_line(&mut line)?;
        }
        let port: u16 = line.trim().parse().map_err(|e| {
            anyhow::anyhow!("engine_http.py {args:?} printed no port ({line:?}): {e}")
        })?;
        Ok(Shim {
            child,
            url: format!("http://127.0.0.1:{port}"),
        })
    }
}

impl Drop for Shim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn report(args: &[&str]) -> anyhow::Result<Output> {
    Ok(gpuaudit()?
        .env_remove("GPUAUDIT_SQL_USER")
        .env_remove("GPUAUDIT_SQL_PASSWORD")
        .arg("report")
        .args(args)
        .output()?)
}

/// `report` through the engine and on the file, every figure compared
/// (tests/sql/compare.py, 1e-9 relative); the engine's report.
fn parity(engine: &[&str], flags: &[&str]) -> anyhow::Result<Value> {
    let demo = data("demo-fleet.parquet");
    let dir = tempfile::tempdir()?;
    let mut args = engine.to_vec();
    args.extend(flags);
    args.extend(["--format", "json", "-q"]);
    let pushed = report(&args)?;
    anyhow::ensure!(
        pushed.status.success(),
        "report {args:?}: {}",
        String::from_utf8_lossy(&pushed.stderr)
    );
    let mut pulled_args = vec![demo.as_str()];
    pulled_args.extend(flags);
    pulled_args.extend(["--format", "json", "-q"]);
    let pulled = report(&pulled_args)?;
    anyhow::ensure!(pulled.status.success());
    let (a, b) = (
        dir.path().join("pulled.json"),
        dir.path().join("pushed.json"),
    );
    std::fs::write(&a, &pulled.stdout)?;
    std::fs::write(&b, &pushed.stdout)?;
    let cmp = Command::new("python3")
        .arg(format!("{SQL_DIR}/compare.py"))
        .arg(&a)
        .arg(&b)
        .args(["--ignore", "reclaim"])
        .output()?;
    anyhow::ensure!(
        cmp.status.success(),
        "{engine:?} {flags:?}: the engine's report differs from report:\n{}",
        String::from_utf8_lossy(&cmp.stdout)
    );
    Ok(serde_json::from_slice(&pushed.stdout)?)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn clickhouse_over_http_equals_the_report() -> anyhow::Result<()> {
    if !installed(&["chdb"])? {
        return Ok(());
    }
    let shim = Shim::start(&["clickhouse", "--user", "audit", "--password", "s3cret"])?;
    let table = format!(
        "file('{}', Parquet)",
        data("demo-fleet.parquet").replace('\'', "''")
    );
    // credentials in the URL's userinfo
    let url = shim.url.replace("http://", "http://audit:s3cret@");
    let pushed = parity(
        &["--clickhouse", &url, "--sql-table", &table],
        &["--by", "team", "--bucket", "6h"],
    )?;
    assert_eq!(pushed["gpu_count"], 40);
    assert_eq!(
        pushed["timeline"]["buckets"].as_array().map(Vec::len),
        Some(28)
    );
    // ... and through the flags
    parity(
        &[
            "--clickhouse",
            &shim.url,
            "--sql-table",
            &table,
            "--sql-user",
            "audit",
            "--sql-password",
            "s3cret",
        ],
        &["--since", "2026-07-07", "--until", "2026-07-09"],
    )?;

    // no credentials: 401, exit 2 naming the server and what to set
    let out = report(&["--clickhouse", &shim.url, "--sql-table", &table, "-q"])?;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("ClickHouse at {} answered 401", shim.url)),
        "{err}"
    );
    assert!(err.contains("GPUAUDIT_SQL_USER"), "{err}");
    // a wrong password: 401, and the password is never printed
    let out = gpuaudit()?
        .env("GPUAUDIT_SQL_USER", "audit")
        .env("GPUAUDIT_SQL_PASSWORD", "wrong-pass")
        .args([
            "report",
            "--clickhouse",
            &shim.url,
            "--sql-table",
            &table,
            "-q",
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("were rejected"), "{err}");
    assert!(!err.contains("wrong-pass"), "{err}");

    // the engine's own error: exit 2 naming the URL and ClickHouse's message
    let out = report(&["--clickhouse", &url, "--sql-table", "no_such_table", "-q"])?;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("ClickHouse at {} answered 500", shim.url)),
        "{err}"
    );
    assert!(err.contains("UNKNOWN_TABLE"), "{err}");
    assert!(!err.contains("s3cret"), "{err}");
    Ok(())
}

#[test]
fn trino_over_http_equals_the_report() -> anyhow::Result<()> {
    if !installed(&["duckdb", "sqlglot"])? {
        return Ok(());
    }
    let demo = data("demo-fleet.parquet");
    // 30 rows a page: the answer comes in many pages
    let shim = Shim::start(&["trino", &demo, "--page", "30"])?;
    let pushed = parity(
        &["--trino", &shim.url, "--sql-table", "samples"],
        &["--by", "team", "--bucket", "1h"],
    )?;
    assert_eq!(
        pushed["timeline"]["buckets"].as_array().map(Vec::len),
        Some(168)
    );
    assert!(pushed["purchase"].is_object());
    parity(
        &["--trino", &shim.url, "--sql-table", "samples"],
        &["--by", "host", "--idle-below", "5%", "--max-gap", "2m"],
    )?;

    // the engine's error object: exit 2 naming the URL and the message
    let out = report(&["--trino", &shim.url, "--sql-table", "no_such_table", "-q"])?;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("Trino at {}: the query failed", shim.url)),
        "{err}"
    );
    assert!(err.contains("no_such_table does not exist"), "{err}");

    // check takes the engine as CURRENT
    let out = gpuaudit()?
        .args([
            "check",
            "--trino",
            &shim.url,
            "--sql-table",
            "samples",
            "--min",
            "active=0.99",
            "-q",
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    Ok(())
}

#[test]
fn trino_refusing_credentials_is_exit_2() -> anyhow::Result<()> {
    if !installed(&["duckdb", "sqlglot"])? {
        return Ok(());
    }
    let shim = Shim::start(&[
        "trino",
        &data("demo-fleet.parquet"),
        "--user",
        "ops",
        "--password",
        "pw",
    ])?;
    let out = report(&["--trino", &shim.url, "--sql-table", "samples", "-q"])?;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("Trino at {} answered 401", shim.url)),
        "{err}"
    );
    let ok = gpuaudit()?
        .env("GPUAUDIT_SQL_USER", "ops")
        .env("GPUAUDIT_SQL_PASSWORD", "pw")
        .args([
            "report",
            "--trino",
            &shim.url,
            "--sql-table",
            "samples",
            "-q",
            "--format",
            "json",
        ])
        .output()?;
    assert!(ok.status.success(), "{}", stderr(&ok));
    Ok(())
}

#[test]
fn trino_going_away_mid_paging_is_exit_2() -> anyhow::Result<()> {
    if !installed(&["duckdb", "sqlglot"])? {
        return Ok(());
    }
    // the process exits when the third page is asked for
    let shim = Shim::start(&[
        "trino",
        &data("demo-fleet.parquet"),
        "--page",
        "10",
        "--die-after-pages",
        "2",
    ])?;
    let out = report(&[
        "--trino",
        &shim.url,
        "--sql-table",
        "samples",
        "-q",
        "--sql-retries",
        "1",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains(&format!("Trino at {}", shim.url)), "{err}");
    assert!(
        err.contains("page 3 of the answer") || err.contains("cannot reach Trino"),
        "{err}"
    );
    Ok(())
}

#[test]
fn engine_flags_are_checked_at_the_door() -> anyhow::Result<()> {
    let out = report(&["--trino", "trino:8080", "--sql-table", "t", "-q"])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--trino 'trino:8080': expected an http:// or https:// URL"));
    let out = report(&["--clickhouse", "http://ch:8123", "-q"])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--sql-table"), "{}", stderr(&out));
    let out = report(&[
        "--trino",
        "http://t:8080",
        "--sql-table",
        "t",
        "--jobs",
        "j.toml",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--jobs needs each job's samples"));
    let out = report(&[
        "--trino",
        "http://t:8080",
        "--sql-table",
        "t",
        "--sql-schema",
        "otel",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("use it with --dialect clickhouse"),
        "{}",
        stderr(&out)
    );
    Ok(())
}
