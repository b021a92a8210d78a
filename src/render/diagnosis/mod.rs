//! Text for the diagnosis sections (§8-§12): table text and markdown. Only
//! formatting: every figure comes computed in the section.
pub mod jobs;
pub mod leaks;
pub mod nodes;
pub mod purchase;
pub mod timeline;

use super::fmt::thousands;
use super::wrap::fill;
use crate::audit::diagnosis::Sections;

/// The bucket length the purchase sentence names its unit by; an hour when
/// there is no timeline (the sentence then has no buckets to speak of).
pub(crate) fn bucket_seconds(s: &Sections) -> f64 {
    s.timeline.as_ref().map_or(3600.0, |t| t.bucket_seconds)
}

/// How the table text of the sections is laid out.
#[derive(Debug, Clone, Copy, Default)]
pub struct Layout {
    /// columns (None: no limit)
    pub width: Option<u16>,
    /// rows of the top-N lists (jobs, hosts, leak-mix groups)
    pub top: usize,
    /// a snapshot: figures are GPUs now, no timeline, spans or GPU-h columns
    pub snapshot: bool,
    /// the verdict in bold (a terminal that takes escapes, NO_COLOR unset)
    pub bold: bool,
}

/// Every diagnosis section as table text, in the order a meeting reads them:
/// the purchase answer, the timeline, where the hours went (and the leak mix
/// of the first `top` groups), the node view; then why a section is missing.
#[cfg(test)]
pub fn table(s: &Sections, width: Option<u16>, top: usize) -> String {
    let layout = Layout {
        width,
        top,
        ..Layout::default()
    };
    let mut parts: Vec<String> = purchase_paragraph(s, layout).into_iter().collect();
    parts.push(sections_after_purchase(s, layout));
    parts.join("\n")
}

/// The purchase answer alone: the report's table prints it first, the
/// verdict on its own line (bold on a terminal), every line filled to the
/// width. A snapshot has no percentiles to decide from: it says so instead.
pub fn purchase_paragraph(s: &Sections, layout: Layout) -> Option<String> {
    let p = s.purchase.as_ref()?;
    if layout.snapshot {
        return Some(fill(
            "Purchase: a snapshot is one instant; what stays spare needs samples over time, so no verdict.\n",
            layout.width,
            "",
        ));
    }
    let text = purchase::table(p, bucket_seconds(s));
    let mut out = String::new();
    for line in text.lines() {
        // the verdict starts its own line, bold where the terminal shows it
        let (lead, verdict) = match line.find("Verdict:") {
            Some(i) if !line.starts_with("rule:") && !line.starts_with("note:") => line.split_at(i),
            _ => (line, ""),
        };
        let lead = lead.trim_end();
        // the plan's lines (reclaim, buy, efficiency) indent what they wrap
        let indent = if lead.starts_with("You observed") {
            ""
        } else {
            "  "
        };
        if !lead.is_empty() {
            out.push_str(&fill(lead, layout.width, indent));
            out.push('\n');
        }
        if !verdict.is_empty() {
            let v = fill(verdict, layout.width, "");
            if layout.bold {
                for l in v.lines() {
                    out.push_str(&format!("\x1b[1m{l}\x1b[0m\n"));
                }
            } else {
                out.push_str(&v);
                out.push('\n');
            }
        }
    }
    Some(out)
}

/// Every section but the purchase answer, as table text.
pub fn sections_after_purchase(s: &Sections, layout: Layout) -> String {
    let width = layout.width;
    let mut parts: Vec<String> = Vec::new();
    if let Some(t) = s.timeline.as_ref().filter(|_| !layout.snapshot) {
        parts.push(timeline::table(t, width));
    }
    if let Some(l) = &s.leaks {
        parts.push(leaks::table(l, layout));
        parts.extend(leaks::groups_table(l, layout.top, width));
    }
    if let Some(n) = &s.nodes {
        parts.push(nodes::table(n, layout));
    }
    if let Some((j, total)) = jobs::section_of(s) {
        parts.push(jobs::table(&j, total, layout));
    }
    parts.extend(s.notes.iter().map(|n| {
        let line = format!("note: {}", crate::render::notes::note_text(n));
        format!("{}\n", fill(&line, width, "  "))
    }));
    parts.join("\n")
}

/// The same sections as markdown; a snapshot has no purchase percentiles
/// and no timeline to show.
pub fn markdown(s: &Sections, top: usize, snapshot: bool) -> String {
    let mut out = String::new();
    if let Some(p) = s.purchase.as_ref().filter(|_| !snapshot) {
        out.push_str(&purchase::markdown(p, bucket_seconds(s)));
    }
    if let Some(t) = s.timeline.as_ref().filter(|_| !snapshot) {
        out.push_str(&timeline::markdown(t));
    }
    if let Some(l) = &s.leaks {
        out.push_str(&leaks::markdown(l));
    }
    if let Some(n) = &s.nodes {
        out.push_str(&nodes::markdown(n));
    }
    if let Some((j, total)) = jobs::section_of(s) {
        out.push_str(&jobs::markdown(&j, total, top));
    }
    for n in &s.notes {
        let text = crate::render::notes::note_text(n);
        out.push_str(&format!("\n*Note:* {text}\n"));
    }
    out
}

