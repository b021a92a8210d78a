//! Layers and cost: the fleet's tally and the span the intervals cover.
//!
//! Inside the audit ([`super::Folds`]) the fleet's tally is not added per row:
//! the GPUs partition the rows, so it is the sum of the per-GPU tallies, taken
//! once in GPU order at the end ([`TallyFold::total_of`]); the same figures
//! whatever the number of threads, at a third less of the per-row tally work.
use super::row_of;
use crate::audit::interval::{Fold, Interval};
use crate::audit::tally::{Basis, Row, Tally};

pub struct TallyFold {
    basis: Basis,
    pub total: Tally,
    /// [first start, last end) over all intervals, in ticks
    pub span: Option<(i64, i64)>,
}

impl TallyFold {
    pub fn new(basis: Basis) -> Self {
        TallyFold {
            basis,
            total: Tally::default(),
            span: None,
        }
    }

    pub fn add_row(&mut self, iv: &Interval, row: &Row) {
        self.total.add(row, self.basis);
        self.add_span(iv);
    }

    /// The fleet's tally as the sum of disjoint parts (each GPU's), in order.
    pub fn total_of<'a>(&mut self, parts: impl Iterator<Item = &'a Tally>) {
        let mut total = Tally::default();
        for t in parts {
            total.merge(t);
        }
        self.total = total;
    }

    /// Only the span: the total comes from [`TallyFold::total_of`].
    pub fn add_span(&mut self, iv: &Interval) {
        let (start, end) = (iv.start, iv.end());
        self.span = Some(
            self.span
                .map_or((start, end), |(s, e)| (s.min(start), e.max(end))),
        );
    }
}

impl Fold for TallyFold {
    fn add(&mut self, iv: &Interval) {
        self.add_row(iv, &row_of(iv));
    }
    fn merge(&mut self, other: Self) {
        self.total.merge(&other.total);
        self.span = match (self.span, other.span) {
            (Some((s, e)), Some((s2, e2))) => Some((s.min(s2), e.max(e2))),
            (a, b) => a.or(b),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_span_covers_every_interval_and_merges() {
        let iv = |start, weight, held| Interval {
            start,
            weight,
            held,
            ..Interval::default()
        };
        let mut a = TallyFold::new(Basis::Active);
        const H: i64 = crate::audit::interval::TICKS_PER_HOUR as i64;
        a.add(&iv(1_000, H, true));
        let mut b = TallyFold::new(Basis::Active);
        b.add(&iv(0, H / 2, false));
        a.merge(b);
        assert_eq!(a.span, Some((0, H + 1_000)));
        assert_eq!(a.total.observed_us, 3 * H / 2);
        assert_eq!(a.total.held_us, H);
        assert!((a.total.held_h() - 1.0).abs() < 1e-12);
    }
}
