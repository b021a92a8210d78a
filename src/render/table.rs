//! The report a person reads in a meeting: headline, waterfall, cost, idle
//! episodes, showback, data quality. Every cell stays on one line (grid.rs).
use super::fmt::{Units, bar, pct, short_gpu, short_time, usd};
use super::grid::{Column, Grid};
use super::wrap::fill;
use crate::audit::model::Layer;
use crate::audit::model::Report;
use comfy_table::{ContentArrangement, Table, presets};
use std::io::IsTerminal;

/// A width that means "no limit": stdout is a pipe or a file.
pub const UNLIMITED: u16 = u16::MAX;

pub struct TableOptions {
    /// columns to lay tables out for; `UNLIMITED` when stdout is not a terminal
    pub width: u16,
    pub top: usize,
    /// idle episodes one row per GPU instead of one per (job, span)
    pub per_gpu: bool,
    /// the verdict in bold: stdout is a terminal and NO_COLOR is unset
    pub bold: bool,
}

impl TableOptions {
    pub fn detect(top: usize) -> Self {
        TableOptions {
            width: detect_width(None).unwrap_or(UNLIMITED),
            top,
            per_gpu: false,
            bold: bold_wanted(),
        }
    }

    /// The width as the grid takes it: None for no limit.
    pub fn limit(&self) -> Option<u16> {
        limit(self.width)
    }
}

pub fn limit(width: u16) -> Option<u16> {
    (width != UNLIMITED).then_some(width)
}

/// A comfy table for `width` columns (the check and mfu tables); no wrapping
/// at all when the width is `UNLIMITED`.
pub(crate) fn new_table(width: u16) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED);
    match limit(width) {
        Some(w) => {
            t.set_content_arrangement(ContentArrangement::Dynamic);
            t.set_width(w);
        }
        None => {
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    t
}

/// Whether to print the verdict in bold: only to a terminal, and never when
/// NO_COLOR is set (to anything, https://no-color.org).
pub fn bold_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

/// The width tables are laid out for: `--width`, else `COLUMNS` when set, else
/// the terminal's own width; None (no wrapping at all) when stdout is a pipe
/// or a file, so `report > x.txt` keeps every table whole.
pub fn detect_width(forced: Option<u16>) -> Option<u16> {
    if forced.is_some() {
        return forced;
    }
    if let Some(c) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|c| *c > 0)
    {
        return Some(c);
    }
    if std::io::stdout().is_terminal() {
        // comfy-table asks the terminal (crossterm) when stdout is one
        return comfy_table::Table::new().width();
    }
    None
}

/// The one sentence that says it all, with one dollar figure: idle held
/// (never a tensor-based figure: non-tensor work is work; not busy and the
/// rest are named in the cost table). A snapshot says what is held now.
pub fn headline(report: &Report) -> String {
    if report.window.snapshot {
        return snapshot_headline(report);
    }
    let u = Units::of(report);
    let (unit, per) = (u.name, u.per);
    let l = &report.layers;
    let r = &report.ratios;
    let c = &report.cost;
    let mut s = format!(
        "{} GPUs held {} {unit} of {} observed",
        report.gpu_count,
        u.amount(l.held_gpu_hours),
        u.amount(l.observed_gpu_hours)
    );
    if r.active().is_some() {
        s.push_str(&format!("; device activity says {}", pct(r.active())));
    }
    if r.sm_active().is_some() {
        s.push_str(&format!(", SM active says {}", pct(r.sm_active())));
    }
    if r.tensor_active().is_some() {
        s.push_str(&format!(", tensor active {}", pct(r.tensor_active())));
    }
    if r.mfu.is_some() {
        s.push_str(&format!(", MFU {}", pct(r.mfu)));
    }
    match (c.idle_held_usd, l.idle_held_gpu_hours) {
        (Some(d), Some(h)) => {
            s.push_str(&format!(
                ": {}{per} spent on held cards doing nothing ({} {unit}, {} of held)",
                usd(Some(d)),
                u.amount(h),
                pct(r.idle_held)
            ));
            s.push('.');
        }
        (None, Some(h)) => s.push_str(&format!(
            ": {} {unit} held doing nothing ({} of held; no prices).",
            u.amount(h),
            pct(r.idle_held)
        )),
        _ => s.push('.'),
    }
    s
}

