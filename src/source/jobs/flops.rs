//! Model FLOPs per token (PaLM's accounting) and the numbers people write for
//! them: `540.35e9`, `405B`, `238.3K`, `64,000`.
use crate::catalog::Dtype;
use anyhow::{Context, Result, bail};
use serde::Serialize;

/// Training counts forward and backward (6N); inference the forward pass (2N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Train,
    Inference,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Train, Mode::Inference];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Train => "train",
            Mode::Inference => "inference",
        }
    }
}

/// How activations are recomputed in the backward pass (for HFU only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recompute {
    /// the whole forward pass again: + 2N + 4·L·H·Q·T per token
    Full,
    /// only the attention core again (Korthikanti et al.): + 4·L·H·Q·T per token
    Selective,
}

impl Recompute {
    pub const ALL: [Recompute; 2] = [Recompute::Full, Recompute::Selective];

    pub fn name(self) -> &'static str {
        match self {
            Recompute::Full => "full",
            Recompute::Selective => "selective",
        }
    }
}

/// The attention shape: layers, heads, head dimension, sequence length.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Attention {
    pub layers: f64,
    pub heads: f64,
    pub head_dim: f64,
    pub seq_len: f64,
}

impl Attention {
    /// L·H·Q·T: one forward pass's attention matmuls are 4× this per token.
    fn lhqt(&self) -> f64 {
        self.layers * self.heads * self.head_dim * self.seq_len
    }
}

/// The parameter term per token: 6N training, 2N inference.
pub fn dense_flops_per_token(params: f64, mode: Mode) -> f64 {
    match mode {
        Mode::Train => 6.0 * params,
        Mode::Inference => 2.0 * params,
    }
}

/// The attention term per token: 12·L·H·Q·T training, 4·L·H·Q·T inference.
pub fn attention_flops_per_token(a: &Attention, mode: Mode) -> f64 {
    match mode {
        Mode::Train => 12.0 * a.lhqt(),
        Mode::Inference => 4.0 * a.lhqt(),
    }
}

/// FLOPs the hardware executes per token beyond the model's, for recomputation.
/// `None` when the attention shape is needed but unknown.
pub fn recompute_flops_per_token(
    params: Option<f64>,
    attention: Option<&Attention>,
    model_flops_per_token: f64,
    r: Recompute,
) -> Option<f64> {
    match r {
        Recompute::Full => match params {
            // one more forward pass: 2N + 4·L·H·Q·T
            Some(n) => Some(2.0 * n + attention.map(|a| 4.0 * a.lhqt()).unwrap_or(0.0)),
            // only the training total is known: a forward pass is a third of it
            None => Some(model_flops_per_token / 3.0),
        },
        Recompute::Selective => attention.map(|a| 4.0 * a.lhqt()),
    }
}

/// Where the model FLOPs per token come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ModelFlops {
    PerToken(f64),
    Params {
        params: f64,
        attention: Option<Attention>,
    },
}

/// What the calculator is given, already checked for consistency by the CLI.
#[derive(Debug, Clone, PartialEq)]
pub struct CalcInput {
    pub gpu: Option<String>,
    pub peak_tflops_per_gpu: f64,
    pub peak_source: String,
    pub dtype: Dtype,
    pub gpus: Option<u64>,
    pub mode: Mode,
    pub recompute: Option<Recompute>,
    pub work: CalcWork,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CalcWork {
    Tokens { rate: TokenRate, flops: ModelFlops },
    AchievedTflopsPerGpu(f64),
}

/// Which throughput was given: the whole job's (over `gpus`) or one GPU's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TokenRate {
    WholeJob(f64),
    PerGpu(f64),
}

/// The calculator's answer ("gpuaudit.mfu/1"); fractions, not percents.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calculation {
    pub schema: &'static str,
    pub gpu: Option<String>,
    pub dtype: Dtype,
    pub peak_tflops_per_gpu: f64,
    pub peak_source: String,
    pub gpus: Option<u64>,
    pub mode: Mode,
    /// the whole job's tokens per second (None when only a per-GPU rate and no --gpus)
    pub tokens_per_sec: Option<f64>,
    pub tokens_per_sec_per_gpu: Option<f64>,
    /// which rate was given: "whole job" or "per GPU"
    pub tokens_per_sec_given: Option<&'static str>,
    pub params: Option<f64>,
    /// the model FLOPs per token MFU uses (with the attention term when given)
    pub flops_per_token: Option<f64>,
    pub attention_flops_per_token: Option<f64>,
    pub achieved_tflops_per_gpu: f64,
    pub achieved_tflops_per_gpu_without_attention: Option<f64>,
    pub mfu: f64,
    /// 6N (or 2N) only; equal to mfu when no attention shape was given
    pub mfu_without_attention: Option<f64>,
    pub recompute: Option<Recompute>,
    pub hardware_flops_per_token: Option<f64>,
    pub hfu: Option<f64>,
}

