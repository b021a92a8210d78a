//! CSV: one row per layer (and per showback group with --by), for spreadsheets.
use crate::audit::model::{Layers, Ratios, Report};

fn num(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn row(
    scope: &str,
    key: &str,
    l: &Layers,
    r: &Ratios,
    held_usd: Option<f64>,
    idle_usd: Option<f64>,
    not_useful: Option<f64>,
) -> String {
    [
        quote(scope),
        quote(key),
        l.observed_gpu_hours.to_string(),
        l.held_gpu_hours.to_string(),
        num(l.active_gpu_hours),
        num(l.sm_active_gpu_hours),
        num(l.tensor_active_gpu_hours),
        num(l.useful_gpu_hours),
        num(l.idle_held_gpu_hours),
        num(r.active),
        num(r.sm_active),
        num(r.tensor_active),
        num(r.mfu),
        num(held_usd),
        num(idle_usd),
        num(not_useful),
    ]
    .join(",")
}

pub fn render(report: &Report) -> String {
    let mut out = String::from(
        "scope,key,observed_gpu_hours,held_gpu_hours,active_gpu_hours,sm_active_gpu_hours,tensor_active_gpu_hours,useful_gpu_hours,idle_held_gpu_hours,active,sm_active,tensor_active,mfu,held_usd,idle_held_usd,not_useful_usd\n",
    );
    let c = &report.cost;
    out.push_str(&row(
        "fleet",
        "all",
        &report.layers,
        &report.ratios,
        c.held_usd,
        c.idle_held_usd,
        c.not_useful_usd,
    ));
    out.push('\n');
    for g in report.groups.iter().flatten() {
        out.push_str(&row(
            &g.by,
            &g.key,
            &g.layers,
            &g.ratios,
            g.cost.held_usd,
            g.cost.idle_held_usd,
            g.cost.not_useful_usd,
        ));
        out.push('\n');
    }
    out
}