/// A snapshot's headline: GPUs now (each counted once) and dollars per hour.
fn snapshot_headline(report: &Report) -> String {
    use crate::render::diagnosis::gpus;
    let l = &report.layers;
    let c = &report.cost;
    let mut s = format!(
        "{} GPUs now: {} held",
        report.gpu_count,
        gpus(Some(l.held_gpu_hours))
    );
    if let Some(idle) = l.idle_held_gpu_hours {
        s.push_str(&format!(" ({} of them idle)", gpus(Some(idle))));
    }
    s.push_str(&format!(
        ", {} unallocated",
        gpus(Some(l.unallocated_gpu_hours))
    ));
    if c.observed_usd.is_some() {
        s.push_str(&format!(
            "; {}/h for all of them, {}/h held, {}/h on held cards doing nothing",
            usd(c.observed_usd),
            usd(c.held_usd),
            usd(c.idle_held_usd)
        ));
    }
    s.push('.');
    s
}

/// "Window A → B UTC (168 h)", or the instant of a snapshot.
pub fn window_line(report: &Report) -> String {
    let w = &report.window;
    if w.snapshot {
        format!(
            "Snapshot at {} UTC: each GPU counted once; GPU figures are GPUs, dollars are per hour",
            short_time(&w.start)
        )
    } else {
        format!(
            "Window {} → {} UTC ({})",
            short_time(&w.start),
            short_time(&w.end),
            Units::span(w.hours)
        )
    }
}

/// "8 hosts" or the one host.
pub fn hosts_cell(hosts: &[String]) -> String {
    match hosts {
        [one] => one.clone(),
        many => format!("{} hosts", many.len()),
    }
}

fn dash(v: Option<&str>) -> String {
    v.unwrap_or("-").to_string()
}

/// One idle-episode group's cells (job, user, team, GPUs, host, start, end,
/// GPU-h, USD): the same row in the terminal table and in markdown.
pub fn episode_group_cells(e: &crate::audit::model::IdleEpisodeGroup, u: Units) -> Vec<String> {
    vec![
        dash(e.job.as_deref()),
        dash(e.user.as_deref()),
        dash(e.team.as_deref()),
        e.gpus.to_string(),
        hosts_cell(&e.hosts),
        short_time(&e.start),
        short_time(&e.end),
        u.amount(e.gpu_hours),
        usd(e.usd),
    ]
}

fn waterfall(report: &Report, u: Units, width: Option<u16>) -> String {
    // the bar takes what the other columns leave, 8 to 30 cells
    let bar_width = width.map_or(30, |w| (i64::from(w) - 58).clamp(0, 30) as usize);
    let mut cols = vec![
        Column::new("layer"),
        Column::new(u.name).right(),
        Column::new("% of held").right(),
        Column::new("% of observed").right().drop_rank(1),
    ];
    if bar_width >= 8 {
        cols.push(Column::new("").drop_rank(2));
    }
    let mut g = Grid::new(cols);
    // an SM layer from a vendor metric that only approximates SM active
    // (AMD VALU busy, Intel EU array active)
    let sm_approximate = report.data_quality.notes.iter().any(|n| {
        use crate::audit::model::Note;
        matches!(n, Note::ApproximateSmActive { .. })
            || matches!(n, Note::ApproximateLayer { layer, .. } if layer == "SM active")
    });
    for step in &report.waterfall {
        // idle held is a slice of held, not a deeper layer: no bar
        let is_layer = step.layer != Layer::IdleHeld;
        let of_held = if step.pct_of_held.is_none() && step.layer == Layer::Observed {
            "-".to_string()
        } else {
            pct(step.pct_of_held)
        };
        let label = if sm_approximate && step.layer == Layer::SmActive {
            format!("{} (approx.)", step.layer.label())
        } else {
            step.layer.label()
        };
        let mut row = vec![
            label,
            u.opt(step.gpu_hours),
            of_held,
            pct(step.pct_of_observed),
        ];
        if bar_width >= 8 {
            row.push(if is_layer {
                bar(step.pct_of_observed, bar_width)
            } else {
                String::new()
            });
        }
        g.row(row);
    }
    g.render_with_note(width)
}

