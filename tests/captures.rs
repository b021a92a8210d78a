//! Captures read as their tool meant them (issue 35): a GPU whose processes a
//! container hides is held by its activity or memory; an `nvidia-smi pmon`
//! log is per-process rows per tick, not device samples.
use serde_json::Value;
mod common;
use common::{assert_close, data, num, report_json};

fn capture(name: &str) -> String {
    data(&format!("captures/{name}"))
}

fn warning_codes(v: &Value, code: &str) -> Vec<Value> {
    v["data_quality"]["warning_codes"]
        .as_array()
        .map(|w| w.iter().filter(|x| x["code"] == code).cloned().collect())
        .unwrap_or_default()
}

fn texts(v: &Value, key: &str) -> String {
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

/// The real RTX 3080 snapshot (telegraf): 65% busy, 9,184 MiB used, no
/// process listed: held 1.00 GPU of 1.00 observed, basis named and counted.
#[test]
fn xml_busy_gpu_with_hidden_processes_is_held_from_memory() -> anyhow::Result<()> {
    let v = report_json(&[capture("telegraf_rtx-3080-v13.xml")])?;
    assert_close(num(&v, "/layers/observed_gpu_hours"), 1.0, "observed");
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held");
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.65, "active");
    let w = warning_codes(&v, "held_without_visible_process");
    assert_eq!(w.len(), 1, "{}", v["data_quality"]);
    assert_eq!(w[0]["gpus"], 1);
    assert_eq!(w[0]["samples"], 1);
    assert_eq!(w[0]["mib"], 1024);
    assert!(
        texts(&v, "warnings").contains("counted as held (basis: memory; processes not visible)"),
        "{}",
        texts(&v, "warnings")
    );
    // 9,184 MiB is under a 16 GiB limit: its 65% activity still holds it.
    let v = report_json(&[
        capture("telegraf_rtx-3080-v13.xml"),
        "--held-mem".into(),
        "16GiB".into(),
    ])?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 1.0, "held by activity");
    assert_eq!(
        warning_codes(&v, "held_without_visible_process")[0]["mib"],
        16384
    );
    Ok(())
}

/// Processes listed on one GPU only: the others are held by activity (GPU-a,
/// 50%) or memory (GPU-b, 2048 MiB > 1 GiB); GPU-c's second sample (0%, 10
/// MiB, no process) is not held: 5 of 6 samples held, 4 without a process.
#[test]
fn query_csv_with_compute_apps_holds_gpus_without_a_listed_process() -> anyhow::Result<()> {
    let v = report_json(&[
        data("formats/hidden-procs.query-gpu.csv"),
        data("formats/hidden-procs.query-compute-apps.csv"),
    ])?;
    let observed = num(&v, "/layers/observed_gpu_hours");
    assert_close(observed, 3.0 * 120.0 / 3600.0, "3 GPUs x 2 samples x 60 s");
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        5.0 * 60.0 / 3600.0,
        "held",
    );
    let w = warning_codes(&v, "held_without_visible_process");
    assert_eq!(w.len(), 1, "{}", v["data_quality"]);
    assert_eq!(w[0]["gpus"], 2);
    assert_eq!(w[0]["samples"], 4);
    // A limit above GPU-b's 2048 MiB leaves it unheld: 3 of 6 held.
    let v = report_json(&[
        data("formats/hidden-procs.query-gpu.csv"),
        data("formats/hidden-procs.query-compute-apps.csv"),
        "--held-mem".into(),
        "4GiB".into(),
    ])?;
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        3.0 * 60.0 / 3600.0,
        "held",
    );
    assert_eq!(
        warning_codes(&v, "held_without_visible_process")[0]["samples"],
        2
    );
    Ok(())
}

/// The real H100 `pmon -c 5` log (3 processes, 5 ticks, no -o DT): 5 s of 1
/// GPU held by gpu_burn and memhog, device activity n/a (not from sm%).
#[test]
fn pmon_log_is_five_seconds_of_one_gpu_held_by_its_processes() -> anyhow::Result<()> {
    let pmon = capture("nge_linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.pmon.txt");
    let v = report_json(&[pmon.as_str(), "--at", "2026-07-14T08:13:00Z"])?;
    assert_eq!(v["gpu_count"], 1);
    assert_eq!(v["gpus"][0]["samples"], 5);
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        5.0 / 3600.0,
        "5 GPU-seconds",
    );
    assert_close(num(&v, "/layers/held_gpu_hours"), 5.0 / 3600.0, "held");
    assert!(v["layers"]["active_gpu_hours"].is_null(), "{}", v["layers"]);
    assert_eq!(v["window"]["start"], "2026-07-14T08:12:56Z");
    assert_eq!(v["gpus"][0]["jobs"], serde_json::json!(["gpu_burn+memhog"]));
    assert!(
        texts(&v, "notes").contains("nvidia-smi pmon: a GPU is held in a tick"),
        "{}",
        texts(&v, "notes")
    );
    Ok(())
}

