//! Text for the diagnosis sections (§8-§12): table text and markdown. Only
//! formatting: every figure comes computed in the section.
pub mod jobs;
pub mod leaks;
pub mod nodes;
pub mod purchase;
pub mod timeline;

use super::fmt::thousands;
use crate::audit::diagnosis::Sections;

/// The bucket length the purchase sentence names its unit by; an hour when
/// there is no timeline (the sentence then has no buckets to speak of).
fn bucket_seconds(s: &Sections) -> f64 {
    s.timeline.as_ref().map_or(3600.0, |t| t.bucket_seconds)
}

/// Every diagnosis section as table text, in the order a meeting reads them:
/// the purchase answer, the timeline, where the hours went (and the leak mix
/// of the first `top` groups), the node view; then why a section is missing.
#[cfg(test)]
pub fn table(s: &Sections, width: Option<u16>, top: usize) -> String {
    let mut parts: Vec<String> = purchase_paragraph(s).into_iter().collect();
    parts.push(sections_after_purchase(s, width, top));
    parts.join("\n")
}

/// The purchase answer alone: the report's table prints it first.
pub fn purchase_paragraph(s: &Sections) -> Option<String> {
    s.purchase
        .as_ref()
        .map(|p| purchase::table(p, bucket_seconds(s)))
}

/// Every section but the purchase answer, as table text.
pub fn sections_after_purchase(s: &Sections, width: Option<u16>, top: usize) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(t) = &s.timeline {
        parts.push(timeline::table(t, width));
    }
    if let Some(l) = &s.leaks {
        parts.push(leaks::table(l, width));
        parts.extend(leaks::groups_table(l, top, width));
    }
    if let Some(n) = &s.nodes {
        parts.push(nodes::table(n, width));
    }
    if let Some(j) = jobs::section_of(s) {
        parts.push(jobs::table(&j, top, width));
    }
    parts.extend(
        s.notes
            .iter()
            .map(|n| format!("note: {}\n", crate::render::notes::note_text(n))),
    );
    parts.join("\n")
}

/// The same sections as markdown.
pub fn markdown(s: &Sections, top: usize) -> String {
    let mut out = String::new();
    if let Some(p) = &s.purchase {
        out.push_str(&purchase::markdown(p, bucket_seconds(s)));
    }
    if let Some(t) = &s.timeline {
        out.push_str(&timeline::markdown(t));
    }
    if let Some(l) = &s.leaks {
        out.push_str(&leaks::markdown(l));
    }
    if let Some(n) = &s.nodes {
        out.push_str(&nodes::markdown(n));
    }
    if let Some(j) = jobs::section_of(s) {
        out.push_str(&jobs::markdown(&j, top));
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
        let md = markdown(&s, 10);
        assert!(md.contains("### Do we need more GPUs?"), "{md}");
        assert!(
            md.contains("*Note:* nodes: not computed from a pushdown"),
            "{md}"
        );
        assert_eq!(table(&Sections::default(), None, 5), "");
    }
}
