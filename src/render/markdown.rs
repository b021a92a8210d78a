//! Markdown for a PR comment or a wiki page.
use super::fmt::{hours, opt_hours, pct, usd};
use super::table::{data_quality_text, headline, units};
use crate::audit::model::Report;

fn row(cells: &[String]) -> String {
    format!(
        "| {} |\n",
        cells
            .iter()
            .map(|c| c.replace('|', "\\|"))
            .collect::<Vec<_>>()
            .join(" | ")
    )
}

pub fn render(report: &Report, top: usize) -> String {
    let (unit, per) = units(report);
    let mut out = format!("## GPU audit\n\n**{}**\n\n", headline(report));
    out.push_str(&format!(
        "Window {} → {} ({} h)\n\n",
        report.window.start,
        report.window.end,
        hours(report.window.hours)
    ));
    out.push_str(&row(&[
        "layer".into(),
        unit.into(),
        "% of held".into(),
        "% of observed".into(),
    ]));
    out.push_str("|---|---:|---:|---:|\n");
    for s in &report.waterfall {
        let of_held = if s.layer == "observed" {
            "-".to_string()
        } else {
            pct(s.pct_of_held)
        };
        out.push_str(&row(&[
            s.layer.replace('_', " "),
            opt_hours(s.gpu_hours),
            of_held,
            pct(s.pct_of_observed),
        ]));
    }
    let c = &report.cost;
    out.push_str(&format!("\n### Cost (USD{per})\n\n"));
    out.push_str(&row(&[
        "figure".into(),
        "in window".into(),
        "monthly run-rate".into(),
    ]));
    out.push_str("|---|---:|---:|\n");
    let m = &c.monthly_run_rate;
    for (name, v, r) in [
        ("held", c.held_usd, m.held_usd),
        ("idle held", c.idle_held_usd, m.idle_held_usd),
        ("unallocated", c.unallocated_usd, m.unallocated_usd),
        ("not useful", c.not_useful_usd, m.not_useful_usd),
    ] {
        out.push_str(&row(&[name.into(), usd(v), usd(r)]));
    }
    out.push_str(&format!("\nPrices: {}\n", c.price_source));
    if !report.idle_episodes.is_empty() {
        out.push_str(&format!(
            "\n### Idle held episodes ({} found)\n\n",
            report.idle_episodes_total
        ));
        out.push_str(&row(&[
            "host".into(),
            "gpu".into(),
            "job".into(),
            "user".into(),
            "start".into(),
            "end".into(),
            "hours".into(),
            "USD".into(),
        ]));
        out.push_str("|---|---|---|---|---|---|---:|---:|\n");
        for e in report.idle_episodes.iter().take(top) {
            out.push_str(&row(&[
                e.host.clone(),
                e.gpu.clone(),
                e.job.clone().unwrap_or_else(|| "-".into()),
                e.user.clone().unwrap_or_else(|| "-".into()),
                e.start.clone(),
                e.end.clone(),
                hours(e.hours),
                usd(e.usd),
            ]));
        }
    }
    if let Some(groups) = &report.groups {
        let by = groups.first().map(|g| g.by.as_str()).unwrap_or("group");
        out.push_str(&format!("\n### Showback by {by}\n\n"));
        out.push_str(&row(&[
            by.into(),
            format!("held {unit}"),
            "device".into(),
            "SM".into(),
            "tensor".into(),
            format!("idle {unit}"),
            format!("held USD{per}"),
            format!("idle USD{per}"),
        ]));
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for g in groups {
            out.push_str(&row(&[
                g.key.clone(),
                hours(g.layers.held_gpu_hours),
                pct(g.ratios.active),
                pct(g.ratios.sm_active),
                pct(g.ratios.tensor_active),
                opt_hours(g.layers.idle_held_gpu_hours),
                usd(g.cost.held_usd),
                usd(g.cost.idle_held_usd),
            ]));
        }
    }
    out.push_str("\n```\n");
    out.push_str(&data_quality_text(report));
    out.push_str("```\n");
    out
}
