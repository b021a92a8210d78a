//! The metric registry drives the report (issue 32 item 1): every registry
//! metric with a ratio reaches the JSON report from its canonical name and
//! from its DCGM name, is a check metric, and every audited metric is read
//! from Prometheus by its DCGM names (the PromQL plan's own test is in
//! src/source/prometheus/pushdown).
mod common;

use anyhow::Result;
use common::{assert_close, gpuaudit, num, report_json};
use gpuaudit::metric::{self, MetricDef};
use std::fmt::Write;

/// The value metric number `k` has at sample `i` (0..3): distinct per metric,
/// a fraction, and whose mean over the three samples is 0.1 x (k + 2) / 2.
fn value(k: usize, i: usize) -> f64 {
    0.05 * (k + 1 + i) as f64
}

/// A value in the unit `spelling` carries (DCGM's GPU_UTIL is a percent, FB_USED MiB).
fn in_unit(m: &MetricDef, k: usize, i: usize, dcgm: bool) -> String {
    match format!("{:?}", m.kind).as_str() {
        "Fraction" if dcgm && format!("{:?}", m.sources.dcgm_exporter.unit) == "Percent" => {
            format!("{}", value(k, i) * 100.0)
        }
        "Fraction" => format!("{}", value(k, i)),
        // 40 GiB of 80, written in MiB when DCGM spells it
        "Bytes" if dcgm => "40960".to_string(),
        "Bytes" if m.name == "mem_total_bytes" => "85899345920".to_string(),
        "Bytes" => "42949672960".to_string(),
        _ => "300".to_string(),
    }
}

/// One held GPU, three samples a minute apart, every registry metric present
/// (under its canonical name, or its first DCGM name where it has one).
fn fixture(dir: &tempfile::TempDir, dcgm: bool) -> Result<String> {
    let names: Vec<&str> = metric::all()
        .iter()
        .map(|m| match m.dcgm_exporter().first() {
            Some(d) if dcgm => d,
            _ => m.name,
        })
        .collect();
    let mut csv = format!("time,host,gpu,model,job,{}\n", names.join(","));
    for i in 0..3 {
        write!(
            csv,
            "2026-07-06T10:0{i}:00Z,h,GPU-0,NVIDIA H100 80GB HBM3,train"
        )?;
        for (k, m) in metric::all().iter().enumerate() {
            write!(csv, ",{}", in_unit(m, k, i, dcgm))?;
        }
        csv.push('\n');
    }
    let path = dir
        .path()
        .join(if dcgm { "dcgm.csv" } else { "canonical.csv" });
    std::fs::write(&path, csv)?;
    Ok(path.display().to_string())
}

#[test]
fn every_ratio_metric_reaches_the_json_report() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let ratios: Vec<(usize, &MetricDef)> = metric::all()
        .iter()
        .enumerate()
        .filter(|(_, m)| m.ratio.is_some())
        .collect();
    assert_eq!(
        ratios.len(),
        4,
        "device_util, sm_active, sm_occupancy, tensor_active"
    );
    for dcgm in [false, true] {
        let r = report_json(&[fixture(&dir, dcgm)?])?;
        // 3 samples of 1 minute each, all held
        assert_close(num(&r, "/layers/held_gpu_hours"), 0.05, "held");
        for (k, m) in &ratios {
            let field = m.ratio.unwrap_or_default();
            let want = (value(*k, 0) + value(*k, 1) + value(*k, 2)) / 3.0;
            assert_close(num(&r, &format!("/ratios/{field}")), want, field);
            if m.has_layer {
                let layer = match field {
                    "active" => "active_gpu_hours".to_string(),
                    f => format!("{f}_gpu_hours"),
                };
                assert_close(num(&r, &format!("/layers/{layer}")), want * 0.05, &layer);
            }
        }
    }
    // the exact figures: device_util 0.05/0.10/0.15 -> 0.10, occupancy
    // (registry metric 3) 0.20/0.25/0.30 -> 0.25
    let r = report_json(&[fixture(&dir, true)?])?;
    assert_close(num(&r, "/ratios/active"), 0.1, "active");
    assert_close(num(&r, "/ratios/sm_occupancy"), 0.25, "sm_occupancy");
    assert_close(num(&r, "/gpus/0/last_power_w"), 300.0, "power");
    assert_eq!(num(&r, "/gpus/0/last_mem_used_bytes"), 42949672960.0);
    Ok(())
}

#[test]
fn every_ratio_metric_is_a_check_metric() -> Result<()> {
    let out = gpuaudit()?.args(["check", "--list-metrics"]).output()?;
    assert!(out.status.success());
    let list = String::from_utf8_lossy(&out.stdout);
    // the table's first cell on each row
    let first_names: Vec<&str> = list
        .lines()
        .filter_map(|l| l.split(['│', '┆']).map(str::trim).find(|c| !c.is_empty()))
        .collect();
    for m in metric::all().iter().filter(|m| m.ratio.is_some()) {
        let name = m.check_metric().unwrap_or_default();
        assert!(first_names.contains(&name), "{name} not in:\n{list}");
        let path = m.ratio_path().unwrap_or_default();
        assert!(list.contains(&path), "{path} not in:\n{list}");
    }
    // and a rule on each one passes against the fixture's own figures
    let dir = tempfile::tempdir()?;
    let file = fixture(&dir, false)?;
    for (k, m) in metric::all().iter().enumerate() {
        let Some(name) = m.check_metric() else {
            continue;
        };
        let mean = (value(k, 0) + value(k, 1) + value(k, 2)) / 3.0;
        for (rule, code) in [(mean - 0.01, 0), (mean + 0.01, 1)] {
            let out = gpuaudit()?
                .args(["check", &file, "--min", &format!("{name}={rule:.4}")])
                .output()?;
            assert_eq!(
                out.status.code(),
                Some(code),
                "--min {name}={rule}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    Ok(())
}

#[test]
fn every_audited_metric_has_its_dcgm_series() {
    for m in metric::AUDITED_DEFS {
        assert!(
            m.sources.dcgm_field.is_some() && !m.dcgm_exporter().is_empty(),
            "{}: no DCGM spelling",
            m.name
        );
        let present = |n: &str| n == m.dcgm_exporter()[0];
        assert_eq!(m.promql_name(&present), Some(m.dcgm_exporter()[0]));
    }
    let series = metric::dcgm_series();
    for m in metric::all() {
        for name in m.dcgm_exporter() {
            assert!(series.contains(name), "{name} not queried");
        }
    }
    // the DCGM 4.6 names come after every current name (one selector, the same text as before)
    assert_eq!(series.len(), 13);
    assert_eq!(series[0], "DCGM_FI_DEV_GPU_UTIL");
    assert_eq!(series[8], "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO");
}
