//! `gpuaudit scan` end to end through the real nvml-wrapper path, against the
//! stand-in libnvidia-ml.so built from `nvml-standin/` and the scenarios in
//! testdata/nvml/. No GPU needed; it does not replace a real one.
use anyhow::{Context, Result, bail};
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

const NO_GPM: &str = "SM/tensor activity needs a Hopper+ GPU (GPM) or DCGM";
const NVML_NOT_FOUND: &str = "NVML not found: is the NVIDIA driver installed? (gpuaudit report works on exported metrics without it)";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Build the stand-in once per test binary, into the target dir this test runs from.
fn standin_built() -> Result<PathBuf> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            // <target>/<profile>/deps/scan-<hash>
            let profile_dir = exe
                .parent()
                .and_then(Path::parent)
                .ok_or("no profile dir")?
                .to_path_buf();
            let target = profile_dir.parent().ok_or("no target dir")?;
            let cargo = option_env!("CARGO").unwrap_or("cargo");
            let out = std::process::Command::new(cargo)
                .args(["build", "-p", "nvml-standin", "--target-dir"])
                .arg(target)
                .current_dir(root())
                .output()
                .map_err(|e| format!("running cargo: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "cargo build -p nvml-standin failed:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            let so = target.join("debug").join("libnvml_standin.so");
            if !so.exists() {
                return Err(format!("{} missing after the build", so.display()));
            }
            Ok(so)
        })
        .clone()
        .map_err(anyhow::Error::msg)
}

/// One test's own copy of the library (dlopen shares one copy per path per process).
struct Lib {
    dir: tempfile::TempDir,
    so: PathBuf,
}

fn standin() -> Result<Lib> {
    let dir = tempfile::tempdir()?;
    let so = dir.path().join("libnvidia-ml.so.1");
    std::fs::copy(standin_built()?, &so)?;
    Ok(Lib { dir, so })
}

fn scan_cmd(lib: &Lib, scenario: &str) -> Result<Command> {
    let mut cmd = Command::cargo_bin("gpuaudit")?;
    cmd.env(
        "NVML_STANDIN_SCENARIO",
        root().join("testdata/nvml").join(scenario),
    )
    .env("SLURM_JOB_ID", "4242")
    .env_remove("GPUAUDIT_NVML_LIB")
    .args([
        "scan",
        "--quiet",
        "--interval",
        "100ms",
        "--duration",
        "500ms",
        "--nvml-lib",
    ])
    .arg(&lib.so);
    Ok(cmd)
}

/// Run a scan with JSON output; returns (exit code, document, stderr).
fn scan_json(scenario: &str, extra: &[&str]) -> Result<(i32, Value, String)> {
    let lib = standin()?;
    let out = scan_cmd(&lib, scenario)?
        .args(["--format", "json"])
        .args(extra)
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("stdout is not JSON; stderr: {stderr}"))?;
    Ok((out.status.code().unwrap_or(-1), doc, stderr))
}

fn num(v: &Value, path: &str) -> Result<f64> {
    let mut cur = v;
    for key in path.split('.') {
        cur = match key.parse::<usize>() {
            Ok(i) => &cur[i],
            Err(_) => &cur[key],
        };
    }
    cur.as_f64()
        .with_context(|| format!("{path} is not a number: {cur}"))
}

