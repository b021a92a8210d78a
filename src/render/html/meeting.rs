//! The page's opening, in the order a meeting needs it: the verdict in
//! words, the plan behind it, the findings that matter; then held vs busy
//! over time and the leak map. The glossary closes the page.
use super::escape::text;
use super::svg::{self, Area, Segment};
use crate::audit::diagnosis::{LeakClass, Purchase, Sections};
use crate::audit::model::Report;
use crate::render::diagnosis::{bucket_len, gpus, leaks::thresholds_line, nodes::summary};
use crate::render::fmt::{hours, pct, short_time, usd};
use std::fmt::Write;

/// How many findings the opening lists (the jobs section has them all).
const TOP_FINDINGS: usize = 3;

/// The verdict sentence and the plan (the purchase paragraph before it),
/// then the rule and the caveat. The words are the purchase renderer's.
pub fn verdict_and_plan(out: &mut String, r: &Report) {
    let s = &r.diagnosis;
    let Some(p) = &s.purchase else { return };
    if r.window.snapshot {
        out.push_str("<p class=\"verdict\" data-verdict=\"none\">No purchase verdict: a snapshot is one instant; what stays spare needs samples over time.</p>\n");
        return;
    }
    let paragraph = crate::render::diagnosis::purchase::paragraph(
        p,
        crate::render::diagnosis::bucket_seconds(s),
    );
    let (plan, verdict) = match paragraph.find("Verdict:") {
        Some(i) => paragraph.split_at(i),
        None => ("", paragraph.as_str()),
    };
    let name = serde_json::to_value(p.verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<p class=\"verdict\" data-verdict=\"{}\">{}</p>",
        text(&name),
        text(verdict.trim())
    );
    if !plan.trim().is_empty() {
        let _ = writeln!(out, "<p class=\"plan\">{}</p>", text(plan.trim()));
    }
    plan_items(out, p);
    let caveat = if p.caveat.is_empty() {
        String::new()
    } else {
        format!(" {}.", capitalize(&p.caveat.to_string()))
    };
    let _ = writeln!(
        out,
        "<p class=\"note\">Rule: {}.{}</p>",
        text(&crate::render::diagnosis::purchase::rule_text(&p.rule)),
        text(&caveat)
    );
}

/// The plan's lines (reclaim by owner, buying the rest priced both ways,
/// efficiency, demand), in the purchase renderer's words.
fn plan_items(out: &mut String, p: &Purchase) {
    let items = crate::render::diagnosis::purchase::plan_lines(p);
    if items.is_empty() {
        return;
    }
    out.push_str("<ul class=\"plan-items\">");
    for i in items {
        let _ = write!(out, "<li>{}</li>", text(&capitalize(&i)));
    }
    out.push_str("</ul>\n");
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The first findings by dollars, each with its detail whole.
pub fn top_findings(out: &mut String, s: &Sections) {
    let Some(found) = s.findings.as_ref().filter(|f| !f.is_empty()) else {
        return;
    };
    let shown = found.len().min(TOP_FINDINGS);
    let _ = writeln!(
        out,
        "<h3>The findings that matter ({shown} of {})</h3>\n<ol class=\"findings\">",
        found.len()
    );
    for f in found.iter().take(shown) {
        let _ = writeln!(
            out,
            "<li><strong>{}</strong>: {} — {} GPU-h, {}. {}.</li>",
            text(&f.kind.name().replace('_', " ")),
            text(&f.job),
            hours(f.gpu_hours),
            text(&usd(f.usd)),
            text(&capitalize(
                &crate::render::diagnosis::jobs::finding_detail(&f.detail)
            ))
        );
    }
    out.push_str("</ol>\n");
}

/// Held vs busy over time: observed, held and device-active GPUs per bucket,
/// drawn over one another against the most GPUs observed in a bucket.
pub fn timeline(out: &mut String, r: &Report) {
    let Some(t) = r
        .diagnosis
        .timeline
        .as_ref()
        .filter(|t| !t.buckets.is_empty())
    else {
        return;
    };
    if r.window.snapshot {
        return;
    }
    let observed: Vec<Option<f64>> = t.buckets.iter().map(|b| Some(b.observed)).collect();
    let held: Vec<Option<f64>> = t.buckets.iter().map(|b| Some(b.held)).collect();
    let active: Vec<Option<f64>> = t.buckets.iter().map(|b| b.active).collect();
    let max = observed.iter().flatten().copied().fold(0.0, f64::max);
    let mut areas = vec![
        Area {
            values: &observed,
            class: "c-observed",
        },
        Area {
            values: &held,
            class: "c-held",
        },
    ];
    let measured = active.iter().any(Option::is_some);
    if measured {
        areas.push(Area {
            values: &active,
            class: "c-active",
        });
    }
    let first = t.buckets.first().map(|b| short_time(&b.start));
    let last = t.buckets.last().map(|b| short_time(&b.start));
    out.push_str(
        "<section id=\"timeline\">\n<h2>Held vs busy over time</h2>\n<figure class=\"tl\">",
    );
    let _ = write!(
        out,
        "<div class=\"tl-max\">{} GPUs</div>",
        text(&gpus(Some(max)))
    );
    out.push_str(&svg::timeline(
        &format!(
            "GPUs observed, held and busy per {} bucket, {} buckets",
            bucket_len(t.bucket_seconds),
            t.buckets.len()
        ),
        &areas,
        max,
    ));
    let _ = write!(
        out,
        "<div class=\"tl-axis\"><span>{}</span><span>{} UTC</span></div>",
        text(&first.unwrap_or_default()),
        text(&last.unwrap_or_default())
    );
    let busy = if measured {
        " <span class=\"key k-active\"></span>busy (device active)"
    } else {
        " (device activity not measured: busy cannot be drawn)"
    };
    let _ = writeln!(
        out,
        "<figcaption><span class=\"key k-observed\"></span>observed <span class=\"key k-held\"></span>held{busy} — GPUs per {} bucket; the band between held and busy is paid for and doing nothing. {} of {} buckets had no data.</figcaption></figure>\n</section>",
        text(&bucket_len(t.bucket_seconds)),
        t.unobserved_buckets,
        t.buckets.len()
    );
}

/// CSS class of a leak class's colour.
fn leak_class(c: LeakClass) -> &'static str {
    match c {
        LeakClass::HeldUnknown => "l-held_unknown",
        LeakClass::Unallocated => "l-unallocated",
        LeakClass::Unmeasured => "l-unmeasured",
        LeakClass::Idle => "l-idle",
        LeakClass::Starved => "l-starved",
        LeakClass::Underfilled => "l-underfilled",
        LeakClass::MemoryBound => "l-memory_bound",
        LeakClass::NoTensor => "l-no_tensor",
        LeakClass::Effective => "l-effective",
        LeakClass::BusyUnprofiled => "l-busy_unprofiled",
    }
}

