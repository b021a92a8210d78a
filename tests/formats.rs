//! The dumps fleets export, end to end through the binary: dcgm-exporter
//! scrapes, Prometheus API responses, nvidia-smi CSV / dmon / XML logs.
//! Real captures live in testdata/captures (licenses in testdata/SOURCES.md).
use serde_json::Value;
mod common;
use common::{assert_close, data, gpuaudit, num, report_json};

fn capture(name: &str) -> String {
    data(&format!("captures/{name}"))
}

/// The single stderr line of a run that must fail with exit 2.
fn fails_with_2(args: &[String]) -> anyhow::Result<String> {
    let out = gpuaudit()?.arg("report").args(args).output()?;
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8(out.stderr)?;
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    Ok(err)
}

fn gpu<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["gpus"]
        .as_array()
        .and_then(|g| g.iter().find(|x| x["gpu"] == id))
        .unwrap_or(&Value::Null)
}

fn held_gpus(v: &Value) -> Vec<&Value> {
    v["gpus"]
        .as_array()
        .map(|g| {
            g.iter()
                .filter(|x| num(x, "/held_gpu_hours") > 0.0)
                .collect()
        })
        .unwrap_or_default()
}

fn text_of(v: &Value, key: &str) -> String {
    v["data_quality"][key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

const AT: &str = "2026-02-19T19:31:04Z";
const VLLM_GPU: &str = "GPU-ca1b8386-093b-60cc-349d-c4a38b9124c0";

#[test]
fn aicr_scrape_excerpt_shows_one_vllm_gpu_held_and_idle() -> anyhow::Result<()> {
    let v = report_json(&[
        capture("aicr_eks_h100x8_vllm_excerpt.prom"),
        "--at".into(),
        AT.into(),
    ])?;
    assert_eq!(v["gpu_count"], 8);
    assert!(
        v["held_rule"].as_str().unwrap_or_default().contains("job"),
        "{}",
        v["held_rule"]
    );
    assert_eq!(v["window"]["start"], AT);
    assert_eq!(v["window"]["snapshot"], true);
    assert_close(num(&v, "/layers/observed_gpu_hours"), 8.0, "observed");
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held");
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.0, "active");
    assert_close(num(&v, "/layers/idle_held_gpu_hours"), 1.0, "idle held");
    let g = gpu(&v, VLLM_GPU);
    assert_eq!(g["jobs"][0], "vllm-agg-0-vllmdecodeworker-5fljt");
    assert_close(num(g, "/device_util"), 0.0, "vllm GPU at 0%");
    assert_close(num(g, "/last_power_w"), 115.22, "power");
    assert_eq!(v["idle_episodes"][0]["team"], "dynamo-workload");
    assert!(
        text_of(&v, "notes").contains("took --at 2026-02-19T19:31:04Z"),
        "{}",
        text_of(&v, "notes")
    );
    Ok(())
}

#[test]
fn scrape_without_timestamps_takes_the_files_modification_time() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("scrape.prom");
    std::fs::copy(capture("aicr_eks_h100x8_vllm_excerpt.prom"), &path)?;
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_780_000_000);
    std::fs::File::options()
        .write(true)
        .open(&path)?
        .set_modified(when)?;
    let v = report_json(&[path.display().to_string()])?;
    assert_eq!(v["window"]["start"], "2026-05-28T20:26:40Z");
    assert!(
        text_of(&v, "notes").contains("the file's modification time 2026-05-28T20:26:40Z"),
        "{}",
        text_of(&v, "notes")
    );
    Ok(())
}

