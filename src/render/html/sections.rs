//! The sections of the meeting document, each a function from the report
//! to HTML. Every figure is written through `escape::text` and formatted by
//! `render::fmt`, the same words and numbers as the table and Markdown.
use super::HtmlOptions;
use super::bars::{Bar, bars};
use super::escape::text;
use super::svg::{self, Segment};
use crate::audit::model::Layer;
use crate::audit::model::Report;
use crate::render::fmt::{hours, opt_hours, pct, short_gpu, short_time, usd};
use crate::render::table::headline;
use std::fmt::Write;

/// The showback chart and table list this many groups; the embedded JSON has them all.
pub const TOP_GROUPS: usize = 20;

/// A headline figure: its JSON pointer and exact value travel as data
/// attributes, so a reader (or the browser test) can tell the page says
/// what the JSON says.
fn figure(out: &mut String, name: &str, pointer: &str, value: Option<f64>, shown: String) {
    let _ = write!(
        out,
        "<div><dt>{}</dt><dd data-figure=\"{}\"",
        text(name),
        text(pointer)
    );
    if let Some(v) = value {
        let _ = write!(out, " data-value=\"{v}\"");
    }
    let _ = write!(out, ">{}</dd></div>", text(&shown));
}

/// The answer to "do we need more GPUs?": the verdict in words and the
/// plan, the headline sentence (its one dollar figure: idle held), the
/// figures behind it and the findings that matter.
pub fn answer(out: &mut String, r: &Report) {
    let (unit, per) = units(r);
    out.push_str("<section id=\"answer\">\n<h2>The answer</h2>\n");
    super::meeting::verdict_and_plan(out, r);
    let _ = writeln!(out, "<p class=\"headline\">{}</p>", text(&headline(r)));
    out.push_str("<dl class=\"figures\">");
    figure(
        out,
        "GPUs",
        "/gpu_count",
        Some(r.gpu_count as f64),
        r.gpu_count.to_string(),
    );
    let l = &r.layers;
    figure(
        out,
        &format!("observed {unit}"),
        "/layers/observed_gpu_hours",
        Some(l.observed_gpu_hours),
        hours(l.observed_gpu_hours),
    );
    figure(
        out,
        &format!("held {unit}"),
        "/layers/held_gpu_hours",
        Some(l.held_gpu_hours),
        hours(l.held_gpu_hours),
    );
    figure(
        out,
        "device active, % of held",
        "/ratios/active",
        r.ratios.active(),
        pct(r.ratios.active()),
    );
    figure(
        out,
        "idle held, % of held",
        "/ratios/idle_held",
        r.ratios.idle_held,
        pct(r.ratios.idle_held),
    );
    let c = &r.cost;
    figure(
        out,
        &format!("idle held USD{per}"),
        "/cost/idle_held_usd",
        c.idle_held_usd,
        usd(c.idle_held_usd),
    );
    if !r.window.snapshot {
        let m = c.monthly_run_rate.idle_held_usd;
        figure(
            out,
            "idle held, USD per month",
            "/cost/monthly_run_rate/idle_held_usd",
            m,
            usd(m),
        );
    }
    out.push_str("</dl>\n");
    super::meeting::top_findings(out, &r.diagnosis);
    out.push_str("</section>\n");
}

