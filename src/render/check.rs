//! `gpuaudit check` output: a table for a terminal or CI log, markdown for a PR
//! comment, JUnit XML for CI test reports, JSON for machines.
use super::fmt::{thousands, usd};
use super::table::new_table;
use crate::audit::check::{
    Amount, Caveat, METRICS, MetricKind, Outcome, Rule, RuleKind, Side, Verdict,
};
use anyhow::Result;
use comfy_table::{Cell, CellAlignment};
use serde::Serialize;

/// Where a checked report came from.
#[derive(Debug, Clone, Serialize)]
pub struct RunSource {
    /// the input as the user named it
    pub source: String,
    /// "report" (a gpuaudit.report/1 JSON), "samples", "prometheus" or "partials" (audited here)
    pub kind: &'static str,
}

/// Everything a check renders.
pub struct CheckView<'a> {
    pub current: &'a RunSource,
    pub baseline: Option<&'a RunSource>,
    pub outcomes: &'a [Outcome],
    /// why CURRENT and BASELINE may not compare
    pub caveats: &'a [Caveat],
    /// --strict: every caveat is a failure
    pub strict: bool,
}

impl CheckView<'_> {
    fn count(&self, v: Verdict) -> usize {
        self.outcomes.iter().filter(|o| o.verdict == v).count()
    }
    /// The caveats that fail the check (all of them under --strict).
    fn failing_caveats(&self) -> usize {
        if self.strict { self.caveats.len() } else { 0 }
    }
    pub fn passed(&self) -> bool {
        self.count(Verdict::Fail) == 0 && self.failing_caveats() == 0
    }
}

/// "warning" or, under --strict, "FAIL (--strict)".
fn caveat_word(view: &CheckView) -> &'static str {
    if view.strict {
        "FAIL (--strict)"
    } else {
        "warning"
    }
}

