//! `gpuaudit mfu`: the flags become the calculator's input, the calculator
//! (audit/) answers, render/ words the answer or why it is impossible.
use crate::audit::calculator::{
    Attention, CalcInput, CalcWork, ModelFlops, TokenRate, calculate, over_peak,
};
use crate::catalog::peaks as hardware;
use crate::cli::mfu::{MfuArgs, TableOrJson};
use crate::output::write_stdout;
use crate::render;
use anyhow::Result;

/// Turn the flags into the calculator's input (clap has already refused the
/// contradictory combinations; what is left here is arithmetic).
pub fn calc_input(args: &MfuArgs) -> Result<CalcInput> {
    let (gpu, peak, source) = match (&args.gpu, args.peak_tflops) {
        (_, Some(p)) => (None, p, "--peak-tflops".to_string()),
        (Some(name), None) => {
            let chip = hardware::find(name)?;
            let p = hardware::peak_tflops(name, args.dtype)?;
            (Some(chip.name.to_string()), p, chip.peak_source.to_string())
        }
        (None, None) => anyhow::bail!("give --gpu NAME or --peak-tflops X"),
    };
    let rate = match (
        args.tokens_per_sec,
        args.tokens_per_sec_per_gpu,
        args.tokens_per_step,
        args.step_time,
    ) {
        (Some(t), ..) => Some(TokenRate::WholeJob(t)),
        (None, Some(t), ..) => Some(TokenRate::PerGpu(t)),
        (None, None, Some(tokens), Some(secs)) => Some(TokenRate::WholeJob(tokens / secs)),
        _ => None,
    };
    let work = match (args.achieved_tflops_per_gpu, rate) {
        (Some(a), _) => CalcWork::AchievedTflopsPerGpu(a),
        (None, Some(rate)) => {
            let flops = match (args.flops_per_token, args.params) {
                (Some(f), _) => ModelFlops::PerToken(f),
                (None, Some(n)) => {
                    let attention = match (args.layers, args.heads, args.head_dim, args.seq_len) {
                        (Some(l), Some(h), Some(q), Some(t)) => Some(Attention {
                            layers: l as f64,
                            heads: h as f64,
                            head_dim: q as f64,
                            seq_len: t as f64,
                        }),
                        _ => None,
                    };
                    ModelFlops::Params {
                        params: n,
                        attention,
                    }
                }
                (None, None) => {
                    anyhow::bail!("give --flops-per-token or --params with the throughput")
                }
            };
            CalcWork::Tokens { rate, flops }
        }
        (None, None) => anyhow::bail!(
            "give --tokens-per-sec (whole job), --tokens-per-sec-per-gpu, --tokens-per-step with --step-time, or --achieved-tflops-per-gpu"
        ),
    };
    Ok(CalcInput {
        gpu,
        peak_tflops_per_gpu: peak,
        peak_source: source,
        dtype: args.dtype,
        gpus: args.gpus,
        mode: args.mode,
        recompute: args.recompute,
        work,
    })
}

pub fn run(args: MfuArgs) -> Result<u8> {
    let input = calc_input(&args)?;
    let calc = calculate(&input)?;
    if let Some(impossible) = over_peak(&input, &calc) {
        anyhow::bail!("{}", render::mfu::over_peak_text(&impossible));
    }
    let text = match args.format {
        TableOrJson::Table => render::mfu::calculation_table(&calc),
        TableOrJson::Json => render::mfu::json(&calc)?,
    };
    write_stdout(&text)?;
    Ok(0)
}
