//! `gpuaudit check`: rules on report figures and their verdicts. Pure
//! computation: which figures a rule may name, how a limit's unit reads, and
//! whether a CURRENT report (against a BASELINE) passes. Nothing here prints.
use super::model::{HeldBasis, Report};
use crate::catalog::prices::PriceSource;
use anyhow::{Result, bail};

/// What a figure measures, which decides the units a limit may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// a fraction 0..1 of held (or observed) time
    Ratio,
    GpuHours,
    /// a number of GPUs (the purchase answer's percentiles)
    Gpus,
    Usd,
    /// dollars per hour of the window: does not grow with the window's length
    UsdPerHour,
}

impl MetricKind {
    pub fn name(self) -> &'static str {
        match self {
            MetricKind::Ratio => "ratio",
            MetricKind::GpuHours => "gpu_hours",
            MetricKind::Gpus => "gpus",
            MetricKind::Usd => "usd",
            MetricKind::UsdPerHour => "usd_per_hour",
        }
    }
}

/// How a figure is read from a report.
#[derive(Clone, Copy)]
pub enum Read {
    Figure(fn(&Report) -> Option<f64>),
    /// a registry metric's ratio (`ratios.<name>`)
    Ratio(crate::metric::Slot),
}

/// One figure of the report that a rule can name.
pub struct Metric {
    pub name: &'static str,
    pub kind: MetricKind,
    /// where the figure lives in the "gpuaudit.report/1" JSON
    pub path: std::borrow::Cow<'static, str>,
    pub read: Read,
    /// a total over the window (GPU-hours, dollars): it grows with the window's
    /// length, so two runs of different lengths do not compare
    pub total: bool,
    /// for a total, the metric that does not grow with the window, offered in its place
    pub instead: Option<&'static str>,
}

impl Metric {
    /// The figure in `report` (None: not measured there).
    pub fn read(&self, report: &Report) -> Option<f64> {
        match self.read {
            Read::Figure(f) => f(report),
            Read::Ratio(slot) => report.ratios.get(slot),
        }
    }

    pub fn is_dollars(&self) -> bool {
        matches!(self.kind, MetricKind::Usd | MetricKind::UsdPerHour)
    }
}

impl Clone for Metric {
    fn clone(&self) -> Self {
        Metric {
            path: self.path.clone(),
            ..*self
        }
    }
}

impl std::fmt::Debug for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! metric {
    ($name:literal, $kind:ident, $path:literal, |$r:ident| $read:expr) => {
        Metric {
            name: $name,
            kind: MetricKind::$kind,
            path: std::borrow::Cow::Borrowed($path),
            read: Read::Figure(|$r: &Report| $read),
            total: false,
            instead: None,
        }
    };
}

/// A total over the window, with the window-free metric to use instead (or none).
macro_rules! total {
    ($name:literal, $kind:ident, $path:literal, $instead:expr, |$r:ident| $read:expr) => {
        Metric {
            name: $name,
            kind: MetricKind::$kind,
            path: std::borrow::Cow::Borrowed($path),
            read: Read::Figure(|$r: &Report| $read),
            total: true,
            instead: $instead,
        }
    };
}

/// A dollar figure per hour of the window. A snapshot's dollars are already per
/// hour of its sample weight (every GPU weighs the same), so divide by that.
fn per_hour(r: &Report, usd: Option<f64>) -> Option<f64> {
    let hours = if r.window.snapshot {
        (r.gpu_count > 0).then(|| r.layers.observed_gpu_hours / r.gpu_count as f64)?
    } else {
        r.window.hours
    };
    (hours > 0.0).then_some(usd? / hours)
}

/// Every figure a rule may name: the one table `--list-metrics` prints and
/// rule parsing reads. The metric registry's ratios first, then [`FIGURES`].
pub static METRICS: std::sync::LazyLock<Vec<Metric>> = std::sync::LazyLock::new(|| {
    let ratios = crate::metric::AUDITED_DEFS
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            Some(Metric {
                name: m.check_metric()?,
                kind: MetricKind::Ratio,
                path: m.ratio_path()?.into(),
                read: Read::Ratio(crate::metric::Slot(i)),
                total: false,
                instead: None,
            })
        });
    ratios.chain(FIGURES.iter().map(Metric::clone)).collect()
});

