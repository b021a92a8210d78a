//! `gpuaudit mfu` (the calculator), `gpuaudit peaks` (the peak table) and the
//! declared-work flags a live command (scan) can flatten in.
use crate::audit::calculator::{Mode, Recompute};
use crate::catalog::Dtype;
use crate::source::jobs::flops::{count_arg, gpus_arg, positive_arg, seconds_arg};
use clap::{ArgGroup, Args, ValueEnum};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableOrJson {
    Table,
    Json,
}

#[derive(Debug, Clone, Args)]
#[command(group(ArgGroup::new("peak").required(true).args(["gpu", "peak_tflops"])))]
#[command(group(ArgGroup::new("work").required(true).args(["tokens_per_sec", "tokens_per_sec_per_gpu", "tokens_per_step", "achieved_tflops_per_gpu"])))]
#[command(group(ArgGroup::new("model_flops").args(["flops_per_token", "params"])))]
pub struct MfuArgs {
    /// Number of GPUs (chips) the job runs on (16384 or 16,384).
    #[arg(long, value_name = "N", value_parser = gpus_arg)]
    pub gpus: Option<u64>,

    /// GPU name as NVML reports it ("NVIDIA H100 80GB HBM3") or another spelling of
    /// one card ("H100 SXM", "NVIDIA-H100-80GB-HBM3"); its dense peak comes from the
    /// catalog (`gpuaudit peaks`).
    #[arg(long, value_name = "NAME")]
    pub gpu: Option<String>,

    /// Dense peak TFLOP/s of one GPU for the dtype, instead of --gpu.
    #[arg(long, value_name = "TFLOPS", value_parser = positive_arg)]
    pub peak_tflops: Option<f64>,

    /// Number format the model runs in: picks the peak.
    #[arg(long, value_parser = dtype_arg(), default_value = "bf16")]
    pub dtype: Dtype,

    /// Tokens per second of the whole job, all GPUs together (e.g. 238.3K or 238,300); needs --gpus.
    #[arg(long, value_name = "N", value_parser = count_arg, requires_all = ["gpus", "model_flops"])]
    pub tokens_per_sec: Option<f64>,

    /// Tokens per second of one GPU (the whole job's rate divided by its GPUs).
    #[arg(long, value_name = "N", value_parser = count_arg, requires = "model_flops")]
    pub tokens_per_sec_per_gpu: Option<f64>,

    /// Tokens per optimizer step of the whole job (global batch × sequence length); needs --step-time.
    #[arg(long, value_name = "N", value_parser = count_arg, requires_all = ["step_time", "gpus", "model_flops"])]
    pub tokens_per_step: Option<f64>,

    /// Time per step (2.5s, 850ms, 1m).
    #[arg(long, value_name = "DURATION", value_parser = seconds_arg, requires = "tokens_per_step")]
    pub step_time: Option<f64>,

    /// Model FLOPs per token, when you know them.
    #[arg(long, value_name = "FLOPS", value_parser = count_arg)]
    pub flops_per_token: Option<f64>,

    /// Parameter count N (540.35e9, 405B, 70B, 7b): 6N FLOPs per token training, 2N inference.
    #[arg(long, value_name = "N", value_parser = count_arg)]
    pub params: Option<f64>,

    /// train (6N + 12·L·H·Q·T per token) or inference (2N + 4·L·H·Q·T).
    #[arg(long, value_parser = mode_arg(), default_value = "train")]
    pub mode: Mode,

    /// Layers L: with --heads, --head-dim and --seq-len adds the attention term.
    #[arg(long, value_name = "L", value_parser = clap::value_parser!(u64).range(1..), requires_all = ["heads", "head_dim", "seq_len", "params"])]
    pub layers: Option<u64>,

    /// Attention heads H.
    #[arg(long, value_name = "H", value_parser = clap::value_parser!(u64).range(1..), requires = "layers")]
    pub heads: Option<u64>,

    /// Head dimension Q.
    #[arg(long, value_name = "Q", value_parser = clap::value_parser!(u64).range(1..), requires = "layers")]
    pub head_dim: Option<u64>,

