//! `gpuaudit check`: rules on report figures and their verdicts. Pure
//! computation: which figures a rule may name, how a limit's unit reads, and
//! whether a CURRENT report (against a BASELINE) passes. Nothing here prints.
use super::model::Report;
use anyhow::{Result, bail};

/// What a figure measures, which decides the units a limit may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// a fraction 0..1 of held (or observed) time
    Ratio,
    GpuHours,
    Usd,
}

impl MetricKind {
    pub fn name(self) -> &'static str {
        match self {
            MetricKind::Ratio => "ratio",
            MetricKind::GpuHours => "gpu_hours",
            MetricKind::Usd => "usd",
        }
    }
}

/// One figure of the report that a rule can name.
pub struct Metric {
    pub name: &'static str,
    pub kind: MetricKind,
    /// where the figure lives in the "gpuaudit.report/1" JSON
    pub path: &'static str,
    pub read: fn(&Report) -> Option<f64>,
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
            path: $path,
            read: |$r: &Report| $read,
        }
    };
}

/// Every figure a rule may name: the one table `--list-metrics` prints and
/// rule parsing reads.
#[rustfmt::skip]
pub static METRICS: &[Metric] = &[
    metric!("active", Ratio, "ratios.active", |r| r.ratios.active),
    metric!("sm_active", Ratio, "ratios.sm_active", |r| r.ratios.sm_active),
    metric!("sm_occupancy", Ratio, "ratios.sm_occupancy", |r| r.ratios.sm_occupancy),
    metric!("tensor_active", Ratio, "ratios.tensor_active", |r| r.ratios.tensor_active),
    metric!("mfu", Ratio, "ratios.mfu", |r| r.ratios.mfu),
    metric!("held_of_observed", Ratio, "ratios.held_of_observed", |r| r.ratios.held_of_observed),
    metric!("idle_held", Ratio, "ratios.idle_held", |r| r.ratios.idle_held),
    metric!("observed_gpu_hours", GpuHours, "layers.observed_gpu_hours", |r| Some(r.layers.observed_gpu_hours)),
    metric!("held_gpu_hours", GpuHours, "layers.held_gpu_hours", |r| Some(r.layers.held_gpu_hours)),
    metric!("active_gpu_hours", GpuHours, "layers.active_gpu_hours", |r| r.layers.active_gpu_hours),
    metric!("sm_active_gpu_hours", GpuHours, "layers.sm_active_gpu_hours", |r| r.layers.sm_active_gpu_hours),
    metric!("tensor_active_gpu_hours", GpuHours, "layers.tensor_active_gpu_hours", |r| r.layers.tensor_active_gpu_hours),
    metric!("useful_gpu_hours", GpuHours, "layers.useful_gpu_hours", |r| r.layers.useful_gpu_hours),
    metric!("idle_held_gpu_hours", GpuHours, "layers.idle_held_gpu_hours", |r| r.layers.idle_held_gpu_hours),
    metric!("unallocated_gpu_hours", GpuHours, "layers.unallocated_gpu_hours", |r| Some(r.layers.unallocated_gpu_hours)),
    metric!("unpriced_gpu_hours", GpuHours, "cost.unpriced_gpu_hours", |r| Some(r.cost.unpriced_gpu_hours)),
    metric!("observed_usd", Usd, "cost.observed_usd", |r| r.cost.observed_usd),
    metric!("held_usd", Usd, "cost.held_usd", |r| r.cost.held_usd),
    metric!("idle_held_usd", Usd, "cost.idle_held_usd", |r| r.cost.idle_held_usd),
    metric!("unallocated_usd", Usd, "cost.unallocated_usd", |r| r.cost.unallocated_usd),
    metric!("not_useful_usd", Usd, "cost.not_useful_usd", |r| r.cost.not_useful_usd),
    metric!("monthly_observed_usd", Usd, "cost.monthly_run_rate.observed_usd", |r| r.cost.monthly_run_rate.observed_usd),
    metric!("monthly_held_usd", Usd, "cost.monthly_run_rate.held_usd", |r| r.cost.monthly_run_rate.held_usd),
    metric!("monthly_idle_held_usd", Usd, "cost.monthly_run_rate.idle_held_usd", |r| r.cost.monthly_run_rate.idle_held_usd),
    metric!("monthly_unallocated_usd", Usd, "cost.monthly_run_rate.unallocated_usd", |r| r.cost.monthly_run_rate.unallocated_usd),
    metric!("monthly_not_useful_usd", Usd, "cost.monthly_run_rate.not_useful_usd", |r| r.cost.monthly_run_rate.not_useful_usd),
];

pub fn metric(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

/// The four kinds of rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleKind {
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
pub enum Amount {
    /// a plain number in the metric's own unit (a fraction for ratios)
    Value(f64),
    /// percentage points of a ratio: `2pp` = 0.02
    Points(f64),
    /// relative to BASELINE: `5%`
    Percent(f64),
}

#[derive(Debug, Clone)]
pub struct Rule {
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
pub fn parse_rule(kind: RuleKind, spec: &str) -> Result<Rule> {
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
pub fn rule_from_parts(kind: RuleKind, name: &str, limit: &str) -> Result<Rule> {
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
        Amount::Value(number(limit, &format!("in {}", metric.kind.name()))?)
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

/// The closest metric name to a misspelt one, when it is close enough.
fn suggest(name: &str) -> Option<&'static str> {
    METRICS
        .iter()
        .map(|m| (edit_distance(name, m.name), m.name))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail,
    /// the figure the rule needs is null (only with --allow-missing)
    Skipped,
}

/// Which report lacked a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Current,
    Baseline,
}

/// One rule checked.
#[derive(Debug, Clone)]
pub struct Outcome {
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
pub fn evaluate(rules: &[Rule], current: &Report, baseline: Option<&Report>) -> Vec<Outcome> {
    rules
        .iter()
        .map(|rule| evaluate_one(rule, current, baseline))
        .collect()
}

fn evaluate_one(rule: &Rule, current: &Report, baseline: Option<&Report>) -> Outcome {
    let cur = (rule.metric.read)(current);
    let base = baseline.and_then(|b| (rule.metric.read)(b));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn report(active: Option<f64>, idle_usd: Option<f64>) -> Report {
        let mut r: Report = serde_json::from_value(serde_json::json!({
            "schema": "gpuaudit.report/1",
            "window": {"start": "a", "end": "b", "hours": 1.0, "snapshot": false},
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
        r.ratios.active = active;
        r.cost.idle_held_usd = idle_usd;
        r
    }

    fn rule(kind: RuleKind, spec: &str) -> Rule {
        parse_rule(kind, spec).expect("valid rule")
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
    fn metric_names_are_unique() {
        for (i, m) in METRICS.iter().enumerate() {
            assert!(
                METRICS[i + 1..].iter().all(|o| o.name != m.name),
                "{} twice",
                m.name
            );
        }
    }
}
