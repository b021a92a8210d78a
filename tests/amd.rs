//! AMD Instinct inputs read with no flags (testdata/amd/, sources in
//! testdata/amd/SOURCES.md): AMD Device Metrics Exporter scrapes (CPX
//! partitions as units, a configured prefix, the 0-field rule, approximate SM
//! active), amd-smi JSON and monitor tables, rocm-smi JSON and CSV (the GFX
//! Activity counter never read as a percent). Figures are hand-computed.
use anyhow::Result;
use serde_json::Value;
mod common;
use common::{assert_close, data, gpuaudit, num, report_json};

const MIB: f64 = 1_048_576.0;

fn gpu<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["gpus"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["gpu"] == id))
        .unwrap_or(&Value::Null)
}

fn note_codes(report: &Value) -> Vec<Value> {
    report["data_quality"]["note_codes"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn has_note(report: &Value, code: &str) -> Option<Value> {
    note_codes(report).into_iter().find(|n| n["code"] == code)
}

fn layer(report: &Value, name: &str) -> Option<f64> {
    report["waterfall"]
        .as_array()?
        .iter()
        .find(|l| l["layer"] == name)?["gpu_hours"]
        .as_f64()
}

#[test]
fn a_cpx_exporter_scrape_gives_one_held_unit_per_partition() -> Result<()> {
    // one MI300X in CPX mode: 8 partitions, 3 scrapes a minute apart; busy per
    // XCC 100 / 50 / 0 % on partitions 0 / 1 / 2 (pods train-a, infer-b,
    // idle-c), no pod on partitions 3..7
    let r = report_json(&[data("amd/exporter_cpx_mi300x.prom")])?;
    assert_eq!(r["gpu_count"], 8);
    for p in 0..8 {
        assert!(
            gpu(&r, &format!("692409005296/{p}")).is_object(),
            "partition {p} is a unit"
        );
    }
    // held: 3 partitions x 3 samples x 1 min = 9 GPU-min
    assert_close(
        layer(&r, "observed").unwrap_or(f64::NAN),
        24.0 / 60.0,
        "observed",
    );
    assert_close(layer(&r, "held").unwrap_or(f64::NAN), 9.0 / 60.0, "held");
    // active: (1.0 + 0.5 + 0.0) x 3 min = 4.5 GPU-min (never the whole-GPU gpu_gfx_activity 19 %)
    assert_close(
        layer(&r, "active").unwrap_or(f64::NAN),
        4.5 / 60.0,
        "active",
    );
    assert_close(
        layer(&r, "idle_held").unwrap_or(f64::NAN),
        3.0 / 60.0,
        "idle held",
    );
    let p0 = gpu(&r, "692409005296/0");
    assert_close(num(p0, "/device_util"), 1.0, "partition 0 busy");
    assert_close(
        num(gpu(&r, "692409005296/1"), "/device_util"),
        0.5,
        "partition 1 busy",
    );
    assert_close(
        num(p0, "/last_mem_used_bytes"),
        20_000.0 * MIB,
        "partition 0 VRAM",
    );
    assert_close(
        num(p0, "/last_mem_total_bytes"),
        24_537.0 * MIB,
        "partition 0 VRAM total",
    );
    // socket power is the whole GPU's (partitions 1..7 read 0): not a partition's
    assert!(p0["last_power_w"].is_null(), "{p0}");
    assert_eq!(p0["model"], "AMD Instinct MI300X OAM");
    assert_eq!(
        has_note(&r, "partitions_as_units").map(|n| n["cards"].clone()),
        Some(Value::from(1))
    );
    Ok(())
}

#[test]
fn a_prefixed_exporter_before_1_4_reads_its_zero_fields_as_not_measured() -> Result<()> {
    // amd_-prefixed names; card ...408 busy 80/60/40 %, VALU 50/40/30 %,
    // occupancy 20 %, MFMA 0 on every sample (unsupported), pod llm-train;
    // card ...328 idle, everything 0, no pod
    let r = report_json(&[data("amd/exporter_spx_prefixed_pre14.prom")])?;
    assert_eq!(r["gpu_count"], 2);
    assert_close(layer(&r, "held").unwrap_or(f64::NAN), 3.0 / 60.0, "held");
    assert_close(
        layer(&r, "active").unwrap_or(f64::NAN),
        1.8 / 60.0,
        "active",
    );
    assert_close(
        layer(&r, "sm_active").unwrap_or(f64::NAN),
        1.2 / 60.0,
        "sm active (VALU)",
    );
    assert_close(num(&r, "/ratios/sm_occupancy"), 0.2, "occupancy");
    let busy = gpu(&r, "692409005408");
    assert_close(num(busy, "/device_util"), 0.6, "busy card");
    assert_close(num(busy, "/sm_active"), 0.4, "busy card VALU");
    // MFMA 0 on every sample of an active card: not measured, never 0
    assert!(busy["tensor_active"].is_null(), "{busy}");
    assert!(r["ratios"]["tensor_active"].is_null());
    // and the fleet's tensor layer: no held hour measured it, so n/a, not 0
    // (the idle card's zeros are not a measurement of the held one)
    assert!(
        r["layers"]["tensor_active_gpu_hours"].is_null(),
        "{}",
        r["layers"]
    );
    let zero = has_note(&r, "zero_field_unmeasured");
    assert_eq!(
        zero.as_ref().map(|n| n["metric"].clone()),
        Some("tensor_active".into())
    );
    assert_eq!(zero.map(|n| n["gpus"].clone()), Some(Value::from(1)));
    // VALU busy is on the SM line, said to be approximate
    assert!(has_note(&r, "approximate_sm_active").is_some());
    assert_close(num(busy, "/last_power_w"), 600.0, "package power");
    // the text report marks the SM line
    let out = gpuaudit()?
        .args(["report", &data("amd/exporter_spx_prefixed_pre14.prom")])
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("sm active (approx.)"), "{text}");
    assert!(
        text.contains("approximate, not NVIDIA's SM active"),
        "{text}"
    );
    Ok(())
}

#[test]
fn kaiwo_mi300x_exporter_lines_spx_and_cpx() -> Result<()> {
    // three real gpu_gfx_activity lines (silogen/kaiwo): SPX idle, CPX
    // partition 0 (the exporter's own pod), SPX 100 % under pod high-utilization
    let r = report_json(&[data("amd/kaiwo_mi300x_gfx_activity.prom")])?;
    assert_eq!(r["gpu_count"], 3);
    // a snapshot: each GPU weighed 1 h
    assert_close(layer(&r, "observed").unwrap_or(f64::NAN), 3.0, "observed");
    assert_close(layer(&r, "held").unwrap_or(f64::NAN), 1.0, "held");
    assert_close(layer(&r, "active").unwrap_or(f64::NAN), 1.0, "active");
    let busy = gpu(&r, "692409005328");
    assert_eq!(busy["jobs"][0], "high-utilization-57ls6");
    assert_eq!(busy["host"], "tw038");
    let cpx = gpu(&r, "692409005296/0");
    assert_eq!(cpx["host"], "tw009");
    assert_eq!(cpx["last_held"], false);
    assert!(has_note(&r, "partitions_as_units").is_some());
    Ok(())
}

#[test]
fn the_oldest_exporter_scrape_reads_and_says_why_held_is_unknown() -> Result<()> {
    let path = data("amd/exporter_metrics_mini.prom");
    // run beside the file: a long checkout path would be shortened in the line
    let out = gpuaudit()?
        .current_dir(data("amd"))
        .args(["report", "exporter_metrics_mini.prom"])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("exporter_metrics_mini.prom: cannot tell which GPUs are held"),
        "{err}"
    );
    let r = report_json(&[path.as_str(), "--assume-held"])?;
    let g = gpu(&r, "692247001282");
    assert_close(num(g, "/device_util"), 0.0, "gpu_usage");
    assert_close(
        num(g, "/last_mem_total_bytes"),
        68_702.0 * MIB,
        "gpu_total_memory",
    );
    assert_close(num(g, "/last_power_w"), 41.0, "power (package power first)");
    Ok(())
}

