//! The per-GPU table of a live scan, and its JSON: the report document with
//! the scan detail under "scan".
use super::fmt::{bytes_gib, pct, usd};
use super::grid::{Column, Grid};
use crate::audit::model::Report;
use crate::audit::scan::{LiveMfu, ScanDetail, ScanGpu, ScanMigParent};
use crate::text::shorten;
use serde::Serialize;

/// "alice 4242 (python train.py)" per holder; "-" when nobody holds the card.
fn holders(g: &ScanGpu) -> String {
    if g.holders.is_empty() {
        return match g.held {
            Some(true) => "(memory in use, no process visible)".to_string(),
            _ => "-".to_string(),
        };
    }
    g.holders
        .iter()
        .map(|h| {
            let mut s = format!("{} pid {}", shorten(&h.user, 20), h.pid);
            if let Some(j) = &h.job {
                s.push_str(&format!(" job {}", shorten(j, 28)));
            }
            if let Some(c) = &h.command {
                s.push_str(&format!(" ({})", shorten(c, 33)));
            }
            s
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn watts(v: Option<f64>) -> String {
    v.map(|w| format!("{w:.0} W"))
        .unwrap_or_else(|| "n/a".to_string())
}

/// "GPUs on node-1 (12 samples, 5.0s apart)", and the live MFU when declared.
fn heading(d: &ScanDetail) -> String {
    let mut out = format!(
        "GPUs on {} ({} sample{}, {:.1}s apart)\n",
        if d.host.is_empty() {
            "this node"
        } else {
            d.host.as_str()
        },
        d.ticks,
        if d.ticks == 1 { "" } else { "s" },
        d.interval_seconds
    );
    if let Some(m) = &d.live_mfu {
        out.push_str(&format!(
            "live MFU {:.1}%: declared {:.1} TFLOP/s over the dense {:?} peaks of {} held GPU{}\n",
            m.mfu * 100.0,
            m.declared_tflops,
            m.dtype,
            m.held_gpus,
            if m.held_gpus == 1 { "" } else { "s" }
        ));
    }
    out
}

pub fn render_table(d: &ScanDetail, width: u16) -> String {
    let mut out = heading(d);
    let mut t = Grid::new(vec![
        Column::new("gpu").label(),
        Column::new("model").label().drop_rank(2),
        Column::new("held by"),
        Column::new("device").right(),
        Column::new("SM").right().drop_rank(1),
        Column::new("tensor").right().drop_rank(3),
        Column::new("memory").right().drop_rank(1),
        Column::new("power").right().drop_rank(2),
        Column::new("idle $/h").right(),
    ]);
    for g in &d.gpus {
        let memory = match (g.mem_used_bytes, g.mem_total_bytes) {
            (Some(u), Some(t)) => format!("{} / {}", bytes_gib(Some(u)), bytes_gib(Some(t))),
            (u, _) => bytes_gib(u),
        };
        let gpu = if g.failed.is_some() {
            format!("{} (failed)", g.label)
        } else {
            g.label.clone()
        };
        t.row(vec![
            gpu,
            g.model.as_deref().unwrap_or("n/a").to_string(),
            holders(g),
            pct(g.device_util),
            pct(g.sm_active),
            pct(g.tensor_active),
            memory,
            watts(g.power_w),
            usd(g.idle_usd_per_hour),
        ]);
    }
    out.push_str(&t.render_with_note(super::table::limit(width)));
    for p in &d.mig_parents {
        out.push_str(&format!(
            "GPU {} ({}) is in MIG mode with {} instances; power {}; device activity {}\n",
            p.label,
            p.model.as_deref().unwrap_or("n/a"),
            p.instances,
            watts(p.power_w),
            p.device_util_reason
        ));
    }
    // Each distinct reason once, naming the GPUs it applies to.
    let mut reasons: Vec<(String, Vec<String>)> = Vec::new();
    for g in &d.gpus {
        for (metric, why) in &g.unavailable {
            let line = format!("{metric}: {why}");
            match reasons.iter_mut().find(|(l, _)| *l == line) {
                Some((_, gpus)) => gpus.push(g.label.clone()),
                None => reasons.push((line, vec![g.label.clone()])),
            }
        }
    }
    for (line, gpus) in reasons {
        out.push_str(&format!("n/a on GPU {}: {line}\n", gpus.join(", ")));
    }
    for w in &d.warnings {
        out.push_str(&format!("warning: {}\n", super::notes::warning_text(w)));
    }
    out
}

/// The scan detail as JSON: its warnings as the sentences the table prints.
#[derive(Serialize)]
struct DetailJson<'a> {
    host: &'a str,
    ticks: usize,
    interval_seconds: f64,
    gpus: &'a [ScanGpu],
    mig_parents: &'a [ScanMigParent],
    warnings: Vec<String>,
    /// the node's live MFU from declared work (--achieved-tflops, --tokens-per-sec ...)
    #[serde(skip_serializing_if = "Option::is_none")]
    live_mfu: Option<&'a LiveMfu>,
}

#[derive(Serialize)]
struct ScanDocument<'a> {
    #[serde(flatten)]
    report: &'a Report,
    scan: DetailJson<'a>,
}

/// The "gpuaudit.report/1" document with the scan's per-GPU detail under "scan".
pub fn render_json(report: &Report, detail: &ScanDetail) -> anyhow::Result<String> {
    let scan = DetailJson {
        host: &detail.host,
        ticks: detail.ticks,
        interval_seconds: detail.interval_seconds,
        gpus: &detail.gpus,
        mig_parents: &detail.mig_parents,
        warnings: detail
            .warnings
            .iter()
            .map(super::notes::warning_text)
            .collect(),
        live_mfu: detail.live_mfu.as_ref(),
    };
    let mut s = serde_json::to_string_pretty(&ScanDocument { report, scan })?;
    s.push('\n');
    Ok(s)
}