/// Held → used: each layer as a bar of observed, with its table.
pub fn waterfall(out: &mut String, r: &Report) {
    let (unit, _) = units(r);
    out.push_str("<section id=\"waterfall\">\n<h2>Held → used waterfall</h2>\n");
    let observed = r.layers.observed_gpu_hours;
    let rows: Vec<Bar> = r
        .waterfall
        .iter()
        .map(|s| {
            let name = s.layer.label();
            let shown = match s.gpu_hours {
                Some(h) => format!(
                    "{} {unit} · {} of observed",
                    hours(h),
                    pct(s.pct_of_observed)
                ),
                None => "n/a (not measured)".to_string(),
            };
            Bar {
                tip: match (s.gpu_hours, s.pct_of_held) {
                    (None, _) => format!("{name}: not measured"),
                    (Some(h), None) => format!(
                        "{name}: {} {unit}, {} of observed",
                        hours(h),
                        pct(s.pct_of_observed)
                    ),
                    (Some(h), Some(of_held)) => format!(
                        "{name}: {} {unit}, {} of held, {} of observed",
                        hours(h),
                        pct(Some(of_held)),
                        pct(s.pct_of_observed)
                    ),
                },
                label: name,
                value: s.gpu_hours,
                class: layer_class(s.layer.name()),
                overlay: None,
                shown,
            }
        })
        .collect();
    out.push_str("<figure>");
    out.push_str(&bars(
        &format!(
            "GPU-hours per layer, as bars of the {} {unit} observed",
            hours(observed)
        ),
        &rows,
        observed,
    ));
    out.push_str("<figcaption>Each layer as a share of the observed GPU-hours; idle held is the part of held in which device activity was below the idle threshold.</figcaption></figure>\n");
    waterfall_table(out, r);
    vendors_table(out, r);
    out.push_str("</section>\n");
}

/// A mixed fleet: a row per vendor family, then where each layer came from.
fn vendors_table(out: &mut String, r: &Report) {
    use crate::render::vendors as v;
    if r.vendors.is_empty() {
        return;
    }
    let u = crate::render::fmt::Units::of(r);
    let _ = write!(out, "<h3>{}</h3><table><thead><tr>", text(v::TITLE));
    for (i, h) in v::headers(&u).iter().enumerate() {
        let class = if i == 0 { "" } else { " class=\"n\"" };
        let _ = write!(out, "<th{class}>{}</th>", text(h));
    }
    out.push_str("</tr></thead><tbody>");
    for line in &r.vendors {
        out.push_str("<tr>");
        for (i, c) in v::cells(line, &u).iter().enumerate() {
            let class = if i == 0 { "" } else { " class=\"n\"" };
            let _ = write!(out, "<td{class}>{}</td>", text(c));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>\n<ul class=\"note\">");
    for s in v::sources(r) {
        let _ = write!(out, "<li>{}</li>", text(&s));
    }
    out.push_str("</ul>\n");
}

/// The waterfall's figures as a table, and the not-useful dollars against MFU.
fn waterfall_table(out: &mut String, r: &Report) {
    let (unit, per) = units(r);
    let _ = write!(
        out,
        "<table><thead><tr><th>layer</th><th class=\"n\">{unit}</th><th class=\"n\">% of held</th><th class=\"n\">% of observed</th><th class=\"n\">USD{per}</th></tr></thead><tbody>"
    );
    let c = &r.cost;
    for s in &r.waterfall {
        let dollars = match s.layer {
            Layer::Observed => usd(c.observed_usd),
            Layer::Held => usd(c.held_usd),
            Layer::IdleHeld => usd(c.idle_held_usd),
            _ => "—".to_string(),
        };
        let of_held = if s.layer == Layer::Observed {
            "—".to_string()
        } else {
            pct(s.pct_of_held)
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            text(&s.layer.label()),
            opt_hours(s.gpu_hours),
            of_held,
            pct(s.pct_of_observed),
            text(&dollars)
        );
    }
    out.push_str("</tbody></table>\n");
    // "not useful" only against MFU: tensor or SM idle is never called that
    if let (Some(v), Some(basis)) = (
        c.not_useful_usd,
        c.not_useful_basis
            .as_ref()
            .filter(|b| b.as_str() == "useful"),
    ) {
        let _ = writeln!(
            out,
            "<p class=\"note\">Held dollars not backed by {} work: {}{per}. Layers below held have no dollars of their own in the report (prices differ per model).</p>",
            text(&basis.replace('_', " ")),
            text(&usd(Some(v)))
        );
    }
}

fn layer_class(layer: &str) -> &'static str {
    match layer {
        "observed" => "c-observed",
        "held" => "c-held",
        "active" => "c-active",
        "sm_active" => "c-sm_active",
        "tensor_active" => "c-tensor_active",
        "useful" => "c-useful",
        "idle_held" => "c-idle_held",
        _ => "c-observed",
    }
}

