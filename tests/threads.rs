//! `--threads N`: the parallel audit gives the figures of the one-thread run,
//! counts and tick sums exactly, floating sums to 1e-12, every list in the
//! same order, on each path (streamed parquet, in-memory CSV, a jobs file,
//! slice edges inside a GPU's run, a hive directory).
use serde_json::Value;
use std::path::Path;
mod common;
use common::{data, gpuaudit, num, report_json};

/// Every difference between two reports beyond the rule above, as
/// "path: a vs b" (empty when they agree).
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    differences_within(a, b, path, 1e-12, out);
}

/// [`differences`] with floating sums to `rel` (relative).
fn differences_within(a: &Value, b: &Value, path: &str, rel: f64, out: &mut Vec<String>) {
    let differences = |a: &Value, b: &Value, path: &str, out: &mut Vec<String>| {
        differences_within(a, b, path, rel, out)
    };
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let float = x.is_f64() || y.is_f64();
            let (fx, fy) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            let agree = if float {
                (fx - fy).abs() <= rel * fx.abs().max(fy.abs()).max(1.0)
            } else {
                x == y
            };
            if !agree {
                out.push(format!("{path}: {x} vs {y}"));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                differences(p, q, &format!("{path}/{i}"), out);
            }
        }
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => {
            for (k, p) in x {
                match y.get(k) {
                    Some(q) => differences(p, q, &format!("{path}/{k}"), out),
                    None => out.push(format!("{path}/{k}: missing on the right")),
                }
            }
        }
        _ if a == b => {}
        _ => out.push(format!("{path}: {a} vs {b}")),
    }
}

/// The report at each thread count agrees with the one-thread report.
fn assert_same_at_every_thread_count(args: &[&str], env: &[(&str, &str)]) -> anyhow::Result<()> {
    let run = |threads: &str| -> anyhow::Result<Value> {
        let mut c = gpuaudit()?;
        c.arg("report")
            .args(args)
            .args(["--format", "json", "--threads", threads]);
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output()?;
        anyhow::ensure!(
            out.status.success(),
            "--threads {threads}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(serde_json::from_slice(&out.stdout)?)
    };
    let one = run("1")?;
    assert!(
        one["layers"]["observed_gpu_hours"].as_f64().unwrap_or(0.0) > 0.0,
        "the fleet is not empty"
    );
    for threads in ["2", "3", "8"] {
        let other = run(threads)?;
        let mut diffs = Vec::new();
        differences(&one, &other, "", &mut diffs);
        assert!(
            diffs.is_empty(),
            "{args:?} --threads {threads} differs from --threads 1 in {} places: {:?}",
            diffs.len(),
            &diffs[..diffs.len().min(10)]
        );
    }
    Ok(())
}

/// A demo fleet of 64 GPUs on 8 hosts (jobs and hosts span shards), written once per test.
fn demo_fleet(dir: &Path, name: &str, extra: &[&str]) -> anyhow::Result<String> {
    let out = dir.join(name);
    let status = gpuaudit()?
        .args([
            "demo",
            "--gpus",
            "64",
            "--days",
            "2",
            "--interval",
            "10m",
            "--out",
        ])
        .arg(&out)
        .args(extra)
        .output()?;
    anyhow::ensure!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    Ok(out.display().to_string())
}

#[test]
fn a_streamed_parquet_fleet_reads_alike_at_every_thread_count() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let fleet = demo_fleet(dir.path(), "fleet.parquet", &[])?;
    assert_same_at_every_thread_count(&[&fleet, "--by", "team"], &[])?;
    assert_same_at_every_thread_count(&[&fleet, "--by", "host", "--bucket", "1h"], &[])
}

#[test]
fn slice_edges_inside_a_gpus_run_change_nothing_at_any_thread_count() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let fleet = demo_fleet(dir.path(), "fleet.parquet", &[])?;
    assert_same_at_every_thread_count(&[&fleet, "--by", "job"], &[("GPUAUDIT_SLICE_ROWS", "997")])
}

#[test]
fn a_hive_directory_reads_alike_at_every_thread_count() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let fleet = demo_fleet(dir.path(), "by-day", &["--partition-by-day"])?;
    assert_same_at_every_thread_count(&[&fleet, "--by", "user"], &[])
}