fn is_null(v: &Value, path: &str) -> bool {
    let mut cur = v;
    for key in path.split('.') {
        cur = match key.parse::<usize>() {
            Ok(i) => &cur[i],
            Err(_) => &cur[key],
        };
    }
    cur.is_null()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn assert_close(v: &Value, path: &str, want: f64) -> Result<()> {
    let got = num(v, path)?;
    if !close(got, want) {
        bail!("{path}: got {got}, want {want}");
    }
    Ok(())
}

/// The user name of this test process (the stand-in's "self" pid is the gpuaudit
/// child, which runs as the same user).
fn my_user() -> Result<String> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let uid = status
        .lines()
        .find(|l| l.starts_with("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .context("no Uid line")?
        .to_string();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    Ok(passwd
        .lines()
        .find(|l| l.split(':').nth(2) == Some(uid.as_str()))
        .and_then(|l| l.split(':').next())
        .map(str::to_string)
        .unwrap_or(format!("uid {uid}")))
}

/// The job label expected for a process of this test: from its cgroup when that
/// names a Slurm job or pod, else SLURM_JOB_ID=4242 from the environment.
fn expected_job() -> Option<String> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    if cgroup.contains("job_") || cgroup.contains("pod") {
        None
    } else {
        Some("4242".to_string())
    }
}

#[test]
fn hopper_scan_names_holders_and_reads_gpm() -> Result<()> {
    let (code, d, stderr) = scan_json("hopper.json", &[])?;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(d["schema"], "gpuaudit.report/1");
    let g = &d["scan"]["gpus"];
    assert_eq!(g.as_array().map(Vec::len), Some(3));
    // GPU 0: busy, held by this test's own gpuaudit process.
    assert_eq!(g[0]["samples"], 5);
    assert_eq!(g[0]["held"], true);
    assert_close(&d, "scan.gpus.0.device_util", 0.9)?;
    // GPM per tick: 60 then 70 (repeated): (60 + 4 x 70) / 5 percent.
    assert_close(&d, "scan.gpus.0.sm_active", 0.68)?;
    assert_close(&d, "scan.gpus.0.tensor_active", 0.4)?;
    assert_close(&d, "scan.gpus.0.sm_occupancy", 0.3)?;
    assert_close(&d, "scan.gpus.0.dram_active", 0.25)?;
    assert_close(&d, "scan.gpus.0.gr_engine_active", 0.92)?;
    assert_close(&d, "scan.gpus.0.power_w", 650.0)?;
    assert_close(&d, "scan.gpus.0.mem_used_bytes", 40960.0 * 1048576.0)?;
    let h = &g[0]["holders"][0];
    assert_eq!(h["user"], my_user()?);
    assert!(
        h["command"]
            .as_str()
            .is_some_and(|c| c.contains("gpuaudit") && c.contains("scan")),
        "{h}"
    );
    if let Some(job) = expected_job() {
        assert_eq!(h["job"], job.as_str());
    }
    assert_close(h, "sm_util", 0.85)?;
    assert_close(h, "gpu_mem_bytes", 40960.0 * 1048576.0)?;
    assert_close(&d, "scan.gpus.0.idle_usd_per_hour", 0.0)?;
    // GPU 1: held by a process nobody can read (owner unknown), idle all along.
    assert_eq!(g[1]["held"], true);
    assert_eq!(g[1]["holders"][0]["user"], "unknown");
    assert_eq!(g[1]["holders"][0]["pid"], 999999999u32);
    assert_close(&d, "scan.gpus.1.device_util", 0.0)?;
    let held1 = num(&d, "gpus.1.held_gpu_hours")?;
    assert!(held1 > 0.0);
    assert_close(&d, "gpus.1.idle_held_gpu_hours", held1)?;
    assert_close(&d, "scan.gpus.1.idle_usd_per_hour", 3.0)?; // built-in H100 price, idle all the time
    // GPU 2: nobody holds it.
    assert_eq!(g[2]["held"], false);
    assert_close(&d, "gpus.2.held_gpu_hours", 0.0)?;
    assert!(
        is_null(&d, "scan.gpus.2.sm_occupancy"),
        "a metric GPM did not give is n/a, not 0"
    );
    // The report: the same audit as `report`, with chip activity present.
    assert_eq!(d["held_rule"], "held column");
    assert_eq!(d["gpu_count"], 3);
    assert!(num(&d, "ratios.sm_active")? > 0.0);
    assert!(num(&d, "layers.tensor_active_gpu_hours")? > 0.0);
    Ok(())
}

#[test]
fn ampere_scan_has_no_sm_activity_and_says_why() -> Result<()> {
    let (code, d, stderr) = scan_json("ampere.json", &[])?;
    assert_eq!(code, 0, "{stderr}");
    // Device activity per tick 50, then 70 repeated: (50 + 4 x 70) / 5.
    assert_close(&d, "scan.gpus.0.device_util", 0.66)?;
    for i in 0..2 {
        assert!(is_null(&d, &format!("scan.gpus.{i}.sm_active")));
        assert!(is_null(&d, &format!("scan.gpus.{i}.tensor_active")));
        assert_eq!(d["scan"]["gpus"][i]["unavailable"]["sm_active"], NO_GPM);
    }
    assert!(is_null(&d, "ratios.sm_active") && is_null(&d, "layers.sm_active_gpu_hours"));
    assert!(is_null(&d, "layers.tensor_active_gpu_hours"));
    // GPU 1: 2 GiB used, no process: held by memory (> 1 GiB), idle: burns the A100 price.
    assert_eq!(d["scan"]["gpus"][1]["held"], true);
    assert_eq!(
        d["scan"]["gpus"][1]["holders"].as_array().map(Vec::len),
        Some(0)
    );
    assert_close(&d, "scan.gpus.1.idle_usd_per_hour", 1.5)?;
    // Counted: 1 GPU, its 5 samples held with no process visible.
    let hidden = |d: &Value| -> Vec<Value> {
        d["data_quality"]["warning_codes"]
            .as_array()
            .map(|w| {
                w.iter()
                    .filter(|x| x["code"] == "held_without_visible_process")
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    };
    let w = hidden(&d);
    assert_eq!(w.len(), 1, "{}", d["data_quality"]);
    assert_eq!((&w[0]["gpus"], &w[0]["samples"]), (&1.into(), &5.into()));
    // With a higher --held-mem it is not held.
    let (_, d, _) = scan_json("ampere.json", &["--held-mem", "4GiB"])?;
    assert_eq!(d["scan"]["gpus"][1]["held"], false);
    assert_close(&d, "gpus.1.held_gpu_hours", 0.0)?;
    assert!(hidden(&d).is_empty());
    Ok(())
}

#[test]
fn mig_instances_are_units_and_the_parent_has_no_device_activity() -> Result<()> {
    let (code, d, stderr) = scan_json("mig.json", &[])?;
    assert_eq!(code, 0, "{stderr}");
    let parent = "GPU-44444444-4444-4444-4444-444444444444";
    let g = &d["scan"]["gpus"];
    assert_eq!(g[0]["gpu"], format!("{parent}/1/0"));
    assert_eq!(g[1]["gpu"], format!("{parent}/2/0"));
    assert_eq!(g[0]["label"], "0/1/0");
    assert_eq!(g[0]["uuid"], "MIG-aaaaaaaa-0000-0000-0000-000000000001");
    assert_eq!(g[0]["model"], "NVIDIA H100 80GB HBM3 MIG 3g.40gb");
    assert_eq!(
        (&g[0]["held"], &g[1]["held"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    assert!(is_null(&d, "scan.gpus.0.device_util"));
    assert!(
        g[0]["unavailable"]["device_util"]
            .as_str()
            .is_some_and(|r| r.contains("MIG"))
    );
    assert_close(&d, "scan.gpus.0.sm_active", 0.55)?;
    assert_close(&d, "scan.gpus.0.gr_engine_active", 0.8)?;
    assert_close(&d, "scan.gpus.0.mem_total_bytes", 40192.0 * 1048576.0)?;
    assert_eq!(
        d["gpu_count"], 2,
        "the instances are the units, not the parent"
    );
    let p = &d["scan"]["mig_parents"][0];
    assert_eq!(
        (p["label"].as_str(), p["instances"].as_u64()),
        (Some("0"), Some(2))
    );
    assert!(p["device_util"].is_null());
    assert!(
        p["device_util_reason"]
            .as_str()
            .is_some_and(|r| r.contains("MIG mode"))
    );
    assert_close(p, "power_w", 210.0)?;
    Ok(())
}

#[test]
fn a_gpu_lost_mid_scan_is_named_the_others_continue_exit_2() -> Result<()> {
    let (code, d, stderr) = scan_json("lost.json", &[])?;
    assert_eq!(code, 2);
    assert!(
        stderr.contains("GPU 1 (GPU-bbbbbbbb-1111-1111-1111-111111111111) failed at tick 3 of 5"),
        "{stderr}"
    );
    assert!(stderr.contains("lost"), "{stderr}");
    let g = &d["scan"]["gpus"];
    assert_eq!(
        (g[0]["samples"].as_u64(), g[1]["samples"].as_u64()),
        (Some(5), Some(2))
    );
    assert!(g[1]["failed"].as_str().is_some_and(|f| f.contains("lost")));
    assert!(g[0]["failed"].is_null());
    assert_eq!(d["gpus"][1]["samples"], 2);
    assert!(d["data_quality"]["warnings"].to_string().contains("GPU 1"));
    Ok(())
}

#[test]
fn a_field_error_mid_scan_drops_that_gpu_only_exit_2() -> Result<()> {
    let (code, d, stderr) = scan_json("field_error.json", &[])?;
    assert_eq!(code, 2);
    assert!(
        stderr.contains(
            "GPU 0 (GPU-cccccccc-0000-0000-0000-000000000000) failed at tick 2 of 5: reading power"
        ),
        "{stderr}"
    );
    let g = &d["scan"]["gpus"];
    assert_eq!(
        (g[0]["samples"].as_u64(), g[1]["samples"].as_u64()),
        (Some(1), Some(5))
    );
    // Its one sample stands for one interval (0.1 s), not for a snapshot's hour.
    assert_close(&d, "gpus.0.held_gpu_hours", 0.1 / 3600.0)?;
    Ok(())
}

#[test]
fn an_unsupported_metric_is_missing_with_its_reason_never_zero() -> Result<()> {
    let (code, d, stderr) = scan_json("not_supported.json", &[])?;
    assert_eq!(code, 0, "{stderr}");
    let g = &d["scan"]["gpus"][0];
    assert!(g["device_util"].is_null() && g["power_w"].is_null());
    assert_eq!(
        g["unavailable"]["device_util"],
        "device activity not supported by this GPU"
    );
    assert!(is_null(&d, "layers.active_gpu_hours") && is_null(&d, "layers.idle_held_gpu_hours"));
    assert!(is_null(&d, "gpus.0.device_util"));
    assert!(num(&d, "gpus.0.held_gpu_hours")? > 0.0);
    Ok(())
}

#[test]
fn no_gpu_no_driver_and_no_library_exit_2_with_one_line() -> Result<()> {
    let lib = standin()?;
    let out = scan_cmd(&lib, "no_gpus.json")?.output()?;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "gpuaudit: no NVIDIA GPU found: NVML reports 0 devices"
    );

    let out = scan_cmd(&lib, "driver_not_loaded.json")?.output()?;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kernel driver is not loaded"));

    let missing = lib.dir.path().join("nothing-here.so");
    for via_env in [false, true] {
        let mut cmd = Command::cargo_bin("gpuaudit")?;
        cmd.args(["scan", "--quiet", "--once"]);
        if via_env {
            cmd.env("GPUAUDIT_NVML_LIB", &missing);
        } else {
            cmd.arg("--nvml-lib").arg(&missing);
        }
        let out = cmd.output()?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr.starts_with(&format!("gpuaudit: {NVML_NOT_FOUND}")),
            "{stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1);
        assert!(out.stdout.is_empty());
    }
    Ok(())
}

#[test]
fn bad_options_exit_2() -> Result<()> {
    let lib = standin()?;
    for (args, says) in [
        (
            vec!["--interval", "50ms"],
            // typed at the door: clap's one line, naming the flag
            "invalid value '50ms' for '--interval <DURATION>': '50ms' must be at least 100ms",
        ),
        (
            vec!["--duration", "0s"],
            "invalid value '0s' for '--duration <DURATION>': '0s' must be positive",
        ),
        (
            vec!["--out", "samples.txt"],
            "--out samples.txt: expected a .parquet, .csv or .ndjson file",
        ),
    ] {
        let out = Command::cargo_bin("gpuaudit")?
            .env(
                "NVML_STANDIN_SCENARIO",
                root().join("testdata/nvml/hopper.json"),
            )
            .args(["scan", "--quiet", "--nvml-lib"])
            .arg(&lib.so)
            .args(&args)
            .output()?;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(says),
            "{args:?}"
        );
    }
    Ok(())
}

#[test]
fn once_is_a_snapshot_in_gpus_and_dollars_per_hour() -> Result<()> {
    let (code, d, stderr) = scan_json("hopper.json", &["--once"])?;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(d["window"]["snapshot"], true);
    assert_eq!(d["scan"]["ticks"], 1);
    assert_close(&d, "layers.observed_gpu_hours", 3.0)?;
    assert_close(&d, "layers.held_gpu_hours", 2.0)?;
    assert_close(&d, "layers.idle_held_gpu_hours", 1.0)?;
    assert_close(&d, "cost.idle_held_usd", 3.0)?; // one idle H100 at $3.00/h
    // The first GPM tick: SM 60 %.
    assert_close(&d, "scan.gpus.0.sm_active", 0.6)?;
    Ok(())
}

/// Drop what differs by design between a scan's report and a report of its
/// saved samples (where the samples came from, and the scan's notes).
fn comparable(mut d: Value) -> Value {
    if let Some(o) = d.as_object_mut() {
        o.remove("scan");
        o.remove("sources");
        if let Some(q) = o.get_mut("data_quality").and_then(Value::as_object_mut) {
            q.remove("notes");
            q.remove("note_codes");
            q.remove("warnings");
            q.remove("warning_codes");
        }
    }
    d
}

/// Equal, numbers compared to 1e-9 relative.
fn same(a: &Value, b: &Value, at: &str) -> Result<()> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            if !close(x, y) {
                bail!("{at}: {x} vs {y}");
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let mut kx: Vec<_> = x.keys().collect();
            let mut ky: Vec<_> = y.keys().collect();
            kx.sort();
            ky.sort();
            if kx != ky {
                bail!("{at}: keys {kx:?} vs {ky:?}");
            }
            for (k, v) in x {
                same(v, &y[k], &format!("{at}.{k}"))?;
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                bail!("{at}: {} vs {} items", x.len(), y.len());
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same(p, q, &format!("{at}.{i}"))?;
            }
        }
        _ if a == b => {}
        _ => bail!("{at}: {a} vs {b}"),
    }
    Ok(())
}

#[test]
fn scan_out_then_report_agree_number_for_number() -> Result<()> {
    let dir = tempfile::tempdir()?;
    for (scenario, file) in [
        ("hopper.json", "s.parquet"),
        ("mig.json", "s.ndjson"),
        ("ampere.json", "s.csv"),
    ] {
        let out_path = dir.path().join(file);
        let (code, scanned, stderr) = scan_json(
            scenario,
            &["--out", out_path.to_str().context("utf-8 path")?],
        )?;
        assert_eq!(code, 0, "{stderr}");
        let out = Command::cargo_bin("gpuaudit")?
            .args(["report", "--quiet", "--format", "json"])
            .arg(&out_path)
            .output()?;
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let reported: Value = serde_json::from_slice(&out.stdout)?;
        same(
            &comparable(scanned.clone()),
            &comparable(reported),
            scenario,
        )?;
        assert!(num(&scanned, "layers.held_gpu_hours")? > 0.0);
    }
    Ok(())
}

#[test]
fn table_output_shows_holders_activity_and_reasons() -> Result<()> {
    let lib = standin()?;
    let out = scan_cmd(&lib, "ampere.json")?
        .env("COLUMNS", "160")
        .output()?;
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("held by") && text.contains("idle $/h"),
        "{text}"
    );
    assert!(text.contains("NVIDIA A100-SXM4-80GB"), "{text}");
    assert!(text.contains("66.0%"), "{text}");
    assert!(
        text.contains(&format!("n/a on GPU 0, 1: sm_active: {NO_GPM}")),
        "{text}"
    );
    assert!(
        text.contains("Held → used waterfall"),
        "the standard report follows: {text}"
    );
    Ok(())
}

#[test]
fn declared_work_gives_the_nodes_live_mfu() -> Result<()> {
    // two H100 80GB HBM3 held (989.4 TFLOP/s bf16 dense each): 989.4 declared = 50%
    let (code, d, stderr) = scan_json("hopper.json", &["--achieved-tflops", "989.4"])?;
    assert_eq!(code, 0, "{stderr}");
    assert_close(&d, "scan.live_mfu.mfu", 0.5)?;
    assert_eq!(d["scan"]["live_mfu"]["held_gpus"], 2);
    // 7B training at 40k tokens/s: 6 x 7e9 x 4e4 = 1.68 PFLOP/s over 1978.8 TFLOP/s
    let (code, d, stderr) = scan_json(
        "hopper.json",
        &["--params", "7B", "--tokens-per-sec", "40000"],
    )?;
    assert_eq!(code, 0, "{stderr}");
    assert_close(&d, "scan.live_mfu.mfu", 6.0 * 7e9 * 4e4 / (2.0 * 989.4e12))?;
    let (_, d, _) = scan_json("hopper.json", &[])?;
    assert!(d["scan"].get("live_mfu").is_none());
    Ok(())
}

/// A scan's samples read back: (rows, first and last sample time in ms, as
/// `date +%s%3N` writes the command's; the file holds µs).
fn sample_times(path: &Path) -> Result<(usize, i64, i64)> {
    use polars::prelude::*;
    let df = ParquetReader::new(std::fs::File::open(path)?).finish()?;
    let t = df
        .column("time")?
        .cast(&DataType::Datetime(TimeUnit::Milliseconds, None))?
        .cast(&DataType::Int64)?;
    let t = t.i64()?;
    Ok((
        df.height(),
        t.min().context("no samples")?,
        t.max().context("no samples")?,
    ))
}

fn read_ms(path: &Path) -> Result<i64> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("{} not written", path.display()))?;
    text.trim()
        .parse()
        .with_context(|| format!("{}: {text:?}", path.display()))
}