/// Where the dollars go: observed dollars as one bar, held (with its idle
/// part) then unallocated; the table gives every figure and the run-rate.
pub fn cost(out: &mut String, r: &Report) {
    let (unit, per) = units(r);
    let view = crate::render::cost::cost_view(r);
    out.push_str("<section id=\"cost\">\n<h2>Where the dollars go</h2>\n");
    dollars_bar(out, r);
    let _ = write!(
        out,
        "<table><thead><tr><th>USD{per}</th><th class=\"n\">{}</th>{}</tr></thead><tbody>",
        view.amount_head,
        if r.window.snapshot {
            ""
        } else {
            "<th class=\"n\">monthly run-rate</th>"
        }
    );
    for row in &view.rows {
        let run = (row.run_rate.as_deref())
            .map(|v| format!("<td class=\"n\">{}</td>", text(v)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td>{run}</tr>",
            text(&row.label),
            text(&row.amount)
        );
    }
    out.push_str("</tbody></table>\n");
    if view.sm_tensor_note {
        let _ = writeln!(
            out,
            "<p class=\"note\">{}.</p>",
            text(crate::render::cost::SM_TENSOR_NOTE)
        );
    }
    let _ = writeln!(out, "<p class=\"note\">Prices: {}.</p>", text(&view.prices));
    if let Some((unpriced, models)) = &view.unpriced {
        let _ = writeln!(
            out,
            "<p class=\"note\">Unpriced: {} {unit} ({}) carry no dollars (never priced at 0); give --price or --prices.</p>",
            hours(*unpriced),
            text(models)
        );
    }
    out.push_str("</section>\n");
}

/// Observed dollars as one bar: held (its idle part drawn over it), then unallocated.
fn dollars_bar(out: &mut String, r: &Report) {
    let (_, per) = units(r);
    let c = &r.cost;
    if let (Some(total), Some(held), Some(unalloc)) =
        (c.observed_usd, c.held_usd, c.unallocated_usd)
        && total > 0.0
    {
        let idle = c.idle_held_usd.map(|i| {
            (
                i,
                "c-idle_held",
                format!("idle held: {}{per} (part of held)", usd(Some(i))),
            )
        });
        let segs = [
            Segment {
                value: held,
                class: "c-held",
                part: idle,
                tip: format!("held: {}{per}", usd(Some(held))),
            },
            Segment {
                value: unalloc,
                class: "c-unallocated",
                part: None,
                tip: format!("unallocated: {}{per}", usd(Some(unalloc))),
            },
        ];
        out.push_str("<figure>");
        out.push_str(&svg::stacked(
            &format!("observed {}{per}: held then unallocated", usd(Some(total))),
            &segs,
            total,
        ));
        let _ = writeln!(
            out,
            "<figcaption><span class=\"key k-held\"></span>held {} <span class=\"key k-idle_held\"></span>of which idle {} <span class=\"key k-unallocated\"></span>unallocated {} — of {} observed{per}</figcaption></figure>",
            text(&usd(Some(held))),
            text(&usd(c.idle_held_usd)),
            text(&usd(Some(unalloc))),
            text(&usd(Some(total)))
        );
    }
}

/// Who holds what: held GPU-hours per `--by` group, active drawn over them.
pub fn showback(out: &mut String, r: &Report) {
    let Some(groups) = &r.groups else { return };
    let (unit, per) = units(r);
    let by = groups.first().map(|g| g.by.as_str()).unwrap_or("group");
    let shown = &groups[..groups.len().min(TOP_GROUPS)];
    let _ = writeln!(
        out,
        "<section id=\"showback\">\n<h2>Showback by {}</h2>",
        text(by)
    );
    let max = shown
        .iter()
        .map(|g| g.layers.held_gpu_hours)
        .fold(0.0_f64, f64::max);
    let rows: Vec<Bar> = shown
        .iter()
        .map(|g| Bar {
            label: g.key.clone(),
            value: Some(g.layers.held_gpu_hours),
            class: "c-held",
            overlay: g.layers.active_gpu_hours.map(|a| (a, "c-active")),
            shown: format!("{} {unit} · idle {}{per}", hours(g.layers.held_gpu_hours), usd(g.cost.idle_held_usd)),
            tip: format!(
                "{}: held {} {unit}, device active {} {unit} ({}), idle held {} {unit}, held {}{per}, idle {}{per}",
                g.key,
                hours(g.layers.held_gpu_hours),
                opt_hours(g.layers.active_gpu_hours),
                pct(g.ratios.active()),
                opt_hours(g.layers.idle_held_gpu_hours),
                usd(g.cost.held_usd),
                usd(g.cost.idle_held_usd)
            ),
        })
        .collect();
    if max > 0.0 {
        out.push_str("<figure>");
        out.push_str(&bars(
            &format!("held {unit} per {by}, device-active part drawn over it"),
            &rows,
            max,
        ));
        let _ = writeln!(
            out,
            "<figcaption><span class=\"key k-held\"></span>held <span class=\"key k-active\"></span>device active (held × device activity)</figcaption></figure>"
        );
    }
    let _ = write!(
        out,
        "<table><thead><tr><th>{}</th><th class=\"n\">observed {unit}</th><th class=\"n\">held {unit}</th><th class=\"n\">device</th><th class=\"n\">SM</th><th class=\"n\">tensor</th><th class=\"n\">idle {unit}</th><th class=\"n\">held USD{per}</th><th class=\"n\">idle USD{per}</th></tr></thead><tbody>",
        text(by)
    );
    for g in shown {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            text(&g.key),
            hours(g.layers.observed_gpu_hours),
            hours(g.layers.held_gpu_hours),
            pct(g.ratios.active()),
            pct(g.ratios.sm_active()),
            pct(g.ratios.tensor_active()),
            opt_hours(g.layers.idle_held_gpu_hours),
            text(&usd(g.cost.held_usd)),
            text(&usd(g.cost.idle_held_usd))
        );
    }
    out.push_str("</tbody></table>\n");
    if groups.len() > shown.len() {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} of {} groups shown; the embedded JSON has all of them.</p>",
            shown.len(),
            groups.len()
        );
    }
    out.push_str("</section>\n");
}