/// The figures that are not a registry metric's ratio.
#[rustfmt::skip]
static FIGURES: &[Metric] = &[
    metric!("mfu", Ratio, "ratios.mfu", |r| r.ratios.mfu),
    metric!("held_of_observed", Ratio, "ratios.held_of_observed", |r| r.ratios.held_of_observed),
    metric!("idle_held", Ratio, "ratios.idle_held", |r| r.ratios.idle_held),
    // the same figure under the name the comparability warnings offer
    metric!("idle_held_share", Ratio, "ratios.idle_held", |r| r.ratios.idle_held),
    total!("observed_gpu_hours", GpuHours, "layers.observed_gpu_hours", None, |r| Some(r.layers.observed_gpu_hours)),
    total!("held_gpu_hours", GpuHours, "layers.held_gpu_hours", Some("held_of_observed"), |r| Some(r.layers.held_gpu_hours)),
    total!("active_gpu_hours", GpuHours, "layers.active_gpu_hours", Some("active"), |r| r.layers.active_gpu_hours),
    total!("sm_active_gpu_hours", GpuHours, "layers.sm_active_gpu_hours", Some("sm_active"), |r| r.layers.sm_active_gpu_hours),
    total!("tensor_active_gpu_hours", GpuHours, "layers.tensor_active_gpu_hours", Some("tensor_active"), |r| r.layers.tensor_active_gpu_hours),
    total!("useful_gpu_hours", GpuHours, "layers.useful_gpu_hours", Some("mfu"), |r| r.layers.useful_gpu_hours),
    total!("idle_held_gpu_hours", GpuHours, "layers.idle_held_gpu_hours", Some("idle_held_share"), |r| r.layers.idle_held_gpu_hours),
    total!("unallocated_gpu_hours", GpuHours, "layers.unallocated_gpu_hours", None, |r| Some(r.layers.unallocated_gpu_hours)),
    total!("unpriced_gpu_hours", GpuHours, "cost.unpriced_gpu_hours", None, |r| Some(r.cost.unpriced_gpu_hours)),
    total!("observed_usd", Usd, "cost.observed_usd", Some("observed_usd_per_hour"), |r| r.cost.observed_usd),
    total!("held_usd", Usd, "cost.held_usd", Some("held_usd_per_hour"), |r| r.cost.held_usd),
    total!("idle_held_usd", Usd, "cost.idle_held_usd", Some("idle_held_usd_per_hour"), |r| r.cost.idle_held_usd),
    total!("unallocated_usd", Usd, "cost.unallocated_usd", Some("unallocated_usd_per_hour"), |r| r.cost.unallocated_usd),
    total!("not_useful_usd", Usd, "cost.not_useful_usd", Some("not_useful_usd_per_hour"), |r| r.cost.not_useful_usd),
    metric!("observed_usd_per_hour", UsdPerHour, "cost.observed_usd / window.hours", |r| per_hour(r, r.cost.observed_usd)),
    metric!("held_usd_per_hour", UsdPerHour, "cost.held_usd / window.hours", |r| per_hour(r, r.cost.held_usd)),
    metric!("idle_held_usd_per_hour", UsdPerHour, "cost.idle_held_usd / window.hours", |r| per_hour(r, r.cost.idle_held_usd)),
    metric!("unallocated_usd_per_hour", UsdPerHour, "cost.unallocated_usd / window.hours", |r| per_hour(r, r.cost.unallocated_usd)),
    metric!("not_useful_usd_per_hour", UsdPerHour, "cost.not_useful_usd / window.hours", |r| per_hour(r, r.cost.not_useful_usd)),
    metric!("monthly_observed_usd", Usd, "cost.monthly_run_rate.observed_usd", |r| r.cost.monthly_run_rate.observed_usd),
    metric!("monthly_held_usd", Usd, "cost.monthly_run_rate.held_usd", |r| r.cost.monthly_run_rate.held_usd),
    metric!("monthly_idle_held_usd", Usd, "cost.monthly_run_rate.idle_held_usd", |r| r.cost.monthly_run_rate.idle_held_usd),
    metric!("monthly_unallocated_usd", Usd, "cost.monthly_run_rate.unallocated_usd", |r| r.cost.monthly_run_rate.unallocated_usd),
    metric!("monthly_not_useful_usd", Usd, "cost.monthly_run_rate.not_useful_usd", |r| r.cost.monthly_run_rate.not_useful_usd),
    // the diagnosis sections (docs/semantics.md §10): read through Sections::figure, one home
    total!("leaks.held_unknown", GpuHours, "leaks.classes[held_unknown].gpu_hours", Some("leaks.held_unknown.share_of_held"), |r| r.diagnosis.figure("leaks.held_unknown").flatten()),
    metric!("leaks.held_unknown.share_of_held", Ratio, "leaks.classes[held_unknown].share_of_held", |r| r.diagnosis.figure("leaks.held_unknown.share_of_held").flatten()),
    total!("leaks.held_unknown.usd", Usd, "leaks.classes[held_unknown].usd", Some("leaks.held_unknown.share_of_held"), |r| r.diagnosis.figure("leaks.held_unknown.usd").flatten()),
    total!("leaks.unallocated", GpuHours, "leaks.classes[unallocated].gpu_hours", Some("leaks.unallocated.share_of_held"), |r| r.diagnosis.figure("leaks.unallocated").flatten()),
    metric!("leaks.unallocated.share_of_held", Ratio, "leaks.classes[unallocated].share_of_held", |r| r.diagnosis.figure("leaks.unallocated.share_of_held").flatten()),
    total!("leaks.unallocated.usd", Usd, "leaks.classes[unallocated].usd", Some("leaks.unallocated.share_of_held"), |r| r.diagnosis.figure("leaks.unallocated.usd").flatten()),
    total!("leaks.unmeasured", GpuHours, "leaks.classes[unmeasured].gpu_hours", Some("leaks.unmeasured.share_of_held"), |r| r.diagnosis.figure("leaks.unmeasured").flatten()),
    metric!("leaks.unmeasured.share_of_held", Ratio, "leaks.classes[unmeasured].share_of_held", |r| r.diagnosis.figure("leaks.unmeasured.share_of_held").flatten()),
    total!("leaks.unmeasured.usd", Usd, "leaks.classes[unmeasured].usd", Some("leaks.unmeasured.share_of_held"), |r| r.diagnosis.figure("leaks.unmeasured.usd").flatten()),
    total!("leaks.idle", GpuHours, "leaks.classes[idle].gpu_hours", Some("leaks.idle.share_of_held"), |r| r.diagnosis.figure("leaks.idle").flatten()),
    metric!("leaks.idle.share_of_held", Ratio, "leaks.classes[idle].share_of_held", |r| r.diagnosis.figure("leaks.idle.share_of_held").flatten()),
    total!("leaks.idle.usd", Usd, "leaks.classes[idle].usd", Some("leaks.idle.share_of_held"), |r| r.diagnosis.figure("leaks.idle.usd").flatten()),
    total!("leaks.starved", GpuHours, "leaks.classes[starved].gpu_hours", Some("leaks.starved.share_of_held"), |r| r.diagnosis.figure("leaks.starved").flatten()),
    metric!("leaks.starved.share_of_held", Ratio, "leaks.classes[starved].share_of_held", |r| r.diagnosis.figure("leaks.starved.share_of_held").flatten()),
    total!("leaks.starved.usd", Usd, "leaks.classes[starved].usd", Some("leaks.starved.share_of_held"), |r| r.diagnosis.figure("leaks.starved.usd").flatten()),
    total!("leaks.underfilled", GpuHours, "leaks.classes[underfilled].gpu_hours", Some("leaks.underfilled.share_of_held"), |r| r.diagnosis.figure("leaks.underfilled").flatten()),
    metric!("leaks.underfilled.share_of_held", Ratio, "leaks.classes[underfilled].share_of_held", |r| r.diagnosis.figure("leaks.underfilled.share_of_held").flatten()),
    total!("leaks.underfilled.usd", Usd, "leaks.classes[underfilled].usd", Some("leaks.underfilled.share_of_held"), |r| r.diagnosis.figure("leaks.underfilled.usd").flatten()),
    total!("leaks.memory_bound", GpuHours, "leaks.classes[memory_bound].gpu_hours", Some("leaks.memory_bound.share_of_held"), |r| r.diagnosis.figure("leaks.memory_bound").flatten()),
    metric!("leaks.memory_bound.share_of_held", Ratio, "leaks.classes[memory_bound].share_of_held", |r| r.diagnosis.figure("leaks.memory_bound.share_of_held").flatten()),
    total!("leaks.memory_bound.usd", Usd, "leaks.classes[memory_bound].usd", Some("leaks.memory_bound.share_of_held"), |r| r.diagnosis.figure("leaks.memory_bound.usd").flatten()),
    total!("leaks.no_tensor", GpuHours, "leaks.classes[no_tensor].gpu_hours", Some("leaks.no_tensor.share_of_held"), |r| r.diagnosis.figure("leaks.no_tensor").flatten()),
    metric!("leaks.no_tensor.share_of_held", Ratio, "leaks.classes[no_tensor].share_of_held", |r| r.diagnosis.figure("leaks.no_tensor.share_of_held").flatten()),
    total!("leaks.no_tensor.usd", Usd, "leaks.classes[no_tensor].usd", Some("leaks.no_tensor.share_of_held"), |r| r.diagnosis.figure("leaks.no_tensor.usd").flatten()),
    total!("leaks.effective", GpuHours, "leaks.classes[effective].gpu_hours", Some("leaks.effective.share_of_held"), |r| r.diagnosis.figure("leaks.effective").flatten()),
    metric!("leaks.effective.share_of_held", Ratio, "leaks.classes[effective].share_of_held", |r| r.diagnosis.figure("leaks.effective.share_of_held").flatten()),
    total!("leaks.effective.usd", Usd, "leaks.classes[effective].usd", Some("leaks.effective.share_of_held"), |r| r.diagnosis.figure("leaks.effective.usd").flatten()),
    total!("leaks.busy_unprofiled", GpuHours, "leaks.classes[busy_unprofiled].gpu_hours", Some("leaks.busy_unprofiled.share_of_held"), |r| r.diagnosis.figure("leaks.busy_unprofiled").flatten()),
    metric!("leaks.busy_unprofiled.share_of_held", Ratio, "leaks.classes[busy_unprofiled].share_of_held", |r| r.diagnosis.figure("leaks.busy_unprofiled.share_of_held").flatten()),
    total!("leaks.busy_unprofiled.usd", Usd, "leaks.classes[busy_unprofiled].usd", Some("leaks.busy_unprofiled.share_of_held"), |r| r.diagnosis.figure("leaks.busy_unprofiled.usd").flatten()),
    total!("nodes.node_held_gpu_hours", GpuHours, "nodes.node_held_gpu_hours", None, |r| r.diagnosis.figure("nodes.node_held_gpu_hours").flatten()),
    total!("nodes.stranded_gpu_hours", GpuHours, "nodes.stranded_gpu_hours", None, |r| r.diagnosis.figure("nodes.stranded_gpu_hours").flatten()),
    total!("nodes.free_node_gpu_hours", GpuHours, "nodes.free_node_gpu_hours", None, |r| r.diagnosis.figure("nodes.free_node_gpu_hours").flatten()),
    total!("nodes.stranded_usd", Usd, "nodes.stranded_usd", None, |r| r.diagnosis.figure("nodes.stranded_usd").flatten()),
    total!("nodes.free_node_usd", Usd, "nodes.free_node_usd", None, |r| r.diagnosis.figure("nodes.free_node_usd").flatten()),
    metric!("purchase.owned", Gpus, "purchase.owned", |r| r.diagnosis.figure("purchase.owned").flatten()),
    metric!("purchase.held_p50", Gpus, "purchase.held_p50", |r| r.diagnosis.figure("purchase.held_p50").flatten()),
    metric!("purchase.held_p95", Gpus, "purchase.held_p95", |r| r.diagnosis.figure("purchase.held_p95").flatten()),
    metric!("purchase.held_max", Gpus, "purchase.held_max", |r| r.diagnosis.figure("purchase.held_max").flatten()),
    metric!("purchase.spare_p5", Gpus, "purchase.spare_p5", |r| r.diagnosis.figure("purchase.spare_p5").flatten()),
    metric!("purchase.output_equivalent_gpus", Gpus, "purchase.output_equivalent_gpus", |r| r.diagnosis.figure("purchase.output_equivalent_gpus").flatten()),
    metric!("purchase.gpus_seen", Gpus, "purchase.gpus_seen", |r| r.diagnosis.figure("purchase.gpus_seen").flatten()),
    metric!("purchase.reclaimable_gpus", Gpus, "purchase.reclaimable_gpus", |r| r.diagnosis.figure("purchase.reclaimable_gpus").flatten()),
    metric!("purchase.covered_by_reclaim", Gpus, "purchase.covered_by_reclaim", |r| r.diagnosis.figure("purchase.covered_by_reclaim").flatten()),
    metric!("purchase.uncovered_gpus", Gpus, "purchase.uncovered_gpus", |r| r.diagnosis.figure("purchase.uncovered_gpus").flatten()),
    metric!("purchase.optimize_to_gpus", Gpus, "purchase.optimize_to_gpus", |r| r.diagnosis.figure("purchase.optimize_to_gpus").flatten()),
    metric!("purchase.busy_equivalent_gpus_p95", Gpus, "purchase.busy_equivalent_gpus_p95", |r| r.diagnosis.figure("purchase.busy_equivalent_gpus_p95").flatten()),
    metric!("purchase.busy_equivalent_gpus_peak", Gpus, "purchase.busy_equivalent_gpus_peak", |r| r.diagnosis.figure("purchase.busy_equivalent_gpus_peak").flatten()),
    metric!("purchase.sm_equivalent_gpus_p95", Gpus, "purchase.sm_equivalent_gpus_p95", |r| r.diagnosis.figure("purchase.sm_equivalent_gpus_p95").flatten()),
    metric!("purchase.sm_equivalent_gpus_peak", Gpus, "purchase.sm_equivalent_gpus_peak", |r| r.diagnosis.figure("purchase.sm_equivalent_gpus_peak").flatten()),
    metric!("purchase.tensor_equivalent_gpus_p95", Gpus, "purchase.tensor_equivalent_gpus_p95", |r| r.diagnosis.figure("purchase.tensor_equivalent_gpus_p95").flatten()),
    metric!("purchase.tensor_equivalent_gpus_peak", Gpus, "purchase.tensor_equivalent_gpus_peak", |r| r.diagnosis.figure("purchase.tensor_equivalent_gpus_peak").flatten()),
    metric!("purchase.coverage", Ratio, "purchase.coverage", |r| r.diagnosis.figure("purchase.coverage").flatten()),
    metric!("purchase.held_known_share", Ratio, "purchase.held_known_share", |r| r.diagnosis.figure("purchase.held_known_share").flatten()),
    metric!("purchase.unobserved_gpu_hours", GpuHours, "purchase.unobserved_gpu_hours", |r| r.diagnosis.figure("purchase.unobserved_gpu_hours").flatten()),
    metric!("purchase.pending_gpu_hours", GpuHours, "purchase.pending_gpu_hours", |r| r.diagnosis.figure("purchase.pending_gpu_hours").flatten()),
    metric!("purchase.pending_gpus_p95", Gpus, "purchase.pending_gpus_p95", |r| r.diagnosis.figure("purchase.pending_gpus_p95").flatten()),
    metric!("purchase.demand_p95", Gpus, "purchase.demand_p95", |r| r.diagnosis.figure("purchase.demand_p95").flatten()),
    metric!("timeline.unobserved_buckets", Gpus, "timeline.unobserved_buckets", |r| r.diagnosis.figure("timeline.unobserved_buckets").flatten()),
    metric!("jobs.ett.min", Ratio, "min of jobs[].ett (training jobs)", |r| r.diagnosis.jobs.iter().flatten().filter_map(|j| j.ett).min_by(f64::total_cmp)),
];