/// The rules' labels, joined, for a caveat.
fn labels(rules: &[Rule]) -> String {
    rules
        .iter()
        .map(|r| r.label())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A caveat in words: what differs between CURRENT and BASELINE, and which
/// rules it misleads (the same sentence in every output, JSON's `message` too).
pub(crate) fn caveat_text(c: &Caveat) -> String {
    let hours = |h: f64| format!("{} h", trim((h * 100.0).round() / 100.0, 4));
    match c {
        Caveat::Prices {
            sources,
            models,
            rules,
        } => {
            let mut message = match sources {
                Some((cur, base)) => format!(
                    "prices differ: CURRENT is priced by {}, BASELINE by {}",
                    super::cost::price_source_text(cur),
                    super::cost::price_source_text(base)
                ),
                None => "prices differ".to_string(),
            };
            if !models.is_empty() {
                let differ: Vec<String> = (models.iter())
                    .map(|(m, p, b)| format!("{m} at ${p:.2}/h in CURRENT, ${b:.2}/h in BASELINE"))
                    .collect();
                message.push_str(&format!(" ({})", differ.join("; ")));
            }
            message.push_str(&format!(
                "; dollars compared by {}: audit both runs with the same --price or --prices",
                labels(rules)
            ));
            message
        }
        Caveat::Window {
            current_hours,
            baseline_hours,
            apart,
            totals,
        } => {
            let offered: Vec<String> = (totals.iter())
                .map(|r| match r.metric.instead {
                    Some(i) => format!("{} (use {i})", r.label()),
                    None => r.label(),
                })
                .collect();
            let times = if apart.is_finite() {
                format!(" ({}x)", trim((apart * 10.0).round() / 10.0, 4))
            } else {
                String::new()
            };
            format!(
                "windows differ: CURRENT covers {}, BASELINE {}{times}; totals grow with the window: {}",
                hours(*current_hours),
                hours(*baseline_hours),
                offered.join(", ")
            )
        }
        Caveat::GpuCount { current, baseline } => {
            format!("GPU count differs: CURRENT has {current} GPUs, BASELINE {baseline}")
        }
        Caveat::HeldRule { current, baseline } => {
            format!("held is decided differently: CURRENT by '{current}', BASELINE by '{baseline}'")
        }
    }
}

/// A number with at most `decimals` decimals, trailing zeros dropped.
fn trim(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" { "0".to_string() } else { s }
}

fn signed(s: String, negative: bool) -> String {
    if negative || s == "0" {
        s
    } else {
        format!("+{s}")
    }
}

/// A figure in its metric's unit: 47.5%, 12.25 GPU-h, $1,234.
fn value(kind: MetricKind, v: Option<f64>) -> String {
    let Some(v) = v else { return "n/a".to_string() };
    match kind {
        MetricKind::Ratio => format!("{}%", trim(v * 100.0, 2)),
        MetricKind::GpuHours if v.abs() >= 100.0 => thousands(v.round() as i64),
        MetricKind::GpuHours | MetricKind::Gpus => trim(v, 2),
        MetricKind::Usd => usd(Some(v)),
        MetricKind::UsdPerHour => format!("{}/h", usd(Some(v))),
    }
}

/// current - baseline, with the relative change: "-7.5 pp (-13.64%)".
fn delta(o: &Outcome) -> String {
    let Some(d) = o.delta else {
        return "n/a".to_string();
    };
    let abs = match o.rule.metric.kind {
        MetricKind::Ratio => format!("{} pp", signed(trim(d * 100.0, 2), d < 0.0)),
        MetricKind::Usd | MetricKind::UsdPerHour => {
            let s = value(o.rule.metric.kind, Some(d.abs()));
            if d < 0.0 {
                format!("-{s}")
            } else if d > 0.0 {
                format!("+{s}")
            } else {
                s
            }
        }
        kind => signed(value(kind, Some(d)), d < 0.0),
    };
    match o.delta_relative {
        Some(r) => format!("{abs} ({}%)", signed(trim(r * 100.0, 2), r < 0.0)),
        None => abs,
    }
}

/// An amount in the rule's own unit: "2 pp", "5%", "$50.00", "35%".
fn amount(rule: &Rule, v: f64) -> String {
    match rule.amount {
        Amount::Points(_) => format!("{} pp", trim(v, 2)),
        Amount::Percent(_) => format!("{}%", trim(v, 2)),
        Amount::Value(_) => match rule.metric.kind {
            MetricKind::GpuHours => format!("{} GPU-h", value(MetricKind::GpuHours, Some(v))),
            MetricKind::Gpus => format!("{} GPUs", value(MetricKind::Gpus, Some(v))),
            kind => value(kind, Some(v)),
        },
    }
}

/// The limit as a condition: "≥ 35%", "drop ≤ 2 pp".
fn limit(o: &Outcome) -> String {
    let a = amount(&o.rule, o.limit);
    match o.rule.kind {
        RuleKind::Min => format!("≥ {a}"),
        RuleKind::Max => format!("≤ {a}"),
        RuleKind::MaxDrop => format!("drop ≤ {a}"),
        RuleKind::MaxRise => format!("rise ≤ {a}"),
    }
}

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "FAIL",
        Verdict::Skipped => "skipped",
    }
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::Current => "CURRENT",
        Side::Baseline => "BASELINE",
    }
}

/// Why a rule failed or was skipped, in one sentence.
pub fn explain(o: &Outcome) -> String {
    let name = o.rule.metric.name;
    if o.verdict == Verdict::Skipped {
        let sides: Vec<&str> = o.missing.iter().map(|s| side_name(*s)).collect();
        return format!("{name} is null (not measured) in {}", sides.join(" and "));
    }
    let lim = amount(&o.rule, o.limit);
    let cur = value(o.rule.metric.kind, o.current);
    let (verb, moved) = match o.rule.kind {
        RuleKind::Min => return format!("{name} is {cur}, below the floor of {lim}"),
        RuleKind::Max => return format!("{name} is {cur}, above the ceiling of {lim}"),
        RuleKind::MaxDrop => ("dropped", "fell"),
        RuleKind::MaxRise => ("rose", "rose"),
    };
    match o.measured {
        Some(m) if m < 0.0 => {
            // it moved the other way, which this rule does not limit
            let other = if o.rule.kind == RuleKind::MaxDrop {
                "rose"
            } else {
                "dropped"
            };
            format!(
                "{name} {other} {}; limit: {verb} at most {lim}",
                amount(&o.rule, -m)
            )
        }
        Some(m) => format!("{name} {verb} {}; limit {lim}", amount(&o.rule, m)),
        None => format!(
            "{name} {moved} from a baseline of 0, an unbounded relative change; limit {lim}"
        ),
    }
}