/// The idle held episodes as the terminal groups them: one row per job and
/// span (the 8 cards a notebook parked together are one row), top N by
/// GPU-hours; per GPU only for a report that carries no groups.
pub fn idle_episodes(out: &mut String, r: &Report, opts: &HtmlOptions) {
    let (unit, per) = units(r);
    out.push_str("<section id=\"idle-episodes\">\n<h2>Idle held episodes</h2>\n");
    if r.window.snapshot {
        let _ = writeln!(
            out,
            "<p class=\"note\">Idle held now: {} GPUs, {}/h (a snapshot is one instant: no episodes).</p>\n</section>",
            opt_hours(r.layers.idle_held_gpu_hours),
            text(&usd(r.cost.idle_held_usd))
        );
        return;
    }
    if r.idle_episode_groups_total == 0 {
        per_gpu_episodes(out, r, opts);
        out.push_str("</section>\n");
        return;
    }
    let shown = &r.idle_episode_groups[..r.idle_episode_groups.len().min(opts.top)];
    let _ = writeln!(
        out,
        "<p class=\"note\">Idle held episodes at least the minimum idle length long, by job and span: {} ({} GPU episodes), the largest {} by {unit}.</p>",
        r.idle_episode_groups_total,
        r.idle_episodes_total,
        shown.len()
    );
    if !shown.is_empty() {
        let _ = write!(
            out,
            "<table><thead><tr><th>job</th><th>user</th><th>team</th><th class=\"n\">GPUs</th><th>host</th><th>start (UTC)</th><th>end (UTC)</th><th class=\"n\">{unit}</th><th class=\"n\">USD{per}</th></tr></thead><tbody>"
        );
        for e in shown {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"t\">{}</td><td class=\"t\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                text(e.job.as_deref().unwrap_or("—")),
                text(e.user.as_deref().unwrap_or("—")),
                text(e.team.as_deref().unwrap_or("—")),
                e.gpus,
                text(&crate::render::table::hosts_cell(&e.hosts)),
                text(&short_time(&e.start)),
                text(&short_time(&e.end)),
                hours(e.gpu_hours),
                text(&usd(e.usd))
            );
        }
        out.push_str("</tbody></table>\n");
    }
    out.push_str("</section>\n");
}