/// `scan [flags] -- sh -c SCRIPT` in `dir`, where SCRIPT writes its start and end
/// times (ms) to the files `start` and `end`.
fn scan_around(
    lib: &Lib,
    dir: &Path,
    flags: &[&str],
    middle: &str,
    code: i32,
) -> Result<std::process::Output> {
    let script = format!("date +%s%3N > start; {middle}; date +%s%3N > end; exit {code}");
    Ok(Command::cargo_bin("gpuaudit")?
        .current_dir(dir)
        .env(
            "NVML_STANDIN_SCENARIO",
            root().join("testdata/nvml/hopper.json"),
        )
        .env_remove("GPUAUDIT_NVML_LIB")
        .args([
            "scan",
            "--quiet",
            "--interval",
            "100ms",
            "--format",
            "json",
            "--out",
            "run.parquet",
            "--nvml-lib",
        ])
        .arg(&lib.so)
        .args(flags)
        .args(["--", "sh", "-c", &script])
        .output()?)
}

#[test]
fn scan_around_a_command_brackets_it_and_exits_with_its_code() -> Result<()> {
    let lib = standin()?;
    let dir = tempfile::tempdir()?;
    let out = scan_around(&lib, dir.path(), &[], "sleep 2", 3)?;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(3),
        "the command's exit code: {stderr}"
    );
    let (rows, first, last) = sample_times(&dir.path().join("run.parquet"))?;
    let (start, end) = (
        read_ms(&dir.path().join("start"))?,
        read_ms(&dir.path().join("end"))?,
    );
    assert!(
        first <= start && last >= end,
        "samples {first}..{last} bracket the command {start}..{end}"
    );
    // exactly its lifetime: one sample just before it starts, one just after it exits
    assert!(
        start - first < 1000 && last - end < 1000,
        "samples {first}..{last}, command {start}..{end}"
    );
    assert!(
        rows >= 3 * 10,
        "3 GPUs sampled every 100 ms for 2 s: {rows} rows"
    );
    let d: Value = serde_json::from_slice(&out.stdout).with_context(|| stderr.clone())?;
    assert_eq!(d["schema"], "gpuaudit.report/1");
    assert_eq!(d["scan"]["ticks"].as_u64(), Some((rows / 3) as u64));

    // --pre and --post: sampling starts that long before and goes on that long after.
    let out = scan_around(
        &lib,
        dir.path(),
        &["--pre", "300ms", "--post", "300ms"],
        "true",
        0,
    )?;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, first, last) = sample_times(&dir.path().join("run.parquet"))?;
    let (start, end) = (
        read_ms(&dir.path().join("start"))?,
        read_ms(&dir.path().join("end"))?,
    );
    assert!(
        start - first >= 300 && last - end >= 300,
        "samples {first}..{last}, command {start}..{end}"
    );

    // A command that cannot start is gpuaudit's failure: exit 2, named.
    let out = Command::cargo_bin("gpuaudit")?
        .env(
            "NVML_STANDIN_SCENARIO",
            root().join("testdata/nvml/hopper.json"),
        )
        .args(["scan", "--quiet", "--interval", "100ms", "--nvml-lib"])
        .arg(&lib.so)
        .args(["--", "/nonexistent/bench"])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run /nonexistent/bench"));

    // --duration and --once are the command's lifetime's business.
    let out = Command::cargo_bin("gpuaudit")?
        .args(["scan", "--duration", "5s", "--", "true"])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    Ok(())
}