#[test]
fn amd_smi_monitor_tables() -> Result<()> {
    // `amd-smi monitor -q` (amdsmi CHANGELOG): one GPU, 99 % GFX, 1235 MB used
    let r = report_json(&[data("amd/amd_smi_monitor_q.txt")])?;
    assert_eq!(r["gpu_count"], 1);
    let g = gpu(&r, "0");
    assert_close(num(g, "/device_util"), 0.99, "GFX_UTIL");
    assert_close(num(g, "/last_mem_used_bytes"), 1235.0 * MIB, "VRAM_USED");
    assert_close(
        num(g, "/last_mem_total_bytes"),
        16_335.0 * MIB,
        "VRAM_TOTAL",
    );
    assert_close(num(g, "/last_power_w"), 199.0, "POWER");
    assert_close(layer(&r, "held").unwrap_or(f64::NAN), 1.0, "held by memory");
    // `amd-smi monitor -p -t -v` on CPX: 32 logical GPUs, 283 MB each (none held)
    let r = report_json(&[data("amd/amd_smi_monitor_cpx.txt")])?;
    assert_eq!(r["gpu_count"], 32);
    assert_close(layer(&r, "held").unwrap_or(f64::NAN), 0.0, "held");
    assert_close(num(gpu(&r, "31"), "/last_power_w"), 227.0, "GPU 31 power");
    assert!(layer(&r, "active").is_none(), "no GFX_UTIL column: n/a");
    Ok(())
}

