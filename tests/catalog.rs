//! The one GPU catalog through the binary: every spelling a fleet exports
//! means one entry for price and peak; a family name is listed as ambiguous,
//! never priced as one of its members; an inference fleet of T4/L4/A10G gets
//! dollars with no flags; and every entry is complete (price, memory, a bf16
//! peak or the reason there is none).
// Tests may be long (one scenario, checked step by step): the 80-line limit is
// for the code they test (clippy.toml).
#![allow(clippy::too_many_lines)]
use serde_json::Value;
mod common;
use common::{assert_close, gpuaudit, num};

fn json_of(args: &[&str]) -> anyhow::Result<Value> {
    let out = gpuaudit()?.args(args).args(["--format", "json"]).output()?;
    anyhow::ensure!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// A report on CSV text: 3 hourly samples per (host, gpu, model), all held.
fn report_of(models: &[&str], extra: &[&str]) -> anyhow::Result<Value> {
    let mut csv = String::from("time,host,gpu,model,job,device_util\n");
    for hour in 10..13 {
        for (i, m) in models.iter().enumerate() {
            csv.push_str(&format!(
                "2026-07-06T{hour}:00:00Z,n1,{i},{m},job-{i},0.5\n"
            ));
        }
    }
    let out = gpuaudit()?
        .args(["report", "-", "--format", "json"])
        .args(extra)
        .write_stdin(csv)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

fn usd_per_hour(v: &Value) -> Vec<Option<f64>> {
    v["gpus"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|g| g["usd_per_hour"].as_f64())
        .collect()
}

/// (spellings, the NVML name they mean, its built-in price, its bf16 or fp16 peak)
const SPELLINGS: &[(&[&str], &str, f64, f64)] = &[
    (
        &[
            "NVIDIA H100 80GB HBM3",
            "NVIDIA-H100-80GB-HBM3",
            "nvidia h100 80gb hbm3",
            "H100 80GB HBM3",
            "NVIDIA H100 SXM",
            "H100 SXM5",
        ],
        "NVIDIA H100 80GB HBM3",
        3.00,
        989.4,
    ),
    (
        &["Tesla T4", "Tesla-T4", "NVIDIA T4", "T4"],
        "Tesla T4",
        0.35,
        65.0,
    ),
    (&["NVIDIA L4", "NVIDIA-L4", "L4"], "NVIDIA L4", 0.70, 121.0),
    (
        &["NVIDIA A10", "NVIDIA-A10", "A10"],
        "NVIDIA A10",
        0.75,
        125.0,
    ),
    (
        &[
            "Tesla V100-SXM2-32GB",
            "Tesla-V100-SXM2-32GB",
            "V100 SXM2 32GB",
        ],
        "Tesla V100-SXM2-32GB",
        0.55,
        125.0,
    ),
    (
        &[
            "NVIDIA A100-SXM4-80GB",
            "NVIDIA-A100-SXM4-80GB",
            "A100 SXM4 80GB",
            "A100 80GB SXM",
        ],
        "NVIDIA A100-SXM4-80GB",
        1.50,
        312.0,
    ),
    (
        &["NVIDIA H200", "NVIDIA-H200", "H200 SXM"],
        "NVIDIA H200",
        3.60,
        989.4,
    ),
];

#[test]
fn every_spelling_is_one_entry_for_price_and_peak() -> anyhow::Result<()> {
    for (names, nvml, price, peak) in SPELLINGS {
        let v = report_of(names, &[])?;
        let prices = usd_per_hour(&v);
        assert_eq!(prices.len(), names.len(), "{nvml}");
        for p in &prices {
            assert_close(p.unwrap_or(f64::NAN), *price, nvml);
        }
        assert_close(num(&v, "/cost/unpriced_gpu_hours"), 0.0, nvml);
        for name in *names {
            let p = json_of(&["peaks", name])?;
            assert_eq!(p["chips"][0]["name"], *nvml, "{name}");
            let dtype = if nvml.contains("T4") || nvml.contains("V100") {
                "fp16"
            } else {
                "bf16"
            };
            let m = json_of(&[
                "mfu",
                "--gpu",
                name,
                "--dtype",
                dtype,
                "--achieved-tflops-per-gpu",
                "10",
            ])?;
            assert_close(num(&m, "/peak_tflops_per_gpu"), *peak, name);
            assert_eq!(m["gpu"], *nvml, "{name}");
        }
    }
    Ok(())
}

#[test]
fn an_inference_fleet_gets_dollars_with_no_flags() -> anyhow::Result<()> {
    // 3 GPU-hours each of a T4, an L4 and an A10G, as GFD labels spell them
    let v = report_of(&["Tesla-T4", "NVIDIA-L4", "NVIDIA-A10G"], &[])?;
    assert_close(num(&v, "/layers/observed_gpu_hours"), 9.0, "observed");
    assert_close(
        num(&v, "/cost/observed_usd"),
        3.0 * (0.35 + 0.70 + 1.01),
        "observed usd",
    );
    assert_close(
        num(&v, "/cost/held_usd"),
        3.0 * (0.35 + 0.70 + 1.01),
        "held usd",
    );
    assert_close(num(&v, "/cost/unpriced_gpu_hours"), 0.0, "all priced");
    assert!(
        v["cost"]["price_source"]
            .as_str()
            .is_some_and(|s| s.contains("built-in") && s.contains("2026-06")),
        "{}",
        v["cost"]
    );
    assert_eq!(v["cost"]["ambiguous_models"], Value::Array(vec![]));
    Ok(())
}

#[test]
fn an_ambiguous_name_is_listed_with_its_candidates_not_priced() -> anyhow::Result<()> {
    let v = report_of(&["NVIDIA H100", "NVIDIA H100", "NVIDIA L4"], &[])?;
    // the two "NVIDIA H100" GPUs: 6 GPU-hours without dollars; the L4's 3 h at 0.70
    assert_close(num(&v, "/cost/unpriced_gpu_hours"), 6.0, "unpriced");
    assert_close(
        num(&v, "/cost/observed_usd"),
        3.0 * 0.70,
        "only the L4 is priced",
    );
    assert_eq!(
        v["cost"]["unpriced_models"],
        serde_json::json!(["NVIDIA H100"])
    );
    let amb = v["cost"]["ambiguous_models"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(amb.len(), 1, "{amb:?}");
    assert_eq!(amb[0]["name"], "NVIDIA H100");
    assert_eq!(
        amb[0]["candidates"],
        serde_json::json!([
            "NVIDIA H100 80GB HBM3",
            "NVIDIA H100 PCIe",
            "NVIDIA H100 NVL"
        ])
    );
    assert_close(num(&amb[0], "/gpu_hours"), 6.0, "ambiguous GPU-hours");
    let warnings = v["data_quality"]["warnings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        warnings.iter().any(|w| w.as_str().is_some_and(|w| w.contains("'NVIDIA H100' (6.00 GPU-hours; one of NVIDIA H100 80GB HBM3, NVIDIA H100 PCIe, NVIDIA H100 NVL)"))),
        "{warnings:?}"
    );
    // nor peaked: MFU against it is an error naming the candidates
    let out = gpuaudit()?
        .args([
            "mfu",
            "--gpu",
            "NVIDIA H100",
            "--achieved-tflops-per-gpu",
            "400",
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("ambiguous") && err.contains("NVIDIA H100 PCIe"),
        "{err}"
    );
    // a price file that names it exactly prices it: the user said what it is
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("prices.csv");
    std::fs::write(&file, "NVIDIA H100,2.5\n")?;
    let v = report_of(&["NVIDIA H100"], &["--prices", &file.display().to_string()])?;
    assert_close(num(&v, "/cost/observed_usd"), 7.5, "priced by the file");
    assert_eq!(v["cost"]["ambiguous_models"], Value::Array(vec![]));
    // the table says so too
    let mut csv = String::from("time,host,gpu,model,job,device_util\n");
    csv.push_str("2026-07-06T10:00:00Z,n1,0,NVIDIA H100,j,0.5\n2026-07-06T11:00:00Z,n1,0,NVIDIA H100,j,0.5\n");
    let out = gpuaudit()?
        .args(["report", "-"])
        .write_stdin(csv)
        .output()?;
    let text = String::from_utf8(out.stdout)?;
    assert!(text.contains("could mean several cards"), "{text}");
    Ok(())
}

#[test]
fn an_old_report_without_the_field_still_parses() -> anyhow::Result<()> {
    // a gpuaudit.report/1 baseline written before ambiguous_models existed
    let v = report_of(&["NVIDIA L4"], &[])?;
    let mut old = v.clone();
    if let Some(cost) = old["cost"].as_object_mut() {
        cost.remove("ambiguous_models");
    }
    let r: gpuaudit::audit::model::Report = serde_json::from_value(old)?;
    assert!(r.cost.ambiguous_models.is_empty());
    Ok(())
}

#[test]
fn mig_slices_are_priced_at_their_compute_share() -> anyhow::Result<()> {
    let v = report_of(
        &[
            "NVIDIA H100 80GB HBM3 MIG 3g.40gb",
            "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb",
        ],
        &[],
    )?;
    let prices = usd_per_hour(&v);
    assert_close(
        prices[0].unwrap_or(f64::NAN),
        3.00 * 3.0 / 7.0,
        "3g.40gb of an H100",
    );
    assert_close(
        prices[1].unwrap_or(f64::NAN),
        1.50 / 7.0,
        "1g.10gb of an A100 80GB",
    );
    // a profile the card lacks is not priced as anything
    let v = report_of(&["NVIDIA H100 80GB HBM3 MIG 1g.5gb"], &[])?;
    assert_eq!(usd_per_hour(&v), vec![None]);
    Ok(())
}

/// The MIG user guide's profile names: "<g>g.<memory>gb".
fn check_profile(card: &str, p: &Value, memory_bytes: f64) {
    let name = p["name"].as_str().unwrap_or_default();
    if num(p, "/of") == 8.0 {
        return check_partition(card, p, memory_bytes);
    }
    assert_eq!(num(p, "/of"), 7.0, "{card} {name}");
    let (g, mem) = name.split_once("g.").unwrap_or_default();
    let gb: f64 = mem.trim_end_matches("gb").parse().unwrap_or(f64::NAN);
    assert_eq!(g.parse::<f64>().ok(), p["slices"].as_f64(), "{card} {name}");
    assert_close(num(p, "/memory_bytes"), gb * (1u64 << 30) as f64, name);
    assert!(num(p, "/memory_bytes") <= memory_bytes, "{card} {name}");
    let slices = num(p, "/slices");
    assert!((1.0..=7.0).contains(&slices), "{card} {name}");
    // as many as fit in 7 compute slices (1g with double memory: 4)
    let max = num(p, "/max_instances");
    assert!(max >= 1.0 && max * slices <= 7.0, "{card} {name} ×{max}");
}

/// An AMD compute partition: XCDs of 8, as many as fill the card, each its
/// share of the card's memory.
fn check_partition(card: &str, p: &Value, memory_bytes: f64) {
    let name = p["name"].as_str().unwrap_or_default();
    let (xcds, max) = match name {
        "spx" => (8.0, 1.0),
        "dpx" => (4.0, 2.0),
        "qpx" => (2.0, 4.0),
        "cpx" => (1.0, 8.0),
        other => panic!("{card}: unknown partition {other}"),
    };
    assert_eq!(num(p, "/slices"), xcds, "{card} {name}");
    assert_eq!(num(p, "/max_instances"), max, "{card} {name}");
    assert_close(num(p, "/memory_bytes") * max, memory_bytes, name);
}

#[test]
fn the_catalog_is_complete() -> anyhow::Result<()> {
    let v = json_of(&["peaks"])?;
    assert_eq!(v["schema"], "gpuaudit.peaks/1");
    assert_eq!(v["price_profile"]["date"], "2026-06");
    let chips = v["chips"].as_array().cloned().unwrap_or_default();
    assert!(chips.len() >= 25, "{}", chips.len());
    for c in &chips {
        let name = c["name"].as_str().unwrap_or_default();
        let price = num(c, "/price/usd_per_gpu_hour");
        assert!(price.is_finite() && price > 0.0, "{name}: price {price}");
        assert!(
            c["price"]["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: price source"
        );
        let estimate = c["price"]["estimate"].as_bool().unwrap_or(false);
        let src = c["price"]["source"].as_str().unwrap_or_default();
        assert_eq!(
            estimate,
            src.starts_with("estimate"),
            "{name}: an estimate says so: {src}"
        );
        assert!(
            num(c, "/memory_bytes") >= (8u64 << 30) as f64,
            "{name}: memory"
        );
        let bf16 = c["peak_tflops"]["bf16"].as_f64();
        let why = c["no_bf16"].as_str().filter(|s| !s.is_empty());
        assert!(
            bf16.is_some() != why.is_some(),
            "{name}: a bf16 peak or a reason why not, not both"
        );
        assert!(
            c["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{name}: peak source"
        );
        let memory = num(c, "/memory_bytes");
        for p in c["mig_profiles"].as_array().into_iter().flatten() {
            check_profile(name, p, memory);
        }
    }
    let find = |name: &str| {
        chips
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or(Value::Null)
    };
    for name in [
        "Tesla T4",
        "NVIDIA L4",
        "NVIDIA A10",
        "NVIDIA A10G",
        "NVIDIA L40",
        "NVIDIA L40S",
        "Tesla V100-SXM2-16GB",
        "Tesla V100-PCIE-32GB",
        "NVIDIA A100-SXM4-40GB",
        "NVIDIA A100-SXM4-80GB",
        "NVIDIA H100 PCIe",
        "NVIDIA H100 80GB HBM3",
        "NVIDIA H100 NVL",
        "NVIDIA H200",
        "NVIDIA B200",
        "NVIDIA GB200",
        "AMD Instinct MI300X",
    ] {
        assert!(!find(name).is_null(), "{name} missing from the catalog");
    }
    // MIG where the card has it, with the guide's full-card profile
    for (name, full, count) in [
        ("NVIDIA A100-SXM4-40GB", "7g.40gb", 6),
        ("NVIDIA A100 80GB PCIe", "7g.80gb", 6),
        ("NVIDIA H100 80GB HBM3", "7g.80gb", 6),
        ("NVIDIA H100 NVL", "7g.94gb", 6),
        ("NVIDIA H200", "7g.141gb", 6),
        ("NVIDIA B200", "7g.180gb", 6),
        ("NVIDIA GB200", "7g.186gb", 6),
    ] {
        let profiles = find(name)["mig_profiles"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(profiles.len(), count, "{name}");
        assert_eq!(
            profiles.last().map(|p| p["name"].clone()),
            Some(Value::from(full)),
            "{name}"
        );
    }
    assert_eq!(find("NVIDIA L4")["mig_profiles"], Value::Array(vec![]));
    // the A10G: priced, with memory, and the reason it has no peak
    let a10g = find("NVIDIA A10G");
    assert_eq!(a10g["peak_tflops"], serde_json::json!({}));
    assert!(
        a10g["no_bf16"]
            .as_str()
            .is_some_and(|s| s.contains("not an A10"))
    );
    Ok(())
}

#[test]
fn peaks_table_shows_memory_mig_and_price() -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args(["peaks", "NVIDIA H100 SXM"])
        .env("COLUMNS", "160")
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    assert!(text.contains("NVIDIA H100 80GB HBM3"), "{text}");
    assert!(text.contains("80 GB"), "{text}");
    assert!(
        text.contains("1g.10gb ×7, 1g.20gb ×4, 2g.20gb ×3, 3g.40gb ×2, 4g.40gb, 7g.80gb"),
        "{text}"
    );
    assert!(
        text.contains("3.00") && text.contains("not a quote"),
        "{text}"
    );
    let out = gpuaudit()?.args(["peaks", "Tesla-T4"]).output()?;
    let text = String::from_utf8(out.stdout)?;
    assert!(text.contains("0.35 (estimate)"), "{text}");
    let out = gpuaudit()?.args(["peaks", "NVIDIA Q9000"]).output()?;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not in the catalog"));
    Ok(())
}

/// Every accelerator the fleet reports, by the spellings its tools export:
/// `gpuaudit peaks NAME` gives the one card, its vendor, bf16 peak, memory and
/// price (issue 32 item 6).
#[test]
fn peaks_resolves_amd_gaudi_and_intel_spellings() -> anyhow::Result<()> {
    // (spelling, card, vendor, bf16 dense TFLOP/s, memory GB, built-in $/GPU-h)
    let cases: &[(&str, &str, &str, f64, f64, f64)] = &[
        (
            "AMD Instinct MI300X",
            "AMD Instinct MI300X",
            "AMD",
            1307.4,
            192.0,
            1.85,
        ),
        ("MI300X", "AMD Instinct MI300X", "AMD", 1307.4, 192.0, 1.85),
        (
            "AMD Instinct MI300X OAM",
            "AMD Instinct MI300X",
            "AMD",
            1307.4,
            192.0,
            1.85,
        ),
        (
            "MI300X-O",
            "AMD Instinct MI300X",
            "AMD",
            1307.4,
            192.0,
            1.85,
        ),
        (
            "102-G30211-0C",
            "AMD Instinct MI300X",
            "AMD",
            1307.4,
            192.0,
            1.85,
        ),
        (
            "AMD Instinct MI325X",
            "AMD Instinct MI325X",
            "AMD",
            1307.4,
            256.0,
            1.95,
        ),
        (
            "AMD Instinct MI350X",
            "AMD Instinct MI350X",
            "AMD",
            2300.0,
            288.0,
            2.75,
        ),
        (
            "AMD Instinct MI355X",
            "AMD Instinct MI355X",
            "AMD",
            2500.0,
            288.0,
            3.00,
        ),
        (
            "AMD Instinct MI250X",
            "AMD Instinct MI250X",
            "AMD",
            191.5,
            64.0,
            0.80,
        ),
        ("HL-225", "Intel Gaudi 2", "Intel", 432.0, 96.0, 1.30),
        ("HL-325L", "Intel Gaudi 3", "Intel", 1835.0, 128.0, 2.10),
        ("HL-328", "Intel Gaudi 3", "Intel", 1835.0, 128.0, 2.10),
        ("HL-338", "Intel Gaudi 3", "Intel", 1835.0, 128.0, 2.10),
        (
            "Intel(R) Data Center GPU Max 1550",
            "Intel(R) Data Center GPU Max 1550",
            "Intel",
            838.9,
            128.0,
            1.00,
        ),
    ];
    for (spelling, card, vendor, bf16, gb, usd) in cases {
        let v = json_of(&["peaks", spelling])?;
        let c = &v["chips"][0];
        assert_eq!(c["name"], *card, "{spelling}");
        assert_eq!(c["vendor"], *vendor, "{spelling}");
        assert_eq!(num(c, "/peak_tflops/bf16"), *bf16, "{spelling}");
        assert_eq!(
            num(c, "/memory_bytes"),
            gb * (1u64 << 30) as f64,
            "{spelling}"
        );
        assert_eq!(num(c, "/price/usd_per_gpu_hour"), *usd, "{spelling}");
    }
    // MI300X partitions: CPX ×8 … SPX, and the NPS modes it takes
    let v = json_of(&["peaks", "AMD Instinct MI300X CPX"])?;
    let profiles: Vec<(String, f64, f64)> = v["chips"][0]["mig_profiles"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_string(),
                num(p, "/slices"),
                num(p, "/max_instances"),
            )
        })
        .collect();
    assert_eq!(
        profiles,
        vec![
            ("cpx".to_string(), 1.0, 8.0),
            ("qpx".to_string(), 2.0, 4.0),
            ("dpx".to_string(), 4.0, 2.0),
            ("spx".to_string(), 8.0, 1.0),
        ]
    );
    assert_eq!(
        v["chips"][0]["memory_modes"],
        serde_json::json!(["nps1", "nps4"])
    );
    let out = gpuaudit()?
        .args(["peaks", "AMD Instinct MI300X OAM"])
        .env("COLUMNS", "160")
        .output()?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.contains("cpx ×8, qpx ×4, dpx ×2, spx (nps1, nps4)"),
        "{text}"
    );
    // unknown and family names: exit 2, never another card's numbers
    for name in [
        "AMD Instinct MI300",
        "Gaudi",
        "HL-325",
        "Intel Data Center GPU Max 1100",
    ] {
        let out = gpuaudit()?.args(["peaks", name]).output()?;
        assert_eq!(out.status.code(), Some(2), "{name}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(name), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name}");
    }
    Ok(())
}