/// One row per GPU: a report written before episodes were grouped.
fn per_gpu_episodes(out: &mut String, r: &Report, opts: &HtmlOptions) {
    let shown = &r.idle_episodes[..r.idle_episodes.len().min(opts.top)];
    let _ = writeln!(
        out,
        "<p class=\"note\">Idle held episodes at least the minimum idle length long, per GPU: {} found, the longest {} listed.</p>",
        r.idle_episodes_total,
        shown.len()
    );
    if shown.is_empty() {
        return;
    }
    let (_, per) = units(r);
    let _ = write!(
        out,
        "<table><thead><tr><th>host</th><th>gpu</th><th>job</th><th>user</th><th>team</th><th>start (UTC)</th><th>end (UTC)</th><th class=\"n\">hours</th><th class=\"n\">USD{per}</th></tr></thead><tbody>"
    );
    for e in shown {
        let _ = write!(
            out,
            "<tr><td>{}</td><td><code title=\"{}\">{}</code></td><td>{}</td><td>{}</td><td>{}</td><td class=\"t\">{}</td><td class=\"t\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            text(&e.host),
            text(&e.gpu),
            text(&short_gpu(&e.gpu)),
            text(e.job.as_deref().unwrap_or("—")),
            text(e.user.as_deref().unwrap_or("—")),
            text(e.team.as_deref().unwrap_or("—")),
            text(&short_time(&e.start)),
            text(&short_time(&e.end)),
            hours(e.hours),
            text(&usd(e.usd))
        );
    }
    out.push_str("</tbody></table>\n");
}

