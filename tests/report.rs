//! `gpuaudit report` end to end through the binary: numbers from the JSON
//! contract, the table a person reads (snapshot), and one test per invalid input.
// Tests may be long (one scenario, checked step by step): the 80-line limit is
// for the code they test (clippy.toml).
#![allow(clippy::too_many_lines)]
use serde_json::Value;
use std::path::{Path, PathBuf};
mod common;
use common::{assert_close, data, gpuaudit, num, report_json};

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
    // counted back from the window's end (11:00, the last sample's weight
    // included): 10:40 and 10:50 are kept, a 20-minute window
    let v = report_json(&[&data("small-fleet.csv"), "--since", "20m"])?;
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        1.0,
        "2 samples x 3 GPUs x 10 min",
    );
    assert_close(num(&v, "/window/hours"), 1.0 / 3.0, "20 minutes");
    assert_eq!(v["data_quality"]["rows_outside_window"], 12);
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
        &[
            "not-parquet.parquet",
            "not a parquet file",
            "starts with text: if it is CSV or NDJSON, name it so or give --format",
        ],
    )
}

#[test]
fn invalid_gzip_bytes_under_a_parquet_name_say_gzip() -> anyhow::Result<()> {
    invalid(
        "gzip.parquet",
        &[],
        &[
            "gzip.parquet",
            "not a parquet file",
            "gzip-compressed: decompress it first",
        ],
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

fn table_text(args: &[&str]) -> anyhow::Result<String> {
    // from the checkout's root: a relative path reads the same in any checkout
    // (the prose wraps at words, so an absolute path's length would move lines)
    let out = gpuaudit()?
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("report")
        .args(args)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8(out.stdout)?.replace(&data(""), "testdata/"))
}

#[test]
fn demo_fleet_table_at_80_and_200_columns_and_piped() -> anyhow::Result<()> {
    let demo = "testdata/demo-fleet.parquet";
    let narrow = table_text(&[demo, "--by", "team", "--width", "80"])?;
    let wide = table_text(&[demo, "--by", "team", "--width", "200"])?;
    let piped = table_text(&[demo, "--by", "team"])?;
    for (name, text, width) in [
        ("demo_table_80", &narrow, 80),
        ("demo_table_200", &wide, 200),
        ("demo_table_piped", &piped, usize::MAX),
    ] {
        // every table line fits (the headline and notes are prose, not tables)
        for line in text.lines().filter(|l| l.starts_with(['┌', '│', '╞', '└'])) {
            assert!(line.chars().count() <= width, "{name}: {line}");
        }
        insta::assert_snapshot!(name, text);
    }
    // grouped: the notebook's 6 + 2 cards are two rows, the 8-GPU hang one row per job
    assert!(piped.contains("│ jupyter-bob-0      ┆ bob           ┆ research ┆    6 ┆ node-004 ┆ 2026-07-06 00:00 ┆ 2026-07-13 00:00 ┆ 1,008 ┆ $3,024 │"), "{piped}");
    assert!(
        piped.contains("by job and span: 5 (25 GPU episodes)"),
        "{piped}"
    );
    // COLUMNS is honoured when piped
    let out = gpuaudit()?
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("COLUMNS", "80")
        .args(["report", demo, "--by", "team"])
        .output()?;
    assert_eq!(
        String::from_utf8(out.stdout)?.replace(&data(""), "testdata/"),
        narrow
    );
    Ok(())
}

#[test]
fn no_line_breaks_a_date_an_id_or_an_amount() -> anyhow::Result<()> {
    let demo = data("demo-fleet.parquet");
    let v = report_json(&[&demo, "--by", "job", "--top", "40"])?;
    for width in ["80", "120", "200"] {
        for extra in [None, Some("--per-gpu")] {
            let mut args = vec![
                demo.as_str(),
                "--by",
                "job",
                "--top",
                "40",
                "--width",
                width,
            ];
            args.extend(extra);
            let text = table_text(&args)?;
            let rows: Vec<&str> = text.lines().filter(|l| l.starts_with('│')).collect();
            // every cell on one line: no row continues on the next (a wrapped row leaves
            // an empty first cell)
            for r in &rows {
                assert!(!r.starts_with("│  "), "width {width}: wrapped row {r}");
            }
            let w: usize = width.parse()?;
            for l in text.lines().filter(|l| l.starts_with(['┌', '│', '╞', '└'])) {
                assert!(l.chars().count() <= w, "width {width}: {l}");
            }
            let eps = if extra.is_some() {
                &v["idle_episodes"]
            } else {
                &v["idle_episode_groups"]
            };
            for e in eps.as_array().into_iter().flatten() {
                // per GPU, a narrow table drops the end (hours say how long)
                let keys: &[&str] = if extra.is_some() && width == "80" {
                    &["start"]
                } else {
                    &["start", "end"]
                };
                for key in keys {
                    let t = e[key].as_str().unwrap_or_default().replacen('T', " ", 1);
                    let t = &t[..16];
                    assert!(
                        rows.iter().any(|r| r.contains(t)),
                        "width {width}: {t} broken"
                    );
                }
            }
            for g in v["groups"].as_array().into_iter().flatten() {
                let held = g["cost"]["held_usd"].as_f64().unwrap_or(f64::NAN);
                let shown = format!("${}", thousands(held.round() as i64));
                if held >= 100.0 {
                    assert!(text.contains(&shown), "width {width}: {shown} broken");
                }
            }
            if extra.is_some() {
                let gpu = v["idle_episodes"][0]["gpu"].as_str().unwrap_or_default();
                let (head, tail) = (&gpu[..6], &gpu[gpu.len() - 6..]);
                assert!(
                    rows.iter().any(|r| r.contains(&format!("{head}…{tail}"))),
                    "width {width}: {gpu}"
                );
            }
        }
    }
    Ok(())
}

fn thousands(v: i64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Figures a person reads, as every format prints them: the table and markdown
/// round ($1,234; 12.3), CSV is unrounded. All must agree with the JSON.
#[test]
fn every_format_carries_the_figures_of_the_json() -> anyhow::Result<()> {
    let demo = data("demo-fleet.parquet");
    let v = report_json(&[&demo, "--by", "team"])?;
    let usd = |x: f64| {
        if x.abs() >= 100.0 {
            format!("${}", thousands(x.round() as i64))
        } else {
            format!("${x:.2}")
        }
    };
    let table = table_text(&[&demo, "--by", "team"])?;
    let md = table_text(&[&demo, "--by", "team", "--format", "markdown"])?;
    let c = &v["cost"];
    for key in [
        "observed_usd",
        "held_usd",
        "idle_held_usd",
        "unallocated_usd",
        "not_busy_usd",
        "sm_idle_usd",
        "tensor_idle_usd",
        "not_useful_usd",
    ] {
        let want = usd(num(c, &format!("/{key}")));
        let run = usd(num(c, &format!("/monthly_run_rate/{key}")));
        for (name, text) in [("table", &table), ("markdown", &md)] {
            assert!(text.contains(&want), "{name} lacks {key} {want}");
            if key != "not_useful_usd" {
                assert!(
                    text.contains(&run),
                    "{name} lacks the run-rate of {key} {run}"
                );
            }
        }
    }
    // the not-useful figure is the deepest layer's: tensor idle here
    assert_close(
        num(c, "/not_useful_usd"),
        num(c, "/tensor_idle_usd"),
        "not useful = tensor idle",
    );
    for g in v["groups"].as_array().into_iter().flatten() {
        for key in [
            "held_usd",
            "idle_held_usd",
            "unallocated_usd",
            "observed_usd",
        ] {
            let want = usd(num(g, &format!("/cost/{key}")));
            let key_cell = g["key"].as_str().unwrap_or_default();
            for (name, text) in [("table", &table), ("markdown", &md)] {
                let row = text
                    .lines()
                    .find(|l| {
                        l.starts_with(&format!("│ {key_cell} "))
                            || l.starts_with(&format!("| {key_cell} |"))
                    })
                    .unwrap_or_default();
                assert!(
                    row.contains(&want),
                    "{name}: {key_cell} lacks {key} {want}: {row}"
                );
            }
        }
    }
    // the showback total row is the bill: observed cost
    for text in [&table, &md] {
        let total = text
            .lines()
            .find(|l| l.contains("total (4 teams)"))
            .unwrap_or_default();
        assert!(total.contains(&usd(num(c, "/observed_usd"))), "{total}");
    }
    // CSV: unrounded, per table
    let csv = |table: &str, extra: &[&str]| -> anyhow::Result<Vec<Vec<String>>> {
        let out = gpuaudit()?
            .args([
                "report", &demo, "--by", "team", "--format", "csv", "--table", table,
            ])
            .args(extra)
            .output()?;
        anyhow::ensure!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(String::from_utf8(out.stdout)?
            .lines()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect())
    };
    let layers = csv("layers", &[])?;
    let col = |rows: &[Vec<String>], name: &str| {
        rows[0].iter().position(|h| h == name).unwrap_or(usize::MAX)
    };
    let fleet = &layers[1];
    for (column, pointer) in [
        ("observed_gpu_hours", "/layers/observed_gpu_hours"),
        ("held_gpu_hours", "/layers/held_gpu_hours"),
        ("idle_held_gpu_hours", "/layers/idle_held_gpu_hours"),
        ("active", "/ratios/active"),
        ("observed_usd", "/cost/observed_usd"),
        ("held_usd", "/cost/held_usd"),
        ("idle_held_usd", "/cost/idle_held_usd"),
        ("unallocated_usd", "/cost/unallocated_usd"),
        ("not_useful_usd", "/cost/not_useful_usd"),
        ("not_busy_usd", "/cost/not_busy_usd"),
        (
            "monthly_idle_held_usd",
            "/cost/monthly_run_rate/idle_held_usd",
        ),
        ("window_hours", "/window/hours"),
    ] {
        let got: f64 = fleet
            .get(col(&layers, column))
            .map(|s| s.parse())
            .transpose()?
            .unwrap_or(f64::NAN);
        assert_close(got, num(&v, pointer), column);
    }
    assert_eq!(
        fleet[col(&layers, "window_start")],
        v["window"]["start"].as_str().unwrap_or_default()
    );
    let groups = csv("groups", &[])?;
    assert_eq!(groups.len() - 1, v["groups"].as_array().map_or(0, Vec::len));
    let eps = csv("episodes", &[])?;
    assert_eq!(
        eps.len() - 1,
        v["idle_episode_groups"].as_array().map_or(0, Vec::len)
    );
    let first: f64 = eps[1][col(&eps, "usd")].parse()?;
    assert_close(
        first,
        num(&v, "/idle_episode_groups/0/usd"),
        "episode group usd",
    );
    let per_gpu = csv("episodes", &["--per-gpu"])?;
    assert_eq!(
        per_gpu.len() - 1,
        v["idle_episodes_total"].as_u64().unwrap_or(0) as usize
    );
    let gpus = csv("gpus", &[])?;
    assert_eq!(gpus.len() - 1, 40);
    // every job has a row, with or without a jobs file
    let jobs = csv("jobs", &[])?;
    assert_eq!(jobs.len() - 1, v["jobs"].as_array().map_or(0, Vec::len));
    assert_eq!(
        jobs[1][col(&jobs, "job")],
        v["jobs"][0]["job"].as_str().unwrap_or("?")
    );
    let timeline = csv("timeline", &[])?;
    assert_eq!(
        timeline.len() - 1,
        v["timeline"]["buckets"].as_array().map_or(0, Vec::len)
    );
    Ok(())
}

#[test]
fn huge_labels_render_quickly_and_json_keeps_them_whole() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("huge.csv");
    let job = format!("job-{}-end", "x".repeat(1_000_000));
    let mut csv = String::from("time,host,gpu,job,device_util\n");
    for i in 0..6 {
        csv.push_str(&format!("2026-07-06T10:{:02}:00Z,h,0,{job},0\n", i * 10));
    }
    std::fs::write(&path, csv)?;
    let p = path.display().to_string();
    let started = std::time::Instant::now();
    let text = table_text(&[&p, "--by", "job", "--width", "100"])?;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert!(
        text.lines().all(|l| l.chars().count() < 400),
        "a label was not cut"
    );
    assert!(
        text.contains("job-xxxxxx…") && text.contains("…xxxxx-end"),
        "head and tail kept: {text}"
    );
    let v = report_json(&[&p, "--by", "job"])?;
    assert_eq!(
        v["groups"][0]["key"].as_str().map(str::len),
        Some(job.len())
    );
    Ok(())
}

#[test]
fn a_short_run_reads_in_gpu_minutes_and_never_as_free() -> anyhow::Result<()> {
    // 2 GPUs, 5 samples 1 min apart (5 min each), held and idle; window 5 min
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("short.csv");
    let mut csv = String::from("time,gpu,model,job,device_util\n");
    for i in 0..5 {
        for g in 0..2 {
            csv.push_str(&format!(
                "2026-07-06T10:0{i}:00Z,{g},NVIDIA H100 80GB HBM3,nb,0\n"
            ));
        }
    }
    std::fs::write(&path, csv)?;
    let p = path.display().to_string();
    let text = table_text(&[&p, "--min-idle", "1m"])?;
    assert!(
        text.starts_with("2 GPUs held 10.0 GPU-min of 10.0 observed"),
        "{text}"
    );
    assert!(text.contains("(5.00 min)"), "{text}");
    // 10 GPU-min at $3/h = $0.50, not "$0.00"
    assert!(
        text.contains("$0.50 spent on held cards doing nothing (10.0 GPU-min"),
        "{text}"
    );
    // --until past the data does not stretch the window
    let v = report_json(&[&p, "--until", "2026-07-07T00:00:00Z"])?;
    assert_eq!(v["window"]["end"], "2026-07-06T10:05:00Z");
    assert_close(num(&v, "/window/hours"), 5.0 / 60.0, "window");
    Ok(())
}

#[test]
fn a_snapshot_reads_as_gpus_and_dollars_per_hour_with_no_episodes() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("snap.csv");
    std::fs::write(
        &path,
        "time,gpu,model,job,device_util\n2026-07-06T10:00:00Z,0,NVIDIA H100 80GB HBM3,nb,0\n2026-07-06T10:00:00Z,1,NVIDIA H100 80GB HBM3,train,0.9\n",
    )?;
    let p = path.display().to_string();
    let text = table_text(&[&p])?;
    // the snapshot view: GPUs now, dollars per hour (hand: 2 H100 held at
    // $3/h, the notebook's at 0% idle)
    assert!(
        text.starts_with("2 GPUs now: 2 held (1 of them idle), 0 unallocated; $6.00/h for all of them, $6.00/h held, $3.00/h on held cards doing nothing.\n"),
        "{text}"
    );
    assert!(text.contains("Snapshot at 2026-07-06 10:00 UTC"), "{text}");
    assert!(text.contains("Idle held now: 1.00 GPUs, $3.00/h"), "{text}");
    assert!(!text.contains("episodes ("), "{text}");
    // JSON keeps the idle sample (its owner labels) for tools; the table and
    // markdown never call it an episode
    let v = report_json(&[&p])?;
    assert_eq!(v["window"]["snapshot"], true);
    let md = table_text(&[&p, "--format", "markdown"])?;
    assert!(
        md.contains("### Idle held now") && md.contains("Cost (USD/h)"),
        "{md}"
    );
    Ok(())
}

