//! MFU end to end through the binary: the calculator against published runs
//! (PaLM 540B, Llama 3 405B), the peak table's traps, and `report --jobs`
//! against a fleet whose MFU is computed by hand (testdata/mfu/README.md).
// Tests may be long (one scenario, checked step by step): the 80-line limit is
// for the code they test (clippy.toml).
#![allow(clippy::too_many_lines)]
use serde_json::Value;
use std::path::Path;
mod common;
use common::{gpuaudit, num};

fn data(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/mfu")
        .join(rel)
        .display()
        .to_string()
}

fn json_of(args: &[&str]) -> anyhow::Result<Value> {
    let out = gpuaudit()?.args(args).args(["--format", "json"]).output()?;
    anyhow::ensure!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// Exit code and stderr of a run that must fail.
fn failure(args: &[&str]) -> anyhow::Result<(i32, String)> {
    let out = gpuaudit()?.args(args).output()?;
    anyhow::ensure!(!out.status.success(), "{args:?} should have failed");
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    ))
}

fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, want {want} ± {tol}"
    );
}

const PALM: &[&str] = &[
    "mfu",
    "--gpus",
    "6144",
    "--tokens-per-sec",
    "238.3K",
    "--params",
    "540.35e9",
    "--layers",
    "118",
    "--heads",
    "48",
    "--head-dim",
    "256",
    "--seq-len",
    "2048",
];

#[test]
fn palm_540b_mfu_with_and_without_attention() -> anyhow::Result<()> {
    // as published: 6144 TPU v4 chips at 275 TFLOP/s, 46.2% (45.7% without attention)
    for peak in [
        &["--peak-tflops", "275"][..],
        &["--gpu", "Google TPU v4"][..],
    ] {
        let v = json_of(&[PALM, peak].concat())?;
        assert_close(num(&v, "/mfu") * 100.0, 46.2, 0.1, "PaLM MFU");
        assert_close(
            num(&v, "/mfu_without_attention") * 100.0,
            45.7,
            0.1,
            "PaLM MFU without attention",
        );
        assert_close(num(&v, "/peak_tflops_per_gpu"), 275.0, 0.0, "peak");
        // 6N + 12·L·H·Q·T
        assert_close(
            num(&v, "/flops_per_token"),
            6.0 * 540.35e9 + 12.0 * 118.0 * 48.0 * 256.0 * 2048.0,
            1.0,
            "FLOPs/token",
        );
        assert_close(
            num(&v, "/achieved_tflops_per_gpu"),
            3.277734806784e12 * 238_300.0 / 6144.0 / 1e12,
            1e-9,
            "TFLOP/s per GPU",
        );
    }
    Ok(())
}

#[test]
fn palm_table_says_both_figures() -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args(PALM)
        .args(["--peak-tflops", "275"])
        .output()?;
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.starts_with("MFU 46.2% (45.7% without the attention term)"),
        "{text}"
    );
    assert!(text.contains("127.1 TFLOP/s"), "{text}");
    Ok(())
}

#[test]
fn steps_and_step_time_give_the_same_throughput() -> anyhow::Result<()> {
    // PaLM's batch: 2048 sequences × 2048 tokens a step; 238.3K tokens/s is 17.60 s a step
    let step_time = format!("{:.9}s", 2048.0 * 2048.0 / 238_300.0);
    let mut args: Vec<&str> = PALM
        .iter()
        .filter(|a| **a != "--tokens-per-sec" && **a != "238.3K")
        .copied()
        .collect();
    args.extend([
        "--tokens-per-step",
        "4194304",
        "--step-time",
        &step_time,
        "--peak-tflops",
        "275",
    ]);
    let v = json_of(&args)?;
    assert_close(num(&v, "/mfu") * 100.0, 46.2, 0.1, "MFU from steps");
    // the step time is read to the nanosecond: 238,300 within 0.01 tokens/s
    assert_close(num(&v, "/tokens_per_sec"), 238_300.0, 1e-2, "tokens/s");
    Ok(())
}

