//! Inline SVG charts drawn from figures the report already has: the
//! timeline's areas and one stacked bar, with no text inside (labels are page
//! text around them). Colours come from the page's CSS classes (so
//! dark mode and print follow), sizes from a fixed viewBox (so the chart
//! scales to the page width), and every mark carries a `<title>` with its
//! numbers, so hovering (or a screen reader) gives what the picture shows.
use super::escape::text;
use std::fmt::Write;

const WIDTH: f64 = 760.0;

/// One series of the timeline: a value per bucket (None: not measured there).
pub struct Area<'a> {
    pub values: &'a [Option<f64>],
    pub class: &'static str,
}

/// The timeline as stepped areas drawn over one another (observed, then held,
/// then busy), scaled to `max` GPUs. No text inside: the drawing stretches to
/// the page's width (preserveAspectRatio none) and its axis labels are page
/// text around it, so they stay readable on a phone.
pub fn timeline(aria_label: &str, areas: &[Area], max: f64) -> String {
    let n = areas.first().map_or(0, |a| a.values.len());
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="timeline" viewBox="0 0 {n} 100" preserveAspectRatio="none" role="img" aria-label="{}">"#,
        text(aria_label)
    );
    for area in areas {
        let mut d = String::from("M0,100");
        for (i, v) in area.values.iter().enumerate() {
            let y = 100.0 - ratio(v.unwrap_or(0.0), max) * 100.0;
            let _ = write!(d, "L{i},{y:.2}L{},{y:.2}", i + 1);
        }
        let _ = write!(d, "L{n},100Z");
        let _ = write!(s, r#"<path class="{}" d="{d}"/>"#, area.class);
    }
    s.push_str("</svg>");
    s
}

/// One segment of a stacked bar, with an optional part drawn over its start.
pub struct Segment {
    pub value: f64,
    pub class: &'static str,
    pub part: Option<(f64, &'static str, String)>,
    pub tip: String,
}

/// One bar of `total` width made of the segments in order (they should sum to `total`).
pub fn stacked(aria_label: &str, segments: &[Segment], total: f64) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {WIDTH} 44" role="img" aria-label="{}">"#,
        text(aria_label)
    );
    let full = WIDTH - 2.0;
    let mut x = 1.0;
    for seg in segments {
        let w = ratio(seg.value, total) * full;
        let _ = write!(
            s,
            r#"<g><title>{}</title><rect class="{}" x="{x:.1}" y="4" width="{w:.1}" height="36"/></g>"#,
            text(&seg.tip),
            seg.class
        );
        if let Some((part, class, tip)) = &seg.part {
            let pw = (ratio(*part, total) * full).min(w);
            let _ = write!(
                s,
                r#"<g><title>{}</title><rect class="{class}" x="{x:.1}" y="4" width="{pw:.1}" height="36"/></g>"#,
                text(tip)
            );
        }
        x += w;
    }
    s.push_str("</svg>");
    s
}

fn ratio(v: f64, total: f64) -> f64 {
    if total > 0.0 && v.is_finite() {
        (v / total).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeline_steps_each_bucket_to_the_scale() {
        let held = [Some(40.0), Some(20.0), None];
        let svg = timeline(
            "t",
            &[Area {
                values: &held,
                class: "c-held",
            }],
            40.0,
        );
        assert!(svg.contains(r#"viewBox="0 0 3 100""#), "{svg}");
        assert!(
            svg.contains(r#"d="M0,100L0,0.00L1,0.00L1,50.00L2,50.00L2,100.00L3,100.00L3,100Z""#),
            "{svg}"
        );
    }

    #[test]
    fn stacked_segments_share_the_width() {
        let segs = [
            Segment {
                value: 3.0,
                class: "a",
                part: None,
                tip: "a".into(),
            },
            Segment {
                value: 1.0,
                class: "b",
                part: None,
                tip: "b".into(),
            },
        ];
        let svg = stacked("s", &segs, 4.0);
        assert!(svg.contains(r#"x="1.0" y="4" width="568.5""#), "{svg}");
        assert!(svg.contains(r#"x="569.5" y="4" width="189.5""#), "{svg}");
    }
}