/// The words of `text` from the line starting with `from` up to the line
/// starting with `to`, whitespace-separated (so a wrap changes nothing).
fn words_between(text: &str, from: &str, to: &str) -> Vec<String> {
    let start = text.find(from).unwrap_or(text.len());
    let end = text[start..].find(to).map_or(text.len(), |i| start + i);
    text[start..end]
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// At 80 and 120 columns every line fits, and the prose (headline, purchase
/// paragraph, findings) holds exactly the words of the unwrapped text, in
/// order: a wrap at a word boundary never splits or drops one.
#[test]
fn terminal_prose_wraps_at_word_boundaries() -> anyhow::Result<()> {
    let demo = data("demo-fleet.parquet");
    let piped = table_text(&[&demo, "--by", "team"])?;
    let headline_words = words_between(&piped, "40 GPUs", "Window ");
    assert!(
        headline_words.len() > 60,
        "the prose is long enough to wrap: {headline_words:?}"
    );
    for width in [80, 120] {
        let text = table_text(&[&demo, "--by", "team", "--width", &width.to_string()])?;
        for line in text.lines() {
            assert!(line.chars().count() <= width, "{width}: {line}");
        }
        assert_eq!(words_between(&text, "40 GPUs", "Window "), headline_words);
        assert_eq!(
            words_between(&text, "Findings\n", "Data quality"),
            words_between(&piped, "Findings\n", "Data quality")
        );
        // the verdict starts its own line; the findings' detail is whole
        assert!(text.contains("\nVerdict: "), "{text}");
        assert!(
            text.contains("- parked: jupyter-bob-0, 1,344 GPU-h, $4,032\n    held 1344.0 GPU-h and was idle 99.1% of it\n"),
            "{text}"
        );
    }
    // one idle-dollar figure in the headline: idle held, not "ran no kernel"
    assert!(
        piped.starts_with("40 GPUs held 6,117 GPU-h of 6,705 observed; device activity says 53.7%, SM active says 25.3%, tensor active 10.2%: $4,476 spent on held cards doing nothing (1,548 GPU-h, 25.3% of held).\n"),
        "{piped}"
    );
    Ok(())
}

/// `--top 3` cuts jobs and hosts to 3 and says of how many (131 jobs, 5 hosts).
#[test]
fn top_cuts_jobs_and_nodes_and_says_of_how_many() -> anyhow::Result<()> {
    let text = table_text(&[&data("demo-fleet.parquet"), "--top", "3"])?;
    assert!(text.contains("Jobs (3 of 131, by USD)"), "{text}");
    assert!(
        text.contains("top 3 of 5 hosts by stranded GPU-hours"),
        "{text}"
    );
    let hosts = text.lines().filter(|l| l.starts_with("│ node-")).count();
    assert_eq!(hosts, 3, "{text}");
    let default = table_text(&[&data("demo-fleet.parquet")])?;
    assert!(default.contains("Jobs (10 of 131, by USD)"), "{default}");
    Ok(())
}

/// Every job unpriced: ties in dollars go to idle GPU-hours (the waste
/// first), not to names. Two jobs of 1 GPU-h each: "a-busy" at 90% device
/// activity, "z-idle" at 0; z-idle (1 idle GPU-h) comes first.
#[test]
fn unpriced_jobs_sort_by_idle_hours_not_by_name() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let csv = dir.path().join("two.csv");
    let mut rows = String::from("time,host,gpu,model,job,device_util\n");
    for m in 0..6 {
        for (gpu, job, util) in [("g0", "a-busy", 0.9), ("g1", "z-idle", 0.0)] {
            rows.push_str(&format!(
                "2026-07-06T10:{m}0:00Z,h,{gpu},NVIDIA H100 80GB HBM3,{job},{util}\n"
            ));
        }
    }
    std::fs::write(&csv, rows)?;
    let v = report_json(&[csv.as_os_str(), "--no-builtin-prices".as_ref()])?;
    let jobs: Vec<(&str, f64)> = v["jobs"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|j| {
            (
                j["job"].as_str().unwrap_or(""),
                num(j, "/idle_held_gpu_hours"),
            )
        })
        .collect();
    assert_eq!(jobs, [("z-idle", 1.0), ("a-busy", 0.0)]);
    assert_eq!(v["jobs"][0]["usd"], Value::Null);
    Ok(())
}

