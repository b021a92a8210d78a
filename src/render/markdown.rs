//! Markdown for a PR comment or a wiki page: the same figures as the table
//! (cost rows, episodes, showback with its total), labels whole.
use super::fmt::{Units, pct, short_time, usd};
use super::table::{data_quality_text, episode_group_cells, headline, window_line};
use crate::audit::model::Layer;
use crate::audit::model::Report;

/// One markdown table row, pipes in cells escaped (every markdown table's).
pub(crate) fn row(cells: &[String]) -> String {
    format!(
        "| {} |\n",
        cells
            .iter()
            .map(|c| c.replace('|', "\\|"))
            .collect::<Vec<_>>()
            .join(" | ")
    )
}

fn dash(v: Option<&str>) -> String {
    v.unwrap_or("-").to_string()
}

fn episodes(report: &Report, u: Units, top: usize, per_gpu: bool, out: &mut String) {
    if report.window.snapshot {
        out.push_str(&format!(
            "\n### Idle held now\n\n{} GPUs, {}/h (a snapshot is one instant: no episodes)\n",
            u.opt(report.layers.idle_held_gpu_hours),
            usd(report.cost.idle_held_usd)
        ));
        return;
    }
    if !per_gpu && report.idle_episode_groups_total > 0 {
        let shown: Vec<_> = report.idle_episode_groups.iter().take(top).collect();
        out.push_str(&format!(
            "\n### Idle held episodes by job and span ({} found, {} GPU episodes; top {} shown)\n\n",
            report.idle_episode_groups_total,
            report.idle_episodes_total,
            shown.len()
        ));
        out.push_str(&row(&[
            "job", "user", "team", "GPUs", "host", "start", "end", u.name, "USD",
        ]
        .map(String::from)));
        out.push_str("|---|---|---|---:|---|---|---|---:|---:|\n");
        for e in shown {
            out.push_str(&row(&episode_group_cells(e, u)));
        }
        return;
    }
    if report.idle_episodes.is_empty() {
        return;
    }
    let shown: Vec<_> = report.idle_episodes.iter().take(top).collect();
    out.push_str(&format!(
        "\n### Idle held episodes per GPU ({} found; top {} shown)\n\n",
        report.idle_episodes_total,
        shown.len()
    ));
    out.push_str(&row(&[
        "host", "gpu", "job", "user", "team", "start", "end", "hours", "USD",
    ]
    .map(String::from)));
    out.push_str("|---|---|---|---|---|---|---|---:|---:|\n");
    for e in shown {
        out.push_str(&row(&[
            e.host.clone(),
            e.gpu.clone(),
            dash(e.job.as_deref()),
            dash(e.user.as_deref()),
            dash(e.team.as_deref()),
            short_time(&e.start),
            short_time(&e.end),
            u.amount(e.hours),
            usd(e.usd),
        ]));
    }
}

fn showback(report: &Report, u: Units, top: usize, out: &mut String) {
    let Some(groups) = &report.groups else { return };
    let by = groups.first().map(|g| g.by.as_str()).unwrap_or("group");
    let shown: Vec<_> = groups.iter().take(top).collect();
    out.push_str(&format!(
        "\n### Showback by {by} ({}, USD{}; top {} of {} by held USD)\n\n",
        u.name,
        u.per,
        shown.len(),
        groups.len()
    ));
    out.push_str(&row(&[
        by,
        "observed",
        "held",
        "device",
        "SM",
        "tensor",
        "idle",
        "held $",
        "idle $",
        "unalloc. $",
        "total $",
    ]
    .map(String::from)));
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for g in shown {
        out.push_str(&row(&crate::render::fmt::showback_cells(
            &u,
            g.key.clone(),
            &g.layers,
            &g.ratios,
            [
                g.cost.held_usd,
                g.cost.idle_held_usd,
                g.cost.unallocated_usd,
                g.cost.observed_usd,
            ],
        )));
    }
    let (l, r, c) = (&report.layers, &report.ratios, &report.cost);
    out.push_str(&row(&crate::render::fmt::showback_cells(
        &u,
        format!("**total ({} {by}s)**", groups.len()),
        l,
        r,
        [
            c.held_usd,
            c.idle_held_usd,
            c.unallocated_usd,
            c.observed_usd,
        ],
    )));
}

/// A mixed fleet: a row per vendor family, then where each layer came from.
fn vendors(report: &Report, u: &crate::render::fmt::Units, out: &mut String) {
    use crate::render::vendors as v;
    if report.vendors.is_empty() {
        return;
    }
    out.push_str(&format!("\n### {}\n\n", v::TITLE));
    out.push_str(&row(&v::headers(u)));
    out.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for line in &report.vendors {
        out.push_str(&row(&v::cells(line, u)));
    }
    out.push('\n');
    for s in v::sources(report) {
        out.push_str(&format!("- {s}\n"));
    }
}

pub fn render(report: &Report, top: usize, per_gpu: bool) -> String {
    let u = Units::of(report);
    let mut out = format!("## GPU audit\n\n**{}**\n\n", headline(report));
    out.push_str(&window_line(report));
    out.push_str("\n\n");
    out.push_str(&row(&[
        "layer".into(),
        u.name.into(),
        "% of held".into(),
        "% of observed".into(),
    ]));
    out.push_str("|---|---:|---:|---:|\n");
    for s in &report.waterfall {
        let of_held = if s.layer == Layer::Observed {
            "-".to_string()
        } else {
            pct(s.pct_of_held)
        };
        out.push_str(&row(&[
            s.layer.label(),
            u.opt(s.gpu_hours),
            of_held,
            pct(s.pct_of_observed),
        ]));
    }
    vendors(report, &u, &mut out);
    let view = super::cost::cost_view(report);
    out.push_str(&format!("\n### Cost (USD{})\n\n", u.per));
    out.push_str(&row(&[
        "figure".into(),
        "in window".into(),
        "monthly run-rate".into(),
    ]));
    out.push_str("|---|---:|---:|\n");
    for r in view.rows {
        let run = r.run_rate.unwrap_or_else(|| "-".to_string());
        out.push_str(&row(&[r.label, r.amount, run]));
    }
    if view.sm_tensor_note {
        out.push_str(&format!("\n{}.\n", super::cost::SM_TENSOR_NOTE));
    }
    out.push_str(&format!("\nPrices: {}\n", view.prices));
    if let Some((hours, models)) = view.unpriced {
        out.push_str(&format!(
            "\nUnpriced: {} {} ({models})\n",
            u.amount(hours),
            u.name,
        ));
    }
    episodes(report, u, top, per_gpu, &mut out);
    showback(report, u, top, &mut out);
    out.push_str(&crate::render::diagnosis::markdown(
        &report.diagnosis,
        top,
        report.window.snapshot,
    ));
    out.push_str("\n```\n");
    out.push_str(&data_quality_text(report));
    out.push_str("```\n");
    out
}