#[test]
fn aicr_instant_queries_form_one_snapshot_and_skip_the_exporters_pod() -> anyhow::Result<()> {
    let files: Vec<String> = ["fb_used", "gpu_temp", "gpu_util", "power_usage"]
        .iter()
        .map(|m| capture(&format!("aicr_eks_h100x8_instant_{m}.json")))
        .collect();
    let v = report_json(&files)?;
    // Four queries stamped up to 0.9 s apart: one sample per GPU, not four.
    assert_eq!(v["sources"]["rows_read"], 8);
    assert_eq!(v["sources"]["files"].as_array().map(Vec::len), Some(4));
    assert_eq!(v["window"]["snapshot"], true);
    assert_eq!(v["window"]["start"], "2026-02-19T19:31:04.570Z");
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held");
    assert_close(num(&v, "/layers/idle_held_gpu_hours"), 1.0, "idle held");
    let held = held_gpus(&v);
    assert_eq!(held.len(), 1);
    assert_eq!(held[0]["gpu"], VLLM_GPU);
    assert_eq!(held[0]["jobs"][0], "vllm-agg-0-vllmdecodeworker-5fljt");
    assert_eq!(
        num(held[0], "/last_mem_used_bytes") as u64,
        74_198 * 1_048_576
    );
    assert_close(num(held[0], "/last_power_w"), 115.215, "power");
    let notes = text_of(&v, "notes");
    assert!(
        notes.contains("exporter's own pod: nvidia-dcgm-exporter-hblfm"),
        "{notes}"
    );
    assert!(notes.contains("aligned"), "{notes}");
    Ok(())
}

#[test]
fn honor_labels_two_nodes_hold_only_the_workloads_gpu() -> anyhow::Result<()> {
    let files: Vec<String> = ["fb_used", "gpu_temp", "gpu_util", "power_usage"]
        .iter()
        .map(|m| capture(&format!("aicr_eks_h100x16_2nodes_instant_{m}.json")))
        .collect();
    let v = report_json(&files)?;
    assert_eq!(v["gpu_count"], 16);
    assert_eq!(v["sources"]["rows_read"], 16);
    assert_close(num(&v, "/layers/observed_gpu_hours"), 16.0, "observed");
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        1.0,
        "held: the exporter pods on 15 GPUs hold nothing",
    );
    let held = held_gpus(&v);
    assert_eq!(held[0]["host"], "ip-10-0-171-111.ec2.internal");
    assert_eq!(held[0]["jobs"][0], "vllm-agg-0-vllmdecodeworker-s65j5");
    Ok(())
}

#[test]
fn busy_t4_scrape_without_workload_labels_is_held_by_memory() -> anyhow::Result<()> {
    let v = report_json(&[
        capture("cncf_ericsson_T4_busy_scrape.prom"),
        "--at".into(),
        AT.into(),
    ])?;
    assert!(
        v["held_rule"]
            .as_str()
            .unwrap_or_default()
            .contains("memory"),
        "{}",
        v["held_rule"]
    );
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        1.0,
        "5120 MiB used: held",
    );
    assert_close(num(&v, "/ratios/active"), 0.91, "GPU_UTIL 91");
    assert_close(
        num(&v, "/layers/tensor_active_gpu_hours"),
        0.005822,
        "tensor",
    );
    let g = gpu(&v, "GPU-6d5c0ac5-74d7-3130-46f1-e93ed57f469a");
    assert_eq!(g["model"], "Tesla T4");
    assert_eq!(num(g, "/last_mem_used_bytes") as u64, 5120 * 1_048_576);
    assert_eq!(
        num(g, "/last_mem_total_bytes") as u64,
        (5120 + 9791 + 447) * 1_048_576,
        "used + free + reserved"
    );
    Ok(())
}

#[test]
fn full_scrape_with_help_and_type_lines_reads() -> anyhow::Result<()> {
    let v = report_json(&[
        capture("cncf_kops_aws_L4_full_scrape.prom"),
        "--at".into(),
        AT.into(),
    ])?;
    assert_eq!(v["gpu_count"], 1);
    assert_eq!(v["gpus"][0]["model"], "NVIDIA L4");
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        0.0,
        "idle L4, nothing in memory",
    );
    Ok(())
}