/// `gpuaudit explain`: one term, every term, and an unknown one (exit 2, the list).
#[test]
fn explain_prints_the_glossary() -> anyhow::Result<()> {
    let out = gpuaudit()?.args(["explain", "Gang"]).output()?;
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout)?,
        "gang\n  The most GPUs a job held at once in one bucket: the cards that must be scheduled together.\n"
    );
    let all = gpuaudit()?.arg("explain").output()?;
    let all = String::from_utf8(all.stdout)?;
    for term in [
        "spare",
        "MTBI",
        "busy-equivalent",
        "coverage",
        "memory bound",
        "shape",
    ] {
        assert!(all.contains(&format!("\n{term}\n  ")), "{term}: {all}");
    }
    let out = gpuaudit()?.args(["explain", "flux capacitor"]).output()?;
    let stderr = String::from_utf8(out.stderr)?;
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(
            "gpuaudit: explain: no term 'flux capacitor'; known terms:\n  observed, held,"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("MTBI") && stderr.lines().all(|l| l.chars().count() <= 80),
        "{stderr}"
    );
    Ok(())
}

/// A snapshot (one sample per GPU): GPUs now and dollars per hour; no
/// timeline, percentiles, spans or GPU-h columns.
#[test]
fn a_snapshot_reads_as_gpus_now() -> anyhow::Result<()> {
    let text = table_text(&[
        &data("captures/aicr_eks_h100x8_vllm_excerpt.prom"),
        "--at",
        "2026-02-19T19:31:04Z",
    ])?;
    assert!(
        text.starts_with("8 GPUs now: 1 held (1 of them idle), 7 unallocated; $24.00/h for all of them, $3.00/h held, $3.00/h on held cards doing nothing.\n"),
        "{text}"
    );
    for absent in [
        "Timeline", "GPU-h ", "GPU-h,", "95%", "span", "run-rate", "busiest",
    ] {
        assert!(!text.contains(absent), "{absent}: {text}");
    }
    assert!(text.contains("where the GPUs are now"), "{text}");
    let md = table_text(&[
        &data("captures/aicr_eks_h100x8_vllm_excerpt.prom"),
        "--at",
        "2026-02-19T19:31:04Z",
        "--format",
        "markdown",
    ])?;
    assert!(
        !md.contains("### Timeline") && !md.contains("### Do we need more GPUs?"),
        "{md}"
    );
    Ok(())
}