#[test]
fn the_in_memory_path_and_a_jobs_file_read_alike_at_every_thread_count() -> anyhow::Result<()> {
    assert_same_at_every_thread_count(&[&data("small-fleet.csv"), "--by", "job"], &[])?;
    assert_same_at_every_thread_count(
        &[
            &data("mfu/fleet.csv"),
            "--jobs",
            &data("mfu/jobs.csv"),
            "--by",
            "team",
        ],
        &[],
    )
}

#[test]
fn the_demo_fleets_story_is_the_same_on_one_thread() -> anyhow::Result<()> {
    // the figures the README and the other tests pin, on the single-thread path
    let v = report_json(&[&data("demo-fleet.parquet"), "--threads", "1"])?;
    let held = v["layers"]["held_gpu_hours"].as_f64().unwrap_or(0.0);
    assert!((held - 6117.0).abs() < 1.0, "held {held}");
    Ok(())
}

#[test]
fn threads_must_be_a_whole_number_of_at_least_one() -> anyhow::Result<()> {
    for bad in ["0", "-2", "many", "1.5", "5000"] {
        let out = gpuaudit()?
            .args(["report", &data("small-fleet.csv"), "--threads", bad])
            .output()?;
        assert_eq!(out.status.code(), Some(2), "--threads {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "invalid value '{bad}' for '--threads <N>': must be a whole number from 1 to 1024"
            )),
            "--threads {bad}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    Ok(())
}

/// The every-path fleet (docs/semantics.md §1, §13): g0 held all January
/// 2026 at 50% busy, written in percent, except days 1-5 at 0.5% (a file of
/// those days alone holds no value above 1); g1 unallocated at 0%; `sm_active`
/// never measured; one stray g1 sample on day 200 (2026-07-19), a file of
/// its own. Hourly samples: 2 x 720 + 1 rows.
struct EveryPathFleet {
    dir: tempfile::TempDir,
}

impl EveryPathFleet {
    const T0_MS: i64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
    const HOUR_MS: i64 = 3_600_000;

    /// (time ms, gpu, held, device_util in percent) of day `d` (1-based; 200: the stray).
    fn rows(d: i64) -> Vec<(i64, &'static str, bool, f64)> {
        let day0 = Self::T0_MS + (d - 1) * 24 * Self::HOUR_MS;
        if d == 200 {
            return vec![(day0, "g1", false, 0.0)];
        }
        let busy = if d <= 5 { 0.5 } else { 50.0 };
        (0..24)
            .flat_map(|h| {
                let t = day0 + h * Self::HOUR_MS;
                [(t, "g0", true, busy), (t, "g1", false, 0.0)]
            })
            .collect()
    }

    fn days() -> Vec<i64> {
        (1..=30).chain([200]).collect()
    }

    /// The rows as a frame, times as a UTC datetime or (`text`) RFC 3339 text.
    fn frame(
        rows: &[(i64, &'static str, bool, f64)],
        text: bool,
    ) -> anyhow::Result<polars::prelude::DataFrame> {
        use polars::prelude::*;
        let time = Series::new("time".into(), rows.iter().map(|r| r.0).collect::<Vec<_>>()).cast(
            &DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC)),
        )?;
        let time = if text {
            let texts: Vec<String> = rows.iter().map(|r| Self::rfc3339(r.0)).collect();
            Series::new("time".into(), texts)
        } else {
            time
        };
        let n = rows.len();
        Ok(DataFrame::new_infer_height(vec![
            time.into_column(),
            Column::new("host".into(), vec!["h"; n]),
            Column::new("gpu".into(), rows.iter().map(|r| r.1).collect::<Vec<_>>()),
            Column::new("held".into(), rows.iter().map(|r| r.2).collect::<Vec<_>>()),
            Column::new(
                "device_util".into(),
                rows.iter().map(|r| r.3).collect::<Vec<_>>(),
            ),
            Column::new("sm_active".into(), vec![None::<f64>; n]),
        ])?)
    }

    fn rfc3339(ms: i64) -> String {
        chrono::DateTime::from_timestamp_millis(ms)
            .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default()
    }

