//! Values that contradict each other (issue 35 item 13): counted in data
//! quality with one warning, the same on the in-memory (CSV) and the
//! streamed (parquet) path.
mod common;

use common::{gpuaudit, report_json};
use polars::prelude::*;
use serde_json::Value;

const GIB: u64 = 1 << 30;

/// Two L4s, two samples each: one sample with SM above device activity, one
/// with tensor above SM, one with 30 GiB used of 24 GiB and held false with
/// a job; the fourth agrees with itself.
fn fleet() -> anyhow::Result<DataFrame> {
    let t0 = 1_783_332_000_000_000i64; // 2026-07-06T10:00:00Z
    let t1 = t0 + 600_000_000;
    let mut df = df![
        "time" => [t0, t1, t0, t1],
        "host" => ["h", "h", "h", "h"],
        "gpu" => ["0", "0", "1", "1"],
        "model" => ["NVIDIA L4"; 4],
        "held" => [true, true, false, false],
        "job" => [Some("a"), Some("a"), Some("b"), None],
        "device_util" => [0.5, 0.5, 0.0, 0.0],
        "sm_active" => [0.7, 0.4, 0.0, 0.0],
        "tensor_active" => [0.2, 0.6, 0.0, 0.0],
        "mem_used_bytes" => [8 * GIB, 8 * GIB, 30 * GIB, 0],
        "mem_total_bytes" => [24 * GIB; 4],
    ]?;
    let time = df.column("time")?.cast(&DataType::Datetime(
        TimeUnit::Microseconds,
        Some(TimeZone::UTC),
    ))?;
    df.with_column(time)?;
    Ok(df)
}

fn contradictions(v: &Value) -> Vec<Value> {
    v["data_quality"]["warning_codes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|w| w["code"] == "contradictions")
        .cloned()
        .collect()
}

#[test]
fn contradicting_values_are_counted_alike_on_every_path() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let mut df = fleet()?;
    let csv = dir.path().join("fleet.csv");
    CsvWriter::new(std::fs::File::create(&csv)?).finish(&mut df)?;
    let parquet = dir.path().join("fleet.parquet");
    ParquetWriter::new(std::fs::File::create(&parquet)?).finish(&mut df)?;
    let want = serde_json::json!({
        "code": "contradictions",
        "counts": {
            "sm_above_device": 1,
            "tensor_above_sm": 1,
            "mem_above_total": 1,
            "job_not_held": 1,
        }
    });
    for path in [&csv, &parquet] {
        let v = report_json(&[&path.display().to_string()])?;
        assert_eq!(contradictions(&v), vec![want.clone()], "{}", path.display());
        let text = "4 sample(s) whose values contradict each other: 1 with SM activity above device activity (by more than 1 point), 1 with tensor activity above SM activity (by more than 1 point), 1 with memory used above memory total, 1 with a job on a sample whose held is false; the values are used as read: check the exporter";
        let warnings = v["data_quality"]["warnings"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(warnings.contains(&Value::from(text)), "{warnings:?}");
        // used as read: GPU 0 held 2 samples x 10 min; GPU 1 not held
        assert_eq!(v["layers"]["held_gpu_hours"].as_f64(), Some(1.0 / 3.0));
    }
    // a table that agrees with itself has no such warning
    let out = gpuaudit()?
        .args(["report", "-", "--format", "json"])
        .write_stdin("time,host,gpu,held,job,device_util,sm_active\n2026-07-06T10:00:00Z,h,0,true,a,0.5,0.5\n")
        .output()?;
    let v: Value = serde_json::from_slice(&out.stdout)?;
    assert!(contradictions(&v).is_empty());
    Ok(())
}
