//! The MFU calculator (`gpuaudit mfu`): model FLOPs per token (PaLM's
//! accounting), MFU and HFU from a throughput or achieved TFLOP/s, and why an
//! MFU above 100% is impossible, as typed causes that render/ words; and the
//! declared work of a live job (`scan`). Pure arithmetic: nothing here prints.
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

/// MFU (and HFU) from throughput and model FLOPs, or from achieved TFLOP/s. An
/// MFU above 100% is returned as computed: [`over_peak`] says why it is impossible.
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

/// An MFU above 100%: the figures, and what usually caused it (most likely first).
#[derive(Debug, Clone, PartialEq)]
pub struct OverPeak {
    pub mfu: f64,
    pub achieved_tflops_per_gpu: f64,
    pub dtype: Dtype,
    pub peak_tflops_per_gpu: f64,
    /// empty: only a wrong --peak-tflops explains it
    pub causes: Vec<OverPeakCause>,
}

/// One likely cause of an impossible MFU; a cause carries the MFU it would give
/// only when that is possible (<= 100%).
#[derive(Debug, Clone, PartialEq)]
pub enum OverPeakCause {
    /// a per-GPU rate that may be the whole job's; `mfu` over `--gpus` when given
    PerGpuRateMayBeWholeJob { rate: f64, mfu: Option<f64> },
    /// a whole-job rate over `gpus`: the job may run on more
    WholeJobOnMoreGpus { gpus: u64 },
    /// the job may run in another dtype with a higher peak: (dtype, peak, MFU)
    OtherDtype {
        given: Dtype,
        candidates: Vec<(Dtype, f64, f64)>,
    },
    /// the parameter count's unit (7B, not 7T), and the mode
    ParamsUnit(Mode),
    /// FLOPs per step or per sequence given as per token
    FlopsPerTokenUnit,
    /// the job's TFLOP/s given as one GPU's
    AchievedIsTheJobs,
}

/// Why the calculation's MFU is impossible; None when it is at most 100%.
pub fn over_peak(input: &CalcInput, c: &Calculation) -> Option<OverPeak> {
    if c.mfu <= 1.0 {
        return None;
    }
    let possible = |m: f64| m <= 1.0;
    let mut causes = Vec::new();
    match (input.work, input.gpus) {
        (
            CalcWork::Tokens {
                rate: TokenRate::PerGpu(t),
                ..
            },
            Some(g),
        ) if g > 1 && possible(c.mfu / g as f64) => {
            causes.push(OverPeakCause::PerGpuRateMayBeWholeJob {
                rate: t,
                mfu: Some(c.mfu / g as f64),
            })
        }
        (
            CalcWork::Tokens {
                rate: TokenRate::PerGpu(t),
                ..
            },
            None,
        ) => causes.push(OverPeakCause::PerGpuRateMayBeWholeJob { rate: t, mfu: None }),
        (
            CalcWork::Tokens {
                rate: TokenRate::WholeJob(_),
                ..
            },
            Some(g),
        ) => causes.push(OverPeakCause::WholeJobOnMoreGpus { gpus: g }),
        _ => {}
    }
    if let Some(name) = &input.gpu
        && let Some(g) = crate::catalog::peaks::lookup(name)
    {
        let candidates: Vec<(Dtype, f64, f64)> = g
            .peaks
            .iter()
            .filter(|(d, p)| {
                !matches!(d, Dtype::Int8)
                    && *d != input.dtype
                    && possible(c.achieved_tflops_per_gpu / p)
            })
            .map(|(d, p)| (*d, *p, c.achieved_tflops_per_gpu / p))
            .collect();
        if !candidates.is_empty() {
            causes.push(OverPeakCause::OtherDtype {
                given: input.dtype,
                candidates,
            });
        }
    }
    causes.push(match input.work {
        CalcWork::Tokens {
            flops: ModelFlops::Params { .. },
            ..
        } => OverPeakCause::ParamsUnit(input.mode),
        CalcWork::Tokens {
            flops: ModelFlops::PerToken(_),
            ..
        } => OverPeakCause::FlopsPerTokenUnit,
        CalcWork::AchievedTflopsPerGpu(_) => OverPeakCause::AchievedIsTheJobs,
    });
    Some(OverPeak {
        mfu: c.mfu,
        achieved_tflops_per_gpu: c.achieved_tflops_per_gpu,
        dtype: input.dtype,
        peak_tflops_per_gpu: input.peak_tflops_per_gpu,
        causes,
    })
}

