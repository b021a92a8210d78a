//! `gpuaudit report` end to end through the binary: numbers from the JSON
//! contract, the table a person reads (snapshot), and one test per invalid input.
use serde_json::Value;
use std::path::{Path, PathBuf};
mod common;
use common::{assert_close, gpuaudit, num};

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
        .display()
        .to_string()
}

fn report_json(args: &[&str]) -> anyhow::Result<Value> {
    let out = gpuaudit()?
        .arg("report")
        .args(args)
        .args(["--format", "json"])
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// testdata/small-fleet.csv, computed by hand: 3 GPUs x 6 samples 10 min apart
/// (1 h each). a0 held (train-1) at 0.9 device / 0.4 SM / 0.2 tensor; a1 held
/// by a notebook at 0; b0 unallocated. H100 $3, A100 $1.50 (built-in profile).
fn assert_small_fleet(v: &Value) {
    assert_eq!(v["schema"], "gpuaudit.report/1");
    assert_close(num(v, "/layers/observed_gpu_hours"), 3.0, "observed");
    assert_close(num(v, "/layers/held_gpu_hours"), 2.0, "held");
    assert_close(num(v, "/layers/active_gpu_hours"), 0.9, "active");
    assert_close(num(v, "/layers/sm_active_gpu_hours"), 0.4, "sm");
    assert_close(num(v, "/layers/tensor_active_gpu_hours"), 0.2, "tensor");
    assert_close(num(v, "/layers/idle_held_gpu_hours"), 1.0, "idle held");
    assert_eq!(v["layers"]["useful_gpu_hours"], Value::Null);
    assert_close(num(v, "/ratios/active"), 0.45, "active ratio");
    assert_close(num(v, "/ratios/sm_active"), 0.2, "sm ratio");
    assert_close(num(v, "/cost/held_usd"), 6.0, "held usd");
    assert_close(num(v, "/cost/idle_held_usd"), 3.0, "idle usd");
    assert_close(num(v, "/cost/unallocated_usd"), 1.5, "unallocated usd");
    assert_close(
        num(v, "/cost/not_useful_usd"),
        6.0 - 3.0 * 0.2,
        "not useful usd",
    );
    assert_close(
        num(v, "/cost/monthly_run_rate/idle_held_usd"),
        3.0 * 730.0,
        "run-rate",
    );
    assert_close(num(v, "/window/hours"), 1.0, "window");
    let eps = v["idle_episodes"].as_array().cloned().unwrap_or_default();
    assert_eq!(eps.len(), 1);
    assert_eq!(eps[0]["job"], "nb-bob");
    assert_close(num(&eps[0], "/hours"), 1.0, "episode hours");
    assert_eq!(eps[0]["start"], "2026-07-06T10:00:00Z");
    assert_eq!(eps[0]["end"], "2026-07-06T11:00:00Z");
}

#[test]
fn small_fleet_csv_numbers_match_the_hand_computation() -> anyhow::Result<()> {
    let v = report_json(&[&data("small-fleet.csv")])?;
    assert_small_fleet(&v);
    assert_eq!(v["held_rule"], "job column: held when a job is set");
    assert_eq!(v["idle_episodes"][0]["user"], "bob");
    Ok(())
}

#[test]
fn parquet_written_by_pyarrow_reports_identically_to_the_csv() -> anyhow::Result<()> {
    let csv = report_json(&[&data("small-fleet.csv")])?;
    let mut pq = report_json(&[&data("small-fleet.pyarrow.parquet")])?;
    assert_small_fleet(&pq);
    pq["sources"] = csv["sources"].clone();
    assert_eq!(pq, csv);
    Ok(())
}

#[test]
fn dcgm_field_names_and_labels_need_no_map() -> anyhow::Result<()> {
    let v = report_json(&[&data("dcgm-names.csv")])?;
    assert_small_fleet(&v);
    Ok(())
}

#[test]
fn ndjson_and_stdin_read_the_same_fleet() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let nd = dir.path().join("fleet.ndjson");
    let csv_text = std::fs::read_to_string(data("small-fleet.csv"))?;
    let mut lines = csv_text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let mut out = String::new();
    for line in lines {
        let mut obj = serde_json::Map::new();
        for (k, v) in header.iter().zip(line.split(',')) {
            let value = match v.parse::<f64>() {
                Ok(x) if *k != "gpu" => serde_json::json!(x),
                _ if v.is_empty() => Value::Null,
                _ => Value::String(v.to_string()),
            };
            obj.insert(k.to_string(), value);
        }
        out.push_str(&serde_json::to_string(&obj)?);
        out.push('\n');
    }
    std::fs::write(&nd, out)?;
    assert_small_fleet(&report_json(&[&nd.display().to_string()])?);

    let o = gpuaudit()?
        .args(["report", "-", "--format", "json"])
        .write_stdin(csv_text)
        .output()?;
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_small_fleet(&serde_json::from_slice(&o.stdout)?);
    Ok(())
}