const H100_LOAD: &str = "nge_linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load";
const H100_IDLE: &str = "nge_linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__idle";
const H100_MIG_LOAD: &str = "nge_linux-x86_64__nvidia-h100-mig__590.48.01__load";

#[test]
fn h100_gpu_burn_query_gpu_csv_is_held_at_full_activity() -> anyhow::Result<()> {
    let v = report_json(&[capture(&format!("{H100_LOAD}.query-gpu.csv"))])?;
    assert!(
        v["held_rule"]
            .as_str()
            .unwrap_or_default()
            .contains("memory"),
        "{}",
        v["held_rule"]
    );
    assert_eq!(v["window"]["start"], "2026-07-14T08:12:53.353Z");
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held");
    assert_close(num(&v, "/ratios/active"), 1.0, "100 %");
    let g = &v["gpus"][0];
    assert_eq!(g["model"], "NVIDIA H100 80GB HBM3");
    assert_close(num(g, "/last_power_w"), 631.95, "power");
    assert_eq!(num(g, "/last_mem_used_bytes") as u64, 19_818 * 1_048_576);
    assert_eq!(num(g, "/last_mem_total_bytes") as u64, 81_559 * 1_048_576);
    Ok(())
}

#[test]
fn compute_apps_log_decides_held_by_process() -> anyhow::Result<()> {
    let load = report_json(&[
        capture(&format!("{H100_LOAD}.query-gpu.csv")),
        capture(&format!("{H100_LOAD}.query-compute-apps.csv")),
    ])?;
    assert!(
        load["held_rule"]
            .as_str()
            .unwrap_or_default()
            .contains("held"),
        "{}",
        load["held_rule"]
    );
    assert_close(
        num(&load, "/layers/held_gpu_hours"),
        1.0,
        "gpu_burn on the GPU",
    );
    assert_eq!(load["gpus"][0]["jobs"][0], "gpu_burn+memhog");
    let idle = report_json(&[
        capture(&format!("{H100_IDLE}.query-gpu.csv")),
        capture(&format!("{H100_IDLE}.query-compute-apps.csv")),
    ])?;
    assert_close(num(&idle, "/layers/observed_gpu_hours"), 1.0, "observed");
    assert_close(
        num(&idle, "/layers/held_gpu_hours"),
        0.0,
        "no process: not held",
    );
    Ok(())
}

#[test]
fn compute_apps_alone_is_an_error() -> anyhow::Result<()> {
    let err = fails_with_2(&[capture(&format!("{H100_LOAD}.query-compute-apps.csv"))])?;
    assert!(err.contains("--query-gpu"), "{err}");
    Ok(())
}

#[test]
fn mig_query_gpu_has_no_device_activity_not_zero() -> anyhow::Result<()> {
    let v = report_json(&[
        capture(&format!("{H100_MIG_LOAD}.query-gpu.csv")),
        capture(&format!("{H100_MIG_LOAD}.query-compute-apps.csv")),
    ])?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held by gpu_burn");
    assert!(v["ratios"]["active"].is_null(), "{}", v["ratios"]);
    assert!(v["gpus"][0]["device_util"].is_null());
    // device_util is [N/A] in every row: never measured, so idle is null, not 0
    assert!(
        v["layers"]["idle_held_gpu_hours"].is_null(),
        "{}",
        v["layers"]
    );
    assert_close(
        num(&v, "/data_quality/held_unknown_activity_gpu_hours"),
        1.0,
        "held, activity unknown",
    );
    Ok(())
}

