//! `gpuaudit mfu`: the MFU calculator; and the jobs-file step of every
//! command that reports (`--jobs`), plus the declared work of a live scan.
use crate::catalog::peaks as hardware;
use crate::cli::mfu::{DeclaredWorkArgs, MfuArgs, TableOrJson};
use crate::output::write_stdout;
use crate::render;
use crate::source::jobs::flops::{
    Attention, CalcInput, CalcWork, Mode, ModelFlops, TokenRate, calculate, dense_flops_per_token,
};
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
    let calc = calculate(&calc_input(&args)?)?;
    let text = match args.format {
        TableOrJson::Table => render::mfu::calculation_table(&calc),
        TableOrJson::Json => render::mfu::json(&calc)?,
    };
    write_stdout(&text)?;
    Ok(0)
}

/// The declared model FLOP/s of a live job (`scan`), or None when nothing was declared.
pub fn declared_flops_per_sec(args: &DeclaredWorkArgs) -> Result<Option<f64>> {
    Ok(
        match (
            args.achieved_tflops,
            args.tokens_per_sec,
            args.flops_per_token,
            args.params,
        ) {
            (Some(a), ..) => Some(a * 1e12),
            (None, Some(t), Some(f), _) => Some(f * t),
            (None, Some(t), None, Some(n)) => {
                Some(dense_flops_per_token(n, args.mode.unwrap_or(Mode::Train)) * t)
            }
            (None, Some(_), None, None) => {
                anyhow::bail!("--tokens-per-sec needs --flops-per-token or --params")
            }
            _ => None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// How a live command flattens the declared-work flags.
    #[derive(Debug, Parser)]
    struct Live {
        #[command(flatten)]
        work: DeclaredWorkArgs,
    }

    fn flops(args: &[&str]) -> Result<Option<f64>> {
        let live = Live::try_parse_from(std::iter::once("scan").chain(args.iter().copied()))?;
        declared_flops_per_sec(&live.work)
    }

    #[test]
    fn declared_work_of_a_live_job() -> Result<()> {
        assert_eq!(flops(&[])?, None);
        assert_eq!(flops(&["--achieved-tflops", "400"])?, Some(400e12));
        assert_eq!(
            flops(&["--tokens-per-sec", "1k", "--flops-per-token", "4.2e10"])?,
            Some(4.2e13)
        );
        assert_eq!(
            flops(&["--tokens-per-sec", "1k", "--params", "7b"])?,
            Some(4.2e13)
        );
        assert_eq!(
            flops(&[
                "--tokens-per-sec",
                "1k",
                "--params",
                "7b",
                "--mode",
                "inference"
            ])?,
            Some(1.4e13)
        );
        // contradictory or incomplete: clap refuses them (a usage error, exit 2)
        assert!(flops(&["--tokens-per-sec", "1k"]).is_err());
        assert!(flops(&["--params", "7b"]).is_err());
        assert!(
            flops(&[
                "--achieved-tflops",
                "4",
                "--tokens-per-sec",
                "1k",
                "--params",
                "7b"
            ])
            .is_err()
        );
        assert!(
            flops(&[
                "--tokens-per-sec",
                "1k",
                "--params",
                "7b",
                "--flops-per-token",
                "1e9"
            ])
            .is_err()
        );
        Ok(())
    }
}