#[test]
fn llama3_405b_on_h100() -> anyhow::Result<()> {
    for (achieved, want) in [("430", 43.5), ("400", 40.4), ("380", 38.4)] {
        let v = json_of(&[
            "mfu",
            "--gpu",
            "NVIDIA H100 80GB HBM3",
            "--achieved-tflops-per-gpu",
            achieved,
        ])?;
        assert_close(
            num(&v, "/peak_tflops_per_gpu"),
            989.4,
            0.0,
            "H100 SXM bf16 dense",
        );
        assert_close(num(&v, "/mfu") * 100.0, want, 0.05, achieved);
        assert_eq!(v["gpu"], "NVIDIA H100 80GB HBM3");
    }
    // the same through throughput: 16,384 GPUs, 6 × 405B FLOPs per token, 400 TFLOP/s each
    let tokens = format!("{}", 400e12 * 16384.0 / (6.0 * 405e9));
    let v = json_of(&[
        "mfu",
        "--gpu",
        "nvidia h100 80gb hbm3",
        "--gpus",
        "16384",
        "--params",
        "405B",
        "--tokens-per-sec",
        &tokens,
    ])?;
    assert_close(num(&v, "/mfu") * 100.0, 40.4, 0.05, "405B from tokens/s");
    Ok(())
}

#[test]
fn recompute_gives_hfu_beside_mfu() -> anyhow::Result<()> {
    let v = json_of(&[PALM, &["--peak-tflops", "275", "--recompute"][..]].concat())?;
    // full recompute: one more forward pass, 2N + 4·L·H·Q·T, a third of the training FLOPs
    assert_close(
        num(&v, "/hfu"),
        num(&v, "/mfu") * 4.0 / 3.0,
        1e-12,
        "HFU full",
    );
    let v = json_of(
        &[
            PALM,
            &["--peak-tflops", "275", "--recompute", "selective"][..],
        ]
        .concat(),
    )?;
    let extra = 4.0 * 118.0 * 48.0 * 256.0 * 2048.0;
    assert_close(
        num(&v, "/hardware_flops_per_token") - num(&v, "/flops_per_token"),
        extra,
        1.0,
        "selective extra",
    );
    assert!(num(&v, "/hfu") > num(&v, "/mfu"));
    let v = json_of(&[
        "mfu",
        "--gpu",
        "NVIDIA H100 80GB HBM3",
        "--achieved-tflops-per-gpu",
        "400",
    ])?;
    assert!(v["hfu"].is_null());
    Ok(())
}

#[test]
fn inference_counts_the_forward_pass() -> anyhow::Result<()> {
    // 8 L4s serving a 7B model at 10,000 tokens/s: 2 × 7e9 × 1e4 / 8 = 17.5 TFLOP/s per GPU
    let v = json_of(&[
        "mfu",
        "--gpu",
        "NVIDIA L4",
        "--gpus",
        "8",
        "--params",
        "7b",
        "--mode",
        "inference",
        "--tokens-per-sec",
        "10k",
    ])?;
    assert_close(num(&v, "/achieved_tflops_per_gpu"), 17.5, 1e-9, "per GPU");
    assert_close(num(&v, "/mfu"), 17.5 / 121.0, 1e-12, "L4 MFU");
    Ok(())
}