    /// Sequence length T.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u64).range(1..), requires = "layers")]
    pub seq_len: Option<u64>,

    /// Achieved model TFLOP/s per GPU, when you have it already (instead of throughput and FLOPs).
    #[arg(long, value_name = "TFLOPS", value_parser = positive_arg, conflicts_with_all = ["model_flops", "step_time", "layers"])]
    pub achieved_tflops_per_gpu: Option<f64>,

    /// Also give HFU: FLOPs of activation recomputation count too
    /// (full: one more forward pass; selective: the attention core again).
    #[arg(long, value_parser = recompute_arg(), value_name = "HOW", num_args = 0..=1, default_missing_value = "full")]
    pub recompute: Option<Recompute>,

    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: TableOrJson,
}

#[derive(Debug, Clone, Args)]
pub struct PeaksArgs {
    /// Show one GPU by any of its spellings ("NVIDIA H100 80GB HBM3", "H100 SXM",
    /// "NVIDIA-H100-80GB-HBM3"); an unknown or ambiguous name lists the candidates.
    #[arg(value_name = "NAME")]
    pub gpu: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: TableOrJson,
}

/// Declared work of a running job, for a live MFU (flatten into a command's args).
#[derive(Debug, Clone, Args, Default)]
#[command(group(ArgGroup::new("declared_model_flops").args(["flops_per_token", "params"])))]
pub struct DeclaredWorkArgs {
    /// Tokens per second the job on this node processes (e.g. 12.5K); needs --flops-per-token or --params.
    #[arg(long, value_name = "N", value_parser = count_arg, requires = "declared_model_flops")]
    pub tokens_per_sec: Option<f64>,

    /// Model FLOPs per token.
    #[arg(long, value_name = "FLOPS", value_parser = count_arg, requires = "tokens_per_sec")]
    pub flops_per_token: Option<f64>,

    /// Parameter count (70B, 7b, 540.35e9): 6N FLOPs per token training, 2N inference.
    #[arg(long, value_name = "N", value_parser = count_arg, requires = "tokens_per_sec")]
    pub params: Option<f64>,

    /// train (6N) or inference (2N), for --params.
    #[arg(long, value_parser = mode_arg(), value_name = "MODE", requires = "params")]
    pub mode: Option<Mode>,

    /// Achieved model TFLOP/s of the job on this node, when known (instead of the above).
    #[arg(long, value_name = "TFLOPS", value_parser = positive_arg, conflicts_with_all = ["tokens_per_sec", "declared_model_flops"])]
    pub achieved_tflops: Option<f64>,

    /// Number format the job runs in: picks each GPU's dense peak [default: bf16].
    #[arg(long, value_parser = dtype_arg(), value_name = "DTYPE")]
    pub dtype: Option<Dtype>,
}

// The domain enums stay free of clap: their names become the possible values
// here, so help, man pages and completions list them as before.
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

fn one_of<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    name: fn(T) -> &'static str,
    help: fn(T) -> Option<&'static str>,
) -> impl TypedValueParser<Value = T> {
    let values = all.iter().map(move |&v| {
        let p = PossibleValue::new(name(v));
        match help(v) {
            Some(h) => p.help(h),
            None => p,
        }
    });
    PossibleValuesParser::new(values).try_map(move |text: String| {
        all.iter()
            .copied()
            .find(|&v| name(v) == text)
            .ok_or_else(|| format!("not one of the possible values: {text}"))
    })
}

fn dtype_arg() -> impl TypedValueParser<Value = Dtype> {
    one_of(&Dtype::ALL, Dtype::name, |_| None)
}

fn mode_arg() -> impl TypedValueParser<Value = Mode> {
    one_of(&Mode::ALL, Mode::name, |_| None)
}

fn recompute_arg() -> impl TypedValueParser<Value = Recompute> {
    one_of(&Recompute::ALL, Recompute::name, |r| {
        Some(match r {
            Recompute::Full => "the whole forward pass again: + 2N + 4·L·H·Q·T per token",
            Recompute::Selective => {
                "only the attention core again (Korthikanti et al.): + 4·L·H·Q·T per token"
            }
        })
    })
}
