//! The report a person reads in a meeting: headline, waterfall, cost, idle
//! episodes, showback, data quality.
use super::fmt::{bar, hours, opt_hours, pct, short_gpu, short_time, usd};
use crate::audit::model::Report;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets};
use std::io::IsTerminal;

pub struct TableOptions {
    /// width for tables when stdout is not a terminal (a pipe, a file, a test)
    pub width: u16,
    pub top: usize,
}

impl TableOptions {
    pub fn detect(top: usize) -> Self {
        let width = if std::io::stdout().is_terminal() {
            terminal_width().unwrap_or(100)
        } else {
            std::env::var("COLUMNS")
                .ok()
                .and_then(|c| c.parse().ok())
                .unwrap_or(100)
        };
        TableOptions { width, top }
    }
}

fn terminal_width() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .or(Some(100))
}

pub(crate) fn new_table(width: u16) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED);
    t.set_content_arrangement(ContentArrangement::Dynamic);
    t.set_width(width);
    t
}

fn right(s: String) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

/// Unit words: a snapshot's GPU-hours are GPUs and its dollars are per hour.
pub(crate) fn units(report: &Report) -> (&'static str, &'static str) {
    if report.window.snapshot {
        ("GPUs", "/h")
    } else {
        ("GPU-h", "")
    }
}

/// The one sentence that says it all.
pub fn headline(report: &Report) -> String {
    let (unit, per) = units(report);
    let l = &report.layers;
    let r = &report.ratios;
    let mut s = format!(
        "{} GPUs held {} {unit} of {} observed",
        report.gpu_count,
        hours(l.held_gpu_hours),
        hours(l.observed_gpu_hours)
    );
    if r.active.is_some() {
        s.push_str(&format!("; device activity says {}", pct(r.active)));
    }
    if r.sm_active.is_some() {
        s.push_str(&format!(", SM active says {}", pct(r.sm_active)));
    }
    if r.tensor_active.is_some() {
        s.push_str(&format!(", tensor active {}", pct(r.tensor_active)));
    }
    if r.mfu.is_some() {
        s.push_str(&format!(", MFU {}", pct(r.mfu)));
    }
    match (report.cost.idle_held_usd, l.idle_held_gpu_hours) {
        (Some(d), Some(h)) => s.push_str(&format!(
            ": {}{per} spent on held cards doing nothing ({} {unit}, {} of held).",
            usd(Some(d)),
            hours(h),
            pct(r.idle_held)
        )),
        (None, Some(h)) => s.push_str(&format!(
            ": {} {unit} held doing nothing ({} of held; no prices).",
            hours(h),
            pct(r.idle_held)
        )),
        _ => s.push('.'),
    }
    s
}

