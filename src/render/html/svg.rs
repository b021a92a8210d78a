//! Inline SVG charts drawn from figures the report already has: horizontal
//! bars and one stacked bar. Colours come from the page's CSS classes (so
//! dark mode and print follow), sizes from a fixed viewBox (so the chart
//! scales to the page width), and every mark carries a `<title>` with its
//! numbers, so hovering (or a screen reader) gives what the picture shows.
use super::escape::text;
use std::fmt::Write;

const WIDTH: f64 = 760.0;
const LABEL_W: f64 = 170.0;
const BAR_W: f64 = 340.0;
const ROW_H: f64 = 26.0;
const BAR_H: f64 = 16.0;
/// Longer labels are cut on the chart (the full label is in the tooltip and the table).
const LABEL_CHARS: usize = 26;

/// One row of a bar chart. `value` None draws no bar and says `n/a`.
pub struct Bar {
    pub label: String,
    pub value: Option<f64>,
    /// CSS class of the bar (a colour of the palette)
    pub class: &'static str,
    /// drawn from the bar's start over it: a part of the bar (e.g. active within held)
    pub overlay: Option<(f64, &'static str)>,
    /// the number printed after the bar
    pub shown: String,
    /// tooltip: every number of the row
    pub tip: String,
}

/// Horizontal bars scaled to `max` (the largest value, or the whole, e.g. observed).
pub fn bars(aria_label: &str, rows: &[Bar], max: f64) -> String {
    let height = ROW_H * rows.len() as f64 + 8.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{}">"#,
        text(aria_label)
    );
    for (i, row) in rows.iter().enumerate() {
        let y = 4.0 + ROW_H * i as f64;
        let mid = y + ROW_H / 2.0;
        let _ = write!(s, "<g><title>{}</title>", text(&row.tip));
        let _ = write!(
            s,
            r#"<text class="label" x="{:.1}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            LABEL_W - 8.0,
            mid,
            text(&cut(&row.label))
        );
        let w = row.value.map(|v| scale(v, max)).unwrap_or(0.0);
        let by = mid - BAR_H / 2.0;
        if row.value.is_some() {
            let _ = write!(
                s,
                r#"<rect class="{}" x="{LABEL_W:.1}" y="{by:.1}" width="{w:.1}" height="{BAR_H:.1}"/>"#,
                row.class
            );
        }
        if let Some((part, class)) = row.overlay {
            let pw = scale(part, max).min(w);
            let _ = write!(
                s,
                r#"<rect class="{class}" x="{LABEL_W:.1}" y="{by:.1}" width="{pw:.1}" height="{BAR_H:.1}"/>"#
            );
        }
        let _ = write!(
            s,
            r#"<text class="value" x="{:.1}" y="{mid:.1}" dominant-baseline="middle">{}</text></g>"#,
            LABEL_W + w + 6.0,
            text(&row.shown)
        );
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

/// Bar length in viewBox units; clamped for drawing only (numbers are in the tooltip).
fn scale(v: f64, max: f64) -> f64 {
    ratio(v, max) * BAR_W
}

fn cut(label: &str) -> String {
    if label.chars().count() > LABEL_CHARS {
        let mut s: String = label.chars().take(LABEL_CHARS - 1).collect();
        s.push('…');
        s
    } else {
        label.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_escape_labels_and_scale_to_max() {
        let rows = [Bar {
            label: "<b>&".into(),
            value: Some(5.0),
            class: "c1",
            overlay: Some((2.5, "c2")),
            shown: "5.0".into(),
            tip: "x < y".into(),
        }];
        let svg = bars("a \"chart\"", &rows, 10.0);
        assert!(svg.contains("&lt;b&gt;&amp;"), "{svg}");
        assert!(svg.contains("<title>x &lt; y</title>"), "{svg}");
        assert!(svg.contains(r#"width="170.0""#), "half of 340: {svg}");
        assert!(svg.contains(r#"width="85.0""#), "a quarter: {svg}");
        assert!(svg.contains(r#"aria-label="a &quot;chart&quot;""#));
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