fn headline(view: &CheckView) -> String {
    let (n, failed, skipped) = (
        view.outcomes.len(),
        view.count(Verdict::Fail),
        view.count(Verdict::Skipped),
    );
    let skipped = if skipped > 0 {
        format!(", {skipped} skipped")
    } else {
        String::new()
    };
    let caveats = match (view.caveats.len(), view.strict) {
        (0, _) => String::new(),
        (1, false) => "; 1 comparability warning".to_string(),
        (c, false) => format!("; {c} comparability warnings"),
        (1, true) => "; 1 comparability warning fails (--strict)".to_string(),
        (c, true) => format!("; {c} comparability warnings fail (--strict)"),
    };
    if failed > 0 {
        format!("{failed} of {n} rules failed{skipped}{caveats}")
    } else if n > 0 && view.count(Verdict::Skipped) == n {
        format!("nothing was checked: all {n} rules skipped (their metrics are null){caveats}")
    } else {
        format!(
            "{} of {n} rules passed{skipped}{caveats}",
            view.count(Verdict::Pass)
        )
    }
}

fn sources_line(view: &CheckView, quote: &str) -> String {
    let mut s = format!(
        "current: {quote}{}{quote} ({})",
        view.current.source, view.current.kind
    );
    if let Some(b) = view.baseline {
        s.push_str(&format!(
            ", baseline: {quote}{}{quote} ({})",
            b.source, b.kind
        ));
    }
    s
}

/// The five figure columns of a rule's row.
fn cells(o: &Outcome) -> [String; 5] {
    let kind = o.rule.metric.kind;
    [
        value(kind, o.baseline),
        value(kind, o.current),
        delta(o),
        limit(o),
        verdict_word(o.verdict).to_string(),
    ]
}

pub fn table(view: &CheckView, width: u16) -> String {
    let mut t = new_table(width);
    t.set_header(vec![
        "metric", "baseline", "current", "delta", "limit", "verdict",
    ]);
    for o in view.outcomes {
        let mut row = vec![Cell::new(o.rule.metric.name)];
        let [b, c, d, l, v] = cells(o);
        for s in [b, c, d] {
            row.push(Cell::new(s).set_alignment(CellAlignment::Right));
        }
        row.push(Cell::new(l));
        row.push(Cell::new(v));
        t.add_row(row);
    }
    let mut out = format!(
        "gpuaudit check: {}\n{}\n",
        headline(view),
        sources_line(view, "")
    );
    out.push_str(&t.to_string());
    out.push('\n');
    for o in view.outcomes.iter().filter(|o| o.verdict != Verdict::Pass) {
        out.push_str(&format!(
            "{}: {}: {}\n",
            verdict_word(o.verdict),
            o.rule.label(),
            explain(o)
        ));
    }
    for c in view.caveats {
        out.push_str(&format!("{}: {}\n", caveat_word(view), caveat_text(c)));
    }
    out
}

pub fn markdown(view: &CheckView) -> String {
    let icon = if !view.passed() {
        "❌"
    } else if !view.caveats.is_empty() {
        "⚠️"
    } else {
        "✅"
    };
    let mut out = format!("## {icon} gpuaudit check: {}\n\n", headline(view));
    for c in view.caveats {
        out.push_str(&format!(
            "> ⚠️ **{}**: {}\n",
            caveat_word(view),
            caveat_text(c).replace('|', "\\|")
        ));
    }
    if !view.caveats.is_empty() {
        out.push('\n');
    }
    out.push_str("| rule (metric) | baseline | current | delta | limit | verdict |\n");
    out.push_str("|---|---:|---:|---:|---|---|\n");
    for o in view.outcomes {
        let [b, c, d, l, v] = cells(o);
        let v = match o.verdict {
            Verdict::Pass => format!("✅ {v}"),
            Verdict::Fail => format!("❌ {v}"),
            Verdict::Skipped => format!("⏭️ {v}"),
        };
        let row = [format!("`{}`", o.rule.label()), b, c, d, l, v];
        out.push_str(&format!(
            "| {} |\n",
            row.map(|c| c.replace('|', "\\|")).join(" | ")
        ));
    }
    out.push('\n');
    for o in view.outcomes.iter().filter(|o| o.verdict != Verdict::Pass) {
        out.push_str(&format!(
            "- **{}** `{}`: {}\n",
            verdict_word(o.verdict),
            o.rule.label(),
            explain(o)
        ));
    }
    out.push_str(&format!("\n<sub>{}</sub>\n", sources_line(view, "`")));
    out
}