#[test]
fn dmon_logs_read_sm_as_device_activity_and_dash_as_missing() -> anyhow::Result<()> {
    let at = "2026-07-14T08:13:00Z";
    let load = capture("nge_linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.dmon.txt");
    let v = report_json(&[load.as_str(), "--at", at, "--assume-held"])?;
    assert_eq!(v["gpus"][0]["samples"], 5);
    assert_eq!(v["window"]["start"], "2026-07-14T08:12:56Z");
    assert_close(num(&v, "/ratios/active"), 1.0, "sm 100");
    assert_close(num(&v, "/gpus/0/last_power_w"), 636.0, "pwr");
    assert!(
        text_of(&v, "notes").contains("1 s apart"),
        "{}",
        text_of(&v, "notes")
    );
    let mig = capture("nge_linux-x86_64__nvidia-h100-mig__590.48.01__load.dmon.txt");
    let m = report_json(&[mig.as_str(), "--at", at, "--assume-held"])?;
    assert!(m["ratios"]["active"].is_null(), "{}", m["ratios"]);
    assert!(
        m["data_quality"]["invalid"]
            .as_object()
            .is_some_and(|o| o.is_empty()),
        "'-' is missing, not invalid"
    );
    Ok(())
}

#[test]
fn dual_a5000_xml_shows_two_gpus_held_at_zero() -> anyhow::Result<()> {
    let v = report_json(&[capture("telegraf_dual_a5000-v13.xml")])?;
    assert!(
        v["held_rule"].as_str().unwrap_or_default().contains("held"),
        "{}",
        v["held_rule"]
    );
    assert_eq!(v["window"]["start"], "2025-12-30T09:46:54Z");
    assert_eq!(v["gpu_count"], 2);
    assert_close(num(&v, "/layers/held_gpu_hours"), 2.0, "held");
    assert_close(num(&v, "/layers/idle_held_gpu_hours"), 2.0, "idle held");
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.0, "active");
    for g in held_gpus(&v) {
        assert_eq!(g["jobs"][0], "llama-server");
        assert_eq!(g["model"], "NVIDIA RTX A5000");
    }
    assert_eq!(
        num(
            gpu(&v, "GPU-12345678-aaaa-bbbb-cccc-0123456789ab"),
            "/last_mem_used_bytes"
        ) as u64,
        22_437 * 1_048_576
    );
    Ok(())
}

#[test]
fn mig_xml_has_no_device_activity_not_zero() -> anyhow::Result<()> {
    let v = report_json(&[
        capture("telegraf_a100-sxm4-v12.xml"),
        "--assume-held".into(),
    ])?;
    assert_eq!(v["gpu_count"], 1);
    assert!(v["ratios"]["active"].is_null(), "{}", v["ratios"]);
    assert!(v["gpus"][0]["device_util"].is_null());
    assert!(
        text_of(&v, "notes").contains("MIG enabled"),
        "{}",
        text_of(&v, "notes")
    );
    Ok(())
}

#[test]
fn xml_with_repeated_uuids_tells_gpus_apart_by_pci_id() -> anyhow::Result<()> {
    let v = report_json(&[capture("telegraf_dual_2080-v13.xml")])?;
    assert_eq!(v["gpu_count"], 2);
    assert!(!gpu(&v, "00000000:01:00.0").is_null());
    assert!(
        text_of(&v, "warnings").contains("UUIDs repeat"),
        "{}",
        text_of(&v, "warnings")
    );
    Ok(())
}

#[test]
fn xml_graphics_processes_do_not_hold_a_gpu() -> anyhow::Result<()> {
    let v = report_json(&[capture("telegraf_tesla-t4.xml")])?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "python holds it");
    assert_eq!(v["gpus"][0]["jobs"], serde_json::json!(["python"]));
    Ok(())
}

/// Strip what legitimately differs between formats (file names, reader notes)
/// and compare the rest with a tolerance for the last bits of unit conversions.
fn same_report(a: &Value, b: &Value, path: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let p = format!("{path}/{k}");
                if matches!(
                    p.as_str(),
                    "/sources/files" | "/data_quality/notes" | "/data_quality/note_codes"
                ) {
                    continue;
                }
                same_report(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    &p,
                )?;
            }
            Ok(())
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .try_for_each(|(i, (p, q))| same_report(p, q, &format!("{path}/{i}"))),
        (Value::Number(x), Value::Number(y)) => {
            let (p, q) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            if (p - q).abs() <= 1e-9 * p.abs().max(1.0) {
                Ok(())
            } else {
                Err(format!("{path}: {p} vs {q}"))
            }
        }
        _ if a == b => Ok(()),
        _ => Err(format!("{path}: {a} vs {b}")),
    }
}