/// A pmon log with -o DT and two GPUs, one idle (`-`) and one with a
/// graphics-only process: held only where a compute process is listed.
#[test]
fn pmon_with_dates_holds_only_gpus_with_a_compute_process() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let log = dir.path().join("p.txt");
    std::fs::write(
        &log,
        "#Date       Time        gpu        pid  type    sm   mem   enc   dec   command\n\
         #YYYYMMDD   HH:MM:SS    Idx          #   C/G     %     %     %     %   name\n\
         20260714   08:00:00      0       1234     C    90    20     -     -   python train.py\n\
         20260714   08:00:00      1       1500     G     1     0     -     -   Xorg\n\
         20260714   08:00:10      0       1234     C    90    20     -     -   python train.py\n\
         20260714   08:00:10      1          -     -     -     -     -     -   -\n",
    )?;
    let v = report_json(&[log.display().to_string()])?;
    assert_eq!(v["gpu_count"], 2);
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        40.0 / 3600.0,
        "2 GPUs x 2 x 10 s",
    );
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        20.0 / 3600.0,
        "GPU 0 only",
    );
    assert_eq!(v["window"]["start"], "2026-07-14T08:00:00Z");
    Ok(())
}

/// Drop what legitimately differs between two layouts of the same samples:
/// the file names and the readers' notes.
fn figures(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                for k in ["sources", "notes", "note_codes", "inputs"] {
                    m.remove(k);
                }
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// A Philly-shaped wide CSV (`time,machineId,gpu0_util,...,gpu7_util,`, every
/// row ending with a comma, times in PDT; m2 has 2 GPUs, m3 4) and its long
/// form (UTC, one row per GPU): every figure of the report equal.
#[test]
fn philly_wide_csv_reports_the_same_as_its_long_form() -> anyhow::Result<()> {
    let wide = report_json(&[data("formats/philly-wide.csv"), "--assume-held".into()])?;
    let long = report_json(&[data("formats/philly-long.csv"), "--assume-held".into()])?;
    // 14 GPUs x 4 samples x 60 s
    assert_close(
        num(&wide, "/layers/observed_gpu_hours"),
        14.0 * 4.0 * 60.0 / 3600.0,
        "observed",
    );
    assert_eq!(wide["gpu_count"], 14);
    assert_eq!(wide["window"]["start"], "2017-10-03T08:04:00Z");
    assert_eq!(figures(wide.clone()), figures(long));
    // the same on standard input
    let out = common::gpuaudit()?
        .args(["report", "-", "--assume-held", "--format", "json"])
        .write_stdin(std::fs::read(data("formats/philly-wide.csv"))?)
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdin: Value = serde_json::from_slice(&out.stdout)?;
    assert_eq!(figures(stdin), figures(wide.clone()));
    let notes = texts(&wide, "notes");
    for says in [
        "every row ends with an empty field (a trailing comma): dropped",
        "timestamps with a zone abbreviation read at its UTC offset: PDT UTC-07:00 (12)",
        "8 GPU column groups (gpuN_...) reshaped into one row per GPU, GPU id machineId/N; 40 empty GPU cells are no sample",
    ] {
        assert!(notes.contains(says), "{says}: {notes}");
    }
    Ok(())
}

/// A long CSV whose rows (not its header) end with a comma reads with a
/// note; an ambiguous zone abbreviation is refused naming it.
#[test]
fn trailing_commas_and_zone_abbreviations_in_a_long_csv() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let ok = dir.path().join("ok.csv");
    std::fs::write(
        &ok,
        "time,gpu,device_util,held\n2026-01-05 09:00:00 CET,g0,0.5,true,\n2026-01-05 09:01:00 CET,g0,0.25,true,\n",
    )?;
    let v = report_json(&[ok.display().to_string()])?;
    assert_eq!(v["window"]["start"], "2026-01-05T08:00:00Z");
    assert_close(
        num(&v, "/layers/held_gpu_hours"),
        120.0 / 3600.0,
        "2 x 60 s",
    );
    assert_close(
        num(&v, "/layers/active_gpu_hours"),
        45.0 / 3600.0,
        "0.5 x 60 s + 0.25 x 60 s",
    );
    assert!(
        texts(&v, "notes").contains("trailing comma"),
        "{}",
        texts(&v, "notes")
    );
    let bad = dir.path().join("bst.csv");
    std::fs::write(
        &bad,
        "time,gpu,device_util,held\n2026-06-05 09:00:00 BST,g0,0.5,true\n",
    )?;
    let out = common::gpuaudit()?.arg("report").arg(&bad).output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr)?;
    assert!(
        err.contains("bst.csv: row 1: time '2026-06-05 09:00:00 BST' has the zone abbreviation 'BST', which is ambiguous"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    Ok(())
}

/// One row per time, one column per GPU and metric, no host (the AcmeTrace
/// shape): GPU ids are the column numbers, each metric its own column.
#[test]
fn wide_csv_per_time_without_a_host_names_gpus_by_number() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let f = dir.path().join("per-time.csv");
    std::fs::write(
        &f,
        "time,gpu0_util,gpu0_sm_active,gpu1_util,gpu1_sm_active\n\
         2026-01-05T00:00:00Z,1.0,0.5,0.0,0.0\n\
         2026-01-05T00:01:00Z,1.0,0.25,0.5,0.125\n",
    )?;
    let v = report_json(&[f.display().to_string(), "--assume-held".into()])?;
    assert_eq!(v["gpu_count"], 2);
    let ids: Vec<&str> = v["gpus"]
        .as_array()
        .map(|g| g.iter().filter_map(|x| x["gpu"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&"0") && ids.contains(&"1"), "{ids:?}");
    // device: (1 + 1 + 0 + 0.5) x 60 s; SM: (0.5 + 0.25 + 0 + 0.125) x 60 s
    assert_close(
        num(&v, "/layers/active_gpu_hours"),
        2.5 * 60.0 / 3600.0,
        "active",
    );
    assert_close(
        num(&v, "/layers/sm_active_gpu_hours"),
        0.875 * 60.0 / 3600.0,
        "sm",
    );
    Ok(())
}