pub(crate) fn metric(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

/// The four kinds of rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RuleKind {
    /// a floor on CURRENT
    Min,
    /// a ceiling on CURRENT
    Max,
    /// how far CURRENT may fall below BASELINE
    MaxDrop,
    /// how far CURRENT may rise above BASELINE
    MaxRise,
}

impl RuleKind {
    /// The command-line flag, also the rule's name in every output.
    pub fn flag(self) -> &'static str {
        match self {
            RuleKind::Min => "--min",
            RuleKind::Max => "--max",
            RuleKind::MaxDrop => "--max-drop",
            RuleKind::MaxRise => "--max-rise",
        }
    }
    pub fn key(self) -> &'static str {
        match self {
            RuleKind::Min => "min",
            RuleKind::Max => "max",
            RuleKind::MaxDrop => "max_drop",
            RuleKind::MaxRise => "max_rise",
        }
    }
    pub fn needs_baseline(self) -> bool {
        matches!(self, RuleKind::MaxDrop | RuleKind::MaxRise)
    }
}

/// A limit with its unit made explicit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Amount {
    /// a plain number in the metric's own unit (a fraction for ratios)
    Value(f64),
    /// percentage points of a ratio: `2pp` = 0.02
    Points(f64),
    /// relative to BASELINE: `5%`
    Percent(f64),
}