/// A mixed fleet: a line per vendor family, then where each layer came from.
fn vendors(report: &Report, u: Units, width: Option<u16>) -> Option<String> {
    if report.vendors.is_empty() {
        return None;
    }
    let cols: Vec<Column> = crate::render::vendors::headers(&u)
        .into_iter()
        .enumerate()
        .map(|(i, h)| match i {
            0 => Column::new(h).label(),
            _ => Column::new(h).right(),
        })
        .collect();
    let mut g = Grid::new(cols);
    for v in &report.vendors {
        g.row(crate::render::vendors::cells(v, &u));
    }
    let mut out = format!("{}\n", crate::render::vendors::TITLE);
    out.push_str(&g.render_with_note(width));
    for line in crate::render::vendors::sources(report) {
        out.push_str(&fill(&format!("  {line}"), width, "    "));
        out.push('\n');
    }
    Some(out)
}

fn cost(report: &Report, u: Units, width: Option<u16>) -> String {
    let view = super::cost::cost_view(report);
    let mut cols = vec![
        Column::new(format!("cost (USD{})", u.per)),
        Column::new(view.amount_head).right(),
    ];
    if !report.window.snapshot {
        cols.push(Column::new("monthly run-rate").right().drop_rank(1));
    }
    let mut g = Grid::new(cols);
    for row in view.rows {
        g.row(
            std::iter::once(row.label)
                .chain([row.amount])
                .chain(row.run_rate)
                .collect(),
        );
    }
    let mut out = g.render_with_note(width);
    if view.sm_tensor_note {
        out.push_str(&fill(
            &format!("{}\n", super::cost::SM_TENSOR_NOTE),
            width,
            "  ",
        ));
    }
    out.push_str(&fill(&format!("prices: {}\n", view.prices), width, "  "));
    if let Some((hours, models)) = view.unpriced {
        out.push_str(&fill(
            &format!(
                "unpriced: {} {} ({models}); give --price or --prices\n",
                u.amount(hours),
                u.name,
            ),
            width,
            "  ",
        ));
    }
    out
}

/// One row per job and span (the cards a job left idle together), top N by GPU-time.
fn grouped_episodes(report: &Report, u: Units, opts: &TableOptions) -> String {
    let shown: Vec<_> = report.idle_episode_groups.iter().take(opts.top).collect();
    let mut out = fill(
        &format!(
            "Idle held episodes (≥ min-idle), by job and span: {} ({} GPU episodes), top {} by {}\n",
            report.idle_episode_groups_total,
            report.idle_episodes_total,
            shown.len(),
            u.name
        ),
        opts.limit(),
        "  ",
    );
    if shown.is_empty() {
        return out;
    }
    let mut g = Grid::new(vec![
        Column::new("job").label(),
        Column::new("user").label().drop_rank(2),
        Column::new("team").label().drop_rank(3),
        Column::new("GPUs").right(),
        Column::new("host").label().drop_rank(1),
        Column::new("start"),
        Column::new("end"),
        Column::new(u.name).right(),
        Column::new("USD").right(),
    ]);
    for e in shown {
        g.row(episode_group_cells(e, u));
    }
    out.push_str(&g.render_with_note(opts.limit()));
    out
}

