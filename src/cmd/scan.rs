//! `gpuaudit scan`: the flags become [`ScanOptions`], the pipeline samples this
//! node's GPUs and audits them as `report` does, render/ prints the result.
use super::common::audit_options;
use crate::audit::calculator::{DeclaredWork, Mode};
use crate::audit::model::Warning;
use crate::catalog::Dtype;
use crate::cli::mfu::DeclaredWorkArgs;
use crate::cli::scan::{ScanArgs, ScanFormat};
use crate::error::emit;
use crate::pipeline::scan::{ScanEvents, ScanOptions, ScanOutcome, Scanned};
use crate::render;
use crate::render::diagnostics::{Diagnostic, Diagnostics, ScanSpan};
use crate::source::live::bracket::exit_code;
use anyhow::{Context, Result, anyhow, bail};
use indicatif::ProgressBar;

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default()
}

fn progress(quiet: bool, ticks: Option<usize>) -> ProgressBar {
    let template = match ticks {
        Some(_) => "{spinner} sampling {pos}/{len} ticks [{elapsed}/{duration}]",
        None => "{spinner} sampling: {pos} ticks [{elapsed}]",
    };
    crate::progress::bar(quiet, ticks.map(|n| n as u64), template)
}

/// The one line a CI log shows when a scan starts (not with --quiet).
fn announce(args: &ScanArgs) -> Diagnostic {
    let span = if args.command.is_empty() {
        ScanSpan::For(args.duration)
    } else {
        ScanSpan::While(args.command.clone())
    };
    Diagnostic::ScanStarted {
        interval: args.sample_interval,
        span,
    }
}

/// `scan -- CMD` when sampling cannot start: a driver hiccup must not turn a
/// CI benchmark into no benchmark. CMD runs as it would have (stdio
/// inherited), gpuaudit exits with its code, and the failure is one stderr line.
fn run_unmonitored(argv: &[String], why: &anyhow::Error, said: &mut Diagnostics) -> Result<u8> {
    said.now(Diagnostic::RunningUnmonitored {
        why: format!("{why:#}").replace('\n', " "),
        command: argv.to_vec(),
    });
    let (program, rest) = argv.split_first().context("no command")?;
    let status = std::process::Command::new(program)
        .args(rest)
        .status()
        .with_context(|| format!("cannot run {program}"))?;
    Ok(exit_code(status))
}

/// The terminal a scan runs in: its start line, progress bar and warnings on stderr.
struct Terminal<'a> {
    args: &'a ScanArgs,
    bar: Option<ProgressBar>,
    said: &'a mut Diagnostics,
}

impl ScanEvents for Terminal<'_> {
    fn sampling(&mut self, ticks: Option<usize>) {
        if !self.args.quiet {
            self.said.now(announce(self.args));
        }
        self.bar = Some(progress(self.args.quiet, ticks));
    }
    fn tick(&mut self, n: usize) {
        if let Some(bar) = &self.bar {
            bar.set_position(n as u64);
        }
    }
    fn sampled(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
    fn warning(&mut self, w: &Warning) {
        self.said.now(Diagnostic::ScanWarning(w.clone()));
    }
}

/// The declared work of a live job, or None when nothing was declared.
fn declared_work(args: &DeclaredWorkArgs) -> Result<Option<DeclaredWork>> {
    Ok(
        match (
            args.achieved_tflops,
            args.tokens_per_sec,
            args.flops_per_token,
            args.params,
        ) {
            (Some(a), ..) => Some(DeclaredWork::AchievedTflops(a)),
            (None, Some(per_sec), Some(flops_per_token), _) => Some(DeclaredWork::Tokens {
                per_sec,
                flops_per_token,
            }),
            (None, Some(per_sec), None, Some(params)) => Some(DeclaredWork::TokensOfParams {
                per_sec,
                params,
                mode: args.mode.unwrap_or(Mode::Train),
            }),
            (None, Some(_), None, None) => {
                bail!("--tokens-per-sec needs --flops-per-token or --params")
            }
            _ => None,
        },
    )
}

/// The flags as typed options, each refused (exit 2) with its flag named.
fn scan_options(args: &ScanArgs) -> Result<ScanOptions> {
    let held_mem_bytes = args.audit.held_mem;
    if let Some(out) = &args.out {
        let ext = out
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        if !matches!(ext.as_str(), "parquet" | "csv" | "ndjson" | "jsonl") {
            bail!(
                "--out {}: expected a .parquet, .csv or .ndjson file",
                out.display()
            );
        }
    }
    let dtype = args.work.dtype.unwrap_or(Dtype::Bf16);
    Ok(ScanOptions {
        host: host_name(),
        duration: args.duration,
        interval: args.sample_interval,
        once: args.once,
        command: args.command.clone(),
        pre: args.pre.unwrap_or_default(),
        post: args.post.unwrap_or_default(),
        nvml_lib: args.nvml_lib.clone(),
        nvml_timeout: args.nvml_timeout,
        require_nvml: args.require_nvml,
        out: args.out.clone(),
        held_mem_bytes,
        audit: audit_options(&args.audit)?,
        work: declared_work(&args.work)?.map(|w| (w, dtype)),
    })
}

pub fn run(args: ScanArgs, said: &mut Diagnostics) -> Result<u8> {
    let opts = scan_options(&args)?;
    let mut terminal = Terminal {
        args: &args,
        bar: None,
        said,
    };
    let outcome = crate::pipeline::scan::scan(&opts, &mut terminal)?;
    let scanned = match outcome {
        ScanOutcome::Scanned(s) => s,
        ScanOutcome::Unmonitored(why) => {
            return run_unmonitored(&args.command, &why, terminal.said);
        }
    };
    let Scanned {
        report,
        detail,
        status,
        failed,
    } = *scanned;
    let text = match args.format {
        ScanFormat::Table => {
            let opts = render::table::TableOptions::detect(args.audit.top.unwrap_or(10));
            format!(
                "{}\n{}",
                render::scan::render_table(&detail, opts.width),
                render::table::render(&report, &opts)
            )
        }
        ScanFormat::Json => render::scan::render_json(&report, &detail)?,
    };
    // Decided before writing: a closed stdout keeps a failure (or the command's code).
    let decided = if failed.is_empty() {
        Ok(status.map_or(0, exit_code))
    } else {
        let names: Vec<String> = failed.iter().map(|l| format!("GPU {l}")).collect();
        let (its, them) = if names.len() == 1 {
            ("its", "warning")
        } else {
            ("their", "warnings")
        };
        Err(anyhow!(
            "{} failed mid-scan: {its} remaining samples are missing (see the {them} above)",
            names.join(", ")
        ))
    };
    emit(&text, decided)
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
        Ok(declared_work(&live.work)?.map(DeclaredWork::flops_per_sec))
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