#[test]
fn one_fleet_state_as_csv_scrapes_and_range_responses_reports_the_same() -> anyhow::Result<()> {
    let csv = report_json(&[data("formats/fleet.csv")])?;
    let scrape = report_json(&[data("formats/fleet.prom")])?;
    let range_files: Vec<String> = [
        "dcgm_fi_dev_gpu_util",
        "dcgm_fi_prof_sm_active",
        "dcgm_fi_dev_fb_used",
        "dcgm_fi_dev_power_usage",
    ]
    .iter()
    .map(|m| data(&format!("formats/fleet_range_{m}.json")))
    .collect();
    let range = report_json(&range_files)?;
    // The hand-computed figures, so "identical" is not "identically wrong".
    assert_close(
        num(&csv, "/layers/observed_gpu_hours"),
        8.0 / 60.0,
        "2 GPUs x 4 samples x 1 min",
    );
    assert_close(
        num(&csv, "/layers/held_gpu_hours"),
        4.0 / 60.0,
        "train-1 on GPU a",
    );
    assert_close(
        num(&csv, "/layers/active_gpu_hours"),
        1.85 / 60.0,
        "0.9 + 0.95",
    );
    assert_close(
        num(&csv, "/layers/sm_active_gpu_hours"),
        1.125 / 60.0,
        "0.5 + 0.625",
    );
    assert_close(
        num(&csv, "/layers/idle_held_gpu_hours"),
        2.0 / 60.0,
        "last two minutes",
    );
    same_report(&csv, &scrape, "").map_err(|e| anyhow::anyhow!("csv vs scrape: {e}"))?;
    same_report(&csv, &range, "").map_err(|e| anyhow::anyhow!("csv vs range: {e}"))?;
    assert!(
        text_of(&range, "notes").contains("exporter's own pod"),
        "{}",
        text_of(&range, "notes")
    );
    Ok(())
}

#[test]
fn job_and_team_labels_can_be_chosen() -> anyhow::Result<()> {
    let v = report_json(&[
        data("formats/fleet.prom"),
        "--job-label".into(),
        "container".into(),
        "--by".into(),
        "team".into(),
    ])?;
    assert_eq!(
        gpu(&v, "GPU-aaaaaaaa-0000-0000-0000-000000000001")["jobs"][0],
        "main"
    );
    let groups = v["groups"]
        .as_array()
        .map(|g| {
            g.iter()
                .filter_map(|x| x["key"].as_str())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    assert!(groups.contains(&"ml"), "{groups:?}");
    Ok(())
}

#[test]
fn a_log_without_a_gpu_id_is_one_gpu() -> anyhow::Result<()> {
    let v = report_json(&[data("formats/single-gpu-no-id.csv")])?;
    assert_eq!(v["gpu_count"], 1);
    assert_eq!(v["gpus"][0]["gpu"], "0");
    assert_eq!(v["gpus"][0]["samples"], 4);
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        2.0 / 60.0,
        "4 samples x 30 s",
    );
    assert_close(
        num(&v, "/layers/active_gpu_hours"),
        0.6 / 60.0,
        "80% + 40% of 30 s each",
    );
    assert_close(
        num(&v, "/data_quality/held_unknown_activity_gpu_hours"),
        0.5 / 60.0,
        "[N/A] is unknown",
    );
    Ok(())
}

#[test]
fn interleaved_gpus_without_an_id_are_an_error() -> anyhow::Result<()> {
    let err = fails_with_2(&[data("invalid/formats/interleaved-no-gpu-id.csv")])?;
    assert!(err.contains("interleaved-no-gpu-id.csv:3:"), "{err}");
    assert!(err.contains("no GPU id column"), "{err}");
    Ok(())
}

#[test]
fn noheader_nounits_log_reads_with_columns() -> anyhow::Result<()> {
    let v = report_json(&[
        data("formats/noheader-nounits.csv"),
        "--columns".into(),
        "timestamp,index,utilization.gpu,memory.used".into(),
    ])?;
    assert_eq!(v["gpu_count"], 2);
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        1.0 / 60.0,
        "GPU 0: 2 samples x 30 s",
    );
    assert_close(
        num(&v, "/layers/active_gpu_hours"),
        0.7 / 60.0,
        "80% and 60%",
    );
    let err = fails_with_2(&[data("formats/noheader-nounits.csv")])?;
    assert!(
        err.contains("noheader-nounits.csv:1:") && err.contains("--columns"),
        "{err}"
    );
    Ok(())
}