/// MFU (and HFU) from throughput and model FLOPs, or from achieved TFLOP/s.
pub fn calculate(input: &CalcInput) -> Result<Calculation> {
    let peak = input.peak_tflops_per_gpu;
    let mut c = Calculation {
        schema: "gpuaudit.mfu/1",
        gpu: input.gpu.clone(),
        dtype: input.dtype,
        peak_tflops_per_gpu: peak,
        peak_source: input.peak_source.clone(),
        gpus: input.gpus,
        mode: input.mode,
        tokens_per_sec: None,
        tokens_per_sec_per_gpu: None,
        tokens_per_sec_given: None,
        params: None,
        flops_per_token: None,
        attention_flops_per_token: None,
        achieved_tflops_per_gpu: 0.0,
        achieved_tflops_per_gpu_without_attention: None,
        mfu: 0.0,
        mfu_without_attention: None,
        recompute: input.recompute,
        hardware_flops_per_token: None,
        hfu: None,
    };
    if input.recompute.is_some() && input.mode == Mode::Inference {
        bail!("--recompute applies to training: there is no backward pass in --mode inference");
    }
    match input.work {
        CalcWork::AchievedTflopsPerGpu(a) => from_achieved(input, a, &mut c)?,
        CalcWork::Tokens { rate, flops } => from_tokens(input, rate, flops, &mut c)?,
    }
    if c.mfu > 1.0 {
        bail!("{}", over_peak(input, &c));
    }
    Ok(c)
}

/// MFU (and HFU under a full recompute) from achieved TFLOP/s per GPU.
fn from_achieved(input: &CalcInput, achieved: f64, c: &mut Calculation) -> Result<()> {
    c.achieved_tflops_per_gpu = achieved;
    c.mfu = achieved / input.peak_tflops_per_gpu;
    if let Some(r) = input.recompute {
        if r == Recompute::Selective {
            bail!(
                "--recompute selective needs the attention shape (--params with --layers --heads --head-dim --seq-len), not --achieved-tflops-per-gpu"
            );
        }
        // a full recompute adds a forward pass: a third of the training FLOPs
        c.hfu = Some(c.mfu * 4.0 / 3.0);
    }
    Ok(())
}

/// MFU (and HFU) from a token throughput and the model's FLOPs per token.
fn from_tokens(
    input: &CalcInput,
    rate: TokenRate,
    flops: ModelFlops,
    c: &mut Calculation,
) -> Result<()> {
    let peak = input.peak_tflops_per_gpu;
    let per_gpu = match rate {
        TokenRate::WholeJob(t) => {
            t / input
                .gpus
                .context("--gpus is needed with a whole-job token throughput")?
                as f64
        }
        TokenRate::PerGpu(t) => t,
    };
    let per_gpu_tflops = |fpt: f64| fpt * per_gpu / 1e12;
    let (params, attention, fpt, dense) = match flops {
        ModelFlops::PerToken(f) => (None, None, f, None),
        ModelFlops::Params { params, attention } => {
            let dense = dense_flops_per_token(params, input.mode);
            let attn = attention
                .as_ref()
                .map(|a| attention_flops_per_token(a, input.mode));
            (
                Some(params),
                attention,
                dense + attn.unwrap_or(0.0),
                Some(dense),
            )
        }
    };
    (c.tokens_per_sec, c.tokens_per_sec_given) = match rate {
        TokenRate::WholeJob(t) => (Some(t), Some("whole job")),
        TokenRate::PerGpu(t) => (input.gpus.map(|g| t * g as f64), Some("per GPU")),
    };
    c.tokens_per_sec_per_gpu = Some(per_gpu);
    c.params = params;
    c.flops_per_token = Some(fpt);
    c.attention_flops_per_token = attention
        .as_ref()
        .map(|a| attention_flops_per_token(a, input.mode));
    c.achieved_tflops_per_gpu = per_gpu_tflops(fpt);
    c.achieved_tflops_per_gpu_without_attention = dense.map(per_gpu_tflops);
    c.mfu = c.achieved_tflops_per_gpu / peak;
    c.mfu_without_attention = dense.map(|d| per_gpu_tflops(d) / peak);
    if let Some(r) = input.recompute {
        let extra = recompute_flops_per_token(params, attention.as_ref(), fpt, r).context(
            "--recompute selective needs the attention shape: --params with --layers --heads --head-dim --seq-len",
        )?;
        c.hardware_flops_per_token = Some(fpt + extra);
        c.hfu = Some(per_gpu_tflops(fpt + extra) / peak);
    }
    Ok(())
}