#[test]
fn flat_price_prices_files_and_no_prices() -> anyhow::Result<()> {
    let v = report_json(&[&data("small-fleet.csv"), "--price", "2"])?;
    assert_close(num(&v, "/cost/held_usd"), 4.0, "flat");
    let dir = tempfile::tempdir()?;
    let csv = dir.path().join("prices.csv");
    std::fs::write(&csv, "model,usd_per_gpu_hour\nNVIDIA H100 80GB HBM3,4.0\n")?;
    let v = report_json(&[
        &data("small-fleet.csv"),
        "--prices",
        &csv.display().to_string(),
        "--no-builtin-prices",
    ])?;
    assert_close(num(&v, "/cost/held_usd"), 8.0, "csv prices");
    assert_close(num(&v, "/cost/unpriced_gpu_hours"), 1.0, "A100 unpriced");
    let toml = dir.path().join("prices.toml");
    std::fs::write(&toml, "[prices]\n\"NVIDIA A100-SXM4-80GB\" = 1.0\n")?;
    let v = report_json(&[
        &data("small-fleet.csv"),
        "--prices",
        &toml.display().to_string(),
    ])?;
    assert_close(num(&v, "/cost/unallocated_usd"), 1.0, "toml price");
    assert_close(num(&v, "/cost/held_usd"), 6.0, "builtin after file");
    let v = report_json(&[&data("small-fleet.csv"), "--no-builtin-prices"])?;
    assert_eq!(v["cost"]["held_usd"], Value::Null);
    Ok(())
}

#[test]
fn since_until_relative_and_absolute() -> anyhow::Result<()> {
    // counted back from the last sample (10:50): 10:30, 10:40, 10:50 are kept
    let v = report_json(&[&data("small-fleet.csv"), "--since", "20m"])?;
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        1.5,
        "3 samples x 3 GPUs x 10 min",
    );
    assert_eq!(v["data_quality"]["rows_outside_window"], 9);
    let v = report_json(&[
        &data("small-fleet.csv"),
        "--since",
        "2026-07-06T10:00:00Z",
        "--until",
        "2026-07-06T10:30:00Z",
    ])?;
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        1.5,
        "3 samples x 3 GPUs",
    );
    Ok(())
}

#[test]
fn showback_by_team_and_other_formats() -> anyhow::Result<()> {
    let v = report_json(&[&data("small-fleet.csv"), "--by", "team"])?;
    let groups = v["groups"].as_array().cloned().unwrap_or_default();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["key"], "ml");
    assert_close(num(&groups[0], "/layers/held_gpu_hours"), 2.0, "ml held");
    assert_eq!(groups[1]["key"], "(unallocated)");

    let csv = gpuaudit()?
        .args([
            "report",
            &data("small-fleet.csv"),
            "--format",
            "csv",
            "--by",
            "user",
        ])
        .output()?;
    let text = String::from_utf8(csv.stdout)?;
    assert!(
        text.starts_with("scope,key,observed_gpu_hours,held_gpu_hours"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("user,bob,1,1,0,")),
        "{text}"
    );

    let md = gpuaudit()?
        .args(["report", &data("small-fleet.csv"), "--format", "markdown"])
        .output()?;
    let text = String::from_utf8(md.stdout)?;
    assert!(text.contains("| held | 2.00 | 100.0% | 66.7% |"), "{text}");
    Ok(())
}

#[test]
fn table_output_snapshot() -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args(["report", &data("small-fleet.csv"), "--by", "team"])
        .output()?;
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout)?.replace(&data(""), "testdata/");
    insta::assert_snapshot!("small_fleet_table", text);
    Ok(())
}

