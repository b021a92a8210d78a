//! `gpuaudit scan`: sample this node's GPUs through NVML, name who holds each
//! card, and print the same held-vs-used report as `report` (one audit path).
use super::bracket::{Bracket, Signals, exit_code, signal_name};
use super::common::audit_options;
use crate::cli::scan::{ScanArgs, ScanFormat};
use crate::error::emit;
use crate::render;
use crate::samples::Quality;
use crate::source::live::nvml::{NvmlSampler, open};
use crate::source::live::process_owner::ProcFs;
use crate::source::live::{self as sampling, Hooks, Plan};
use crate::timeparse::{parse_duration_us, parse_size_bytes};
use anyhow::{Context, Result, anyhow, bail};
use indicatif::ProgressBar;
use std::time::Duration;

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

fn margin(flag: &str, value: Option<&str>) -> Result<Duration> {
    let Some(v) = value else {
        return Ok(Duration::ZERO);
    };
    let us = parse_duration_us(v).with_context(|| format!("{flag} {v}"))?;
    if us < 0 {
        bail!("{flag} {v}: must not be negative");
    }
    Ok(Duration::from_micros(us as u64))
}

/// The one line a CI log shows when a scan starts (not with --quiet).
fn announce(args: &ScanArgs) {
    let what = if args.command.is_empty() {
        format!("for {}", args.duration)
    } else {
        format!("while `{}` runs", args.command.join(" "))
    };
    eprintln!(
        "gpuaudit: sampling every {} {what}; SIGINT or SIGTERM stops and keeps the samples",
        args.sample_interval
    );
}

/// `scan -- CMD` when sampling cannot start: a driver hiccup must not turn a
/// CI benchmark into no benchmark. CMD runs as it would have (stdio
/// inherited), gpuaudit exits with its code, and the failure is one stderr line.
fn run_unmonitored(argv: &[String], why: &anyhow::Error) -> Result<u8> {
    let why = format!("{why:#}").replace('\n', " ");
    eprintln!(
        "gpuaudit: warning: not sampling ({why}); running `{}` unmonitored (--require-nvml makes this exit 2)",
        argv.join(" ")
    );
    let (program, rest) = argv.split_first().context("no command")?;
    let status = std::process::Command::new(program)
        .args(rest)
        .status()
        .with_context(|| format!("cannot run {program}"))?;
    Ok(exit_code(status))
}