#[test]
fn formats_are_sniffed_without_an_extension_and_can_be_forced() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let scrape = dir.path().join("metrics-dump");
    std::fs::copy(capture("aicr_eks_h100x8_vllm_excerpt.prom"), &scrape)?;
    let xml = dir.path().join("smi.log");
    std::fs::copy(capture("telegraf_dual_a5000-v13.xml"), &xml)?;
    let api = dir.path().join("util.out");
    std::fs::copy(capture("aicr_eks_h100x8_instant_gpu_util.json"), &api)?;
    let v = report_json(&[scrape.display().to_string(), "--at".into(), AT.into()])?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "scrape sniffed");
    let v = report_json(&[xml.display().to_string()])?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 2.0, "xml sniffed");
    let v = report_json(&[api.display().to_string(), "--assume-held".into()])?;
    assert_eq!(v["gpu_count"], 8);
    let forced = dir.path().join("scrape.txt");
    std::fs::copy(capture("aicr_eks_h100x8_vllm_excerpt.prom"), &forced)?;
    let v = report_json(&[
        forced.display().to_string(),
        "--input-format".into(),
        "prom".into(),
        "--at".into(),
        AT.into(),
    ])?;
    assert_eq!(v["gpu_count"], 8);
    Ok(())
}

#[test]
fn truncated_scrape_line_names_file_and_line() -> anyhow::Result<()> {
    let err = fails_with_2(&[
        data("invalid/formats/truncated-line.prom"),
        "--at".into(),
        AT.into(),
    ])?;
    assert!(err.contains("truncated-line.prom:4:"), "{err}");
    assert!(err.contains("no value"), "{err}");
    Ok(())
}

#[test]
fn label_without_closing_quote_names_file_and_line() -> anyhow::Result<()> {
    let err = fails_with_2(&[
        data("invalid/formats/label-without-closing-quote.prom"),
        "--at".into(),
        AT.into(),
    ])?;
    assert!(err.contains("label-without-closing-quote.prom:2:"), "{err}");
    assert!(
        err.contains("label 'Hostname'") && err.contains("no closing quote"),
        "{err}"
    );
    Ok(())
}

#[test]
fn api_response_missing_data_names_file_and_line() -> anyhow::Result<()> {
    let err = fails_with_2(&[data("invalid/formats/missing-data.json")])?;
    assert!(err.contains("missing-data.json:4:"), "{err}");
    assert!(err.contains("no 'data'"), "{err}");
    Ok(())
}

#[test]
fn csv_row_with_fewer_fields_names_file_and_line() -> anyhow::Result<()> {
    let err = fails_with_2(&[data("invalid/formats/short-row.csv")])?;
    assert!(err.contains("short-row.csv:3:"), "{err}");
    assert!(err.contains("4 fields, expected 5"), "{err}");
    Ok(())
}

#[test]
fn truncated_xml_names_file_and_line() -> anyhow::Result<()> {
    let err = fails_with_2(&[data("invalid/formats/truncated.xml")])?;
    assert!(err.contains("truncated.xml:"), "{err}");
    assert!(err.contains("not a well-formed"), "{err}");
    Ok(())
}
