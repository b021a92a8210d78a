//! `--threads N`: the parallel audit gives the figures of the one-thread run,
//! counts and tick sums exactly, floating sums to 1e-12, every list in the
//! same order, on each path (streamed parquet, in-memory CSV, a jobs file,
//! slice edges inside a GPU's run, a hive directory).
use serde_json::Value;
use std::path::Path;
mod common;
use common::{data, gpuaudit, report_json};

/// Every difference between two reports beyond the rule above, as
/// "path: a vs b" (empty when they agree).
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let float = x.is_f64() || y.is_f64();
            let (fx, fy) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            let agree = if float {
                (fx - fy).abs() <= 1e-12 * fx.abs().max(fy.abs()).max(1.0)
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
            err.contains("--threads must be a whole number from 1 to 1024"),
            "--threads {bad}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    Ok(())
}