#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub kind: RuleKind,
    pub metric: &'static Metric,
    pub amount: Amount,
    /// the limit as the user wrote it (`2pp`, `0.35`)
    pub written: String,
}

impl Rule {
    /// `--max-drop mfu=2pp`: how every output names the rule.
    pub fn label(&self) -> String {
        format!("{} {}={}", self.kind.flag(), self.metric.name, self.written)
    }
}

/// Parse `METRIC=LIMIT` for one rule kind; errors are usage errors.
pub(crate) fn parse_rule(kind: RuleKind, spec: &str) -> Result<Rule> {
    let Some((name, limit)) = spec.split_once('=') else {
        bail!(
            "{} {spec}: expected METRIC=LIMIT (e.g. {} mfu=0.35)",
            kind.flag(),
            kind.flag()
        );
    };
    let (name, limit) = (name.trim(), limit.trim());
    rule_from_parts(kind, name, limit).map_err(|e| anyhow::anyhow!("{} {spec}: {e}", kind.flag()))
}

/// Build a rule from a metric name and a limit text (also used by the rules file).
pub(crate) fn rule_from_parts(kind: RuleKind, name: &str, limit: &str) -> Result<Rule> {
    let Some(metric) = metric(name) else {
        let hint = suggest(name)
            .map(|s| format!("did you mean {s}? "))
            .unwrap_or_default();
        bail!("unknown metric '{name}'; {hint}`gpuaudit check --list-metrics` lists them");
    };
    let amount = parse_amount(kind, metric, limit)?;
    Ok(Rule {
        kind,
        metric,
        amount,
        written: limit.to_string(),
    })
}

