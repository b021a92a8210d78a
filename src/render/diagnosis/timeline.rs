//! The timeline as one sparkline row per series, scaled to the most GPUs
//! observed in a bucket, so held and active read against the same fleet.
use super::{bucket_len, gpus};
use crate::audit::diagnosis::{Timeline, TimelineBucket};
use crate::render::fmt::short_time;

const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
/// Characters before the sparkline: the series name, padded.
const LABEL: usize = 15;

type Series = (&'static str, fn(&TimelineBucket) -> Option<f64>);

const SERIES: [Series; 7] = [
    ("observed", |b| Some(b.observed)),
    ("held", |b| Some(b.held)),
    ("active", |b| b.active),
    ("SM active", |b| b.sm_active),
    ("tensor active", |b| b.tensor_active),
    ("idle held", |b| b.idle_held),
    ("spare", |b| b.spare),
];

/// A sparkline of `values` against `scale`, at most `cells` wide: when there
/// are more values than cells, each cell shows the peak of its run (so a
/// short spike stays visible). A cell with no value is a space.
pub fn sparkline(values: &[Option<f64>], scale: f64, cells: usize) -> String {
    if values.is_empty() || cells == 0 {
        return String::new();
    }
    let per_cell = values.len().div_ceil(cells);
    values
        .chunks(per_cell)
        .map(|run| {
            let peak = run.iter().flatten().copied().reduce(f64::max);
            match peak {
                None => ' ',
                Some(_) if scale <= 0.0 => LEVELS[0],
                Some(v) => {
                    let level = ((v / scale).clamp(0.0, 1.0) * 7.0).round() as usize;
                    LEVELS.get(level).copied().unwrap_or('█')
                }
            }
        })
        .collect()
}

/// The series lines, each `LABEL` wide before its sparkline; a series never
/// measured is left out.
fn lines(t: &Timeline, cells: usize) -> Vec<String> {
    let scale = t.buckets.iter().map(|b| b.observed).fold(0.0, f64::max);
    SERIES
        .iter()
        .filter_map(|(name, get)| {
            let values: Vec<Option<f64>> = t.buckets.iter().map(get).collect();
            values
                .iter()
                .any(Option::is_some)
                .then(|| format!("{name:<LABEL$}{}", sparkline(&values, scale, cells)))
        })
        .collect()
}

fn heading(t: &Timeline) -> String {
    let first = t.buckets.first().map(|b| short_time(&b.start));
    let last = t.buckets.last().map(|b| short_time(&b.start));
    let scale = t.buckets.iter().map(|b| b.observed).fold(0.0, f64::max);
    format!(
        "Timeline: {} buckets, {} to {} ({} buckets, {} unobserved); a full cell is {} GPUs\n",
        bucket_len(t.bucket_seconds),
        first.unwrap_or_else(|| "-".to_string()),
        last.unwrap_or_else(|| "-".to_string()),
        t.buckets.len(),
        t.unobserved_buckets,
        gpus(Some(scale))
    )
}

/// Table text for `width` columns (None: no limit).
pub fn table(t: &Timeline, width: Option<u16>) -> String {
    if t.buckets.is_empty() {
        return "Timeline: no buckets in the window\n".to_string();
    }
    let cells = width.map_or(t.buckets.len(), |w| {
        usize::from(w).saturating_sub(LABEL).max(8)
    });
    let mut out = crate::render::wrap::fill(&heading(t), width, "  ");
    for line in lines(t, cells) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Markdown: the heading and the sparklines in a code block (one cell a bucket).
pub fn markdown(t: &Timeline) -> String {
    let mut out = format!("\n### Timeline\n\n{}", heading(t));
    if t.buckets.is_empty() {
        return out;
    }
    out.push_str("\n```\n");
    for line in lines(t, t.buckets.len()) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("```\n");
    out
}

/// CSV for `--table timeline`: a header row, one row per bucket, plain
/// unrounded numbers, empty cells where a figure is unknown.
pub fn csv(t: &Timeline) -> String {
    let num = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let mut out = String::from(
        "start,observed,held,active,sm_active,tensor_active,idle_held,unallocated,spare\n",
    );
    for b in &t.buckets {
        let cells = [
            crate::timeparse::rfc3339(&b.start),
            b.observed.to_string(),
            b.held.to_string(),
            num(b.active),
            num(b.sm_active),
            num(b.tensor_active),
            num(b.idle_held),
            b.unallocated.to_string(),
            num(b.spare),
        ];
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(observed: f64, held: f64, active: Option<f64>) -> TimelineBucket {
        TimelineBucket {
            start: crate::timeparse::utc("2026-07-06T00:00:00Z"),
            observed,
            held,
            active,
            ..TimelineBucket::default()
        }
    }

    #[test]
    fn sparkline_scales_to_the_fleet_and_keeps_peaks() {
        let v = [Some(0.0), Some(4.0), Some(8.0), None];
        assert_eq!(sparkline(&v, 8.0, 10), "▁▅█ ");
        // two values a cell: the peak of each pair
        assert_eq!(sparkline(&v, 8.0, 2), "▅█");
        assert_eq!(sparkline(&[], 8.0, 2), "");
    }

    #[test]
    fn table_lists_measured_series_only() {
        let t = Timeline {
            bucket_seconds: 3600.0,
            unobserved_buckets: 1,
            buckets: vec![bucket(8.0, 8.0, Some(2.0)), bucket(0.0, 0.0, None)],
        };
        let text = table(&t, None);
        assert!(
            text.starts_with("Timeline: 1 h buckets, 2026-07-06 00:00"),
            "{text}"
        );
        assert!(
            text.contains("(2 buckets, 1 unobserved); a full cell is 8 GPUs"),
            "{text}"
        );
        assert!(text.contains(&format!("{:<15}█▁\n", "held")), "{text}");
        assert!(text.contains(&format!("{:<15}▃ \n", "active")), "{text}");
        assert!(!text.contains("tensor active"), "{text}");
        let md = markdown(&t);
        assert!(md.contains(&format!("```\n{:<15}█▁\n", "observed")), "{md}");
        let rows = csv(&t);
        assert_eq!(
            rows.lines().nth(1),
            Some("2026-07-06T00:00:00Z,8,8,2,,,,0,")
        );
        assert_eq!(rows.lines().count(), 3);
    }
}