/// Why an MFU above 100% is impossible, and what usually caused it.
fn over_peak(input: &CalcInput, c: &Calculation) -> String {
    let mut causes: Vec<String> = Vec::new();
    let pct = |m: f64| format!("{:.1}%", m * 100.0);
    // a cause is named with the MFU it would give only when that is possible (<= 100%)
    let possible = |m: f64| m <= 1.0;
    match (input.work, input.gpus) {
        (CalcWork::Tokens { rate: TokenRate::PerGpu(t), .. }, Some(g)) if g > 1 && possible(c.mfu / g as f64) => causes.push(format!(
            "--tokens-per-sec-per-gpu is one GPU's rate: if {t} is the whole job's, give --tokens-per-sec (MFU {})",
            pct(c.mfu / g as f64)
        )),
        (CalcWork::Tokens { rate: TokenRate::PerGpu(t), .. }, None) => {
            causes.push(format!("--tokens-per-sec-per-gpu is one GPU's rate: if {t} is the whole job's, give --tokens-per-sec with --gpus"))
        }
        (CalcWork::Tokens { rate: TokenRate::WholeJob(_), .. }, Some(g)) => {
            causes.push(format!("--tokens-per-sec is the whole job's rate over --gpus {g}: is the job on more GPUs?"))
        }
        _ => {}
    }
    if let Some(name) = &input.gpu
        && let Some(g) = crate::catalog::peaks::lookup(name)
    {
        let higher: Vec<String> = g
            .peaks
            .iter()
            .filter(|(d, p)| {
                !matches!(d, Dtype::Int8)
                    && *d != input.dtype
                    && possible(c.achieved_tflops_per_gpu / p)
            })
            .map(|(d, p)| {
                format!(
                    "--dtype {d} (peak {p}, MFU {})",
                    pct(c.achieved_tflops_per_gpu / p)
                )
            })
            .collect();
        if !higher.is_empty() {
            causes.push(format!(
                "the {} peak may be the wrong dtype: the job may run in {}",
                input.dtype,
                higher.join(" or ")
            ));
        }
    }
    if let CalcWork::Tokens {
        flops: ModelFlops::Params { .. },
        ..
    } = input.work
    {
        causes.push(match input.mode {
            Mode::Train => "--params is the parameter count (6N FLOPs per token training): check its unit (7B, not 7T) and --mode".to_string(),
            Mode::Inference => "--params is the parameter count (2N FLOPs per token in inference): check its unit (7B, not 7T)".to_string(),
        });
    }
    if let CalcWork::Tokens {
        flops: ModelFlops::PerToken(_),
        ..
    } = input.work
    {
        causes.push("--flops-per-token is per token, not per step or per sequence".to_string());
    }
    if let CalcWork::AchievedTflopsPerGpu(_) = input.work {
        causes.push(
            "--achieved-tflops-per-gpu is one GPU's model TFLOP/s, not the job's".to_string(),
        );
    }
    format!(
        "MFU {} is above 100%: {:.1} achieved TFLOP/s per GPU exceed the dense {} peak of {} TFLOP/s; likely:\n  - {}",
        pct(c.mfu),
        c.achieved_tflops_per_gpu,
        input.dtype,
        input.peak_tflops_per_gpu,
        if causes.is_empty() {
            "a wrong --peak-tflops".to_string()
        } else {
            // a cause a line: each stays readable under the error-line bound
            causes.join("\n  - ")
        }
    )
}

/// A number with thousands separators as output prints them ("64,000",
/// "1,978.9") without them; a comma that is not one ("1,5") is an error.
fn without_thousands(text: &str) -> Result<String> {
    let t = text.trim().replace('_', "");
    if !t.contains(',') {
        return Ok(t);
    }
    let int = t.split(['.', 'e', 'E']).next().unwrap_or_default();
    let int = int.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let groups: Vec<&str> = int.split(',').collect();
    let digits = |g: &str| !g.is_empty() && g.chars().all(|c| c.is_ascii_digit());
    let ok = groups.first().is_some_and(|g| digits(g) && g.len() <= 3)
        && groups[1..].iter().all(|g| digits(g) && g.len() == 3);
    if !ok {
        bail!(
            "'{text}': a comma only separates thousands (64,000); write decimals with a point (1.5)"
        );
    }
    Ok(t.replace(',', ""))
}