/// What a live job declares it does (`scan --achieved-tflops`, `--tokens-per-sec`
/// with `--flops-per-token` or `--params`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DeclaredWork {
    /// the job's model TFLOP/s
    AchievedTflops(f64),
    /// tokens per second times model FLOPs per token
    Tokens { per_sec: f64, flops_per_token: f64 },
    /// tokens per second times the dense FLOPs of N parameters (6N or 2N)
    TokensOfParams {
        per_sec: f64,
        params: f64,
        mode: Mode,
    },
}

impl DeclaredWork {
    /// The declared model FLOP/s.
    pub fn flops_per_sec(self) -> f64 {
        match self {
            DeclaredWork::AchievedTflops(a) => a * 1e12,
            DeclaredWork::Tokens {
                per_sec,
                flops_per_token,
            } => flops_per_token * per_sec,
            DeclaredWork::TokensOfParams {
                per_sec,
                params,
                mode,
            } => dense_flops_per_token(params, mode) * per_sec,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn tokens_input(gpus: Option<u64>, rate: TokenRate) -> CalcInput {
        CalcInput {
            gpu: Some("NVIDIA H100 80GB HBM3".to_string()),
            peak_tflops_per_gpu: 989.0,
            peak_source: "test".to_string(),
            dtype: Dtype::Bf16,
            gpus,
            mode: Mode::Train,
            recompute: None,
            work: CalcWork::Tokens {
                rate,
                flops: ModelFlops::Params {
                    params: 70e9,
                    attention: None,
                },
            },
        }
    }

    #[test]
    fn over_peak_names_typed_causes() -> Result<()> {
        // 8 GPUs at 10k tokens/s each on 70B: 6 * 70e9 * 1e4 = 4.2 PFLOP/s per GPU
        let input = tokens_input(Some(8), TokenRate::PerGpu(10_000.0));
        let c = calculate(&input)?;
        assert!((c.mfu - 4200.0 / 989.0).abs() < 1e-12);
        let o = over_peak(&input, &c).context("over 100%")?;
        assert_eq!(o.dtype, Dtype::Bf16);
        assert_eq!(o.peak_tflops_per_gpu, 989.0);
        assert_eq!(o.causes.len(), 2, "{:?}", o.causes);
        assert_eq!(o.causes[1], OverPeakCause::ParamsUnit(Mode::Train));
        match &o.causes[0] {
            OverPeakCause::PerGpuRateMayBeWholeJob { rate, mfu: Some(m) } => {
                assert_eq!(*rate, 10_000.0);
                assert!((m - 4200.0 / 989.0 / 8.0).abs() < 1e-12);
            }
            other => bail!("unexpected cause {other:?}"),
        }
        // a possible MFU has no over-peak causes
        let fine = tokens_input(Some(8), TokenRate::WholeJob(10_000.0));
        assert!(over_peak(&fine, &calculate(&fine)?).is_none());
        Ok(())
    }

    #[test]
    fn declared_work_in_flops_per_sec() {
        assert_eq!(DeclaredWork::AchievedTflops(400.0).flops_per_sec(), 400e12);
        let tokens = DeclaredWork::Tokens {
            per_sec: 1e3,
            flops_per_token: 4.2e10,
        };
        assert_eq!(tokens.flops_per_sec(), 4.2e13);
        let params = |mode| DeclaredWork::TokensOfParams {
            per_sec: 1e3,
            params: 7e9,
            mode,
        };
        assert_eq!(params(Mode::Train).flops_per_sec(), 4.2e13);
        assert_eq!(params(Mode::Inference).flops_per_sec(), 1.4e13);
    }
}
