//! `gpuaudit scan`: sample this node's GPUs through NVML, name who holds each
//! card, and print the same held-vs-used report as `report` (one audit path).
use super::common::audit_config;
use crate::audit::audit;
use crate::cli::scan::{ScanArgs, ScanFormat};
use crate::output::write_stdout;
use crate::render;
use crate::samples::Quality;
use crate::source::nvml::{NvmlSampler, open};
use crate::source::procinfo::ProcFs;
use crate::source::scan::{self as sampling, Hooks, Plan};
use crate::timeparse::{parse_duration_ms, parse_size_bytes};
use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::{Duration, Instant};

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default()
}

fn progress(quiet: bool, ticks: usize) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::with_draw_target(Some(ticks as u64), ProgressDrawTarget::hidden())
    } else {
        // indicatif hides itself when stderr is not a terminal.
        ProgressBar::new(ticks as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} sampling {pos}/{len} ticks [{elapsed}/{duration}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

pub fn run(args: ScanArgs) -> Result<u8> {
    let interval_ms = parse_duration_ms(&args.sample_interval).context("--interval")?;
    if interval_ms < 100 {
        bail!(
            "--interval {}: must be at least 100ms",
            args.sample_interval
        );
    }
    let duration_ms = parse_duration_ms(&args.duration).context("--duration")?;
    if duration_ms <= 0 {
        bail!("--duration {}: must be positive", args.duration);
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
    let interval = Duration::from_millis(interval_ms as u64);
    let plan = Plan::new(
        Duration::from_millis(duration_ms as u64),
        interval,
        args.once,
    );
    let host = host_name();

    let nvml = open(args.nvml_lib.as_deref())?;
    let mut sampler = NvmlSampler::new(&nvml);
    let bar = progress(args.quiet, plan.ticks);
    let mut procfs = ProcFs::default();
    let data = sampling::run(
        &mut sampler,
        plan,
        &host,
        Hooks {
            now_ms: &mut || chrono::Utc::now().timestamp_millis(),
            sleep_until: &mut |t| std::thread::sleep(t.saturating_duration_since(Instant::now())),
            owner: &mut |pid| procfs.owner(pid),
            on_tick: &mut |n| bar.set_position(n as u64),
        },
    )?;
    bar.finish_and_clear();
    drop(sampler); // GPM samples go back to NVML before it shuts down
    drop(nvml);

    let warnings = data.warnings();
    for w in &warnings {
        eprintln!("gpuaudit: warning: {w}");
    }
    if data.rows.is_empty() {
        bail!("no samples: every GPU failed before its first sample");
    }
    let frame = sampling::to_frame(&data, held_mem)?;
    let mut quality = Quality {
        warnings: warnings.clone(),
        ..Default::default()
    };
    for (unit, reasons) in &data.unsupported {
        for (metric, why) in reasons {
            quality.notes.push(format!(
                "GPU {}: {metric} n/a: {why}",
                data.units[*unit].label
            ));
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
    let table = crate::source::from_frame(&source_name, frame, &[], quality)?;
    let mut cfg = audit_config(&args.audit, &table)?;
    // A GPU that failed after its first sample stands for one interval, not for the
    // hour a snapshot stands for; only --once is a snapshot.
    if !args.once && args.audit.interval.is_none() {
        cfg.interval_ms = Some(interval_ms);
    }
    let report = audit(&table, &cfg)?;
    if let Some(out) = &args.out {
        crate::source::write::write_samples(&table.df, out)?;
    }
    let mut detail = crate::scan::build(
        &data,
        &report,
        held_mem,
        interval.as_secs_f64(),
        warnings.clone(),
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
            let dtype = args.work.dtype.unwrap_or(crate::hardware::Dtype::Bf16);
            let mfu = crate::audit::mfu::node_mfu(flops, &held, dtype).context("live MFU")?;
            detail.live_mfu = Some(crate::scan::LiveMfu {
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
    write_stdout(&text)?;
    if !data.dropped.is_empty() {
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
        return Err(anyhow!(
            "{} failed mid-scan: {its} remaining samples are missing (see the {them} above)",
            names.join(", ")
        ));
    }
    Ok(0)
}