    fn csv_text(rows: &[(i64, &'static str, bool, f64)]) -> String {
        let mut out = String::from("time,host,gpu,held,device_util,sm_active\n");
        for (t, g, held, u) in rows {
            let ts = Self::rfc3339(*t);
            out.push_str(&format!("{ts},h,{g},{held},{u},\n"));
        }
        out
    }

    fn ndjson_text(rows: &[(i64, &'static str, bool, f64)]) -> String {
        let mut out = String::new();
        for (t, g, held, u) in rows {
            let ts = Self::rfc3339(*t);
            out.push_str(&format!(
                "{{\"time\":\"{ts}\",\"host\":\"h\",\"gpu\":\"{g}\",\"held\":{held},\"device_util\":{u:?},\"sm_active\":null}}\n"
            ));
        }
        out
    }

    fn new() -> anyhow::Result<Self> {
        use polars::prelude::*;
        let dir = tempfile::tempdir()?;
        std::fs::create_dir(dir.path().join("fleet"))?;
        std::fs::create_dir(dir.path().join("csv"))?;
        std::fs::create_dir(dir.path().join("text"))?;
        let mut all = Vec::new();
        for d in Self::days() {
            let rows = Self::rows(d);
            for (sub, text) in [("fleet", false), ("text", true)] {
                let mut df = Self::frame(&rows, text)?;
                let f = dir.path().join(format!("{sub}/d{d:03}.parquet"));
                ParquetWriter::new(std::fs::File::create(f)?).finish(&mut df)?;
            }
            let csv = dir.path().join(format!("csv/d{d:03}.csv"));
            std::fs::write(csv, Self::csv_text(&rows))?;
            all.extend(rows);
        }
        let csv = Self::csv_text(&all);
        std::fs::write(dir.path().join("fleet.csv"), &csv)?;
        std::fs::write(dir.path().join("fleet.ndjson"), Self::ndjson_text(&all))?;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, csv.as_bytes())?;
        std::fs::write(dir.path().join("fleet.csv.gz"), gz.finish()?)?;
        let zst = zstd::encode_all(csv.as_bytes(), 3)?;
        std::fs::write(dir.path().join("fleet.csv.zst"), zst)?;
        Ok(EveryPathFleet { dir })
    }

    fn path(&self, rel: &str) -> String {
        self.dir.path().join(rel).display().to_string()
    }

    fn files(&self, sub: &str, ext: &str) -> Vec<String> {
        Self::days()
            .iter()
            .map(|d| self.path(&format!("{sub}/d{d:03}.{ext}")))
            .collect()
    }
}

/// The report of `args` (plus `stdin` piped in when given, and `env` set),
/// with the inputs' names left out: every other figure must agree whatever
/// the path.
fn report_of(args: &[String], stdin: Option<&str>) -> anyhow::Result<Value> {
    report_with(args, stdin, &[])
}

fn report_with(
    args: &[String],
    stdin: Option<&str>,
    env: &[(&str, &str)],
) -> anyhow::Result<Value> {
    let mut c = gpuaudit()?;
    c.arg("report").args(args).args(["--format", "json"]);
    for (k, v) in env {
        c.env(k, v);
    }
    if let Some(file) = stdin {
        c.pipe_stdin(file)?;
    }
    let out = c.output()?;
    anyhow::ensure!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout)?;
    // a bound set: the text was read in blocks (every row of it, stray included)
    let streamed = v["sources"]["text_rows_streamed"].as_u64();
    let bound = env.iter().find(|(k, _)| *k == "GPUAUDIT_STREAM_TEXT_ABOVE");
    anyhow::ensure!(
        streamed.is_some() == bound.is_some(),
        "{args:?} {env:?}: text_rows_streamed {streamed:?}"
    );
    if let Some(o) = v.as_object_mut() {
        o.remove("inputs");
        o.remove("sources");
    }
    Ok(v)
}

#[test]
#[allow(clippy::too_many_lines)] // a test: one table of read paths, checked alike
fn every_read_path_gives_every_figure_alike() -> anyhow::Result<()> {
    let f = EveryPathFleet::new()?;
    let dir = f.path("fleet");
    let glob = f.path("fleet/d*.parquet");
    let csv = f.path("fleet.csv");
    let mut paths: Vec<(String, Vec<String>, Option<String>)> = vec![
        ("directory".into(), vec![dir.clone()], None),
        ("glob".into(), vec![glob], None),
        ("parquet files".into(), f.files("fleet", "parquet"), None),
        ("parquet, text times".into(), vec![f.path("text")], None),
        ("one csv".into(), vec![csv.clone()], None),
        ("csv files".into(), f.files("csv", "csv"), None),
        ("stdin".into(), vec!["-".into()], Some(csv.clone())),
        ("one ndjson".into(), vec![f.path("fleet.ndjson")], None),
        ("csv.gz".into(), vec![f.path("fleet.csv.gz")], None),
        ("csv.zst".into(), vec![f.path("fleet.csv.zst")], None),
    ];
    for (what, args, stdin) in paths.clone() {
        let mut one = args.clone();
        one.extend(["--threads".to_string(), "1".to_string()]);
        paths.push((format!("{what} --threads 1"), one, stdin));
    }
    // CSV and NDJSON streamed (a bound of 0 bytes): in 4 KiB blocks, slices
    // of 997 rows, block and slice edges inside every GPU's run
    let streamed: Vec<(String, Vec<String>, Option<String>)> = vec![
        ("one csv".into(), vec![csv.clone()], None),
        ("csv files".into(), f.files("csv", "csv"), None),
        ("stdin".into(), vec!["-".into()], Some(csv.clone())),
        (
            "stdin, gzip".into(),
            vec!["-".into()],
            Some(f.path("fleet.csv.gz")),
        ),
        ("one ndjson".into(), vec![f.path("fleet.ndjson")], None),
        ("csv.gz".into(), vec![f.path("fleet.csv.gz")], None),
        ("csv.zst".into(), vec![f.path("fleet.csv.zst")], None),
        (
            "csv beside parquet".into(),
            {
                let mut v = f.files("fleet", "parquet");
                v[0] = f.path("csv/d001.csv");
                v
            },
            None,
        ),
    ];
    let stream_env = [
        ("GPUAUDIT_STREAM_TEXT_ABOVE", "0"),
        ("GPUAUDIT_TEXT_BLOCK_BYTES", "4096"),
        ("GPUAUDIT_SLICE_ROWS", "997"),
    ];
    let first = report_of(&paths[0].1, None)?;
    // the figures, computed by hand: the stray left out, January alone
    assert_eq!(first["window"]["start"], "2026-01-01T00:00:00Z");
    assert_eq!(first["window"]["end"], "2026-01-31T00:00:00Z");
    assert_eq!(num(&first, "/window/hours"), 720.0);
    assert_eq!(first["data_quality"]["rows_dropped"], 1);
    assert_eq!(num(&first, "/layers/observed_gpu_hours"), 1440.0);
    assert_eq!(num(&first, "/layers/held_gpu_hours"), 720.0);
    // g0: 120 h at 0.5% and 600 h at 50%, the whole column read as percent
    // (days 1-5 read alone as fractions would be 50% busy, not idle)
    assert!((num(&first, "/layers/active_gpu_hours") - 300.6).abs() < 1e-9);
    assert!((num(&first, "/ratios/active") - 0.4175).abs() < 1e-12);
    assert_eq!(num(&first, "/layers/idle_held_gpu_hours"), 120.0);
    assert!(first["layers"]["sm_active_gpu_hours"].is_null());
    assert_eq!(
        first["data_quality"]["notes"],
        serde_json::json!(["device_util read as percent: max 50"])
    );
    assert_eq!(
        first["data_quality"]["warning_codes"][0],
        serde_json::json!({"code": "unmeasured", "column": "sm_active", "invalid": 0})
    );
    let in_memory = paths[1..].iter().map(|p| (p, &[][..]));
    let streamed_paths = streamed
        .iter()
        .flat_map(|p| [(p, &stream_env[..]), (p, &stream_env[..1])]);
    for ((what, args, stdin), env) in in_memory.chain(streamed_paths) {
        let v = report_with(args, stdin.as_deref(), env)?;
        let mut diffs = Vec::new();
        differences_within(&first, &v, "", 1e-9, &mut diffs);
        assert!(
            diffs.is_empty(),
            "{what} {env:?} differs from the directory in {} places: {:?}",
            diffs.len(),
            &diffs[..diffs.len().min(10)]
        );
    }
    Ok(())
}