fn number(text: &str, what: &str) -> Result<f64> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => bail!("'{text}' is not a number ({what})"),
    }
}

fn parse_amount(kind: RuleKind, metric: &Metric, limit: &str) -> Result<Amount> {
    let ratio = metric.kind == MetricKind::Ratio;
    let amount = if let Some(n) = limit.strip_suffix("pp") {
        if !ratio {
            bail!(
                "'pp' (percentage points) applies to ratios only; {} is in {}",
                metric.name,
                metric.kind.name()
            );
        }
        if !kind.needs_baseline() {
            bail!(
                "'pp' is a change between two reports; for a bound on a ratio write a fraction (0.35) or a percent (35%)"
            );
        }
        Amount::Points(number(n, "percentage points")?)
    } else if let Some(n) = limit.strip_suffix('%') {
        let v = number(n, "percent")?;
        if kind.needs_baseline() {
            Amount::Percent(v)
        } else if ratio {
            // A bound has nothing to be relative to: 35% of a ratio is 0.35.
            Amount::Value(v / 100.0)
        } else {
            bail!(
                "a bound on {} is a plain number in {}; '%' is for ratios and for --max-drop/--max-rise",
                metric.name,
                metric.kind.name()
            );
        }
    } else {
        let v = number(limit, &format!("in {}", metric.kind.name()))?;
        if ratio && kind.needs_baseline() {
            // A plain change in a ratio is a change in points: 0.02 is 2 pp. Above 1
            // it can only be a slip for points or percent (2 meant as 2 pp is 200 pp).
            if v > 1.0 {
                bail!(
                    "{} is a ratio 0..1, so a change of {limit} would be {} percentage points; write {limit}pp (percentage points) or {limit}% (relative to BASELINE)",
                    metric.name,
                    trim_number(v * 100.0)
                );
            }
            // rounded to 1e-9 pp so 0.02 reads back as 2, not 2.0000000000000004
            Amount::Points((v * 1e11).round() / 1e9)
        } else {
            Amount::Value(v)
        }
    };
    let v = match amount {
        Amount::Value(v) | Amount::Points(v) | Amount::Percent(v) => v,
    };
    if kind.needs_baseline() && v < 0.0 {
        bail!("the allowed change must not be negative");
    }
    if ratio && !kind.needs_baseline() && !(0.0..=1.0).contains(&v) {
        bail!("{} is a fraction 0..1: write 0.6 or 60%", metric.name);
    }
    Ok(amount)
}

/// A number for a message: at most 4 decimals, trailing zeros dropped.
fn trim_number(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The closest metric name to a misspelt one, when it is close enough.
fn suggest(name: &str) -> Option<&'static str> {
    METRICS
        .iter()
        .map(|m| (crate::text::edit_distance(name, m.name), m.name))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    Fail,
    /// the figure the rule needs is null (only with --allow-missing)
    Skipped,
}

/// Which report lacked a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Current,
    Baseline,
}

/// One rule checked.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub rule: Rule,
    pub baseline: Option<f64>,
    pub current: Option<f64>,
    /// current - baseline, in the metric's unit
    pub delta: Option<f64>,
    /// (current - baseline) / |baseline|; None when baseline is 0
    pub delta_relative: Option<f64>,
    /// what was held against the limit, in the limit's unit: the current value
    /// for --min/--max, the drop or rise (pp, percent or metric unit) otherwise;
    /// None when it is infinite (a relative change from a zero baseline)
    pub measured: Option<f64>,
    /// the limit in the limit's unit (a fraction for `35%` bounds)
    pub limit: f64,
    pub verdict: Verdict,
    /// the reports in which the figure is null
    pub missing: Vec<Side>,
}

/// A value exactly at its limit passes; the tolerance absorbs float noise
/// such as 0.50 - 0.48 = 0.020000000000000018.
fn within(measured: f64, limit: f64) -> bool {
    measured <= limit + 1e-9 * limit.abs().max(1.0)
}

/// Check every rule; missing figures come back as `Skipped` with `missing` set.
pub(crate) fn evaluate(
    rules: &[Rule],
    current: &Report,
    baseline: Option<&Report>,
) -> Vec<Outcome> {
    rules
        .iter()
        .map(|rule| evaluate_one(rule, current, baseline))
        .collect()
}

