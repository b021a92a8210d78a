//! `report --format html`: the meeting document. One self-contained file:
//! inline CSS and SVG drawn here, no script to run, nothing fetched (a
//! Content-Security-Policy forbids it), dark mode and print styles, and the
//! report's JSON embedded so `check` can read the file back.
//!
//! Plain `write!` into escaping helpers (escape.rs) rather than a template
//! crate: the page is a dozen fixed sections, and one escaping function per
//! context is easier to audit than a template language's rules.
mod bars;
pub(crate) mod escape;
mod meeting;
mod page;
mod sections;
mod svg;

use crate::audit::model::{Report, SCHEMA};
use anyhow::{Context, Result, bail};
use std::fmt::Write;
use std::path::Path;

pub use page::REPORT_SCRIPT_ID;

/// Per-GPU rows are embedded up to this many GPUs (about 0.7 kB each, so
/// 1,000 GPUs stay well under 1 MB); the page itself shows none of them.
const MAX_EMBEDDED_GPUS: usize = 1000;

/// What the page shows beyond the report itself.
#[derive(Debug, Clone, Default)]
pub struct HtmlOptions {
    /// rows of the top-N tables (idle episodes, jobs); the embedded JSON keeps
    /// as many, so the file stays small on a large fleet
    pub top: usize,
    /// the thresholds and options the audit ran with (None: not shown)
    pub settings: Option<AuditSettings>,
    /// the page's heading and title (`--title`); a default when None
    pub title: Option<String>,
}

/// The thresholds the audit ran with, typed, so the page stands alone; the
/// words are [`settings_rows`]'.
#[derive(Debug, Clone, Copy)]
pub struct AuditSettings {
    pub idle_below: f64,
    pub min_idle_us: i64,
    /// None: 3 × each GPU's median step
    pub max_gap_us: Option<i64>,
    /// None: the built-in snapshot weight (1 h)
    pub interval_us: Option<i64>,
    pub held_mem_bytes: u64,
    pub since: Option<crate::timeparse::TimeSpec>,
    pub until: Option<crate::timeparse::TimeSpec>,
}

/// The settings as (name, value) rows of the data-quality table.
pub fn settings_rows(s: &AuditSettings) -> Vec<(&'static str, String)> {
    use crate::timeparse::format_duration_us as duration;
    let time = |t: Option<crate::timeparse::TimeSpec>, none: &str| match t {
        None => none.to_string(),
        Some(crate::timeparse::TimeSpec::At(us)) => crate::timeparse::format_time(us),
        Some(crate::timeparse::TimeSpec::Now) => "now".to_string(),
        Some(crate::timeparse::TimeSpec::Back(us)) => {
            format!("{} back from the end", duration(us))
        }
    };
    vec![
        (
            "idle when device activity is below",
            s.idle_below.to_string(),
        ),
        ("idle episodes listed from", duration(s.min_idle_us)),
        (
            "max gap (longer is unobserved)",
            s.max_gap_us
                .map_or_else(|| "3 × the GPU's median sample step".to_string(), duration),
        ),
        (
            "a single sample stands for",
            duration(s.interval_us.unwrap_or(crate::audit::DEFAULT_SNAPSHOT_US)),
        ),
        (
            "held by memory (when that is the rule) above",
            crate::render::fmt::size(s.held_mem_bytes),
        ),
        ("since", time(s.since, "first sample")),
        ("until", time(s.until, "end of the last sample")),
    ]
}

/// The whole HTML document.
pub fn render(report: &Report, opts: &HtmlOptions) -> Result<String> {
    let mut body = String::new();
    let window = format!(
        "{} → {} UTC",
        crate::render::fmt::short_time(&report.window.start),
        crate::render::fmt::short_time(&report.window.end)
    );
    let title = opts
        .title
        .clone()
        .unwrap_or_else(|| "GPU audit: held vs used".to_string());
    let _ = writeln!(body, "<header>\n<h1>{}</h1>", escape::text(&title));
    body.push_str(&format!(
        "<p class=\"window\">{} · {} GPUs · {} h{}</p>\n</header>\n",
        escape::text(&window),
        report.gpu_count,
        crate::render::fmt::hours(report.window.hours),
        if report.window.snapshot {
            " · snapshot"
        } else {
            ""
        }
    ));
    // In the order the meeting needs them: the answer (verdict, plan,
    // findings), held vs busy over time, the leak map; then the appendix.
    sections::answer(&mut body, report);
    meeting::timeline(&mut body, report);
    meeting::leak_map(&mut body, report);
    body.push_str("<h2 class=\"appendix\">Appendix</h2>\n");
    sections::waterfall(&mut body, report);
    sections::cost(&mut body, report);
    sections::showback(&mut body, report);
    sections::idle_episodes(&mut body, report, opts);
    sections::jobs(&mut body, report, opts);
    sections::data_quality(&mut body, report, opts);
    meeting::glossary(&mut body);
    // a wide table scrolls inside its box, never the page (a 390-px phone)
    let mut body = body
        .replace("<table>", "<div class=\"scroll\"><table>")
        .replace("</table>", "</table></div>");
    let (embedded, cuts) = embedded_report(report, opts.top);
    let cut_note = if cuts.is_empty() {
        "every list in full".to_string()
    } else {
        format!(
            "lists cut to what this page shows: {}; `--format json` has them all",
            cuts.join(", ")
        )
    };
    body.push_str(&format!(
        "<footer>Written by gpuaudit {}. The report is embedded as JSON ({SCHEMA}, script id “{REPORT_SCRIPT_ID}”, {}): <code>gpuaudit check this.html --baseline …</code> reads it.</footer>\n",
        env!("CARGO_PKG_VERSION"),
        escape::text(&cut_note)
    ));
    let json = serde_json::to_string(&embedded)?;
    Ok(page::document(
        &format!("{title} {window}"),
        &body,
        &json,
        &cuts.join(", "),
    ))
}

