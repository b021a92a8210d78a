//! The lines per vendor family under the waterfall (table, Markdown, HTML):
//! the same cells everywhere, and a line per family saying which counter each
//! layer came from and which are approximate (docs/semantics.md §9).
use crate::audit::model::{Report, VendorLayer, VendorLine};
use crate::render::fmt::{Units, usd};

/// Marks a figure whose counter only approximates NVIDIA's layer.
pub const APPROXIMATE: &str = "≈";

/// The column headers, in the order of [`cells`].
pub fn headers(u: &Units) -> Vec<String> {
    vec![
        "vendor".to_string(),
        "GPUs".to_string(),
        format!("held {}", u.name),
        format!("held USD{}", u.per),
        "active".to_string(),
        "SM".to_string(),
        "tensor".to_string(),
    ]
}

/// One layer's cell: its GPU-hours, "≈" when approximate, n/a when unmeasured.
fn layer_cell(l: &VendorLayer, u: &Units) -> String {
    match l.gpu_hours {
        Some(h) if l.approximate => format!("{APPROXIMATE}{}", u.amount(h)),
        Some(h) => u.amount(h),
        None => "n/a".to_string(),
    }
}

/// A line's cells, in the order of [`headers`].
pub fn cells(v: &VendorLine, u: &Units) -> Vec<String> {
    vec![
        v.family.clone(),
        v.gpus.to_string(),
        u.amount(v.held_gpu_hours),
        usd(v.held_usd),
        layer_cell(&v.layers.device, u),
        layer_cell(&v.layers.chip, u),
        layer_cell(&v.layers.tensor, u),
    ]
}

/// Where one layer of a family came from: "SM ≈ gpu_prof_sm_active (why)".
fn source(name: &str, l: &VendorLayer) -> String {
    match (&l.metric, &l.note) {
        (Some(m), Some(why)) => format!("{name} {APPROXIMATE} {m} ({why})"),
        (Some(m), None) => format!("{name} = {m}"),
        (None, _) => format!("{name}: no counter"),
    }
}

/// "AMD Instinct: active = gpu_gfx_activity, SM ≈ …, tensor = …" per line;
/// an unknown family's layers have no known counter.
pub fn sources(report: &Report) -> Vec<String> {
    report
        .vendors
        .iter()
        .map(|v| {
            if v.vendor == "unknown" {
                return format!(
                    "unknown ({}): not in the catalog, so neither vendor nor counters are known",
                    v.models.join(", ")
                );
            }
            format!(
                "{}: {}, {}, {}",
                v.family,
                source("active", &v.layers.device),
                source("SM", &v.layers.chip),
                source("tensor", &v.layers.tensor)
            )
        })
        .collect()
}

/// The section title.
pub const TITLE: &str = "By vendor (each layer from the vendor's own counter)";
