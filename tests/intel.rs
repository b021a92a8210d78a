//! Intel Data Center GPU and OpenTelemetry inputs (issue 32 item 5):
//! `xpu-smi dump` CSV, the xpumanager exporter's `xpum_*` series, and the
//! OpenTelemetry `hw.gpu.*` metrics (OTLP JSON and Prometheus), read with no
//! format flag. EU array active is the SM layer, marked approximate.
use serde_json::Value;
mod common;
use common::{assert_close, data, gpuaudit, num, report_json};

fn file(rel: &str) -> String {
    data(rel)
}

fn gpu<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["gpus"]
        .as_array()
        .and_then(|g| g.iter().find(|x| x["gpu"] == id))
        .unwrap_or(&Value::Null)
}

fn notes(v: &Value) -> String {
    v["data_quality"]["notes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

fn refused(args: &[&str]) -> anyhow::Result<String> {
    let out = gpuaudit()?.arg("report").args(args).output()?;
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    Ok(String::from_utf8_lossy(&out.stderr).to_string())
}

const AT: &str = "2026-07-15T00:00:00Z";

/// The real Max 1100 dump: a time of day only (dated from --at: the last row
/// within the day before it), "N/A" temperatures ignored, 27.99 MiB used,
/// 118.87 W; no EU column, so the SM layer is n/a.
#[test]
fn real_max1100_dump_reads_with_no_format_flag() -> anyhow::Result<()> {
    let f = file("intel/xpusmi-dump-max1100.csv");
    report_json(&[f.as_str()])?; // dated by the file's modification time
    let v = report_json(&[f.as_str(), "--at", AT, "--held-mem", "16MiB"])?;
    assert_eq!(v["window"]["start"], "2026-07-14T21:48:07.398Z");
    assert_eq!(v["gpu_count"], 2);
    assert_close(num(&v, "/layers/observed_gpu_hours"), 2.0, "snapshot");
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        2.0,
        "held (28 MiB > 16 MiB)",
    );
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.0, "0.00 % busy");
    let g = gpu(&v, "0");
    assert_eq!(g["last_mem_used_bytes"], (27.99f64 * 1_048_576.0) as u64);
    assert_close(num(g, "/last_power_w"), 118.87, "power");
    assert!(v["layers"]["sm_active_gpu_hours"].is_null());
    assert!(notes(&v).contains("a time of day only"), "{}", notes(&v));
    assert_eq!(v["data_quality"]["invalid"], serde_json::json!({}));
    Ok(())
}

/// The real Flex dump from xpumanager's README (older header "Average %
/// utilization of all GPU Engines", 1 s apart, no memory column so held is
/// assumed): 4 s observed, busy 99.5325 % on average.
#[test]
fn real_flex_dump_reads_device_activity() -> anyhow::Result<()> {
    let v = report_json(&[
        file("intel/xpumcli-dump-flex.csv").as_str(),
        "--at",
        AT,
        "--assume-held",
    ])?;
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        4.0 / 3600.0,
        "observed",
    );
    assert_close(num(&v, "/ratios/active"), 0.995325, "device activity");
    assert_close(num(gpu(&v, "0"), "/last_power_w"), 119.24, "power");
    Ok(())
}

/// A dated dump with EU array active: 2 devices x 3 rows 30 s apart; the busy
/// card (64 GiB) held 0.025 GPU-h, active 90 %, SM (EU) active 60 % = 0.015
/// GPU-h, with the approximation said; the idle card's "N/A" is missing.
#[test]
fn eu_active_is_the_sm_layer_marked_approximate() -> anyhow::Result<()> {
    let v = report_json(&[file("intel/xpusmi-dump-max1550-dated.csv").as_str()])?;
    assert_close(num(&v, "/layers/observed_gpu_hours"), 0.05, "observed");
    assert_close(num(&v, "/layers/held_gpu_hours"), 0.025, "held");
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.0225, "active");
    assert_close(num(&v, "/layers/sm_active_gpu_hours"), 0.015, "EU active");
    assert_close(num(&v, "/ratios/sm_active"), 0.6, "EU active ratio");
    assert!(v["layers"]["tensor_active_gpu_hours"].is_null());
    let g = gpu(&v, "0");
    assert_eq!(g["last_mem_used_bytes"], 65_536u64 * 1_048_576);
    assert_close(num(g, "/last_power_w"), 515.0, "power");
    let n = notes(&v);
    assert!(
        n.contains("SM active is xpu-smi's GPU EU Array Active, an approximation"),
        "{n}"
    );
    assert_eq!(v["data_quality"]["invalid"], serde_json::json!({}));
    Ok(())
}

#[test]
fn a_bad_timestamp_is_refused_naming_file_and_line() -> anyhow::Result<()> {
    let err = refused(&[&file("intel/xpusmi-dump-bad-time.csv")])?;
    assert!(
        err.contains("xpusmi-dump-bad-time.csv:4: Timestamp 'yesterday' is not a time"),
        "{err}"
    );
    Ok(())
}