fn evaluate_one(rule: &Rule, current: &Report, baseline: Option<&Report>) -> Outcome {
    let cur = rule.metric.read(current);
    let base = baseline.and_then(|b| rule.metric.read(b));
    let delta = match (cur, base) {
        (Some(c), Some(b)) => Some(c - b),
        _ => None,
    };
    let delta_relative = match (delta, base) {
        (Some(d), Some(b)) if b != 0.0 => Some(d / b.abs()),
        _ => None,
    };
    let limit = match rule.amount {
        Amount::Value(v) | Amount::Points(v) | Amount::Percent(v) => v,
    };
    let mut missing = Vec::new();
    if cur.is_none() {
        missing.push(Side::Current);
    }
    if rule.kind.needs_baseline() && baseline.is_some() && base.is_none() {
        missing.push(Side::Baseline);
    }
    let mut out = Outcome {
        rule: rule.clone(),
        baseline: base,
        current: cur,
        delta,
        delta_relative,
        measured: None,
        limit,
        verdict: Verdict::Skipped,
        missing,
    };
    if !out.missing.is_empty() {
        return out;
    }
    let (measured, pass) = match (rule.kind, cur, delta) {
        (RuleKind::Min, Some(c), _) => (Some(c), c >= limit - 1e-9 * limit.abs().max(1.0)),
        (RuleKind::Max, Some(c), _) => (Some(c), within(c, limit)),
        (RuleKind::MaxDrop | RuleKind::MaxRise, _, Some(d)) => {
            // the change in the direction the rule limits: positive = worse
            let change = if rule.kind == RuleKind::MaxDrop {
                -d
            } else {
                d
            };
            match rule.amount {
                Amount::Value(_) => (Some(change), within(change, limit)),
                Amount::Points(_) => (Some(change * 100.0), within(change * 100.0, limit)),
                Amount::Percent(_) => match base {
                    Some(b) if b != 0.0 => {
                        let pct = change / b.abs() * 100.0;
                        (Some(pct), within(pct, limit))
                    }
                    // From a zero baseline any move is infinitely far in relative terms.
                    _ => (if change == 0.0 { Some(0.0) } else { None }, change <= 0.0),
                },
            }
        }
        // a change rule without a baseline is refused before evaluation
        _ => (None, false),
    };
    out.measured = measured;
    out.verdict = if pass { Verdict::Pass } else { Verdict::Fail };
    out
}

/// Why two reports may not compare, as far as the rules that compare them go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaveatKind {
    /// priced by different sources, or a model at different prices
    Prices,
    /// windows more than 2x apart, for a rule on a total over the window
    Window,
    GpuCount,
    /// held decided by different rules (held column, job column, memory)
    HeldRule,
}

impl CaveatKind {
    pub fn key(self) -> &'static str {
        match self {
            CaveatKind::Prices => "prices",
            CaveatKind::Window => "window",
            CaveatKind::GpuCount => "gpu_count",
            CaveatKind::HeldRule => "held_rule",
        }
    }
}

/// A comparability warning: the check still runs, its verdicts may mislead.
/// The figures that differ, as values; render/check.rs words them.
#[derive(Debug, Clone)]
pub(crate) enum Caveat {
    /// priced by different sources, or a model at different prices
    Prices {
        /// (CURRENT's, BASELINE's) price source, when they differ
        sources: Option<(PriceSource, PriceSource)>,
        /// each model priced differently: (model, CURRENT's $/h, BASELINE's $/h)
        models: Vec<(String, f64, f64)>,
        /// the rules that compare dollars
        rules: Vec<Rule>,
    },
    /// windows more than [`WINDOW_RATIO_LIMIT`] apart, for rules on totals
    Window {
        current_hours: f64,
        baseline_hours: f64,
        /// the longer window over the shorter (infinite when one is empty)
        apart: f64,
        /// the rules on totals over the window
        totals: Vec<Rule>,
    },
    GpuCount {
        current: usize,
        baseline: usize,
    },
    /// held decided by different rules (held column, job column, memory)
    HeldRule {
        current: HeldBasis,
        baseline: HeldBasis,
    },
}

impl Caveat {
    pub fn kind(&self) -> CaveatKind {
        match self {
            Caveat::Prices { .. } => CaveatKind::Prices,
            Caveat::Window { .. } => CaveatKind::Window,
            Caveat::GpuCount { .. } => CaveatKind::GpuCount,
            Caveat::HeldRule { .. } => CaveatKind::HeldRule,
        }
    }
}

/// How far apart two windows may be before totals over them stop comparing.
pub(crate) const WINDOW_RATIO_LIMIT: f64 = 2.0;

/// Each model's price per GPU-hour in a report (the first GPU of a model seen).
fn model_prices(r: &Report) -> Vec<(&str, f64)> {
    let mut out: Vec<(&str, f64)> = Vec::new();
    for g in &r.gpus {
        if let (Some(m), Some(p)) = (g.model.as_deref(), g.usd_per_hour)
            && !out.iter().any(|(seen, _)| *seen == m)
        {
            out.push((m, p));
        }
    }
    out
}

/// What makes CURRENT and BASELINE incomparable for the rules that compare them
/// (--max-drop, --max-rise); --min and --max look at CURRENT alone.
pub(crate) fn comparability(rules: &[Rule], current: &Report, baseline: &Report) -> Vec<Caveat> {
    let changes: Vec<&Rule> = rules.iter().filter(|r| r.kind.needs_baseline()).collect();
    if changes.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();

    out.extend(price_caveat(&changes, current, baseline));
    out.extend(window_caveat(&changes, current, baseline));
    if current.gpu_count != baseline.gpu_count {
        out.push(Caveat::GpuCount {
            current: current.gpu_count,
            baseline: baseline.gpu_count,
        });
    }
    // compared as the words the documents carry (a baseline keeps only those)
    if current.held_rule.to_string() != baseline.held_rule.to_string() {
        out.push(Caveat::HeldRule {
            current: current.held_rule.clone(),
            baseline: baseline.held_rule.clone(),
        });
    }
    out
}

