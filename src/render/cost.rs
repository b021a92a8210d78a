//! The cost section's one view, shared by the table, markdown and HTML: the
//! rows' cells and the notes under them, decided once; each renderer only
//! lays them out.
use super::fmt::usd;
use crate::audit::model::Report;
use crate::catalog::prices::{PROFILE_DATE, PROFILE_NAME, PriceSource};

/// One row of the cost section: its label and dollars, formatted.
#[derive(Debug, Clone, PartialEq)]
pub struct CostRow {
    pub label: String,
    /// in the window (a snapshot: per hour now)
    pub amount: String,
    /// the monthly run-rate; None for a snapshot (no window to scale)
    pub run_rate: Option<String>,
}

/// The cost section: rows, then the notes under them.
#[derive(Debug, Clone, PartialEq)]
pub struct CostView {
    /// the amount column's head: "now" for a snapshot, else "in window"
    pub amount_head: &'static str,
    pub rows: Vec<CostRow>,
    /// SM or tensor idle rows are shown: say what they mean
    pub sm_tensor_note: bool,
    /// where the prices came from
    pub prices: String,
    /// GPU-hours no price covers and their models; None when all were priced
    pub unpriced: Option<(f64, String)>,
}

/// What the SM and tensor idle rows mean (without a final stop).
pub const SM_TENSOR_NOTE: &str = "SM / tensor idle: held dollars while those units sat idle; work that is not tensor math is still work";

/// The cost rows every format prints: (label, in window, monthly run-rate).
/// "Not busy (device)" is the defensible "not useful"; SM and tensor idle are
/// deeper columns, shown only where their metric was measured.
fn cost_rows(report: &Report) -> Vec<(&'static str, Option<f64>, Option<f64>)> {
    let c = &report.cost;
    let m = &c.monthly_run_rate;
    let l = &report.layers;
    let mut rows = vec![
        ("observed", c.observed_usd, m.observed_usd),
        ("held", c.held_usd, m.held_usd),
        ("idle held", c.idle_held_usd, m.idle_held_usd),
        ("unallocated", c.unallocated_usd, m.unallocated_usd),
    ];
    if l.active_gpu_hours.is_some() {
        rows.push(("not busy (device)", c.not_busy_usd, m.not_busy_usd));
    }
    if l.sm_active_gpu_hours.is_some() {
        rows.push(("SM idle", c.sm_idle_usd, m.sm_idle_usd));
    }
    if l.tensor_active_gpu_hours.is_some() {
        rows.push(("tensor idle", c.tensor_idle_usd, m.tensor_idle_usd));
    }
    // Against MFU, "not useful" is defensible: the job declared its own work.
    if c.not_useful_basis.as_deref() == Some("useful") {
        rows.push(("not useful (vs MFU)", c.not_useful_usd, m.not_useful_usd));
    }
    rows
}

/// The cost section of a report.
pub fn cost_view(report: &Report) -> CostView {
    // a snapshot's dollars are per hour now: no window, no run-rate
    let snapshot = report.window.snapshot;
    let c = &report.cost;
    CostView {
        amount_head: if snapshot { "now" } else { "in window" },
        rows: (cost_rows(report).into_iter())
            .map(|(label, v, run)| CostRow {
                label: label.to_string(),
                amount: usd(v),
                run_rate: (!snapshot).then(|| usd(run)),
            })
            .collect(),
        sm_tensor_note: report.layers.sm_active_gpu_hours.is_some()
            || report.layers.tensor_active_gpu_hours.is_some(),
        prices: price_source_text(&c.price_source),
        unpriced: (c.unpriced_gpu_hours > 0.0)
            .then(|| (c.unpriced_gpu_hours, c.unpriced_models.join(", "))),
    }
}

/// Where the prices came from, in words (every output's `prices` line, the
/// JSON's and CSV's `price_source`).
pub fn price_source_text(source: &PriceSource) -> String {
    match source {
        PriceSource::Flat(p) => format!("--price {p} USD per GPU-hour for every GPU"),
        PriceSource::File(f) => format!("--prices {f}"),
        PriceSource::Builtin => {
            format!("built-in profile \"{PROFILE_NAME}\", dated {PROFILE_DATE}")
        }
        PriceSource::FileThenBuiltin(f) => {
            format!("--prices {f}, then built-in profile \"{PROFILE_NAME}\", dated {PROFILE_DATE}")
        }
        PriceSource::None => "none (no dollars)".to_string(),
        PriceSource::Written(words) => words.clone(),
    }
}

/// The price source is its words in JSON too (one sentence for every output).
impl serde::Serialize for PriceSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&price_source_text(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_has_no_run_rate_and_the_rows_follow_what_was_measured() {
        let mut r = Report::default();
        r.cost.held_usd = Some(12.5);
        r.cost.monthly_run_rate.held_usd = Some(9125.0);
        r.cost.price_source = PriceSource::Flat(2.5);
        r.cost.unpriced_gpu_hours = 3.0;
        r.cost.unpriced_models = vec!["Mystery".to_string(), "Other".to_string()];
        let v = cost_view(&r);
        assert_eq!(v.amount_head, "in window");
        let labels: Vec<&str> = v.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["observed", "held", "idle held", "unallocated"]);
        assert_eq!(v.rows[1].amount, usd(Some(12.5)));
        assert_eq!(v.rows[1].run_rate, Some(usd(Some(9125.0))));
        assert!(!v.sm_tensor_note);
        assert_eq!(v.prices, "--price 2.5 USD per GPU-hour for every GPU");
        assert_eq!(v.unpriced, Some((3.0, "Mystery, Other".to_string())));
        r.window.snapshot = true;
        r.layers.sm_active_gpu_hours = Some(1.0);
        let v = cost_view(&r);
        assert_eq!(v.amount_head, "now");
        assert!(v.rows.iter().all(|r| r.run_rate.is_none()));
        assert_eq!(v.rows.last().map(|r| r.label.as_str()), Some("SM idle"));
        assert!(v.sm_tensor_note);
    }

    #[test]
    fn a_read_back_price_source_keeps_its_words() -> anyhow::Result<()> {
        let words = format!("built-in profile \"{PROFILE_NAME}\", dated {PROFILE_DATE}");
        assert_eq!(price_source_text(&PriceSource::Builtin), words);
        let json = serde_json::to_string(&PriceSource::Builtin)?;
        let back: PriceSource = serde_json::from_str(&json)?;
        assert_eq!(back, PriceSource::Written(words));
        assert_eq!(serde_json::to_string(&back)?, json);
        Ok(())
    }
}