/// Start a scan (stderr read until it says it samples), SIGTERM it after `after`,
/// and return its exit code, its stdout and its stderr.
fn scan_then_sigterm(
    lib: &Lib,
    dir: &Path,
    extra: &[&str],
    after: Duration,
) -> Result<(i32, Value, String)> {
    use std::io::{BufRead, BufReader, Read};
    let stdout = std::fs::File::create(dir.join("stdout.json"))?;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpuaudit"))
        .current_dir(dir)
        .env(
            "NVML_STANDIN_SCENARIO",
            root().join("testdata/nvml/hopper.json"),
        )
        .env_remove("GPUAUDIT_NVML_LIB")
        .args([
            "scan",
            "--interval",
            "100ms",
            "--format",
            "json",
            "--out",
            "run.parquet",
            "--nvml-lib",
        ])
        .arg(&lib.so)
        .args(extra)
        .stdout(stdout)
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let mut stderr = BufReader::new(child.stderr.take().context("stderr")?);
    let mut said = String::new();
    while stderr.read_line(&mut said)? > 0 && !said.contains("sampling every") {}
    std::thread::sleep(after);
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()?;
    assert!(killed.success());
    stderr.read_to_string(&mut said)?;
    let code = child.wait()?.code().unwrap_or(-1);
    let doc = serde_json::from_slice(&std::fs::read(dir.join("stdout.json"))?)
        .with_context(|| said.clone())?;
    Ok((code, doc, said))
}

