//! Horizontal bars as HTML, not SVG: their labels and numbers are page text,
//! so they keep the page's font size on a 390-px phone (an SVG's text shrinks
//! with its drawing) and wrap instead of running off the edge.
use super::escape::text;
use std::fmt::Write;

/// One row of a bar chart. `value` None draws no bar.
pub struct Bar {
    pub label: String,
    pub value: Option<f64>,
    /// CSS class of the bar (a colour of the palette)
    pub class: &'static str,
    /// drawn from the bar's start over it: a part of the bar (e.g. active within held)
    pub overlay: Option<(f64, &'static str)>,
    /// the number printed under the bar
    pub shown: String,
    /// tooltip: every number of the row
    pub tip: String,
}

/// A width as a percentage of `max`, clamped for drawing only.
fn share(v: f64, max: f64) -> f64 {
    if max > 0.0 && v.is_finite() {
        (v / max).clamp(0.0, 1.0) * 100.0
    } else {
        0.0
    }
}

/// Bars scaled to `max` (the largest value, or the whole, e.g. observed).
pub fn bars(aria_label: &str, rows: &[Bar], max: f64) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<div class="bars" role="img" aria-label="{}">"#,
        text(aria_label)
    );
    for row in rows {
        let _ = write!(
            s,
            r#"<div class="bar-row" title="{}"><span class="bar-label">{}</span><span class="bar-track">"#,
            text(&row.tip),
            text(&row.label)
        );
        let w = row.value.map_or(0.0, |v| share(v, max));
        if row.value.is_some() {
            let _ = write!(
                s,
                r#"<span class="bar {}" style="width:{w:.1}%"></span>"#,
                row.class
            );
        }
        if let Some((part, class)) = row.overlay {
            let pw = share(part, max).min(w);
            let _ = write!(
                s,
                r#"<span class="bar {class}" style="width:{pw:.1}%"></span>"#
            );
        }
        let _ = write!(
            s,
            r#"</span><span class="bar-value">{}</span></div>"#,
            text(&row.shown)
        );
    }
    s.push_str("</div>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_escape_labels_and_scale_to_max() {
        let rows = [Bar {
            label: "<b>&".into(),
            value: Some(5.0),
            class: "c-held",
            overlay: Some((2.5, "c-active")),
            shown: "5.0".into(),
            tip: "x < y".into(),
        }];
        let html = bars("a \"chart\"", &rows, 10.0);
        assert!(html.contains("&lt;b&gt;&amp;"), "{html}");
        assert!(html.contains(r#"title="x &lt; y""#), "{html}");
        assert!(
            html.contains(r#"class="bar c-held" style="width:50.0%""#),
            "{html}"
        );
        assert!(
            html.contains(r#"class="bar c-active" style="width:25.0%""#),
            "{html}"
        );
        assert!(html.contains(r#"aria-label="a &quot;chart&quot;""#));
    }
}
