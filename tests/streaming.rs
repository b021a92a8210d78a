//! CSV and NDJSON above the memory bound are streamed in blocks (issue 36):
//! the same figures as read whole, in memory, with the streamed path taken.
use serde_json::Value;
use std::fmt::Write as _;
mod common;
use common::{gpuaudit, num};

const T0: i64 = 1_772_323_200; // 2026-03-01T00:00:00Z
const GPUS: usize = 48;
const SAMPLES: usize = 1_500;

/// 48 GPUs on 6 long-named hosts, one sample a minute for 25 h, time-major
/// (as `psql \copy ... ORDER BY time` writes): GPUs 0-23 held at 50% busy
/// (written in percent), 24-47 unallocated at 0%. `na_at`: the row from
/// which one GPU's utilisation reads `[N/A]` (past the 10,000 rows the
/// types are inferred from, so the whole file is read as text).
fn fleet_csv(na_at: Option<usize>) -> String {
    let mut out = String::from("time,host,gpu,held,device_util,memory_used\n");
    let mut row = 0;
    for s in 0..SAMPLES {
        let t = chrono::DateTime::from_timestamp(T0 + 60 * s as i64, 0)
            .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default();
        for g in 0..GPUS {
            let host = format!("gpu-node-{:02}.rack-07.dc1.example.internal", g / 8);
            let uuid = format!("GPU-{g:08x}-7f3a-4c1e-9b2d-00000000{g:04x}");
            let held = g < GPUS / 2;
            let util = match (na_at, held) {
                (Some(n), _) if row >= n && g == 0 => "[N/A]".to_string(),
                (_, true) => "50".to_string(),
                (_, false) => "0".to_string(),
            };
            let mem = if held { 40_000_000_000u64 } else { 0 };
            let _ = writeln!(out, "{t},{host},{uuid},{held},{util},{mem}");
            row += 1;
        }
    }
    out
}

/// The JSON report of `file`, streamed when `bound` is given.
fn report(file: &str, bound: Option<&str>) -> anyhow::Result<Value> {
    report_env(file, bound, &[])
}

/// [`report`] with more environment variables set.
fn report_env(file: &str, bound: Option<&str>, env: &[(&str, &str)]) -> anyhow::Result<Value> {
    let mut c = gpuaudit()?;
    c.args(["report", file, "--format", "json", "--by", "host"]);
    c.envs(env.iter().copied());
    if let Some(b) = bound {
        c.env("GPUAUDIT_STREAM_TEXT_ABOVE", b);
        c.env("GPUAUDIT_SLICE_ROWS", "10007");
    }
    let out = c.output()?;
    anyhow::ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// The report without its `sources` (the one part that says how it was read).
fn figures(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("sources");
    }
    v
}

#[test]
fn a_csv_above_the_memory_bound_streams_with_the_figures_read_whole() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("fleet.csv");
    std::fs::write(&path, fleet_csv(None))?;
    let size = std::fs::metadata(&path)?.len();
    assert!(size > 8 << 20, "a few MB of input: {size}");
    let file = path.display().to_string();
    let whole = report(&file, None)?;
    let streamed = report(&file, Some("1MiB"))?;
    // the streamed path was taken: every row read in blocks
    assert!(whole["sources"]["text_rows_streamed"].is_null());
    assert_eq!(streamed["sources"]["text_rows_streamed"], 72_000);
    assert_eq!(streamed["sources"]["rows_read"], 72_000);
    // the figures, by hand: 25 h of 48 GPUs, half held at 50% busy
    for v in [&whole, &streamed] {
        assert_eq!(num(v, "/window/hours"), 25.0);
        assert_eq!(num(v, "/layers/observed_gpu_hours"), 1_200.0);
        assert_eq!(num(v, "/layers/held_gpu_hours"), 600.0);
        assert_eq!(num(v, "/layers/active_gpu_hours"), 300.0);
        assert_eq!(
            v["data_quality"]["notes"][0],
            "device_util read as percent: max 50"
        );
    }
    assert_eq!(figures(whole), figures(streamed));
    Ok(())
}