#[test]
fn demo_fleet_tells_the_story() -> anyhow::Result<()> {
    let v = report_json(&[&data("demo-fleet.parquet"), "--by", "job"])?;
    assert_eq!(v["gpu_count"], 40);
    assert_close(num(&v, "/window/hours"), 168.0, "a week");
    let groups = v["groups"].as_array().cloned().unwrap_or_default();
    let job = |name: &str| {
        groups
            .iter()
            .find(|g| g["key"] == name)
            .cloned()
            .unwrap_or(Value::Null)
    };
    // the training gang: ~95% device activity, ~40% SM, ~20% tensor (3 h hang included)
    let train = job("pretrain-0");
    assert!(
        (0.90..0.96).contains(&num(&train, "/ratios/active")),
        "{train}"
    );
    assert!(
        (0.36..0.42).contains(&num(&train, "/ratios/sm_active")),
        "{train}"
    );
    assert!(
        (0.17..0.22).contains(&num(&train, "/ratios/tensor_active")),
        "{train}"
    );
    // the forgotten notebook: 8 cards, 0% after its first 6 hours
    let nb = job("jupyter-bob-0");
    assert_close(
        num(&nb, "/layers/held_gpu_hours"),
        8.0 * 168.0,
        "notebook held",
    );
    assert!(
        num(&nb, "/layers/idle_held_gpu_hours") > 8.0 * 160.0,
        "{nb}"
    );
    let episodes = v["idle_episodes"].as_array().cloned().unwrap_or_default();
    let nb_eps = episodes
        .iter()
        .filter(|e| e["job"] == "jupyter-bob-0")
        .count();
    assert_eq!(nb_eps, 8);
    // exporter outage on node-001: 24 samples missing, so a 125 min gap
    // less the 15 min max gap (3 x 5 min) is unobserved, on 8 GPUs
    assert_close(
        num(&v, "/data_quality/unobserved_gpu_hours"),
        8.0 * 110.0 / 60.0,
        "unobserved",
    );
    Ok(())
}

#[test]
fn hive_partitioned_directory_and_glob_equal_the_single_file() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let single = dir.path().join("fleet.parquet");
    let parts = dir.path().join("fleet");
    for (out, extra) in [(&single, None), (&parts, Some("--partition-by-day"))] {
        let mut c = gpuaudit()?;
        c.args([
            "demo",
            "--gpus",
            "8",
            "--days",
            "2",
            "--interval",
            "10m",
            "--out",
            &out.display().to_string(),
        ]);
        if let Some(e) = extra {
            c.arg(e);
        }
        c.assert().success();
    }
    let a = report_json(&[&single.display().to_string()])?;
    let b = report_json(&[&parts.display().to_string()])?;
    let glob = format!("{}/day=*/*.parquet", parts.display());
    let c = report_json(&[&glob])?;
    for other in [&b, &c] {
        assert_eq!(a["layers"], other["layers"]);
        assert_eq!(a["cost"], other["cost"]);
    }
    assert_eq!(c["sources"]["files"].as_array().map(Vec::len), Some(2));
    Ok(())
}