/// The xpum exporter: each tile (`sub_dev`) is a held unit and the card's
/// device-level series is not counted beside them; ratios are fractions:
/// active 0.92 + 0.48, EU active 0.61 + 0.22; the pod from kube_pod.
#[test]
fn xpum_scrape_counts_tiles_not_the_card_twice() -> anyhow::Result<()> {
    let v = report_json(&[file("intel/xpum-exporter.prom").as_str(), "--at", AT])?;
    assert_eq!(v["gpu_count"], 2);
    assert_close(num(&v, "/layers/held_gpu_hours"), 2.0, "held");
    assert_close(num(&v, "/layers/active_gpu_hours"), 1.4, "active");
    assert_close(num(&v, "/layers/sm_active_gpu_hours"), 0.83, "EU active");
    let g = gpu(&v, "00000000-0000-0029-0000-002f0bd58086/1");
    assert_eq!(g["model"], "Intel(R) Data Center GPU Max 1550");
    assert_eq!(g["host"], "pvc-03");
    assert_eq!(g["jobs"], serde_json::json!(["sim-7f9c"]));
    assert_eq!(g["last_mem_used_bytes"], 21_474_836_480u64);
    assert_close(num(g, "/last_power_w"), 240.25, "power");
    assert!(notes(&v).contains("xpum_eu_active_ratio"), "{}", notes(&v));
    Ok(())
}

/// OTLP JSON from a collector's file exporter: an NVIDIA and an AMD card,
/// two exports 60 s apart (2 x 2 x 60 s = 1/15 GPU-h); the H100's pod holds
/// it; device activity is the general task only (75 %, 85 %), never the
/// encoder's; memory usage/limit in bytes, hw.power with hw.type=gpu in W.
#[test]
fn otlp_json_reads_both_vendors_by_hw_id() -> anyhow::Result<()> {
    let v = report_json(&[file("otel/otlp-mixed-vendors.jsonl").as_str()])?;
    assert_eq!(v["window"]["start"], "2026-07-13T08:00:00Z");
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        4.0 / 60.0,
        "observed",
    );
    assert_close(num(&v, "/layers/held_gpu_hours"), 2.0 / 60.0, "held");
    assert_close(
        num(&v, "/layers/active_gpu_hours"),
        0.8 * 2.0 / 60.0,
        "active",
    );
    let h100 = gpu(&v, "GPU-5c2a1f0e-3f7b-4c1d-9a55-0d2e6b7c8a91");
    assert_eq!(h100["model"], "NVIDIA H100 80GB HBM3");
    assert_eq!(h100["host"], "gpu-node-12");
    assert_eq!(h100["jobs"], serde_json::json!(["llm-serve-0"]));
    assert_close(num(h100, "/device_util"), 0.8, "general task only");
    assert_eq!(h100["last_mem_total_bytes"], 85_899_345_920u64);
    assert_close(num(h100, "/last_power_w"), 530.0, "power");
    let mi300x = gpu(&v, "0x18f68e602b8a790f");
    assert_eq!(mi300x["model"], "AMD Instinct MI300X");
    assert_eq!(mi300x["last_mem_used_bytes"], 268_435_456u64);
    assert_close(num(mi300x, "/last_power_w"), 141.5, "power");
    assert!(v["layers"]["sm_active_gpu_hours"].is_null());
    Ok(())
}

#[test]
fn a_truncated_otlp_line_is_refused_naming_file_and_line() -> anyhow::Result<()> {
    let err = refused(&[&file("otel/otlp-truncated.jsonl")])?;
    assert!(
        err.contains("otlp-truncated.jsonl:2: not OTLP JSON"),
        "{err}"
    );
    Ok(())
}

/// The same metrics through the OpenTelemetry Prometheus exporter: hw_id,
/// host_name, hw_model and k8s_pod_name labels; the encoder series skipped.
#[test]
fn hw_gpu_prometheus_series_read_like_otlp() -> anyhow::Result<()> {
    let v = report_json(&[file("otel/hw-gpu-prometheus.prom").as_str(), "--at", AT])?;
    assert_eq!(v["gpu_count"], 2);
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held by its pod");
    assert_close(
        num(&v, "/layers/active_gpu_hours"),
        0.75,
        "general task only",
    );
    let h100 = gpu(&v, "GPU-5c2a1f0e-3f7b-4c1d-9a55-0d2e6b7c8a91");
    assert_eq!(h100["host"], "gpu-node-12");
    assert_close(num(h100, "/last_power_w"), 512.5, "power");
    assert_eq!(v["data_quality"]["warnings"], serde_json::json!([]));
    Ok(())
}

/// One export as a single pretty-printed `.json` object (no line per export):
/// sniffed by content; one snapshot, the H100 held by its pod and 75 % busy.
#[test]
fn one_pretty_printed_otlp_object_reads_as_a_snapshot() -> anyhow::Result<()> {
    let v = report_json(&[file("otel/otlp-one-export.json").as_str()])?;
    assert_eq!(v["gpu_count"], 2);
    assert_eq!(v["window"]["start"], "2026-07-13T08:00:00Z");
    assert_close(num(&v, "/layers/observed_gpu_hours"), 2.0, "snapshot");
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held by its pod");
    assert_close(
        num(&v, "/layers/active_gpu_hours"),
        0.75,
        "general task only",
    );
    Ok(())
}