/// The leak map: every observed GPU-hour in its class, as one stacked bar
/// and a table, the thresholds, and the node view's stranded hours.
pub fn leak_map(out: &mut String, r: &Report) {
    let Some(l) = &r.diagnosis.leaks else { return };
    let unit = if r.window.snapshot { "GPUs" } else { "GPU-h" };
    let per = if r.window.snapshot { "/h" } else { "" };
    let shown: Vec<_> = l.classes.iter().filter(|c| c.gpu_hours > 0.0).collect();
    let total: f64 = shown.iter().map(|c| c.gpu_hours).sum();
    out.push_str("<section id=\"leaks\">\n<h2>Where the GPU-hours went: the leak map</h2>\n");
    let segs: Vec<Segment> = shown
        .iter()
        .map(|c| Segment {
            value: c.gpu_hours,
            class: leak_class(c.class),
            part: None,
            tip: format!(
                "{}: {} {unit}, {} of observed, {}{per}",
                c.class.name().replace('_', " "),
                hours(c.gpu_hours),
                pct(c.share_of_observed),
                usd(c.usd)
            ),
        })
        .collect();
    out.push_str("<figure>");
    out.push_str(&svg::stacked(
        &format!("observed {unit} by leak class"),
        &segs,
        total,
    ));
    out.push_str("<figcaption>");
    for c in &shown {
        let _ = write!(
            out,
            "<span class=\"key {}\"></span>{} ",
            leak_class(c.class),
            text(&c.class.name().replace('_', " "))
        );
    }
    out.push_str(
        "— each class as a share of observed, in the order of the tests.</figcaption></figure>\n",
    );
    let _ = write!(
        out,
        "<table><thead><tr><th>class</th><th class=\"n\">{unit}</th><th class=\"n\">% of held</th><th class=\"n\">% of observed</th><th class=\"n\">USD{per}</th></tr></thead><tbody>"
    );
    for c in &shown {
        let _ = write!(
            out,
            "<tr><td><span class=\"key {}\"></span>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            leak_class(c.class),
            text(&c.class.name().replace('_', " ")),
            hours(c.gpu_hours),
            pct(c.share_of_held),
            pct(c.share_of_observed),
            text(&usd(c.usd))
        );
    }
    out.push_str("</tbody></table>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">{}.</p>",
        text(&capitalize(&thresholds_line(&l.thresholds)))
    );
    if let Some(n) = &r.diagnosis.nodes {
        let _ = writeln!(
            out,
            "<p class=\"note\">{}</p>",
            text(summary(n, unit).trim_end())
        );
    }
    out.push_str("</section>\n");
}

/// "How to read this": every term of the glossary, closed until opened.
pub fn glossary(out: &mut String) {
    out.push_str("<details id=\"glossary\">\n<summary>How to read this: every term on this page</summary>\n<dl class=\"glossary\">");
    for t in crate::render::glossary::TERMS {
        let _ = write!(
            out,
            "<dt id=\"term-{}\">{}</dt><dd>{}</dd>",
            text(&t.name.replace(' ', "-")),
            text(t.name),
            text(t.text)
        );
    }
    out.push_str("</dl>\n</details>\n");
}