#[test]
fn l4_is_not_l40s() -> anyhow::Result<()> {
    for (name, peak) in [
        ("NVIDIA L4", 121.0),
        ("l4", 121.0),
        ("NVIDIA L40", 181.0),
        ("NVIDIA L40S", 362.0),
        ("nvidia  l40s", 362.0),
    ] {
        let v = json_of(&["mfu", "--gpu", name, "--achieved-tflops-per-gpu", "60.5"])?;
        assert_close(num(&v, "/peak_tflops_per_gpu"), peak, 0.0, name);
    }
    let v = json_of(&["peaks", "NVIDIA L4"])?;
    let chips = v["chips"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!(chips, 1);
    assert_eq!(v["chips"][0]["name"], "NVIDIA L4");
    assert_close(num(&v, "/chips/0/peak_tflops/bf16"), 121.0, 0.0, "L4 bf16");
    // a name that only starts like a known one is not that one
    let (code, err) = failure(&[
        "mfu",
        "--gpu",
        "NVIDIA L4S",
        "--achieved-tflops-per-gpu",
        "60",
    ])?;
    assert_eq!(code, 2);
    assert!(
        err.contains("closest known names: NVIDIA L4, NVIDIA L40, NVIDIA L40S"),
        "{err}"
    );
    Ok(())
}

#[test]
fn unknown_gpu_is_a_usage_error_naming_close_ones() -> anyhow::Result<()> {
    let (code, err) = failure(&[
        "mfu",
        "--gpu",
        "NVIDIA A10G",
        "--achieved-tflops-per-gpu",
        "40",
    ])?;
    assert_eq!(code, 2);
    assert!(
        err.starts_with("gpuaudit: no dense peak known for GPU 'NVIDIA A10G'"),
        "{err}"
    );
    assert!(err.contains("closest known names: NVIDIA A10,"), "{err}");
    assert!(err.contains("--peak-tflops"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    // "NVIDIA H100" is a family, not a product: which one is not guessed
    let (code, err) = failure(&["peaks", "NVIDIA H100"])?;
    assert_eq!(code, 2);
    assert!(
        err.contains("NVIDIA H100 80GB HBM3") && err.contains("NVIDIA H100 PCIe"),
        "{err}"
    );
    // a dtype the GPU lacks
    let (code, err) = failure(&[
        "mfu",
        "--gpu",
        "Tesla V100-SXM2-16GB",
        "--achieved-tflops-per-gpu",
        "40",
    ])?;
    assert_eq!(code, 2);
    assert!(
        err.contains("no dense bf16 peak") && err.contains("fp16"),
        "{err}"
    );
    Ok(())
}

#[test]
fn contradictory_or_missing_flags_exit_2() -> anyhow::Result<()> {
    let cases: &[&[&str]] = &[
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--peak-tflops",
            "121",
            "--achieved-tflops-per-gpu",
            "40",
        ],
        &["mfu", "--achieved-tflops-per-gpu", "40"],
        &["mfu", "--gpu", "NVIDIA L4", "--gpus", "8"],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--gpus",
            "8",
            "--tokens-per-sec",
            "1000",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--gpus",
            "8",
            "--tokens-per-sec",
            "1000",
            "--params",
            "7b",
            "--flops-per-token",
            "4.2e10",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--tokens-per-sec",
            "1000",
            "--params",
            "7b",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--gpus",
            "8",
            "--tokens-per-step",
            "1000",
            "--params",
            "7b",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--gpus",
            "8",
            "--tokens-per-sec",
            "1000",
            "--params",
            "7b",
            "--layers",
            "32",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--achieved-tflops-per-gpu",
            "40",
            "--params",
            "7b",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--gpus",
            "8",
            "--tokens-per-sec",
            "1000",
            "--tokens-per-step",
            "5",
            "--step-time",
            "1s",
            "--params",
            "7b",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--gpus",
            "8",
            "--tokens-per-sec",
            "1000",
            "--params",
            "7q",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--gpus",
            "0",
            "--tokens-per-sec",
            "1000",
            "--params",
            "7b",
        ],
        &[
            "mfu",
            "--peak-tflops",
            "-3",
            "--achieved-tflops-per-gpu",
            "40",
        ],
        &[
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--gpus",
            "8",
            "--tokens-per-sec",
            "1000",
            "--params",
            "7b",
            "--mode",
            "inference",
            "--recompute",
        ],
    ];
    for args in cases {
        let (code, err) = failure(args)?;
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    Ok(())
}

#[test]
fn peaks_lists_every_chip_with_its_source() -> anyhow::Result<()> {
    let v = json_of(&["peaks"])?;
    assert_eq!(v["schema"], "gpuaudit.peaks/1");
    let chips = v["chips"].as_array().cloned().unwrap_or_default();
    assert!(chips.len() >= 20);
    for c in &chips {
        assert!(c["source"].as_str().is_some_and(|s| !s.is_empty()), "{c}");
    }
    let find = |name: &str| {
        chips
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_close(
        num(&find("NVIDIA H100 80GB HBM3"), "/peak_tflops/bf16"),
        989.4,
        0.0,
        "H100",
    );
    assert_close(
        num(&find("NVIDIA H100 NVL"), "/peak_tflops/bf16"),
        835.0,
        0.0,
        "H100 NVL, one card",
    );
    assert_close(
        num(&find("NVIDIA GeForce RTX 4090"), "/peak_tflops/bf16"),
        165.2,
        0.0,
        "4090 tensor rate",
    );
    // the A10G is in the catalog (priced, with memory) but has no published tensor rate
    assert_eq!(
        find("NVIDIA A10G")["peak_tflops"],
        serde_json::json!({}),
        "A10G has no published tensor rate"
    );
    let out = gpuaudit()?.arg("peaks").output()?;
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.contains("NVIDIA L40S") && text.contains("datasheet"),
        "{text}"
    );
    Ok(())
}

/// testdata/mfu/fleet.csv by hand (README.md there): 3 hourly samples a GPU, each 1 h.
/// train-a: 2 H100 × 3 h, 1e12 FLOPs/token × 593.64 tok/s = 593.64 TFLOP/s over
/// 2 × 989.4 → MFU 0.3; infer-b: 1 L4 × 3 h, 3.267e17 FLOPs over 121e12 × 10,800 s → 0.25;
/// mystery: an A10G, no peak → n/a; ghost: declared, never seen. --price 2.
fn assert_jobs_report(v: &Value) {
    assert_close(num(v, "/layers/held_gpu_hours"), 12.0, 1e-9, "held");
    assert_close(
        num(v, "/layers/useful_gpu_hours"),
        0.3 * 6.0 + 0.25 * 3.0,
        1e-9,
        "useful",
    );
    assert_close(num(v, "/ratios/mfu"), 2.55 / 12.0, 1e-9, "mfu ratio");
    assert_close(num(v, "/cost/held_usd"), 24.0, 1e-9, "held usd");
    assert_close(
        num(v, "/cost/not_useful_usd"),
        24.0 - 2.55 * 2.0,
        1e-9,
        "not useful usd",
    );
    assert_eq!(v["cost"]["not_useful_basis"], "useful");
    let jobs = v["jobs"].as_array().cloned().unwrap_or_default();
    let job = |name: &str| {
        jobs.iter()
            .find(|j| j["job"] == name)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_close(num(&job("train-a"), "/mfu"), 0.3, 1e-12, "train-a");
    assert_eq!(job("train-a")["gpus"], 2);
    assert_close(
        num(&job("train-a"), "/not_useful_usd"),
        12.0 - 3.6,
        1e-9,
        "train-a $",
    );
    assert_close(num(&job("infer-b"), "/mfu"), 0.25, 1e-12, "infer-b");
    assert!(job("mystery")["mfu"].is_null());
    assert_close(
        num(&job("mystery"), "/not_useful_usd"),
        6.0,
        1e-9,
        "mystery $",
    );
    let warnings: Vec<String> = v["data_quality"]["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str().map(str::to_string))
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("1 declared job(s) have no held samples") && w.contains("'ghost'")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("'NVIDIA A10G'")
            && w.contains("3 held samples")
            && w.contains("'mystery'")),
        "{warnings:?}"
    );
}

#[test]
fn report_with_a_jobs_file_fills_the_useful_layer() -> anyhow::Result<()> {
    let v = json_of(&[
        "report",
        &data("fleet.csv"),
        "--jobs",
        &data("jobs.csv"),
        "--price",
        "2",
    ])?;
    assert_jobs_report(&v);
    let v = json_of(&[
        "report",
        &data("fleet.csv"),
        "--jobs",
        &data("jobs.json"),
        "--price",
        "2",
    ])?;
    assert_jobs_report(&v);
    Ok(())
}

#[test]
fn report_jobs_from_parquet() -> anyhow::Result<()> {
    use polars::prelude::*;
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("jobs.parquet");
    let mut df = DataFrame::new_infer_height(vec![
        Column::new("job".into(), ["train-a", "infer-b", "mystery", "ghost"]),
        Column::new("flops_per_token".into(), [Some(1e12), None, None, None]),
        Column::new("tokens_per_sec".into(), [Some(593.64), None, None, None]),
        Column::new(
            "achieved_tflops".into(),
            [None, None, Some(50.0), Some(100.0)],
        ),
        Column::new("model_flops".into(), [None, Some(3.267e17), None, None]),
    ])?;
    ParquetWriter::new(std::fs::File::create(&path)?).finish(&mut df)?;
    let v = json_of(&[
        "report",
        &data("fleet.csv"),
        "--jobs",
        &path.display().to_string(),
        "--price",
        "2",
    ])?;
    assert_jobs_report(&v);
    Ok(())
}

#[test]
fn report_table_shows_the_jobs_and_the_useful_bar() -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args([
            "report",
            &data("fleet.csv"),
            "--jobs",
            &data("jobs.csv"),
            "--price",
            "2",
        ])
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    assert!(text.contains("MFU 21.2%"), "{text}");
    let jobs = text.split("Jobs\n").nth(1).unwrap_or_default();
    let train = jobs
        .lines()
        .find(|l| l.contains("train-a"))
        .unwrap_or_default();
    assert!(
        train.contains("30.0%") && train.contains("$8.40"),
        "{train}"
    );
    assert!(
        text.contains("warning: 1 declared job(s) have no held samples in the window: 'ghost'"),
        "{text}"
    );
    Ok(())
}

#[test]
fn a_window_keeps_rates_and_whole_run_totals() -> anyhow::Result<()> {
    // the first two hours: train-a's rate still gives 0.3; infer-b's total is over its whole run (3 h)
    let v = json_of(&[
        "report",
        &data("fleet.csv"),
        "--jobs",
        &data("jobs.csv"),
        "--price",
        "2",
        "--until",
        "2026-07-06T12:00:00Z",
    ])?;
    assert_close(num(&v, "/layers/held_gpu_hours"), 8.0, 1e-9, "held");
    assert_close(
        num(&v, "/layers/useful_gpu_hours"),
        0.3 * 4.0 + 0.25 * 2.0,
        1e-9,
        "useful",
    );
    assert_close(
        num(&v, "/cost/not_useful_usd"),
        16.0 - 1.7 * 2.0,
        1e-9,
        "not useful usd",
    );
    Ok(())
}

#[test]
fn bad_jobs_file_is_exit_2_with_its_line() -> anyhow::Result<()> {
    let (code, err) = failure(&[
        "report",
        &data("fleet.csv"),
        "--jobs",
        &data("bad-jobs.csv"),
    ])?;
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "bad-jobs.csv: line 3 (job 'infer-b'): flops_per_token without tokens_per_sec"
        ),
        "{err}"
    );
    let (code, err) = failure(&["report", &data("fleet.csv"), "--jobs", &data("missing.csv")])?;
    assert_eq!(code, 2);
    assert!(
        err.contains("missing.csv: cannot read the jobs file"),
        "{err}"
    );
    Ok(())
}