/// JUnit XML escapes exactly as the HTML page does (`& < > " '` as entities,
/// control characters, invalid in XML 1.0, replaced): one markup escaper.
fn xml(s: &str) -> String {
    super::html::escape::text(s)
}

/// JUnit XML: one testcase per rule, named after the rule.
pub fn junit(view: &CheckView) -> String {
    let strict = view.failing_caveats();
    let (n, failed, skipped) = (
        view.outcomes.len() + strict,
        view.count(Verdict::Fail) + strict,
        view.count(Verdict::Skipped),
    );
    let counts = format!(r#"tests="{n}" failures="{failed}" errors="0" skipped="{skipped}""#);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!("<testsuites name=\"gpuaudit check\" {counts}>\n"));
    out.push_str(&format!("  <testsuite name=\"gpuaudit check\" {counts}>\n"));
    if !view.caveats.is_empty() {
        // CI pages show properties and the suite's system-err; --strict adds a
        // failing case per caveat, which every JUnit viewer shows.
        out.push_str("    <properties>\n");
        for c in view.caveats {
            out.push_str(&format!(
                "      <property name=\"comparability.{}\" value=\"{}\"/>\n",
                c.kind().key(),
                xml(&caveat_text(c))
            ));
        }
        out.push_str("    </properties>\n");
    }
    if view.strict {
        for c in view.caveats {
            out.push_str(&format!(
                "    <testcase classname=\"gpuaudit.check.comparability\" name=\"comparable: {}\" time=\"0\">\n      <failure type=\"comparability\" message=\"{}\">--strict: the reports do not compare</failure>\n    </testcase>\n",
                c.kind().key(),
                xml(&caveat_text(c))
            ));
        }
    }
    for o in view.outcomes {
        let [b, c, d, l, _] = cells(o);
        let detail = format!("baseline {b}, current {c}, delta {d}, limit {l}");
        out.push_str(&format!(
            "    <testcase classname=\"gpuaudit.check.{}\" name=\"{}\" time=\"0\">\n",
            o.rule.metric.name,
            xml(&o.rule.label())
        ));
        match o.verdict {
            Verdict::Pass => out.push_str(&format!(
                "      <system-out>{}</system-out>\n",
                xml(&detail)
            )),
            Verdict::Fail => out.push_str(&format!(
                "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                o.rule.kind.key(),
                xml(&explain(o)),
                xml(&detail)
            )),
            Verdict::Skipped => out.push_str(&format!(
                "      <skipped message=\"{}\"/>\n",
                xml(&explain(o))
            )),
        }
        out.push_str("    </testcase>\n");
    }
    if !view.caveats.is_empty() {
        let lines: Vec<String> = view
            .caveats
            .iter()
            .map(|c| format!("{}: {}", caveat_word(view), caveat_text(c)))
            .collect();
        out.push_str(&format!(
            "    <system-err>{}</system-err>\n",
            xml(&lines.join("\n"))
        ));
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// JUnit when the check could not run (bad input, an unmeasured metric): one
/// failing case saying why, so the CI page is never an empty file.
pub fn junit_error(message: &str) -> String {
    let counts = r#"tests="1" failures="1" errors="0" skipped="0""#;
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpuaudit check\" {counts}>\n  <testsuite name=\"gpuaudit check\" {counts}>\n    <testcase classname=\"gpuaudit.check\" name=\"gpuaudit check could not run\" time=\"0\">\n      <failure type=\"error\" message=\"{m}\">{m}</failure>\n    </testcase>\n  </testsuite>\n</testsuites>\n",
        m = xml(message)
    )
}

/// Markdown when the check could not run: a summary that says why.
pub fn markdown_error(message: &str) -> String {
    format!(
        "## ❌ gpuaudit check could not run\n\n> {}\n\nNo rule was checked (exit 2).\n",
        message.replace('\n', " ")
    )
}

#[derive(Serialize)]
struct JsonRule {
    rule: String,
    kind: &'static str,
    metric: &'static str,
    metric_unit: &'static str,
    /// the limit in its own unit: a fraction, a number of the metric's unit,
    /// percentage points or percent
    limit: f64,
    limit_unit: &'static str,
    baseline: Option<f64>,
    current: Option<f64>,
    delta: Option<f64>,
    delta_relative: Option<f64>,
    /// what was held against the limit, in limit_unit (null: unbounded)
    measured: Option<f64>,
    verdict: &'static str,
    missing_in: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct JsonCheck<'a> {
    schema: &'static str,
    passed: bool,
    current: &'a RunSource,
    baseline: Option<&'a RunSource>,
    summary: JsonSummary,
    rules: Vec<JsonRule>,
    /// why CURRENT and BASELINE may not compare; failures under --strict
    warnings: Vec<JsonCaveat>,
    strict: bool,
}

#[derive(Serialize)]
struct JsonCaveat {
    kind: &'static str,
    message: String,
}

#[derive(Serialize)]
struct JsonSummary {
    rules: usize,
    passed: usize,
    failed: usize,
    skipped: usize,
}

pub const CHECK_SCHEMA: &str = "gpuaudit.check/1";

pub fn json(view: &CheckView) -> Result<String> {
    let rules = view
        .outcomes
        .iter()
        .map(|o| JsonRule {
            rule: o.rule.label(),
            kind: o.rule.kind.key(),
            metric: o.rule.metric.name,
            metric_unit: o.rule.metric.kind.name(),
            limit: o.limit,
            limit_unit: match o.rule.amount {
                Amount::Points(_) => "pp",
                Amount::Percent(_) => "percent",
                Amount::Value(_) => o.rule.metric.kind.name(),
            },
            baseline: o.baseline,
            current: o.current,
            delta: o.delta,
            delta_relative: o.delta_relative,
            measured: o.measured,
            verdict: match o.verdict {
                Verdict::Pass => "pass",
                Verdict::Fail => "fail",
                Verdict::Skipped => "skipped",
            },
            missing_in: o
                .missing
                .iter()
                .map(|s| {
                    if *s == Side::Current {
                        "current"
                    } else {
                        "baseline"
                    }
                })
                .collect(),
            reason: (o.verdict != Verdict::Pass).then(|| explain(o)),
        })
        .collect();
    let doc = JsonCheck {
        schema: CHECK_SCHEMA,
        passed: view.passed(),
        current: view.current,
        baseline: view.baseline,
        summary: JsonSummary {
            rules: view.outcomes.len(),
            passed: view.count(Verdict::Pass),
            failed: view.count(Verdict::Fail),
            skipped: view.count(Verdict::Skipped),
        },
        rules,
        warnings: view
            .caveats
            .iter()
            .map(|c| JsonCaveat {
                kind: c.kind().key(),
                message: caveat_text(c),
            })
            .collect(),
        strict: view.strict,
    };
    let mut s = serde_json::to_string_pretty(&doc)?;
    s.push('\n');
    Ok(s)
}

/// The one line main prints when rules fail: every failing rule by name.
pub fn failure_line(view: &CheckView) -> String {
    let fails: Vec<String> = view
        .outcomes
        .iter()
        .filter(|o| o.verdict == Verdict::Fail)
        .map(|o| format!("{} ({})", o.rule.label(), explain(o)))
        .chain(
            view.caveats
                .iter()
                .take(view.failing_caveats())
                .map(|c| format!("--strict: {}", caveat_text(c))),
        )
        .collect();
    format!("check failed: {}", fails.join("; "))
}

/// `--list-metrics`: the metric table as text.
pub fn metric_list(width: u16) -> String {
    let mut t = new_table(width);
    t.set_header(vec!["metric", "unit", "report JSON field"]);
    for m in METRICS.iter() {
        let unit = match m.kind {
            MetricKind::Ratio => "ratio 0..1 (2pp, 5%, 0.35)",
            MetricKind::GpuHours => "GPU-hours (5%, 12.5)",
            MetricKind::Gpus => "GPUs (5%, 8)",
            MetricKind::Usd => "USD (5%, 50)",
            MetricKind::UsdPerHour => "USD per hour (5%, 2.5)",
        };
        t.add_row(vec![m.name, unit, m.path.as_ref()]);
    }
    format!("{t}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn numbers() {
        assert_eq!(trim(47.5, 2), "47.5");
        assert_eq!(trim(55.0, 2), "55");
        assert_eq!(trim(-0.0001, 2), "0");
        assert_eq!(value(MetricKind::Ratio, Some(0.2875)), "28.75%");
        assert_eq!(xml("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