/// The jobs (§11), top N by dollars of all found, and every finding.
pub fn jobs(out: &mut String, r: &Report, opts: &HtmlOptions) {
    let Some((section, total)) = crate::render::diagnosis::jobs::section_of(&r.diagnosis) else {
        return;
    };
    let (unit, per) = units(r);
    let shown = &section.jobs[..section.jobs.len().min(opts.top)];
    let _ = writeln!(
        out,
        "<section id=\"jobs\">\n<h2>Jobs</h2>\n<p class=\"note\">{} of {total} jobs, by USD (ties by idle GPU-hours).</p>",
        shown.len()
    );
    // "not useful" only where a job declared its work (MFU, --jobs)
    let mfu = shown.iter().any(|j| j.mfu.is_some());
    let _ = write!(
        out,
        "<table><thead><tr><th>job</th><th>shape</th><th class=\"n\">GPUs</th><th class=\"n\">held {unit}</th><th class=\"n\">device</th><th class=\"n\">SM</th><th class=\"n\">tensor</th><th class=\"n\">MFU</th>{}<th class=\"n\">idle</th><th class=\"n\">gang</th><th class=\"n\">ETT</th><th class=\"n\">USD{per}</th></tr></thead><tbody>",
        if mfu {
            format!("<th class=\"n\">not useful USD{per}</th>")
        } else {
            String::new()
        }
    );
    for j in shown {
        let shape = match j.declared_kind {
            Some(d) if d != j.inferred_shape => {
                format!("{} (looks {})", d.name(), j.inferred_shape.name())
            }
            _ => j.shape.name().to_string(),
        };
        let not_useful = if mfu {
            format!("<td class=\"n\">{}</td>", text(&usd(j.not_useful_usd)))
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>{not_useful}<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            text(&j.job),
            text(&shape),
            j.gpus,
            hours(j.held_gpu_hours),
            pct(j.active_share),
            pct(j.sm_active_share),
            pct(j.tensor_active_share),
            pct(j.mfu),
            pct(j.idle_share),
            j.gang,
            pct(j.ett),
            text(&usd(j.usd))
        );
    }
    out.push_str("</tbody></table>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">{}.</p>",
        text(crate::render::diagnosis::jobs::ETT_NOTE)
    );
    if !section.findings.is_empty() {
        out.push_str("<h3>Findings</h3>\n<ul class=\"findings\">");
        for f in &section.findings {
            let _ = write!(
                out,
                "<li><strong>{}</strong>: {} — {} GPU-h, {}. {}</li>",
                text(&f.kind.name().replace('_', " ")),
                text(&f.job),
                hours(f.gpu_hours),
                text(&usd(f.usd)),
                text(&crate::render::diagnosis::jobs::finding_detail(&f.detail))
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</section>\n");
}

/// What the numbers rest on, so the document stands alone: sources, the
/// held rule, prices, thresholds and everything the data-quality section counts.
pub fn data_quality(out: &mut String, r: &Report, opts: &HtmlOptions) {
    let (unit, _) = units(r);
    let q = &r.data_quality;
    out.push_str(
        "<section id=\"data-quality\">\n<h2>Data quality and the rules used</h2>\n<table><tbody>",
    );
    let mut row = |k: &str, v: String| {
        let _ = write!(
            out,
            "<tr><th scope=\"row\">{}</th><td>{}</td></tr>",
            text(k),
            text(&v)
        );
    };
    row("sources", r.sources.files.join(", "));
    row(
        "rows",
        format!("{} read, {} used", r.sources.rows_read, r.sources.rows_used),
    );
    row(
        "window (UTC)",
        format!(
            "{} → {} ({} h){}",
            crate::timeparse::rfc3339(&r.window.start),
            crate::timeparse::rfc3339(&r.window.end),
            hours(r.window.hours),
            if r.window.snapshot {
                ", a snapshot: GPU-hours read as GPUs, dollars per hour"
            } else {
                ""
            }
        ),
    );
    row("held rule", r.held_rule.to_string());
    row(
        "prices",
        crate::render::cost::price_source_text(&r.cost.price_source),
    );
    if let Some(s) = &opts.settings {
        for (k, v) in super::settings_rows(s) {
            row(k, v);
        }
    }
    row("duplicates dropped", q.duplicates.to_string());
    let invalid = if q.invalid.is_empty() {
        "none".to_string()
    } else {
        q.invalid
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
            + " (not used)"
    };
    row("invalid values", invalid);
    row(
        &format!("unobserved {unit} (gaps)"),
        hours(q.unobserved_gpu_hours),
    );
    row(
        &format!("held with unknown device activity, {unit}"),
        hours(q.held_unknown_activity_gpu_hours),
    );
    row(
        "rows outside --since/--until",
        q.rows_outside_window.to_string(),
    );
    row("rows dropped (no GPU id)", q.rows_dropped.to_string());
    for n in &q.notes {
        row("note", crate::render::notes::note_text(n));
    }
    for w in &q.warnings {
        row("warning", crate::render::notes::warning_text(w));
    }
    out.push_str("</tbody></table>\n</section>\n");
}

/// Unit words on the page: a snapshot's GPU-hours are GPUs and its dollars are
/// per hour. The page prints GPU-hours at any window length (its figures carry
/// their own precision), so only the snapshot changes the words.
fn units(report: &Report) -> (&'static str, &'static str) {
    if report.window.snapshot {
        ("GPUs", "/h")
    } else {
        ("GPU-h", "")
    }
}
