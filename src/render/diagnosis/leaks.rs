//! The leak map: one row per class with GPU-hours, shares and dollars, and
//! the thresholds the cascade used.
use super::{Layout, md_row};
use crate::audit::diagnosis::leaks::{LeakGroup, LeakRow};
use crate::audit::diagnosis::{LeakClass, LeakThresholds, Leaks};
use crate::render::fmt::{hours, pct, usd};
use crate::render::grid::{Column, Grid};
use crate::render::wrap::fill;

/// "idle < 1%, starved < 50%, ...": the thresholds in the words of §9.
pub fn thresholds_line(t: &LeakThresholds) -> String {
    let p = |v: f64| pct(Some(v));
    format!(
        "thresholds: idle < {} device activity, starved < {}, underfilled < {} SM active, memory-bound DRAM >= {} with tensor < {}, no tensor < {} tensor active",
        p(t.idle_below),
        p(t.starved_below),
        p(t.underfilled_below),
        p(t.memory_bound_dram_at_least),
        p(t.memory_bound_tensor_below),
        p(t.no_tensor_below)
    )
}

fn cells(r: &LeakRow) -> Vec<String> {
    vec![
        r.class.name().replace('_', " "),
        hours(r.gpu_hours),
        pct(r.share_of_held),
        pct(r.share_of_observed),
        usd(r.usd),
    ]
}

/// Classes with no hours are left out of the text (the JSON lists them all).
fn shown(l: &Leaks) -> impl Iterator<Item = &LeakRow> {
    l.classes.iter().filter(|r| r.gpu_hours > 0.0)
}

/// The classes with hours, then the thresholds filled to the width; a
/// snapshot's figures are GPUs now.
pub fn table(l: &Leaks, layout: Layout) -> String {
    let width = layout.width;
    let (title, unit) = if layout.snapshot {
        ("where the GPUs are now", "GPUs")
    } else {
        ("where the GPU-hours went", "GPU-h")
    };
    let mut g = Grid::new(vec![
        Column::new(title),
        Column::new(unit).right(),
        Column::new("% of held").right(),
        Column::new("% of observed").right().drop_rank(1),
        Column::new("USD").right(),
    ]);
    for r in shown(l) {
        g.row(cells(r));
    }
    let mut out = g.render_with_note(width);
    out.push_str(&fill(&thresholds_line(&l.thresholds), width, "  "));
    out.push('\n');
    out
}

/// The held classes a group's leak mix shows, as shares of its held hours:
/// the cascade after held_unknown and unallocated.
const MIX: &[LeakClass] = LeakClass::HELD;

/// One row of the leak mix: the group, then each held class's share of held.
pub fn mix_cells(g: &LeakGroup) -> Vec<String> {
    let mut cells = vec![g.name.clone()];
    cells.extend(MIX.iter().map(|class| {
        pct(g
            .classes
            .iter()
            .find(|r| r.class == *class)
            .and_then(|r| r.share_of_held))
    }));
    cells
}

/// The leak mix of the first `top` `--by` groups (they come sorted by held
/// hours); None without `--by`.
pub fn groups_table(l: &Leaks, top: usize, width: Option<u16>) -> Option<String> {
    let by = l.by.as_deref()?;
    let mut cols = vec![Column::new(by).label()];
    cols.extend(MIX.iter().enumerate().map(|(i, c)| {
        Column::new(c.name().replace('_', " "))
            .right()
            .drop_rank(i as u8 % 3)
    }));
    let mut g = Grid::new(cols);
    for group in l.groups.iter().take(top) {
        g.row(mix_cells(group));
    }
    Some(format!(
        "Leak mix by {by} (share of each group's held GPU-hours)\n{}",
        g.render_with_note(width)
    ))
}

pub fn markdown(l: &Leaks) -> String {
    let mut out = String::from("\n### Where the GPU-hours went\n\n");
    out.push_str(&md_row(
        &["class", "GPU-h", "% of held", "% of observed", "USD"].map(String::from),
    ));
    out.push_str("|---|---:|---:|---:|---:|\n");
    for r in shown(l) {
        out.push_str(&md_row(&cells(r)));
    }
    out.push_str(&format!("\n{}\n", thresholds_line(&l.thresholds)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaks() -> Leaks {
        let row = |class, gpu_hours, share_of_held, usd| LeakRow {
            class,
            gpu_hours,
            share_of_held,
            share_of_observed: Some(gpu_hours / 4.0),
            usd,
        };
        Leaks {
            classes: vec![
                row(LeakClass::Unallocated, 1.0, None, Some(2.0)),
                row(LeakClass::Idle, 2.0, Some(2.0 / 3.0), Some(4.0)),
                row(LeakClass::MemoryBound, 1.0, Some(1.0 / 3.0), None),
                row(LeakClass::Starved, 0.0, Some(0.0), Some(0.0)),
            ],
            ..Leaks::default()
        }
    }

    #[test]
    fn table_shows_classes_with_hours_and_the_thresholds() {
        let text = table(&leaks(), Layout::default());
        assert!(text.contains("idle"), "{text}");
        assert!(text.contains("66.7%") && text.contains("$4.00"), "{text}");
        assert!(text.contains("memory bound"), "{text}");
        // the empty starved row is left out: the word is only in the thresholds
        assert_eq!(text.matches("starved").count(), 1, "{text}");
        assert!(
            text.contains("thresholds: idle < 1.0% device activity, starved < 50.0%"),
            "{text}"
        );
        let md = markdown(&leaks());
        assert!(
            md.contains("| idle | 2.00 | 66.7% | 50.0% | $4.00 |"),
            "{md}"
        );
        assert!(
            md.contains("| unallocated | 1.00 | n/a | 25.0% | $2.00 |"),
            "{md}"
        );
    }

    #[test]
    fn the_leak_mix_lists_held_shares_per_group() {
        let mut l = leaks();
        assert_eq!(groups_table(&l, 10, None), None);
        l.by = Some("team".to_string());
        l.groups = vec![LeakGroup {
            name: "research".to_string(),
            classes: l.classes.clone(),
        }];
        let cells = mix_cells(&l.groups[0]);
        // unmeasured (absent: n/a), idle 66.7%, starved 0.0%, underfilled n/a, memory bound 33.3%
        assert_eq!(
            cells[..6],
            ["research", "n/a", "66.7%", "0.0%", "n/a", "33.3%"]
        );
        let text = groups_table(&l, 10, None).expect("a --by table");
        assert!(text.starts_with("Leak mix by team"), "{text}");
        assert!(
            text.contains("research") && text.contains("memory bound"),
            "{text}"
        );
    }
}