pub fn render(report: &Report, opts: &TableOptions) -> String {
    let mut out = String::new();
    let (unit, per) = units(report);
    out.push_str(&headline(report));
    out.push_str("\n\n");
    out.push_str(&format!(
        "Window {} → {} UTC ({} h){}\n\n",
        short_time(&report.window.start),
        short_time(&report.window.end),
        hours(report.window.hours),
        if report.window.snapshot {
            ", snapshot"
        } else {
            ""
        }
    ));

    // Waterfall
    let mut t = new_table(opts.width);
    t.set_header(vec!["layer", unit, "% of held", "% of observed", ""]);
    for step in &report.waterfall {
        // idle held is a slice of held, not a deeper layer: no bar
        let is_layer = step.layer != "idle_held";
        t.add_row(vec![
            Cell::new(step.layer.replace('_', " ")),
            right(opt_hours(step.gpu_hours)),
            right(if step.pct_of_held.is_none() && step.layer == "observed" {
                "-".to_string()
            } else {
                pct(step.pct_of_held)
            }),
            right(pct(step.pct_of_observed)),
            Cell::new(if is_layer {
                bar(step.pct_of_observed, 30)
            } else {
                String::new()
            }),
        ]);
    }
    out.push_str("Held → used waterfall\n");
    out.push_str(&t.to_string());
    out.push_str("\n\n");

    // Cost
    let c = &report.cost;
    let mut t = new_table(opts.width);
    t.set_header(vec![
        format!("cost (USD{per})"),
        "in window".to_string(),
        "monthly run-rate".to_string(),
    ]);
    let m = &c.monthly_run_rate;
    let rows = [
        ("observed", c.observed_usd, m.observed_usd),
        ("held", c.held_usd, m.held_usd),
        ("idle held", c.idle_held_usd, m.idle_held_usd),
        ("unallocated", c.unallocated_usd, m.unallocated_usd),
        ("not useful", c.not_useful_usd, m.not_useful_usd),
    ];
    for (name, v, run) in rows {
        let label = if name == "not useful" {
            match &c.not_useful_basis {
                Some(b) => format!("not useful (vs {b})"),
                None => name.to_string(),
            }
        } else {
            name.to_string()
        };
        let run = if report.window.snapshot {
            "-".to_string()
        } else {
            usd(run)
        };
        t.add_row(vec![Cell::new(label), right(usd(v)), right(run)]);
    }
    out.push_str("Cost\n");
    out.push_str(&t.to_string());
    out.push('\n');
    out.push_str(&format!("prices: {}\n", c.price_source));
    if c.unpriced_gpu_hours > 0.0 {
        out.push_str(&format!(
            "unpriced: {} {unit} ({}); give --price or --prices\n",
            hours(c.unpriced_gpu_hours),
            c.unpriced_models.join(", ")
        ));
    }
    out.push('\n');

    // Idle episodes
    let shown = report
        .idle_episodes
        .iter()
        .take(opts.top)
        .collect::<Vec<_>>();
    out.push_str(&format!(
        "Idle held episodes (≥ min-idle): {} found, top {} by hours\n",
        report.idle_episodes_total,
        shown.len()
    ));
    if !shown.is_empty() {
        let mut t = new_table(opts.width);
        t.set_header(vec![
            "host", "gpu", "job", "user", "team", "start", "end", "hours", "USD",
        ]);
        for e in shown {
            t.add_row(vec![
                Cell::new(&e.host),
                Cell::new(short_gpu(&e.gpu)),
                Cell::new(e.job.as_deref().unwrap_or("-")),
                Cell::new(e.user.as_deref().unwrap_or("-")),
                Cell::new(e.team.as_deref().unwrap_or("-")),
                Cell::new(short_time(&e.start)),
                Cell::new(short_time(&e.end)),
                right(hours(e.hours)),
                right(usd(e.usd)),
            ]);
        }
        out.push_str(&t.to_string());
        out.push('\n');
    }
    out.push('\n');

    // Jobs (MFU)
    if let Some(jobs) = &report.jobs {
        let mut t = new_table(opts.width);
        t.set_header(vec![
            "job",
            "GPUs",
            "held h",
            "device",
            "SM",
            "tensor",
            "MFU",
            "$ not useful",
        ]);
        for j in jobs {
            t.add_row(vec![
                Cell::new(&j.job),
                right(j.gpus.to_string()),
                right(hours(j.held_gpu_hours)),
                right(pct(j.device_util)),
                right(pct(j.sm_active)),
                right(pct(j.tensor_active)),
                right(pct(j.mfu)),
                right(usd(j.not_useful_usd)),
            ]);
        }
        out.push_str("Jobs\n");
        out.push_str(&t.to_string());
        out.push_str("\n\n");
    }

    // Showback
    if let Some(groups) = &report.groups {
        let by = groups.first().map(|g| g.by.as_str()).unwrap_or("group");
        let mut t = new_table(opts.width);
        t.set_header(vec![
            by.to_string(),
            format!("observed {unit}"),
            format!("held {unit}"),
            "device".into(),
            "SM".into(),
            "tensor".into(),
            format!("idle {unit}"),
            format!("held USD{per}"),
            format!("idle USD{per}"),
        ]);
        for g in groups {
            t.add_row(vec![
                Cell::new(&g.key),
                right(hours(g.layers.observed_gpu_hours)),
                right(hours(g.layers.held_gpu_hours)),
                right(pct(g.ratios.active)),
                right(pct(g.ratios.sm_active)),
                right(pct(g.ratios.tensor_active)),
                right(opt_hours(g.layers.idle_held_gpu_hours)),
                right(usd(g.cost.held_usd)),
                right(usd(g.cost.idle_held_usd)),
            ]);
        }
        out.push_str(&format!("Showback by {by}\n"));
        out.push_str(&t.to_string());
        out.push_str("\n\n");
    }

    out.push_str(&data_quality_text(report));
    out
}

/// The data-quality section as plain lines.
pub fn data_quality_text(report: &Report) -> String {
    let q = &report.data_quality;
    let mut out = String::from("Data quality\n");
    out.push_str(&format!(
        "  sources: {} ({} rows read, {} used)\n",
        report.sources.files.join(", "),
        report.sources.rows_read,
        report.sources.rows_used
    ));
    out.push_str(&format!("  held rule: {}\n", report.held_rule));
    out.push_str(&format!("  duplicates dropped: {}\n", q.duplicates));
    if q.invalid.is_empty() {
        out.push_str("  invalid values: none\n");
    } else {
        let parts: Vec<String> = q.invalid.iter().map(|(k, v)| format!("{k} {v}")).collect();
        out.push_str(&format!(
            "  invalid values (not used): {}\n",
            parts.join(", ")
        ));
    }
    out.push_str(&format!(
        "  unobserved GPU-h (gaps): {}\n",
        hours(q.unobserved_gpu_hours)
    ));
    out.push_str(&format!(
        "  held with unknown device activity, GPU-h: {}\n",
        hours(q.held_unknown_activity_gpu_hours)
    ));
    if q.rows_outside_window > 0 {
        out.push_str(&format!(
            "  rows outside --since/--until: {}\n",
            q.rows_outside_window
        ));
    }
    if q.rows_dropped > 0 {
        out.push_str(&format!("  rows dropped (no GPU id): {}\n", q.rows_dropped));
    }
    for n in &q.notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    for w in &q.warnings {
        out.push_str(&format!("  warning: {w}\n"));
    }
    out
}