/// The report was built from sums computed elsewhere, which carry no episodes.
fn from_sums(report: &Report) -> bool {
    use crate::audit::model::Note;
    report
        .data_quality
        .notes
        .iter()
        .any(|n| matches!(n, Note::PartialsRead { .. } | Note::PushdownCaveat))
}

fn episodes(report: &Report, u: Units, opts: &TableOptions) -> String {
    if report.window.snapshot {
        return format!(
            "Idle held now: {} GPUs, {}/h (a snapshot is one instant: no episodes)\n",
            u.opt(report.layers.idle_held_gpu_hours),
            usd(report.cost.idle_held_usd)
        );
    }
    if report.idle_episodes_total == 0 && from_sums(report) {
        // sums (--partials, --pushdown) carry no episodes: n/a, not "none"
        return "Idle held episodes: n/a (they need each sample; run report on the samples)\n"
            .to_string();
    }
    if report.idle_episodes_total == 0 {
        return "Idle held episodes (≥ min-idle): none\n".to_string();
    }
    // grouped unless asked per GPU, or when an older document carries no groups
    let grouped = !opts.per_gpu && report.idle_episode_groups_total > 0;
    if grouped {
        return grouped_episodes(report, u, opts);
    }
    let shown: Vec<_> = report.idle_episodes.iter().take(opts.top).collect();
    let mut out = format!(
        "Idle held episodes (≥ min-idle), per GPU: {} found, top {} by hours\n",
        report.idle_episodes_total,
        shown.len()
    );
    if shown.is_empty() {
        return out;
    }
    let mut g = Grid::new(vec![
        Column::new("host").label().drop_rank(1),
        Column::new("gpu").label(),
        Column::new("job").label(),
        Column::new("user").label().drop_rank(2),
        Column::new("team").label().drop_rank(3),
        Column::new("start"),
        Column::new("end").drop_rank(1),
        Column::new("hours").right(),
        Column::new("USD").right(),
    ]);
    for e in shown {
        g.row(vec![
            e.host.clone(),
            short_gpu(&e.gpu),
            dash(e.job.as_deref()),
            dash(e.user.as_deref()),
            dash(e.team.as_deref()),
            short_time(&e.start),
            short_time(&e.end),
            u.amount(e.hours),
            usd(e.usd),
        ]);
    }
    out.push_str(&g.render_with_note(opts.limit()));
    out
}

fn jobs(report: &Report, u: Units, width: Option<u16>) -> Option<String> {
    // MFU by job: only where the jobs file declared work (the jobs section lists every job)
    let jobs = report.diagnosis.jobs.as_ref()?;
    if jobs.iter().all(|j| j.mfu.is_none()) {
        return None;
    }
    let mut g = Grid::new(vec![
        Column::new("job").label(),
        Column::new("GPUs").right(),
        Column::new(format!("held {}", u.name)).right(),
        Column::new("device").right().drop_rank(1),
        Column::new("SM").right().drop_rank(2),
        Column::new("tensor").right().drop_rank(3),
        Column::new("MFU").right(),
        Column::new(format!("$ not useful{}", u.per)).right(),
    ]);
    for j in jobs {
        g.row(vec![
            j.job.clone(),
            j.gpus.to_string(),
            u.amount(j.held_gpu_hours),
            pct(j.active_share),
            pct(j.sm_active_share),
            pct(j.tensor_active_share),
            pct(j.mfu),
            usd(j.not_useful_usd),
        ]);
    }
    Some(format!("Jobs\n{}", g.render_with_note(width)))
}