#[test]
fn per_gpu_throughput_gives_the_same_mfu_and_says_so() -> anyhow::Result<()> {
    // PaLM: 238.3K tokens/s over 6144 chips is 38.786 tokens/s per chip
    let per_gpu = format!("{}", 238_300.0 / 6144.0);
    let args: Vec<&str> = PALM
        .iter()
        .filter(|a| **a != "--tokens-per-sec" && **a != "238.3K")
        .copied()
        .collect();
    let v = json_of(
        &[
            &args[..],
            &["--tokens-per-sec-per-gpu", &per_gpu, "--peak-tflops", "275"][..],
        ]
        .concat(),
    )?;
    assert_close(
        num(&v, "/mfu") * 100.0,
        46.2,
        0.1,
        "PaLM MFU from the per-GPU rate",
    );
    assert_close(num(&v, "/tokens_per_sec"), 238_300.0, 1e-6, "whole job");
    assert_eq!(v["tokens_per_sec_given"], "per GPU");
    let out = gpuaudit()?
        .args([
            "mfu",
            "--gpu",
            "NVIDIA L4",
            "--tokens-per-sec-per-gpu",
            "1,000",
            "--params",
            "7b",
            "--mode",
            "inference",
        ])
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    // 2 × 7e9 × 1000 = 14 TFLOP/s of 121
    assert!(text.starts_with("MFU 11.6%"), "{text}");
    assert!(text.contains("tokens/s per GPU (given)"), "{text}");
    assert!(
        text.contains("PaLM 540B 46.2%, Llama 3 405B 38-43%"),
        "{text}"
    );
    assert!(
        !text.contains("e9") && !text.contains("e12"),
        "no scientific notation: {text}"
    );
    Ok(())
}

