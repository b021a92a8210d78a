//! The MFU calculator's answer and the peak table, as tables or JSON.
use super::fmt::{pct, thousands};
use super::table::new_table;
use crate::audit::calculator::{Calculation, Mode, OverPeak, OverPeakCause, Recompute};
use crate::catalog::prices::{PROFILE_DATE, PROFILE_NAME};
use crate::catalog::{Dtype, GIB, Gpu};
use anyhow::Result;
use comfy_table::{Cell, CellAlignment};
use serde_json::{Map, Value, json};

/// The calculator's tables: the report's width rule (`COLUMNS`, else the
/// terminal), 100 columns when piped.
fn width() -> u16 {
    super::table::detect_width(None).unwrap_or(100)
}

/// Large numbers with thousands separators and a short form, never in
/// scientific notation: 540.35e9 -> "540,350,000,000 (540.35B)". The input
/// flags accept either form back.
fn big(v: f64) -> String {
    let short = [(1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M")]
        .into_iter()
        .find(|(m, _)| v.abs() >= *m);
    match short {
        Some((m, suffix)) if v.abs() < 9e18 => {
            let s = format!("{:.3}", v / m);
            let s = s.trim_end_matches('0').trim_end_matches('.');
            format!("{} ({s}{suffix})", thousands(v.round() as i64))
        }
        _ => count(v),
    }
}

fn tflops(v: f64) -> String {
    format!("{v:.1} TFLOP/s")
}

/// A count as output prints it: "238,300"; a fraction keeps up to 3 decimals.
fn count(v: f64) -> String {
    if v.abs() >= 9e18 {
        return format!("{v:.0}");
    }
    let whole = thousands(v.trunc() as i64);
    let frac = format!("{:.3}", v.fract().abs());
    let frac = frac
        .trim_start_matches('0')
        .trim_end_matches('0')
        .trim_end_matches('.');
    if frac.is_empty() {
        whole
    } else {
        format!("{whole}{frac}")
    }
}

/// What MFU is and what good looks like, under every result.
pub const MFU_EXPLAINED: &str = "MFU is the model's FLOP/s (6N per token training, 2N inference, plus attention) as a share of the GPUs' dense peak; large training runs reach about 35-50% (PaLM 540B 46.2%, Llama 3 405B 38-43%).";

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
    out.push_str(&figures_table(c));
    out.push_str(&format!("\npeak source: {}\n", c.peak_source));
    if let (Some("whole job"), Some(t), Some(g)) =
        (c.tokens_per_sec_given, c.tokens_per_sec, c.gpus)
        && c.mfu < 0.01
        && g > 1
    {
        out.push_str(&format!(
            "note: --tokens-per-sec is the whole job's rate over {} GPUs; if {} is one GPU's rate, give --tokens-per-sec-per-gpu (MFU {})\n",
            thousands(g as i64),
            count(t),
            pct(Some(c.mfu * g as f64))
        ));
    }
    out.push_str(&format!("\n{MFU_EXPLAINED}\n"));
    out
}

/// The figures as a two-column table, the formula's terms in order.
fn figures_table(c: &Calculation) -> String {
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
    match (
        c.tokens_per_sec_given,
        c.tokens_per_sec,
        c.tokens_per_sec_per_gpu,
    ) {
        (Some("per GPU"), whole, Some(g)) => {
            row("tokens/s per GPU (given)", count(g));
            if let Some(t) = whole {
                row("tokens/s, whole job", count(t));
            }
        }
        (_, Some(t), per_gpu) => {
            row("tokens/s, whole job (given)", count(t));
            if let Some(g) = per_gpu {
                row("tokens/s per GPU", count(g));
            }
        }
        _ => {}
    }
    if let Some(p) = c.params {
        row("parameters N", big(p));
        row(
            "mode",
            match c.mode {
                Mode::Train => "train (6N)".to_string(),
                Mode::Inference => "inference (2N)".to_string(),
            },
        );
    }
    if let Some(f) = c.flops_per_token {
        row("model FLOPs per token", big(f));
    }
    if let Some(a) = c.attention_flops_per_token {
        row("  of which attention", big(a));
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
        row("hardware FLOPs per token", big(h));
    }
    if let (Some(h), Some(r)) = (c.hfu, c.recompute) {
        row(
            &format!("HFU ({} recompute)", recompute_name(r)),
            pct(Some(h)),
        );
    }
    t.to_string()
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

fn memory(bytes: u64) -> String {
    format!("{} GB", bytes / GIB)
}

fn mig_profiles(g: &Gpu) -> String {
    if g.mig.is_empty() {
        return "-".to_string();
    }
    // an AMD card's memory (NPS) modes follow its compute partitions
    let modes = if g.memory_modes.is_empty() {
        String::new()
    } else {
        format!(" ({})", g.memory_modes.join(", "))
    };
    let profiles = g
        .mig
        .iter()
        .map(|p| {
            if p.max_instances > 1 {
                format!("{} ×{}", p.name, p.max_instances)
            } else {
                p.name.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!("{profiles}{modes}")
}

fn price(g: &Gpu) -> String {
    let p = g.price;
    if p.estimate {
        format!("{:.2} (estimate)", p.usd_per_gpu_hour)
    } else {
        format!("{:.2}", p.usd_per_gpu_hour)
    }
}

pub fn peaks_table(gpus: &[&Gpu]) -> String {
    let mut t = new_table(width());
    let mut header = vec!["GPU (NVML name)".to_string()];
    header.extend(ORDER.iter().map(|d| d.name().to_string()));
    t.set_header(header);
    for g in gpus {
        let mut row = vec![Cell::new(g.name)];
        for d in ORDER {
            let v = g
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

    let mut m = new_table(width());
    m.set_header(vec![
        "GPU (NVML name)",
        "memory",
        "MIG profiles / AMD partitions (×: per card)",
        "USD/GPU-h",
    ]);
    for g in gpus {
        m.add_row(vec![
            Cell::new(g.name),
            Cell::new(memory(g.memory_bytes)).set_alignment(CellAlignment::Right),
            Cell::new(mig_profiles(g)),
            Cell::new(price(g)).set_alignment(CellAlignment::Right),
        ]);
    }
    out.push_str(&format!(
        "\n\nMemory, MIG profiles (NVIDIA MIG user guide; g = compute slices of 7), AMD compute partitions (XCDs of 8) and built-in price (\"{PROFILE_NAME}\", dated {PROFILE_DATE})\n"
    ));
    out.push_str(&m.to_string());

    out.push_str("\n\nSources\n");
    for g in gpus {
        out.push_str(&format!(
            "  {}: {}; price: {}\n",
            g.name, g.peak_source, g.price.source
        ));
        if !g.also.is_empty() {
            out.push_str(&format!("    also spelled: {}\n", g.also.join(", ")));
        }
    }
    out.push_str("\nA GPU without a peak here has none: give --peak-tflops (calculator) or a peak_tflops column (--jobs).\n");
    out
}

pub fn peaks_json(gpus: &[&Gpu]) -> Result<String> {
    let rows: Vec<Value> = gpus
        .iter()
        .map(|g| {
            let mut peaks = Map::new();
            for d in ORDER {
                if let Some(p) = g.peak(d) {
                    peaks.insert(d.name().to_string(), json!(p));
                }
            }
            let mig: Vec<Value> = g
                .mig
                .iter()
                .map(|p| json!({ "name": p.name, "slices": p.slices, "of": p.of, "memory_bytes": p.memory_bytes, "max_instances": p.max_instances }))
                .collect();
            json!({
                "name": g.name,
                "vendor": g.family.vendor(),
                "family": g.family.name(),
                "also": g.also,
                "memory_bytes": g.memory_bytes,
                "peak_tflops": peaks,
                "source": g.peak_source,
                "no_bf16": g.no_bf16,
                "mig_profiles": mig,
                "memory_modes": g.memory_modes,
                "price": { "usd_per_gpu_hour": g.price.usd_per_gpu_hour, "source": g.price.source, "estimate": g.price.estimate },
            })
        })
        .collect();
    json(&json!({
        "schema": "gpuaudit.peaks/1",
        "unit": "dense TFLOP/s per chip (int8: TOP/s), no sparsity",
        "price_profile": { "name": PROFILE_NAME, "date": PROFILE_DATE },
        "chips": rows,
    }))
}

/// Why an MFU above 100% is impossible, and what usually caused it: the
/// calculator's refusal, a cause a line (each stays readable under the error-line bound).
pub fn over_peak_text(o: &OverPeak) -> String {
    let pct = |m: f64| format!("{:.1}%", m * 100.0);
    let causes: Vec<String> = o
        .causes
        .iter()
        .map(|cause| match cause {
            OverPeakCause::PerGpuRateMayBeWholeJob { rate, mfu: Some(m) } => format!(
                "--tokens-per-sec-per-gpu is one GPU's rate: if {rate} is the whole job's, give --tokens-per-sec (MFU {})",
                pct(*m)
            ),
            OverPeakCause::PerGpuRateMayBeWholeJob { rate, mfu: None } => format!(
                "--tokens-per-sec-per-gpu is one GPU's rate: if {rate} is the whole job's, give --tokens-per-sec with --gpus"
            ),
            OverPeakCause::WholeJobOnMoreGpus { gpus } => format!(
                "--tokens-per-sec is the whole job's rate over --gpus {gpus}: is the job on more GPUs?"
            ),
            OverPeakCause::OtherDtype { given, candidates } => format!(
                "the {given} peak may be the wrong dtype: the job may run in {}",
                candidates
                    .iter()
                    .map(|(d, p, m)| format!("--dtype {d} (peak {p}, MFU {})", pct(*m)))
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
            OverPeakCause::ParamsUnit(Mode::Train) => "--params is the parameter count (6N FLOPs per token training): check its unit (7B, not 7T) and --mode".to_string(),
            OverPeakCause::ParamsUnit(Mode::Inference) => "--params is the parameter count (2N FLOPs per token in inference): check its unit (7B, not 7T)".to_string(),
            OverPeakCause::FlopsPerTokenUnit => {
                "--flops-per-token is per token, not per step or per sequence".to_string()
            }
            OverPeakCause::AchievedIsTheJobs => {
                "--achieved-tflops-per-gpu is one GPU's model TFLOP/s, not the job's".to_string()
            }
        })
        .collect();
    format!(
        "MFU {} is above 100%: {:.1} achieved TFLOP/s per GPU exceed the dense {} peak of {} TFLOP/s; likely:\n  - {}",
        pct(o.mfu),
        o.achieved_tflops_per_gpu,
        o.dtype,
        o.peak_tflops_per_gpu,
        if causes.is_empty() {
            "a wrong --peak-tflops".to_string()
        } else {
            causes.join("\n  - ")
        }
    )
}

#[cfg(test)]
mod over_peak_tests {
    use super::*;
    use crate::audit::calculator::{
        CalcInput, CalcWork, ModelFlops, TokenRate, calculate, over_peak,
    };

    #[test]
    fn the_refusal_names_each_cause_on_its_own_line() -> anyhow::Result<()> {
        let input = CalcInput {
            gpu: None,
            peak_tflops_per_gpu: 100.0,
            peak_source: "--peak-tflops".to_string(),
            dtype: Dtype::Bf16,
            gpus: Some(4),
            mode: Mode::Inference,
            recompute: None,
            work: CalcWork::Tokens {
                rate: TokenRate::WholeJob(100_000.0),
                flops: ModelFlops::Params {
                    params: 7e9,
                    attention: None,
                },
            },
        };
        // 2 x 7e9 x 25,000 tokens/s per GPU = 350 TFLOP/s of 100
        let o = over_peak(&input, &calculate(&input)?).ok_or(anyhow::anyhow!("possible"))?;
        assert_eq!(
            over_peak_text(&o),
            "MFU 350.0% is above 100%: 350.0 achieved TFLOP/s per GPU exceed the dense bf16 peak of 100 TFLOP/s; likely:\n  - --tokens-per-sec is the whole job's rate over --gpus 4: is the job on more GPUs?\n  - --params is the parameter count (2N FLOPs per token in inference): check its unit (7B, not 7T)"
        );
        Ok(())
    }
}