#[test]
fn amd_smi_json_list_and_gpu_data_shapes() -> Result<()> {
    // metric --json --watch: two ticks a minute apart; GPU 1's second GFX is "N/A"
    let r = report_json(&[data("amd/amd_smi_metric_watch.json")])?;
    assert_eq!(r["gpu_count"], 2);
    assert!(has_note(&r, "untimed_rows").is_none(), "stamped by amd-smi");
    assert_close(layer(&r, "held").unwrap_or(f64::NAN), 2.0 / 60.0, "held");
    assert_close(
        layer(&r, "active").unwrap_or(f64::NAN),
        1.96 / 60.0,
        "active",
    );
    let g0 = gpu(&r, "0");
    assert_close(num(g0, "/device_util"), 0.98, "gfx_activity");
    assert_close(
        num(g0, "/last_mem_used_bytes"),
        150_000.0 * MIB,
        "used_vram",
    );
    assert_close(num(g0, "/last_power_w"), 199.0, "socket_power");
    assert!(gpu(&r, "1")["last_power_w"].is_null(), "N/A power");
    // monitor --json, {"gpu_data": [...]}
    let r = report_json(&[data("amd/amd_smi_monitor_gpu_data.json")])?;
    assert_close(num(gpu(&r, "0"), "/device_util"), 0.45, "gfx");
    assert_close(
        num(gpu(&r, "0"), "/last_mem_used_bytes"),
        40_000.0 * MIB,
        "vram_used",
    );
    assert_close(num(gpu(&r, "1"), "/last_power_w"), 140.0, "power_usage");
    assert_close(
        layer(&r, "active").unwrap_or(f64::NAN),
        0.45,
        "GPU 1 N/A, not held",
    );
    Ok(())
}

#[test]
fn rocm_smi_gfx_activity_is_a_counter_never_a_percent() -> Result<()> {
    let r = report_json(&[data("amd/rocm_smi_showuse.json")])?;
    assert_eq!(r["gpu_count"], 2);
    let c0 = gpu(&r, "card0");
    assert_close(num(c0, "/device_util"), 0.64, "GPU use (%)");
    assert_close(
        num(c0, "/last_mem_used_bytes"),
        51_527_024_640.0,
        "VRAM used (B)",
    );
    assert_close(num(c0, "/last_power_w"), 310.0, "power");
    assert_eq!(c0["model"], "AMD Instinct MI210");
    // card1 has only the counter (819691187): no device activity at all
    let counter = has_note(&r, "counter_not_percent");
    assert_eq!(counter.map(|n| n["gpus"].clone()), Some(Value::from(1)));
    assert_close(
        layer(&r, "active").unwrap_or(f64::NAN),
        0.64,
        "only card0's 64 %",
    );
    // CSV: GPU use 64 and 0; the counters 2469071528 and 819691187 are not read
    let r = report_json(&[data("amd/rocm_smi_showuse.csv").as_str(), "--assume-held"])?;
    assert_close(num(gpu(&r, "card0"), "/device_util"), 0.64, "csv card0");
    assert_close(num(gpu(&r, "card1"), "/device_util"), 0.0, "csv card1");
    Ok(())
}