fn invalid(file: &str, args: &[&str], expect: &[&str]) -> anyhow::Result<()> {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/invalid")
        .join(file);
    let out = gpuaudit()?.arg("report").arg(&path).args(args).output()?;
    let err = String::from_utf8(out.stderr)?;
    assert_eq!(out.status.code(), Some(2), "{file}: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("gpuaudit: "), "{err}");
    for e in expect {
        assert!(err.contains(e), "{file}: expected {e:?} in {err:?}");
    }
    assert!(out.stdout.is_empty());
    Ok(())
}

#[test]
fn invalid_missing_file() -> anyhow::Result<()> {
    invalid(
        "does-not-exist.csv",
        &[],
        &["does-not-exist.csv", "no such file"],
    )
}

#[test]
fn invalid_file_of_another_format() -> anyhow::Result<()> {
    invalid(
        "not-parquet.parquet",
        &[],
        &["not-parquet.parquet", "not a parquet file"],
    )
}

#[test]
fn invalid_truncated_parquet() -> anyhow::Result<()> {
    invalid("truncated.parquet", &[], &["truncated.parquet", "parquet"])
}

#[test]
fn invalid_csv_without_time_column() -> anyhow::Result<()> {
    invalid(
        "no-time-column.csv",
        &[],
        &["no-time-column.csv", "no time column", "timestamp"],
    )
}

#[test]
fn invalid_column_of_the_wrong_type() -> anyhow::Result<()> {
    invalid(
        "wrong-type.ndjson",
        &[],
        &["wrong-type.ndjson", "device_util", "expected numbers"],
    )?;
    invalid(
        "text-in-number.csv",
        &[],
        &["text-in-number.csv", "device_util", "busy"],
    )
}

#[test]
fn invalid_timestamp_names_the_row() -> anyhow::Result<()> {
    invalid(
        "bad-timestamp.csv",
        &[],
        &["bad-timestamp.csv", "'time' row 3", "yesterday"],
    )
}

#[test]
fn invalid_zero_usable_rows() -> anyhow::Result<()> {
    invalid(
        "header-only.csv",
        &[],
        &["header-only.csv", "no usable samples"],
    )
}

#[test]
fn invalid_no_way_to_tell_held() -> anyhow::Result<()> {
    invalid(
        "no-held-info.csv",
        &[],
        &["no-held-info.csv", "--assume-held"],
    )
}

#[test]
fn invalid_flags_are_usage_errors() -> anyhow::Result<()> {
    for args in [
        vec!["--idle-below", "150%"],
        vec!["--since", "next tuesday"],
        vec!["--held-mem", "lots"],
        vec!["--map", "x=nonsense"],
        vec!["--format", "yaml"],
    ] {
        let out = gpuaudit()?
            .arg("report")
            .arg(data("small-fleet.csv"))
            .args(&args)
            .output()?;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    Ok(())
}

#[test]
fn broken_pipe_exits_quietly() -> anyhow::Result<()> {
    let bin = assert_cmd::cargo::cargo_bin("gpuaudit");
    let script = format!(
        "'{}' report '{}' --format json | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}",
        bin.display(),
        data("demo-fleet.parquet")
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .output()?;
    assert_eq!(String::from_utf8(out.stdout)?.trim(), "0");
    assert!(!String::from_utf8(out.stderr)?.contains("panicked"));
    Ok(())
}

#[test]
fn streamed_parquet_equals_in_memory_csv_and_unsorted_parquet_falls_back() -> anyhow::Result<()> {
    // The same demo fleet: parquet goes through the two-pass streaming engine,
    // CSV through the in-memory path; a parquet whose rows run backwards in
    // time cannot stream and is sorted in memory. All three must agree.
    let dir = tempfile::tempdir()?;
    let pq = dir.path().join("fleet.parquet");
    let csv = dir.path().join("fleet.csv");
    for out in [&pq, &csv] {
        gpuaudit()?
            .args([
                "demo",
                "--gpus",
                "16",
                "--days",
                "1",
                "--interval",
                "5m",
                "--out",
                &out.display().to_string(),
            ])
            .assert()
            .success();
    }
    // The same rows backwards in time, written with polars: cannot stream.
    let reversed = dir.path().join("reversed.parquet");
    {
        use polars::prelude::{ParquetReader, ParquetWriter, SerReader};
        let df = ParquetReader::new(std::fs::File::open(&pq)?).finish()?;
        let mut rev = df.reverse();
        ParquetWriter::new(std::fs::File::create(&reversed)?).finish(&mut rev)?;
    }
    let a = report_json(&[&pq.display().to_string(), "--by", "team"])?;
    let b = report_json(&[&csv.display().to_string(), "--by", "team"])?;
    let c = report_json(&[&reversed.display().to_string(), "--by", "team"])?;
    // Slices of 97 rows: every slice edge cuts the fleet mid-tick, and the
    // read-ahead thread hands over ~50 slices per pass.
    let out = gpuaudit()?
        .env("GPUAUDIT_SLICE_ROWS", "97")
        .args([
            "report",
            &pq.display().to_string(),
            "--by",
            "team",
            "--format",
            "json",
        ])
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d: Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(d["sources"]["rows_used"], a["sources"]["rows_used"]);
    let others = vec![b, c, d];
    for other in &others {
        for key in [
            "layers",
            "ratios",
            "cost",
            "groups",
            "idle_episodes",
            "gpus",
            "window",
        ] {
            let (x, y) = (&a[key], &other[key]);
            assert!(json_close(x, y), "{key} differs:\n{x}\n{y}");
        }
    }
    Ok(())
}

/// Equal up to float rounding (sums in another order differ in the last bits).
fn json_close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_close(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_close(v, w)))
        }
        _ => a == b,
    }
}
