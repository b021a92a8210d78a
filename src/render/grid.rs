//! Tables whose every cell stays on one line. Dates, ids and dollar amounts
//! that break mid-word ("2026-07-0 / 6 00:00") cannot be read, so nothing here
//! wraps: when a table is wider than the terminal, labels are shortened with an
//! ellipsis in the middle and the least useful columns are dropped, in that
//! order. Labels are cut before the table sees them, so a 10 MB job name costs
//! one pass over its characters (comfy-table's wrapping is quadratic in it).
use crate::text::shorten;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table, presets};

/// Label columns start at this many characters and shrink to `MIN_LABEL` when narrow.
const LABEL: usize = 28;
const MIN_LABEL: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Debug, Clone)]
pub struct Column {
    header: String,
    align: Align,
    /// 0: always shown; higher numbers are dropped first when narrow
    drop_rank: u8,
    /// a label (job, host, GPU id): shortened in the middle, never wrapped
    label: bool,
}

impl Column {
    pub fn new(header: impl Into<String>) -> Self {
        Column {
            header: header.into(),
            align: Align::Left,
            drop_rank: 0,
            label: false,
        }
    }
    pub fn right(mut self) -> Self {
        self.align = Align::Right;
        self
    }
    pub fn label(mut self) -> Self {
        self.label = true;
        self
    }
    /// Dropped when the table does not fit; higher ranks go first.
    pub fn drop_rank(mut self, rank: u8) -> Self {
        self.drop_rank = rank;
        self
    }
}

#[derive(Debug, Clone, Default)]
pub struct Grid {
    columns: Vec<Column>,
    rows: Vec<Vec<String>>,
}

fn width_of(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

impl Grid {
    pub fn new(columns: Vec<Column>) -> Self {
        Grid {
            columns,
            rows: Vec::new(),
        }
    }

    /// One row; labels are cut to `LABEL` characters here, once.
    pub fn row(&mut self, cells: Vec<String>) {
        let cells = cells
            .into_iter()
            .zip(&self.columns)
            .map(|(c, col)| if col.label { shorten(&c, LABEL) } else { c })
            .collect();
        self.rows.push(cells);
    }

    /// Cells of the visible columns at a label length.
    fn cell(&self, r: usize, c: usize, label_max: usize) -> String {
        let s = self.rows[r].get(c).map(String::as_str).unwrap_or("");
        if self.columns[c].label && label_max < LABEL {
            shorten(s, label_max)
        } else {
            s.to_string()
        }
    }

    fn table_width(&self, visible: &[usize], label_max: usize) -> usize {
        let content: usize = visible
            .iter()
            .map(|&c| {
                let cells = (0..self.rows.len()).map(|r| width_of(&self.cell(r, c, label_max)));
                cells
                    .chain([width_of(&self.columns[c].header)])
                    .max()
                    .unwrap_or(0)
            })
            .sum();
        // "│ a ┆ b │": one border left, then each column adds padding 2 and one border
        content + 3 * visible.len() + 1
    }

    /// Which columns fit in `width` and at what label length: shorten labels
    /// a little, drop the highest-ranked columns, shorten further.
    fn layout(&self, width: Option<u16>) -> (Vec<usize>, usize) {
        enum Step {
            Label(usize),
            Drop(u8),
        }
        let mut visible: Vec<usize> = (0..self.columns.len()).collect();
        let mut label_max = LABEL;
        let Some(width) = width.map(usize::from) else {
            return (visible, label_max);
        };
        let fits = |v: &[usize], l: usize| self.table_width(v, l) <= width;
        let max_rank = self.columns.iter().map(|c| c.drop_rank).max().unwrap_or(0);
        let mut steps = vec![Step::Label(20)];
        steps.extend((1..=max_rank).rev().map(Step::Drop));
        steps.extend([Step::Label(14), Step::Label(MIN_LABEL)]);
        for step in steps {
            if fits(&visible, label_max) {
                break;
            }
            match step {
                Step::Label(l) => label_max = l,
                // this rank's columns one at a time, rightmost first
                Step::Drop(rank) => {
                    while !fits(&visible, label_max)
                        && let Some(pos) = visible
                            .iter()
                            .rposition(|&c| self.columns[c].drop_rank == rank)
                    {
                        visible.remove(pos);
                    }
                }
            }
        }
        (visible, label_max)
    }

    /// The table laid out for `width` columns (None: no limit), and the
    /// headers of the columns it had to leave out.
    pub fn render(&self, width: Option<u16>) -> (String, Vec<String>) {
        let (visible, label_max) = self.layout(width);
        let mut t = Table::new();
        t.load_preset(presets::UTF8_FULL_CONDENSED);
        // laid out above: comfy-table must not wrap (it would break dates and ids)
        t.set_content_arrangement(ContentArrangement::Disabled);
        t.set_header(
            visible
                .iter()
                .map(|&c| Cell::new(&self.columns[c].header))
                .collect::<Vec<_>>(),
        );
        for r in 0..self.rows.len() {
            t.add_row(
                visible
                    .iter()
                    .map(|&c| {
                        let cell = Cell::new(self.cell(r, c, label_max));
                        match self.columns[c].align {
                            Align::Left => cell,
                            Align::Right => cell.set_alignment(CellAlignment::Right),
                        }
                    })
                    .collect::<Vec<_>>(),
            );
        }
        let hidden = (0..self.columns.len())
            .filter(|c| !visible.contains(c))
            .map(|c| self.columns[c].header.clone())
            .collect();
        (t.to_string(), hidden)
    }

    /// The table, then a line naming the columns a narrow terminal hid.
    pub fn render_with_note(&self, width: Option<u16>) -> String {
        let (mut s, hidden) = self.render(width);
        s.push('\n');
        if !hidden.is_empty() {
            let note = format!(
                "(too narrow for: {}; widen the terminal or use --width)\n",
                hidden.join(", ")
            );
            s.push_str(&super::wrap::fill(&note, width, " "));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_drops_ranked_columns_and_never_wraps() {
        let mut g = Grid::new(vec![
            Column::new("job").label(),
            Column::new("start"),
            Column::new("note").drop_rank(2),
            Column::new("USD").right(),
        ]);
        g.row(vec![
            "a-very-long-job-name-that-goes-on-and-on".into(),
            "2026-07-06 00:00".into(),
            "x".repeat(30),
            "$120,740".into(),
        ]);
        let (wide, hidden) = g.render(None);
        assert!(hidden.is_empty());
        assert!(wide.contains(&"x".repeat(30)));
        let (narrow, hidden) = g.render(Some(50));
        assert_eq!(hidden, ["note"]);
        for line in narrow.lines() {
            assert!(line.chars().count() <= 50, "{line}");
        }
        assert!(
            narrow.contains("2026-07-06 00:00") && narrow.contains("$120,740"),
            "{narrow}"
        );
    }

    #[test]
    fn huge_labels_render_in_linear_time() {
        let mut g = Grid::new(vec![Column::new("job").label(), Column::new("USD").right()]);
        for i in 0..20 {
            g.row(vec![format!("{i}{}", "j".repeat(2_000_000)), "$1".into()]);
        }
        let started = std::time::Instant::now();
        let (s, _) = g.render(Some(80));
        assert!(s.lines().all(|l| l.chars().count() <= 80), "{s}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }
}