/// Dollars compared across runs priced differently (the price source, or a
/// model's price per hour).
fn price_caveat(changes: &[&Rule], current: &Report, baseline: &Report) -> Option<Caveat> {
    let dollars: Vec<Rule> = (changes.iter())
        .filter(|r| r.metric.is_dollars())
        .map(|r| (*r).clone())
        .collect();
    if dollars.is_empty() {
        return None;
    }
    let (cur_src, base_src) = (&current.cost.price_source, &baseline.cost.price_source);
    // compared as the words the documents carry (a baseline keeps only those)
    let words = |s: &PriceSource| serde_json::to_value(s).ok();
    let same_source = words(cur_src) == words(base_src);
    let base_prices = model_prices(baseline);
    let models: Vec<(String, f64, f64)> = model_prices(current)
        .into_iter()
        .filter_map(|(m, p)| {
            let (_, b) = base_prices.iter().find(|(bm, _)| *bm == m)?;
            ((p - b).abs() > 1e-9 * b.abs().max(1.0)).then(|| (m.to_string(), p, *b))
        })
        .collect();
    if same_source && models.is_empty() {
        return None;
    }
    Some(Caveat::Prices {
        sources: (!same_source).then(|| (cur_src.clone(), base_src.clone())),
        models,
        rules: dollars,
    })
}

/// Totals compared across windows of very different length.
fn window_caveat(changes: &[&Rule], current: &Report, baseline: &Report) -> Option<Caveat> {
    let totals: Vec<Rule> = (changes.iter())
        .filter(|r| r.metric.total)
        .map(|r| (*r).clone())
        .collect();
    let (ch, bh) = (current.window.hours, baseline.window.hours);
    let apart = if ch.min(bh) > 0.0 {
        ch.max(bh) / ch.min(bh)
    } else {
        f64::INFINITY
    };
    let both_snapshots = current.window.snapshot && baseline.window.snapshot;
    (!totals.is_empty() && !both_snapshots && (ch > 0.0 || bh > 0.0) && apart > WINDOW_RATIO_LIMIT)
        .then_some(Caveat::Window {
            current_hours: ch,
            baseline_hours: bh,
            apart,
            totals,
        })
}

/// A ratio above 1 by more than this is not float noise.
const RATIO_NOISE: f64 = 1e-9;