fn showback(report: &Report, u: Units, opts: &TableOptions) -> Option<String> {
    let groups = report.groups.as_ref()?;
    let by = groups.first().map(|g| g.by.as_str()).unwrap_or("group");
    let shown: Vec<_> = groups.iter().take(opts.top).collect();
    let mut g = Grid::new(vec![
        Column::new(by).label(),
        Column::new("observed").right().drop_rank(2),
        Column::new("held").right(),
        Column::new("device").right().drop_rank(1),
        Column::new("SM").right().drop_rank(3),
        Column::new("tensor").right().drop_rank(4),
        Column::new("idle").right().drop_rank(1),
        Column::new("held $").right(),
        Column::new("idle $").right(),
        Column::new("unalloc. $").right(),
        Column::new("total $").right(),
    ]);
    for s in &shown {
        g.row(crate::render::fmt::showback_cells(
            &u,
            s.key.clone(),
            &s.layers,
            &s.ratios,
            [
                s.cost.held_usd,
                s.cost.idle_held_usd,
                s.cost.unallocated_usd,
                s.cost.observed_usd,
            ],
        ));
    }
    // the fleet's own figures: the rows above add up to them (with every row shown)
    let (l, r, c) = (&report.layers, &report.ratios, &report.cost);
    g.row(crate::render::fmt::showback_cells(
        &u,
        format!("total ({} {by}s)", groups.len()),
        l,
        r,
        [
            c.held_usd,
            c.idle_held_usd,
            c.unallocated_usd,
            c.observed_usd,
        ],
    ));
    let mut out = fill(
        &format!(
            "Showback by {by} ({}, USD{}): top {} of {} by held USD\n",
            u.name,
            u.per,
            shown.len(),
            groups.len()
        ),
        opts.limit(),
        "  ",
    );
    out.push_str(&g.render_with_note(opts.limit()));
    if groups.len() > shown.len() {
        out.push_str(&fill(
            &format!(
                "{} more {by}s not shown: --top N, or --format csv --table groups for all\n",
                groups.len() - shown.len()
            ),
            opts.limit(),
            "  ",
        ));
    }
    Some(out)
}

pub fn render(report: &Report, opts: &TableOptions) -> String {
    let u = Units::of(report);
    let width = opts.limit();
    let layout = crate::render::diagnosis::Layout {
        width,
        top: opts.top,
        snapshot: report.window.snapshot,
        bold: opts.bold,
    };
    let mut out = String::new();
    out.push_str(&fill(&headline(report), width, ""));
    out.push_str("\n\n");
    if let Some(p) = crate::render::diagnosis::purchase_paragraph(&report.diagnosis, layout) {
        out.push_str(&p);
        out.push('\n');
    }
    out.push_str(&fill(&window_line(report), width, ""));
    out.push_str("\n\n");
    out.push_str("Held → used waterfall\n");
    out.push_str(&waterfall(report, u, width));
    out.push('\n');
    if let Some(v) = vendors(report, u, width) {
        out.push_str(&v);
        out.push('\n');
    }
    out.push_str("Cost\n");
    out.push_str(&cost(report, u, width));
    out.push('\n');
    out.push_str(&episodes(report, u, opts));
    out.push('\n');
    // sections below are optional; the diagnosis issue adds more the same way
    let diagnosis = crate::render::diagnosis::sections_after_purchase(&report.diagnosis, layout);
    let diagnosis = (!diagnosis.trim().is_empty()).then_some(diagnosis);
    for section in [jobs(report, u, width), showback(report, u, opts), diagnosis]
        .into_iter()
        .flatten()
    {
        out.push_str(&section);
        out.push('\n');
    }
    out.push_str(&fill(&data_quality_text(report), width, "      "));
    out
}

/// The data-quality section as plain lines.
pub fn data_quality_text(report: &Report) -> String {
    let u = Units::of(report);
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
        "  unobserved {} (gaps): {}\n",
        u.name,
        u.amount(q.unobserved_gpu_hours)
    ));
    out.push_str(&format!(
        "  held with unknown device activity, {}: {}\n",
        u.name,
        u.amount(q.held_unknown_activity_gpu_hours)
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
        out.push_str(&format!("  note: {}\n", super::notes::note_text(n)));
    }
    for w in &q.warnings {
        out.push_str(&format!("  warning: {}\n", super::notes::warning_text(w)));
    }
    out
}