#[test]
fn input_with_thousands_separators_as_output_prints_it() -> anyhow::Result<()> {
    let v = json_of(&[
        "mfu",
        "--gpus",
        "6,144",
        "--tokens-per-sec",
        "238,300",
        "--params",
        "540,350,000,000",
        "--layers",
        "118",
        "--heads",
        "48",
        "--head-dim",
        "256",
        "--seq-len",
        "2048",
        "--peak-tflops",
        "275",
    ])?;
    assert_close(num(&v, "/mfu") * 100.0, 46.2, 0.1, "PaLM with commas");
    let (code, err) = failure(&[
        "mfu",
        "--gpu",
        "NVIDIA L4",
        "--gpus",
        "8",
        "--tokens-per-sec",
        "1,5",
        "--params",
        "7b",
    ])?;
    assert_eq!(code, 2);
    assert!(err.contains("a comma only separates thousands"), "{err}");
    Ok(())
}

#[test]
fn mfu_above_100_percent_is_an_error_naming_the_cause() -> anyhow::Result<()> {
    // 6,000 tokens/s given as one GPU's rate on 64 L4s: 252 TFLOP/s per GPU of 121
    let (code, err) = failure(&[
        "mfu",
        "--gpu",
        "NVIDIA L4",
        "--gpus",
        "64",
        "--tokens-per-sec-per-gpu",
        "6K",
        "--params",
        "7B",
    ])?;
    assert_eq!(code, 2);
    assert!(
        err.starts_with("gpuaudit: MFU 208.3% is above 100%"),
        "{err}"
    );
    assert!(err.contains("give --tokens-per-sec (MFU 3.3%)"), "{err}");
    // the wrong dtype: 1,200 TFLOP/s on an H100 is possible in fp8 only
    let (code, err) = failure(&[
        "mfu",
        "--gpu",
        "H100 SXM",
        "--achieved-tflops-per-gpu",
        "1,200",
    ])?;
    assert_eq!(code, 2);
    assert!(
        err.contains("--dtype fp8 (peak 1978.9, MFU 60.6%)"),
        "{err}"
    );
    Ok(())
}