#[allow(clippy::too_many_lines)] // TODO(issue 34): split
pub fn run(args: ScanArgs) -> Result<u8> {
    let interval_us = parse_duration_us(&args.sample_interval).context("--interval")?;
    if interval_us < 100_000 {
        bail!(
            "--interval {}: must be at least 100ms",
            args.sample_interval
        );
    }
    let duration_us = parse_duration_us(&args.duration).context("--duration")?;
    if duration_us <= 0 {
        bail!("--duration {}: must be positive", args.duration);
    }
    let (pre, post) = (
        margin("--pre", args.pre.as_deref())?,
        margin("--post", args.post.as_deref())?,
    );
    let nvml_timeout = margin("--nvml-timeout", Some(&args.nvml_timeout))?;
    if nvml_timeout.is_zero() {
        bail!("--nvml-timeout {}: must be positive", args.nvml_timeout);
    }
    let held_mem = parse_size_bytes(&args.audit.held_mem).context("--held-mem")?;
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
    let interval = Duration::from_micros(interval_us as u64);
    let plan = if args.command.is_empty() {
        Plan::new(
            Duration::from_micros(duration_us as u64),
            interval,
            args.once,
        )
    } else {
        Plan::until_stopped(interval)
    };
    let host = host_name();

    let nvml = match open(args.nvml_lib.as_deref(), nvml_timeout) {
        Ok(nvml) => nvml,
        Err(e) if !args.command.is_empty() && !args.require_nvml => {
            return run_unmonitored(&args.command, &e);
        }
        Err(e) => return Err(e),
    };
    let signals = Signals::catch()?;
    let mut bracket = if args.command.is_empty() {
        Bracket::plain()
    } else {
        Bracket::command(args.command.clone(), pre, post)
    };
    if !args.quiet {
        announce(&args);
    }
    let mut sampler = NvmlSampler::new(nvml, nvml_timeout);
    let bar = progress(args.quiet, plan.ticks);
    let mut procfs = ProcFs::default();
    let sampled = sampling::run(
        &mut sampler,
        plan,
        &host,
        Hooks {
            now_us: &mut || chrono::Utc::now().timestamp_micros(),
            wait_until: &mut |t| bracket.wait_until(t, &signals),
            owner: &mut |pid| procfs.owner(pid),
            on_tick: &mut |n| bar.set_position(n as u64),
        },
    );
    bar.finish_and_clear();
    // Its readers end and free their GPM samples; NVML is never shut down (leaked above).
    drop(sampler);
    let data = match sampled {
        Ok(d) => d,
        // Sampling could not start (no GPU) before the command did: it runs unmonitored.
        Err(e) => match bracket.finish() {
            Ok(None) if !args.command.is_empty() && !args.require_nvml => {
                return run_unmonitored(&args.command, &e);
            }
            _ => return Err(e),
        },
    };

    let mut warnings = data.warnings();
    for w in &warnings {
        eprintln!("gpuaudit: warning: {}", render::notes::warning_text(w));
    }
    if let Some(sig) = bracket.stopped_by {
        let w = crate::audit::model::Warning::ScanStopped {
            signal: signal_name(sig),
            ticks: data.ticks,
        };
        eprintln!("gpuaudit: {}", render::notes::warning_text(&w));
        warnings.push(w);
    }
    if data.rows.is_empty() {
        let _ = bracket.finish();
        bail!("no samples: every GPU failed before its first sample");
    }
    let frame = sampling::to_frame(&data, held_mem)?;
    let mut quality = Quality {
        warnings: warnings.clone(),
        ..Default::default()
    };
    for (unit, reasons) in &data.unsupported {
        for (metric, why) in reasons {
            quality
                .notes
                .push(crate::audit::model::Note::MetricUnsupported {
                    gpu: data.units[*unit].label.clone(),
                    metric: metric.to_string(),
                    why: why.clone(),
                });
        }
    }
    quality.notes.dedup();
    let source_name = format!(
        "nvml scan of {}",
        if host.is_empty() {
            "this node"
        } else {
            host.as_str()
        }
    );
    quality.warnings.extend(sampling::held_without_process(
        &data,
        &source_name,
        held_mem,
    ));
    let table = crate::source::from_frame(&source_name, frame, &[], quality)?;
    // The samples go to disk first: a stopped scan keeps them even if what follows fails.
    if let Some(out) = &args.out {
        crate::source::write::write_samples(&table.df, out)?;
    }
    // The command's exit, or an error running it (exit 2, after the samples are safe).
    let status = bracket.finish()?;
    // A GPU that failed after its first sample stands for one interval, not for the
    // hour a snapshot stands for; only --once is a snapshot.
    let last_weight = (!args.once && args.audit.interval.is_none()).then_some(interval_us);
    let report = crate::pipeline::sampled_report(&table, &audit_options(&args.audit), last_weight)?;
    let mut detail = crate::audit::scan::build(
        &data,
        &report,
        held_mem,
        interval.as_secs_f64(),
        warnings.iter().map(render::notes::warning_text).collect(),
    );
    if let Some(flops) = crate::cmd::mfu::declared_flops_per_sec(&args.work)? {
        // The node's live MFU: declared work over the dense peaks of the GPUs held now.
        let held: Vec<&str> = report
            .gpus
            .iter()
            .filter(|g| g.last_held)
            .filter_map(|g| g.model.as_deref())
            .collect();
        if !held.is_empty() {
            let dtype = args.work.dtype.unwrap_or(crate::catalog::Dtype::Bf16);
            let mfu = crate::audit::mfu::node_mfu(flops, &held, dtype).context("live MFU")?;
            detail.live_mfu = Some(crate::audit::scan::LiveMfu {
                declared_tflops: flops / 1e12,
                held_gpus: held.len(),
                dtype,
                mfu,
            });
        }
    }

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
    let decided = if data.dropped.is_empty() {
        Ok(status.map_or(0, exit_code))
    } else {
        let names: Vec<String> = data
            .dropped
            .keys()
            .map(|u| format!("GPU {}", data.units[*u].label))
            .collect();
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