/// The first figure a rule could name that no report can hold: a ratio
/// outside 0..1, or an amount that is negative or not finite (a document
/// edited by hand, or written in percent). A read-back report is validated
/// like samples are, so a baseline's 50 is never compared as 50 (not 0.5).
pub fn impossible_figure(report: &Report) -> Option<(&'static Metric, f64)> {
    METRICS.iter().find_map(|m| {
        let v = m.read(report)?;
        let top = if m.kind == MetricKind::Ratio {
            1.0 + RATIO_NOISE
        } else {
            f64::INFINITY
        };
        let possible = v.is_finite() && v >= 0.0 && v <= top;
        (!possible).then_some((m, v))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(active: Option<f64>, idle_usd: Option<f64>) -> Report {
        let mut r: Report = serde_json::from_value(serde_json::json!({
            "schema": "gpuaudit.report/1",
            "window": {"start": "2026-07-06T00:00:00Z", "end": "2026-07-06T01:00:00Z", "hours": 1.0, "snapshot": false},
            "sources": {"files": [], "rows_read": 1, "rows_used": 1},
            "data_quality": {"duplicates": 0, "invalid": {}, "unobserved_gpu_hours": 0.0,
                "held_unknown_activity_gpu_hours": 0.0, "rows_outside_window": 0, "rows_dropped": 0,
                "notes": [], "warnings": []},
            "held_rule": "held column",
            "layers": {"observed_gpu_hours": 1.0, "held_gpu_hours": 1.0, "active_gpu_hours": null,
                "sm_active_gpu_hours": null, "tensor_active_gpu_hours": null, "useful_gpu_hours": null,
                "idle_held_gpu_hours": null, "unallocated_gpu_hours": 0.0},
            "ratios": {},
            "cost": {"currency": "USD", "price_source": "x", "unpriced_gpu_hours": 0.0,
                "unpriced_models": [], "monthly_run_rate": {}},
            "waterfall": [], "idle_episodes": [], "idle_episodes_total": 0, "gpus": [], "gpu_count": 1
        }))
        .expect("a minimal report deserialises");
        r.ratios.by_metric[crate::metric::DEVICE_UTIL.0] = active;
        r.cost.idle_held_usd = idle_usd;
        r
    }

    fn rule(kind: RuleKind, spec: &str) -> Rule {
        parse_rule(kind, spec).expect("valid rule")
    }

    #[test]
    fn impossible_figures_are_found() {
        let name = |r: &Report| impossible_figure(r).map(|(m, v)| (m.path.as_ref(), v));
        assert_eq!(name(&report(Some(0.5), Some(1.0))), None);
        assert_eq!(name(&report(Some(1.0 + 1e-12), None)), None, "float noise");
        assert_eq!(
            name(&report(Some(50.0), None)),
            Some(("ratios.active", 50.0))
        );
        assert_eq!(
            name(&report(Some(-0.1), None)),
            Some(("ratios.active", -0.1))
        );
        assert_eq!(
            name(&report(Some(0.5), Some(-3.0))),
            Some(("cost.idle_held_usd", -3.0))
        );
        assert_eq!(
            name(&report(Some(f64::NAN), None)).map(|(p, _)| p),
            Some("ratios.active")
        );
    }

    #[test]
    fn units_and_verdicts() {
        let base = report(Some(0.50), Some(10.0));
        let cur = report(Some(0.48), Some(11.0));
        let rules = [
            rule(RuleKind::MaxDrop, "active=2pp"), // drop 2 pp exactly: pass
            rule(RuleKind::MaxDrop, "active=1.9pp"), // fail
            rule(RuleKind::MaxDrop, "active=4%"),  // drop 4% exactly: pass
            rule(RuleKind::MaxRise, "idle_held_usd=0.5"), // rise 1.0: fail
            rule(RuleKind::Min, "active=48%"),
            rule(RuleKind::Max, "idle_held_usd=11"),
        ];
        let out = evaluate(&rules, &cur, Some(&base));
        let verdicts: Vec<Verdict> = out.iter().map(|o| o.verdict).collect();
        use Verdict::*;
        assert_eq!(verdicts, [Pass, Fail, Pass, Fail, Pass, Pass]);
        let m = out[0].measured.expect("measured");
        assert!((m - 2.0).abs() < 1e-9);
        let m = out[2].measured.expect("measured");
        assert!((m - 4.0).abs() < 1e-9);
        assert_eq!(out[3].measured, Some(1.0));
        assert_eq!(out[4].limit, 0.48);
    }

    #[test]
    fn missing_and_zero_baseline() {
        let base = report(Some(0.0), None);
        let cur = report(Some(0.1), Some(1.0));
        let out = evaluate(
            &[
                rule(RuleKind::MaxRise, "active=5%"),
                rule(RuleKind::MaxRise, "idle_held_usd=1"),
            ],
            &cur,
            Some(&base),
        );
        assert_eq!(out[0].verdict, Verdict::Fail);
        assert_eq!(out[0].measured, None);
        assert_eq!(out[1].verdict, Verdict::Skipped);
        assert_eq!(out[1].missing, [Side::Baseline]);
    }

    #[test]
    fn usage_errors() {
        assert!(
            parse_rule(RuleKind::Min, "mfuu=0.3")
                .is_err_and(|e| e.to_string().contains("did you mean mfu"))
        );
        assert!(parse_rule(RuleKind::MaxDrop, "idle_held_usd=2pp").is_err());
        assert!(parse_rule(RuleKind::Min, "sm_active=60").is_err());
        assert!(parse_rule(RuleKind::Max, "held_usd=5%").is_err());
        assert!(parse_rule(RuleKind::MaxDrop, "mfu=-1pp").is_err());
        assert!(parse_rule(RuleKind::Min, "mfu").is_err());
        assert!(parse_rule(RuleKind::Min, "mfu=abc").is_err());
    }

    #[test]
    fn a_plain_change_in_a_ratio_is_points() {
        let r = rule(RuleKind::MaxDrop, "sm_active=0.02");
        assert_eq!(r.amount, Amount::Points(2.0));
        let err = parse_rule(RuleKind::MaxDrop, "sm_active=2").expect_err("2 is refused");
        let msg = err.to_string();
        assert!(
            msg.contains("2pp") && msg.contains("2%") && msg.contains("200 percentage points"),
            "{msg}"
        );
        assert_eq!(
            rule(RuleKind::MaxRise, "idle_held_usd=2").amount,
            Amount::Value(2.0)
        );
    }

    #[test]
    fn caveats_name_what_differs() {
        let base = report(Some(0.5), Some(10.0));
        let mut cur = report(Some(0.5), Some(10.0));
        let rules = [
            rule(RuleKind::MaxRise, "idle_held_usd=5%"),
            rule(RuleKind::MaxDrop, "active=2pp"),
        ];
        assert!(comparability(&rules, &cur, &base).is_empty());
        cur.cost.price_source = PriceSource::Written("y".into());
        cur.window.hours = 6.0;
        cur.gpu_count = 2;
        let c = comparability(&rules, &cur, &base);
        let kinds: Vec<CaveatKind> = c.iter().map(Caveat::kind).collect();
        assert_eq!(
            kinds,
            [CaveatKind::Prices, CaveatKind::Window, CaveatKind::GpuCount]
        );
        // the words are render/check.rs's
        let text = crate::render::check::caveat_text;
        assert!(
            text(&c[1]).contains("CURRENT covers 6 h, BASELINE 1 h (6x)"),
            "{}",
            text(&c[1])
        );
        assert!(
            text(&c[1]).contains("(use idle_held_usd_per_hour)"),
            "{}",
            text(&c[1])
        );
        // --min and --max do not compare, and a per-hour rule ignores the window.
        assert!(comparability(&[rule(RuleKind::Min, "active=0.1")], &cur, &base).is_empty());
        cur.gpu_count = 1;
        let per_hour = comparability(
            &[rule(RuleKind::MaxRise, "idle_held_usd_per_hour=5%")],
            &cur,
            &base,
        );
        assert_eq!(
            per_hour.iter().map(Caveat::kind).collect::<Vec<_>>(),
            [CaveatKind::Prices]
        );
        cur.held_rule = crate::audit::model::HeldBasis::Text("job column".into());
        let held = comparability(&[rule(RuleKind::MaxDrop, "active=2pp")], &cur, &base);
        assert_eq!(
            held.iter().map(Caveat::kind).collect::<Vec<_>>(),
            [CaveatKind::HeldRule]
        );
        assert!(text(&held[0]).contains("CURRENT by 'job column', BASELINE by 'held column'"));
        let m = metric("idle_held_usd_per_hour").expect("listed");
        assert_eq!(m.read(&cur), Some(10.0 / 6.0));
    }

    #[test]
    fn metric_names_are_unique() {
        for m in METRICS.iter() {
            if let Some(i) = m.instead {
                assert!(metric(i).is_some_and(|o| !o.total), "{} offers {i}", m.name);
            }
        }
        for (i, m) in METRICS.iter().enumerate() {
            assert!(
                METRICS[i + 1..].iter().all(|o| o.name != m.name),
                "{} twice",
                m.name
            );
        }
    }
}