#[test]
fn sigterm_mid_scan_keeps_a_readable_parquet_and_prints_the_report() -> Result<()> {
    let lib = standin()?;
    let dir = tempfile::tempdir()?;
    let (code, d, stderr) = scan_then_sigterm(
        &lib,
        dir.path(),
        &["--duration", "60s"],
        Duration::from_millis(700),
    )?;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("SIGTERM stopped the scan after"),
        "{stderr}"
    );
    let (rows, first, last) = sample_times(&dir.path().join("run.parquet"))?;
    assert!(rows >= 3 * 2 && last > first, "{rows} rows");
    let ticks = d["scan"]["ticks"].as_u64().context("ticks")?;
    assert_eq!(rows as u64, 3 * ticks, "every tick written");
    assert!(ticks < 600, "stopped early: {ticks} ticks");
    assert!(
        d["data_quality"]["warnings"]
            .to_string()
            .contains("SIGTERM")
    );
    // renamed into place: nothing but the outputs beside it
    let mut names: Vec<String> = std::fs::read_dir(dir.path())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["run.parquet", "stdout.json"]);

    // Around a command: the command is told to stop too, and its exit (SIGTERM: 143) is gpuaudit's.
    let dir = tempfile::tempdir()?;
    let (code, _, stderr) = scan_then_sigterm(
        &lib,
        dir.path(),
        &["--", "sleep", "30"],
        Duration::from_millis(700),
    )?;
    assert_eq!(code, 128 + 15, "{stderr}");
    let (rows, _, _) = sample_times(&dir.path().join("run.parquet"))?;
    assert!(rows >= 3 * 2, "{rows} rows");
    Ok(())
}