/// A count: `540.35e9`, `405B`, `70b`, `1.5T`, `350M`, `238.3K`, `7000000000`, `64,000`.
pub fn parse_count(text: &str) -> Result<f64> {
    let t = without_thousands(text)?;
    let (num, mult) = match t.chars().last() {
        Some(c) if c.is_ascii_alphabetic() && !t.ends_with(['e', 'E']) => {
            let m = match c.to_ascii_lowercase() {
                'k' => 1e3,
                'm' => 1e6,
                'b' | 'g' => 1e9,
                't' => 1e12,
                'p' => 1e15,
                _ => bail!(
                    "'{text}': unknown suffix '{c}' (expected K, M, B, T or a plain number like 540.35e9)"
                ),
            };
            (&t[..t.len() - 1], m)
        }
        _ => (t.as_str(), 1.0),
    };
    let v: f64 = num.trim().parse().map_err(|_| {
        anyhow::anyhow!("'{text}' is not a number (expected e.g. 540.35e9, 405B, 238.3K)")
    })?;
    let v = v * mult;
    if !v.is_finite() || v <= 0.0 {
        bail!("'{text}' must be a positive number");
    }
    Ok(v)
}

/// Seconds, in the one duration grammar ([`crate::timeparse::parse_duration_us`]):
/// `2.5s`, `850ms`, `1m`, `1h30m`; a bare number is refused as ambiguous.
pub fn parse_seconds(text: &str) -> Result<f64> {
    let seconds = crate::timeparse::parse_duration(text)?.as_secs_f64();
    if seconds <= 0.0 {
        bail!("'{text}' must be a positive duration");
    }
    Ok(seconds)
}

/// clap value parsers with the same messages.
pub fn count_arg(text: &str) -> std::result::Result<f64, String> {
    parse_count(text).map_err(|e| e.to_string())
}
pub fn seconds_arg(text: &str) -> std::result::Result<f64, String> {
    parse_seconds(text).map_err(|e| e.to_string())
}
/// A positive finite number (TFLOP/s and the like; "1,978.9" too).
pub fn positive_arg(text: &str) -> std::result::Result<f64, String> {
    let t = without_thousands(text).map_err(|e| e.to_string())?;
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("'{text}' is not a positive number")),
    }
}
/// A whole number >= 1 ("16,384" too), for GPU counts.
pub fn gpus_arg(text: &str) -> std::result::Result<u64, String> {
    let t = without_thousands(text).map_err(|e| e.to_string())?;
    match t.parse::<u64>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(format!("'{text}' is not a whole number of GPUs >= 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() -> Result<()> {
        assert_eq!(parse_count("540.35e9")?, 540.35e9);
        assert_eq!(parse_count("405B")?, 405e9);
        assert_eq!(parse_count("70B")?, 70e9);
        assert_eq!(parse_count("7b")?, 7e9);
        assert_eq!(parse_count("238.3K")?, 238_300.0);
        assert_eq!(parse_count("1.5T")?, 1.5e12);
        assert!(parse_count("7x").is_err());
        assert!(parse_count("-5").is_err());
        assert!(parse_count("B").is_err());
        assert!(parse_count("0").is_err());
        // as the output prints them
        assert_eq!(parse_count("64,000")?, 64_000.0);
        assert_eq!(parse_count("1,234,567.5")?, 1_234_567.5);
        assert_eq!(parse_count("238,300")?, 238_300.0);
        assert_eq!(parse_count("1,500K")?, 1_500_000.0);
        assert!(parse_count("1,5").is_err());
        assert!(parse_count("64,00").is_err());
        assert!(parse_count(",000").is_err());
        assert_eq!(positive_arg("1,978.9"), Ok(1978.9));
        assert_eq!(gpus_arg("16,384"), Ok(16_384));
        assert!(gpus_arg("0").is_err());
        assert!(gpus_arg("1.5").is_err());
        Ok(())
    }

    #[test]
    fn seconds() -> Result<()> {
        assert_eq!(parse_seconds("2.5s")?, 2.5);
        assert_eq!(parse_seconds("1h30m")?, 5400.0);
        assert!(parse_seconds("2.5").is_err(), "a bare number is ambiguous");
        assert!(parse_seconds("0s").is_err());
        assert_eq!(parse_seconds("850ms")?, 0.85);
        assert_eq!(parse_seconds("1m")?, 60.0);
        assert!(parse_seconds("soon").is_err());
        Ok(())
    }

    #[test]
    fn palm_flops_per_token() {
        let a = Attention {
            layers: 118.0,
            heads: 48.0,
            head_dim: 256.0,
            seq_len: 2048.0,
        };
        let dense = dense_flops_per_token(540.35e9, Mode::Train);
        let attn = attention_flops_per_token(&a, Mode::Train);
        assert_eq!(dense, 3.2421e12);
        assert_eq!(attn, 12.0 * 118.0 * 48.0 * 256.0 * 2048.0);
        assert_eq!(attention_flops_per_token(&a, Mode::Inference) * 3.0, attn);
        // full recompute adds a forward pass: a third of the training total
        let extra =
            recompute_flops_per_token(Some(540.35e9), Some(&a), dense + attn, Recompute::Full)
                .unwrap_or(0.0);
        assert!((extra - (dense + attn) / 3.0).abs() < 1.0);
    }
}