pub(crate) use super::markdown::row as md_row;

/// A number of GPUs for a sentence: whole when it is (nearly) whole or large,
/// else one decimal ("940", "3.5"); "n/a" when unknown.
pub fn gpus(v: Option<f64>) -> String {
    match v {
        None => "n/a".to_string(),
        Some(x) if x.abs() >= 10.0 || (x - x.round()).abs() < 0.05 => thousands(x.round() as i64),
        Some(x) => format!("{x:.1}"),
    }
}

/// A bucket length: "1 h", "15 min", "1 d", "30 s".
pub fn bucket_len(seconds: f64) -> String {
    let s = seconds.round() as i64;
    if s > 0 && s % 86_400 == 0 {
        format!("{} d", s / 86_400)
    } else if s > 0 && s % 3600 == 0 {
        format!("{} h", s / 3600)
    } else if s > 0 && s % 60 == 0 {
        format!("{} min", s / 60)
    } else {
        format!("{seconds} s")
    }
}

/// What "95% of <unit>" reads as for a bucket length: hours, minutes, days,
/// else "<len> buckets".
pub fn bucket_noun(seconds: f64) -> String {
    match seconds.round() as i64 {
        60 => "minutes".to_string(),
        3600 => "hours".to_string(),
        86_400 => "days".to_string(),
        _ => format!("{} buckets", bucket_len(seconds)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_counts_and_bucket_words() {
        assert_eq!(gpus(Some(940.2)), "940");
        assert_eq!(gpus(Some(1000.0)), "1,000");
        assert_eq!(gpus(Some(3.5)), "3.5");
        assert_eq!(gpus(Some(2.0)), "2");
        assert_eq!(gpus(None), "n/a");
        assert_eq!(bucket_len(3600.0), "1 h");
        assert_eq!(bucket_len(900.0), "15 min");
        assert_eq!(bucket_len(172_800.0), "2 d");
        assert_eq!(bucket_noun(3600.0), "hours");
        assert_eq!(bucket_noun(900.0), "15 min buckets");
    }

    #[test]
    fn sections_render_purchase_first_and_notes_for_missing_ones() {
        use crate::audit::diagnosis::{Purchase, Timeline, Verdict};
        let s = Sections {
            timeline: Some(Timeline {
                bucket_seconds: 900.0,
                ..Timeline::default()
            }),
            purchase: Some(Purchase {
                owned: Some(4.0),
                gpus_seen: 4,
                verdict: Verdict::InsufficientData,
                rule: crate::audit::diagnosis::purchase::PurchaseRule::Text(
                    "too short to decide".to_string(),
                ),
                ..Purchase::default()
            }),
            notes: vec![crate::audit::model::Note::Text(
                "nodes: not computed from a pushdown".to_string(),
            )],
            ..Sections::default()
        };
        let text = table(&s, None, 5);
        assert!(
            text.starts_with("You observed 4 GPUs. No bucket had data."),
            "{text}"
        );
        assert!(
            text.contains("Timeline: no buckets in the window"),
            "{text}"
        );
        assert!(
            text.ends_with("note: nodes: not computed from a pushdown\n"),
            "{text}"
        );
        let md = markdown(&s, 10, false);
        assert!(md.contains("### Do we need more GPUs?"), "{md}");
        assert!(
            md.contains("*Note:* nodes: not computed from a pushdown"),
            "{md}"
        );
        assert_eq!(table(&Sections::default(), None, 5), "");
    }

    #[test]
    fn the_verdict_is_bold_on_a_terminal_and_a_snapshot_has_no_timeline() {
        use crate::audit::diagnosis::{Purchase, Timeline, Verdict};
        let s = Sections {
            timeline: Some(Timeline {
                bucket_seconds: 3600.0,
                ..Timeline::default()
            }),
            purchase: Some(Purchase {
                gpus_seen: 4,
                verdict: Verdict::InsufficientData,
                rule: crate::audit::diagnosis::purchase::PurchaseRule::Text(
                    "too short to decide".to_string(),
                ),
                ..Purchase::default()
            }),
            ..Sections::default()
        };
        let bold = Layout {
            top: 5,
            bold: true,
            ..Layout::default()
        };
        let text = purchase_paragraph(&s, bold).unwrap_or_default();
        assert!(
            text.starts_with("You observed 4 GPUs. No bucket had data.\n\x1b[1mVerdict: insufficient data — too short to decide.\x1b[0m\nrule: "),
            "{text:?}"
        );
        let snapshot = Layout {
            snapshot: true,
            ..bold
        };
        let text = purchase_paragraph(&s, snapshot).unwrap_or_default();
        assert!(
            text.starts_with("Purchase: a snapshot is one instant"),
            "{text}"
        );
        assert!(!sections_after_purchase(&s, snapshot).contains("Timeline"));
        assert!(sections_after_purchase(&s, bold).contains("Timeline"));
    }
}