/// `scan -- CMD` when sampling cannot start (no library, no GPU): CMD runs
/// anyway, its output and exit code are kept, the failure is one stderr line;
/// `--require-nvml` exits 2 without running it.
#[test]
fn a_command_runs_unmonitored_when_sampling_cannot_start() -> Result<()> {
    let lib = standin()?;
    let missing = lib.dir.path().join("nothing-here.so");
    let run = |extra: &[&str], nvml: &Path, scenario: &str| -> Result<std::process::Output> {
        Ok(Command::cargo_bin("gpuaudit")?
            .env(
                "NVML_STANDIN_SCENARIO",
                root().join("testdata/nvml").join(scenario),
            )
            .env_remove("GPUAUDIT_NVML_LIB")
            .args(["scan", "--quiet", "--interval", "100ms", "--nvml-lib"])
            .arg(nvml)
            .args(extra)
            .args(["--", "sh", "-c", "echo ran; exit 3"])
            .output()?)
    };
    for (nvml, scenario, why) in [
        (missing.as_path(), "hopper.json", NVML_NOT_FOUND),
        (lib.so.as_path(), "no_gpus.json", "no NVIDIA GPU found"),
    ] {
        let out = run(&[], nvml, scenario)?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "ran\n");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("gpuaudit: warning: not sampling (")
                && stderr.contains(why)
                && stderr.contains("running `sh -c echo ran; exit 3` unmonitored (--require-nvml makes this exit 2)"),
            "{stderr}"
        );
        let out = run(&["--require-nvml"], nvml, scenario)?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(out.stdout.is_empty(), "the command did not run");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(why), "{stderr}");
    }
    Ok(())
}

/// `--nvml-lib` on a file that is not a shared library says so (not "is the
/// NVIDIA driver installed?").
#[test]
fn nvml_lib_that_is_not_a_library_says_so() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let json = dir.path().join("hopper.json");
    std::fs::copy(root().join("testdata/nvml/hopper.json"), &json)?;
    for (path, what) in [
        (json.clone(), "a text file, no ELF header"),
        (dir.path().to_path_buf(), "a directory"),
    ] {
        let out = Command::cargo_bin("gpuaudit")?
            .env_remove("GPUAUDIT_NVML_LIB")
            .args(["scan", "--quiet", "--once", "--nvml-lib"])
            .arg(&path)
            .output()?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "gpuaudit: --nvml-lib {}: not a shared library ({what}); expected the driver's libnvidia-ml.so.1 or the stand-in's libnvml_standin.so",
                path.display()
            )
        );
    }
    Ok(())
}
