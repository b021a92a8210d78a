//! Intel Gaudi inputs (issue 32 item 4): `hl-smi -Q ... -f csv` logs and the
//! Gaudi Prometheus exporter, read with no format flag. Device activity,
//! memory and power only: the SM and tensor layers stay n/a, never 0.
use serde_json::Value;
mod common;
use common::{assert_close, data, gpuaudit, num, report_json};

fn gaudi(name: &str) -> String {
    data(&format!("gaudi/{name}"))
}

fn gpu<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["gpus"]
        .as_array()
        .and_then(|g| g.iter().find(|x| x["gpu"] == id))
        .unwrap_or(&Value::Null)
}

/// Exit 2 and stderr, for inputs that must be refused.
fn refused(args: &[&str]) -> anyhow::Result<String> {
    let out = gpuaudit()?.arg("report").args(args).output()?;
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    Ok(String::from_utf8_lossy(&out.stderr).to_string())
}

fn deeper_layers_are_na(v: &Value) {
    for layer in [
        "sm_active_gpu_hours",
        "tensor_active_gpu_hours",
        "useful_gpu_hours",
    ] {
        assert!(v["layers"][layer].is_null(), "{layer}: {}", v["layers"]);
    }
    assert!(v["ratios"]["sm_active"].is_null());
    assert!(v["ratios"]["tensor_active"].is_null());
}

/// The real eight-card HL-205 capture (header with units, nounits cells, no
/// timestamp): one snapshot, 8 units weighed 1 h each; 512 MiB each is under
/// the 1 GiB held rule, so none is held; at --held-mem 256MiB all are, and
/// device activity is (15+15+12+13+15+14+14+14)% = 1.12 GPU-h.
#[test]
fn real_hl205_capture_reads_with_no_flags() -> anyhow::Result<()> {
    let v = report_json(&[gaudi("hlsmi-hl205-8cards.csv")])?;
    assert_eq!(v["gpu_count"], 8);
    assert_close(num(&v, "/layers/observed_gpu_hours"), 8.0, "observed");
    assert_close(num(&v, "/layers/held_gpu_hours"), 0.0, "held");
    deeper_layers_are_na(&v);
    let v = report_json(&[
        gaudi("hlsmi-hl205-8cards.csv"),
        "--held-mem".into(),
        "256MiB".into(),
    ])?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 8.0, "held");
    assert_close(num(&v, "/layers/active_gpu_hours"), 1.12, "active");
    assert_close(num(&v, "/ratios/active"), 0.14, "active ratio");
    let g = gpu(&v, "00P1-HL2000A1-14-P64X78-02-07-10");
    assert_eq!(g["model"], "HL-205");
    assert_close(num(g, "/device_util"), 0.12, "device activity");
    assert_eq!(g["last_mem_used_bytes"], 512u64 * 1_048_576);
    assert_eq!(g["last_mem_total_bytes"], 32768u64 * 1_048_576);
    assert_close(num(g, "/last_power_w"), 96.0, "power");
    deeper_layers_are_na(&v);
    Ok(())
}

/// The real Gaudi 3 rows are `csv,noheader`: refused with the line and the
/// --columns remedy; with the query's columns, units inside the cells
/// ("131072 MiB", "226 W", "0 %") read as such.
#[test]
fn noheader_gaudi3_rows_need_columns_then_read_units_in_cells() -> anyhow::Result<()> {
    let file = gaudi("hlsmi-gaudi3-noheader.csv");
    let err = refused(&[&file])?;
    assert!(
        err.contains("hlsmi-gaudi3-noheader.csv:1: no header row"),
        "{err}"
    );
    assert!(err.contains("--columns"), "{err}");
    let v = report_json(&[
        file,
        "--columns".into(),
        "index,uuid,name,driver_version,memory.total,memory.used,memory.free,power.draw,power.max,temperature.aip,utilization.aip".into(),
        "--held-mem".into(),
        "512MiB".into(),
    ])?;
    assert_eq!(v["gpu_count"], 2);
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        2.0,
        "held (672 MiB > 512 MiB)",
    );
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.0, "0 % busy");
    assert_close(num(&v, "/layers/idle_held_gpu_hours"), 2.0, "idle held");
    let g = gpu(&v, "01P4-HL3090A0-18-U4V298-03-04-04");
    assert_eq!(g["model"], "HL-325L");
    assert_eq!(g["last_mem_used_bytes"], 672u64 * 1_048_576);
    assert_eq!(g["last_mem_total_bytes"], 131_072u64 * 1_048_576);
    assert_close(num(g, "/last_power_w"), 230.0, "power");
    deeper_layers_are_na(&v);
    Ok(())
}

/// A timed log, 2 devices x 3 polls 60 s apart, named by serial: 0.1 GPU-h
/// observed; the 96 GiB card held (0.05), busy 90/80/100% = 0.045 active;
/// "N/A" is missing, not invalid.
#[test]
fn timed_log_gives_gpu_hours_by_serial() -> anyhow::Result<()> {
    let v = report_json(&[gaudi("hlsmi-gaudi3-timed.csv")])?;
    assert_eq!(v["window"]["start"], "2026-07-14T08:00:00Z");
    assert_close(num(&v, "/layers/observed_gpu_hours"), 0.1, "observed");
    assert_close(num(&v, "/layers/held_gpu_hours"), 0.05, "held");
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.045, "active");
    assert_eq!(v["data_quality"]["invalid"], serde_json::json!({}));
    let g = gpu(&v, "U4V298-03-04-04");
    assert_close(num(g, "/device_util"), 0.9, "device activity");
    assert_close(num(g, "/last_power_w"), 640.0, "power");
    assert_eq!(g["last_mem_used_bytes"], 98_304u64 * 1_048_576);
    deeper_layers_are_na(&v);
    Ok(())
}

#[test]
fn a_short_row_is_refused_naming_file_and_line() -> anyhow::Result<()> {
    let err = refused(&[&gaudi("hlsmi-truncated.csv")])?;
    assert!(
        err.contains("hlsmi-truncated.csv:3: 4 fields, expected 5 as in the header"),
        "{err}"
    );
    Ok(())
}

/// The Gaudi exporter: power in milliwatts (512000 mW = 512 W), memory in
/// bytes, the device's pod from pod_name/pod_namespace; its own-pod
/// habanalabs_kube_info series names no device and is not warned about.
#[test]
fn exporter_scrape_reads_milliwatts_and_pods() -> anyhow::Result<()> {
    let v = report_json(&[
        gaudi("habanalabs-exporter.prom"),
        "--at".into(),
        "2026-07-15T00:00:00Z".into(),
    ])?;
    assert_eq!(v["gpu_count"], 2);
    assert_close(num(&v, "/layers/observed_gpu_hours"), 2.0, "observed");
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held by its pod");
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.87, "active");
    let g = gpu(&v, "01P0-HL2080A0-15-TNPS34-20-07-06");
    assert_close(num(g, "/last_power_w"), 512.0, "512000 mW");
    assert_eq!(g["last_mem_used_bytes"], 85_899_345_920u64);
    assert_eq!(g["last_mem_total_bytes"], 103_079_215_104u64);
    assert_eq!(g["jobs"], serde_json::json!(["llama-train-0"]));
    assert_eq!(g["host"], "gaudi-node-7", "the exporter's node");
    let idle = gpu(&v, "01P0-HL2080A0-15-TNPS34-20-07-07");
    assert_close(num(idle, "/last_power_w"), 98.5, "98500 mW");
    assert_eq!(v["data_quality"]["warnings"], serde_json::json!([]));
    deeper_layers_are_na(&v);
    Ok(())
}