#[test]
fn formats_come_from_the_registry() -> Result<()> {
    // a file no format claims: the expected list names every registered format
    let dir = std::env::temp_dir().join(format!("gpuaudit-amd-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let odd = dir.join("odd.txt");
    std::fs::write(&odd, "hello\n")?;
    let out = gpuaudit()?.arg("report").arg(&odd).output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for name in [
        "parquet",
        "amd-smi-json",
        "rocm-smi-csv",
        "nvidia-smi-xml",
        "prom-json",
        "prom,",
    ] {
        assert!(err.contains(name), "{name} missing from: {err}");
    }
    // --input-format takes the registry's names: a rocm-smi JSON without its look
    let renamed = dir.join("cards.txt");
    std::fs::copy(data("amd/rocm_smi_showuse.json"), &renamed)?;
    let r = report_json(&[
        renamed.display().to_string().as_str(),
        "--input-format",
        "rocm-smi-json",
    ])?;
    assert_close(num(gpu(&r, "card0"), "/device_util"), 0.64, "forced");
    let out = gpuaudit()?
        .arg("report")
        .arg(&renamed)
        .args(["--input-format", "excel"])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("amd-smi-json") && err.contains("rocm-smi-csv"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn amd_smi_metric_usage_text_in_8_xcp_mode() -> Result<()> {
    // `amd-smi metric --usage` on an MI300 in 8-XCP mode (amdsmi CHANGELOG):
    // GPU 0 and GPU 1, GFX_ACTIVITY 0 % and UMC_ACTIVITY 0 % each; no memory
    // or job, so held needs --assume-held
    let path = data("amd/amd_smi_metric_usage_8xcp.txt");
    let out = gpuaudit()?.args(["report", &path]).output()?;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot tell which GPUs are held"));
    let r = report_json(&[path.as_str(), "--assume-held"])?;
    assert_eq!(r["gpu_count"], 2);
    assert_close(num(gpu(&r, "1"), "/device_util"), 0.0, "GFX_ACTIVITY 0 %");
    assert_close(layer(&r, "held").unwrap_or(f64::NAN), 2.0, "held");
    assert_close(layer(&r, "idle_held").unwrap_or(f64::NAN), 2.0, "idle held");
    assert!(layer(&r, "sm_active").is_none());
    Ok(())
}

#[test]
fn an_amd_scrape_and_a_dcgm_scrape_read_together() -> Result<()> {
    // the prefixed AMD scrape (held card: 80/60/40 %) beside a DCGM scrape of
    // one H100 at the same stamps, 50 % under pod vllm: one fleet of 3 GPUs
    let dir = std::env::temp_dir().join(format!("gpuaudit-amd-mixed-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let dcgm = dir.join("dcgm.prom");
    let mut text = String::from("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n");
    for i in 0..3 {
        let t = 1_767_225_600_000_i64 + i * 60_000;
        text.push_str(&format!(
            "DCGM_FI_DEV_GPU_UTIL{{UUID=\"GPU-a\",Hostname=\"n1\",modelName=\"NVIDIA H100 80GB HBM3\",pod=\"vllm\",namespace=\"ml\"}} 50 {t}\n"
        ));
    }
    std::fs::write(&dcgm, text)?;
    let r = report_json(&[
        data("amd/exporter_spx_prefixed_pre14.prom"),
        dcgm.display().to_string(),
    ])?;
    assert_eq!(r["gpu_count"], 3);
    // held: the AMD card and the H100, 3 min each
    assert_close(layer(&r, "held").unwrap_or(f64::NAN), 6.0 / 60.0, "held");
    // active: AMD (0.8 + 0.6 + 0.4) min + H100 3 x 0.5 min = 3.3 GPU-min
    assert_close(
        layer(&r, "active").unwrap_or(f64::NAN),
        3.3 / 60.0,
        "active",
    );
    assert_close(num(gpu(&r, "GPU-a"), "/device_util"), 0.5, "H100");
    assert_close(num(gpu(&r, "692409005408"), "/device_util"), 0.6, "MI300X");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
