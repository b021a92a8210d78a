//! The MFU calculator's answer and the peak table, as tables or JSON.
use super::fmt::{pct, thousands};
use super::table::new_table;
use crate::flops::{Calculation, Mode, Recompute};
use crate::hardware::{Chip, Dtype};
use anyhow::Result;
use comfy_table::{Cell, CellAlignment};
use serde_json::{Map, Value, json};

fn width() -> u16 {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100)
}

/// 3.2777e12 -> "3.278e12"; small numbers plainly.
fn sci(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{v:.4e}")
    } else {
        format!("{v}")
    }
}

fn tflops(v: f64) -> String {
    format!("{v:.1} TFLOP/s")
}

fn count(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        thousands(v as i64)
    } else {
        format!("{v}")
    }
}

pub fn calculation_table(c: &Calculation) -> String {
    let on = match (&c.gpu, c.gpus) {
        (Some(g), Some(n)) => format!("{} × {g}", thousands(n as i64)),
        (Some(g), None) => g.clone(),
        (None, Some(n)) => format!("{} GPUs", thousands(n as i64)),
        (None, None) => "each GPU".to_string(),
    };
    let mut out = format!("MFU {}", pct(Some(c.mfu)));
    if let Some(w) = c.mfu_without_attention
        && c.attention_flops_per_token.is_some()
    {
        out.push_str(&format!(" ({} without the attention term)", pct(Some(w))));
    }
    if let (Some(h), Some(r)) = (c.hfu, c.recompute) {
        out.push_str(&format!(
            ", HFU {} ({} recompute)",
            pct(Some(h)),
            recompute_name(r)
        ));
    }
    out.push_str(&format!(
        " on {on} at {} {} dense\n\n",
        tflops(c.peak_tflops_per_gpu),
        c.dtype
    ));

    let mut t = new_table(width());
    let mut row = |k: &str, v: String| {
        t.add_row(vec![
            Cell::new(k),
            Cell::new(v).set_alignment(CellAlignment::Right),
        ]);
    };
    if let Some(g) = c.gpus {
        row("GPUs", thousands(g as i64));
    }
    row(
        &format!("peak per GPU ({}, dense)", c.dtype),
        tflops(c.peak_tflops_per_gpu),
    );
    if let Some(t) = c.tokens_per_sec {
        row("tokens/s", count(t));
    }
    if let Some(p) = c.params {
        row("parameters N", sci(p));
        row(
            "mode",
            match c.mode {
                Mode::Train => "train (6N)".to_string(),
                Mode::Inference => "inference (2N)".to_string(),
            },
        );
    }
    if let Some(f) = c.flops_per_token {
        row("model FLOPs per token", sci(f));
    }
    if let Some(a) = c.attention_flops_per_token {
        row("  of which attention", sci(a));
    }
    row(
        "achieved TFLOP/s per GPU",
        tflops(c.achieved_tflops_per_gpu),
    );
    if let (Some(w), Some(_)) = (
        c.achieved_tflops_per_gpu_without_attention,
        c.attention_flops_per_token,
    ) {
        row("  without attention", tflops(w));
    }
    row("MFU", pct(Some(c.mfu)));
    if let Some(w) = c.mfu_without_attention {
        row("MFU without attention", pct(Some(w)));
    }
    if let Some(h) = c.hardware_flops_per_token {
        row("hardware FLOPs per token", sci(h));
    }
    if let (Some(h), Some(r)) = (c.hfu, c.recompute) {
        row(
            &format!("HFU ({} recompute)", recompute_name(r)),
            pct(Some(h)),
        );
    }
    out.push_str(&t.to_string());
    out.push_str(&format!("\npeak source: {}\n", c.peak_source));
    out
}

fn recompute_name(r: Recompute) -> &'static str {
    match r {
        Recompute::Full => "full",
        Recompute::Selective => "selective",
    }
}

pub fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    let mut s = serde_json::to_string_pretty(v)?;
    s.push('\n');
    Ok(s)
}

/// Column order of the peak table: the dtypes MFU is usually measured in first.
const ORDER: [Dtype; 7] = [
    Dtype::Bf16,
    Dtype::Fp16,
    Dtype::Fp8,
    Dtype::Int8,
    Dtype::Tf32,
    Dtype::Fp32,
    Dtype::Fp64,
];

pub fn peaks_table(chips: &[&Chip]) -> String {
    let mut t = new_table(width());
    let mut header = vec!["GPU (NVML name)".to_string()];
    header.extend(ORDER.iter().map(|d| d.name().to_string()));
    t.set_header(header);
    for c in chips {
        let mut row = vec![Cell::new(c.name)];
        for d in ORDER {
            let v = c
                .peak(d)
                .map(|p| format!("{p}"))
                .unwrap_or_else(|| "-".to_string());
            row.push(Cell::new(v).set_alignment(CellAlignment::Right));
        }
        t.add_row(row);
    }
    let mut out = String::from(
        "Dense peak TFLOP/s per chip (int8: TOP/s; no sparsity; fp64 is the tensor rate where there is one)\n",
    );
    out.push_str(&t.to_string());
    out.push_str("\n\nSources\n");
    for c in chips {
        out.push_str(&format!("  {}: {}\n", c.name, c.source));
    }
    out.push_str("\nA GPU not listed has no peak here: give --peak-tflops (calculator) or a peak_tflops column (--jobs).\n");
    out
}

pub fn peaks_json(chips: &[&Chip]) -> Result<String> {
    let rows: Vec<Value> = chips
        .iter()
        .map(|c| {
            let mut peaks = Map::new();
            for d in ORDER {
                if let Some(p) = c.peak(d) {
                    peaks.insert(d.name().to_string(), json!(p));
                }
            }
            json!({ "name": c.name, "peak_tflops": peaks, "source": c.source })
        })
        .collect();
    json(&json!({
        "schema": "gpuaudit.peaks/1",
        "unit": "dense TFLOP/s per chip (int8: TOP/s), no sparsity",
        "chips": rows,
    }))
}