/// The report as embedded: every figure as computed, its long lists cut to
/// the top N the page shows (idle episodes, jobs, showback groups) and the
/// per-GPU rows left out above `MAX_EMBEDDED_GPUS`, so the file stays small on
/// a large fleet. Returns the cuts made, as "list kept of total".
fn embedded_report(report: &Report, top: usize) -> (Report, Vec<String>) {
    let mut r = report.clone();
    let mut cuts = Vec::new();
    let mut cut = |name: &str, total: usize, kept: usize| {
        if kept < total {
            cuts.push(format!("{name} {kept} of {total}"));
        }
    };
    cut(
        "idle_episodes",
        r.idle_episodes.len(),
        top.min(r.idle_episodes.len()),
    );
    r.idle_episodes.truncate(top);
    if let Some(groups) = &mut r.groups {
        cut(
            "groups",
            groups.len(),
            sections::TOP_GROUPS.min(groups.len()),
        );
        groups.truncate(sections::TOP_GROUPS);
    }
    if let Some(leaks) = &mut r.diagnosis.leaks {
        let kept = sections::TOP_GROUPS.min(leaks.groups.len());
        cut("leak_groups", leaks.groups.len(), kept);
        leaks.groups.truncate(kept);
    }
    if let Some(nodes) = &mut r.diagnosis.nodes {
        cut("node_hosts", nodes.hosts.len(), top.min(nodes.hosts.len()));
        nodes.hosts.truncate(top);
    }
    if let Some(jobs) = &r.diagnosis.jobs {
        cut("jobs", jobs.len(), top.min(jobs.len()));
        r.diagnosis.keep_top_jobs(top);
    }
    if r.gpus.len() > MAX_EMBEDDED_GPUS {
        cut("gpus", r.gpus.len(), 0);
        r.gpus.clear();
    }
    (r, cuts)
}

/// Whether the head of a file is an HTML document (for `check` to tell it from JSON).
pub fn looks_like_html(head: &str) -> bool {
    let h = head.trim_start_matches('\u{feff}').trim_start();
    let lower: String = h.chars().take(15).collect::<String>().to_ascii_lowercase();
    lower.starts_with("<!doctype html") || lower.starts_with("<html")
}

/// The report JSON embedded in a page written by `--format html`: the text
/// of `<script type="application/json" id="gpuaudit-report">`.
pub fn embedded_report_json(html: &str) -> Option<&str> {
    let id = format!("id=\"{REPORT_SCRIPT_ID}\"");
    let mut from = 0;
    while let Some(i) = html[from..].find("<script") {
        let tag_start = from + i;
        let tag_end = tag_start + html[tag_start..].find('>')?;
        let tag = &html[tag_start..tag_end];
        if tag.contains(&id) && tag.contains("application/json") {
            let body_start = tag_end + 1;
            let body_end = body_start + html[body_start..].find("</script")?;
            return Some(&html[body_start..body_end]);
        }
        from = tag_end;
    }
    None
}

/// Read a report back from an HTML file written by `--format html`.
pub fn read_embedded_report(path: &Path) -> Result<Report> {
    let name = path.display();
    let html = std::fs::read_to_string(path).with_context(|| format!("{name}: cannot read"))?;
    let Some(json) = embedded_report_json(&html) else {
        bail!(
            "{name}: an HTML file without an embedded report (expected <script type=\"application/json\" id=\"{REPORT_SCRIPT_ID}\">, as `gpuaudit report --format html` writes)"
        );
    };
    let doc: serde_json::Value = serde_json::from_str(json)
        .with_context(|| format!("{name}: the embedded report is not valid JSON"))?;
    match doc.get("schema").and_then(|s| s.as_str()) {
        Some(SCHEMA) => {}
        Some(s) => bail!("{name}: the embedded document is '{s}', expected a {SCHEMA} report"),
        None => {
            bail!("{name}: the embedded document has no \"schema\", expected a {SCHEMA} report")
        }
    }
    serde_json::from_str(json)
        .with_context(|| format!("{name}: the embedded report is not a valid {SCHEMA} report"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_report_script_among_others() {
        let html = r#"<!DOCTYPE html><script type="text/plain">x</script><script type="application/json" id="gpuaudit-report">{"a":1}</script>"#;
        assert!(looks_like_html(html));
        assert_eq!(embedded_report_json(html), Some(r#"{"a":1}"#));
        assert_eq!(
            embedded_report_json("<html><body>no report</body></html>"),
            None
        );
        assert!(!looks_like_html("{\"schema\": \"gpuaudit.report/1\"}"));
    }

    #[test]
    fn the_settings_are_worded_from_typed_values() {
        use crate::timeparse::{TimeSpec, US_PER_DAY, US_PER_MINUTE};
        let rows = settings_rows(&AuditSettings {
            idle_below: 0.05,
            min_idle_us: 90 * US_PER_MINUTE,
            max_gap_us: None,
            interval_us: Some(15 * US_PER_MINUTE),
            held_mem_bytes: 512 << 20,
            since: Some(TimeSpec::Back(7 * US_PER_DAY)),
            until: Some(TimeSpec::At(US_PER_DAY)),
        });
        let values: Vec<&str> = rows.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            [
                "0.05",
                "1h 30m",
                "3 × the GPU's median sample step",
                "15m",
                "512MiB",
                "7days back from the end",
                "1970-01-02T00:00:00Z"
            ]
        );
    }
}