#[test]
fn the_spool_written_beside_the_parser_holds_every_block_in_order() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("fleet.csv");
    std::fs::write(&path, fleet_csv(None))?;
    let file = path.display().to_string();
    // 256 KiB blocks: ~40 frames handed to the spool's writer thread
    let small = ("GPUAUDIT_TEXT_BLOCK_BYTES", "262144");
    let beside = report_env(&file, Some("0"), &[small])?;
    let one_thread = report_env(&file, Some("0"), &[small, ("GPUAUDIT_READ_AHEAD", "0")])?;
    for v in [&beside, &one_thread] {
        assert_eq!(v["sources"]["text_rows_streamed"], 72_000);
        assert_eq!(num(v, "/layers/observed_gpu_hours"), 1_200.0);
        assert_eq!(num(v, "/layers/held_gpu_hours"), 600.0);
        assert_eq!(num(v, "/layers/active_gpu_hours"), 300.0);
    }
    assert_eq!(beside, one_thread);
    Ok(())
}

#[test]
fn a_csv_whose_later_rows_are_text_streams_as_text_alike() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("fleet.csv");
    // from row 20,000 on, GPU 0 reports [N/A]: 1,083 of its samples unmeasured
    std::fs::write(&path, fleet_csv(Some(20_000)))?;
    let file = path.display().to_string();
    let whole = report(&file, None)?;
    let streamed = report(&file, Some("0"))?;
    assert_eq!(streamed["sources"]["text_rows_streamed"], 72_000);
    let active = num(&whole, "/layers/active_gpu_hours");
    // GPU 0 measured for its first 417 samples only (rows 0..20,000 hold 417 of them)
    assert!(
        (active - (23.0 * 25.0 + 417.0 / 60.0) * 0.5).abs() < 1e-9,
        "{active}"
    );
    assert_eq!(figures(whole), figures(streamed));
    Ok(())
}

#[test]
fn a_bad_bound_is_refused_naming_the_variable() -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args(["report", &common::data("small-fleet.csv")])
        .env("GPUAUDIT_STREAM_TEXT_ABOVE", "lots")
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("GPUAUDIT_STREAM_TEXT_ABOVE=\"lots\""), "{err}");
    Ok(())
}

#[test]
fn a_converted_csv_reports_the_figures_of_the_csv() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let csv = dir.path().join("fleet.csv");
    std::fs::write(&csv, fleet_csv(Some(20_000)))?;
    let parquet = dir.path().join("fleet.parquet");
    let out = gpuaudit()?
        .arg("convert")
        .arg(&csv)
        .arg("-o")
        .arg(&parquet)
        .output()?;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let from_csv = report(&csv.display().to_string(), None)?;
    let from_parquet = report(&parquet.display().to_string(), None)?;
    assert_eq!(from_parquet["sources"]["rows_read"], 72_000);
    // the copy holds canonical fractions: the CSV's "read as percent" note is
    // the one thing said differently
    for section in [
        "window",
        "layers",
        "ratios",
        "cost",
        "gpus",
        "idle_episodes",
        "leaks",
    ] {
        assert_eq!(from_csv[section], from_parquet[section], "{section}");
    }
    assert!((num(&from_parquet, "/layers/active_gpu_hours") - 290.975).abs() < 1e-9);
    // only parquet is written
    let out = gpuaudit()?
        .arg("convert")
        .arg(&csv)
        .args(["-o", "copy.csv"])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-o copy.csv: expected a .parquet file"));
    Ok(())
}

#[test]
fn a_compressed_csv_cut_short_is_refused_naming_it_when_streamed() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, fleet_csv(None).as_bytes())?;
    let bytes = gz.finish()?;
    let path = dir.path().join("fleet.csv.gz");
    // the head decodes; the rest ends mid-stream
    std::fs::write(&path, &bytes[..bytes.len() / 2])?;
    let out = gpuaudit()?
        .arg("report")
        .arg(&path)
        .env("GPUAUDIT_STREAM_TEXT_ABOVE", "0")
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fleet.csv.gz: not a valid gzip file"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    Ok(())
}
