//! The audit as folds over weighed intervals (docs/semantics.md §2):
//! the engine weighs each sample once and hands its [`Interval`] to
//! [`Folds::add`]; each fold owns one part of the report, in its own file, and
//! `audit::assemble` turns their results into the one `Report`.
use super::GroupBy;
use super::interval::{Fold, Interval};
use super::tally::{Basis, Row};

pub mod episodes;
pub mod gpus;
pub mod groups;
pub mod jobs;
pub mod mfu;
pub mod tally;

/// The tally's view of an interval.
pub fn row_of(iv: &Interval) -> Row {
    Row {
        w: iv.hours(),
        w_us: iv.weight,
        held: iv.held,
        held_unknown: iv.held_unknown,
        idle: iv.idle,
        activity: iv.activity,
        mfu: iv.mfu,
        price: iv.price,
    }
}

/// Every fold of the audit.
pub struct Folds {
    pub tally: tally::TallyFold,
    pub groups: groups::GroupsFold,
    pub gpus: gpus::GpusFold,
    /// held time per job for the `--jobs` summaries: only where a jobs file
    /// declares MFU (a tally per job is most of the memory of a million jobs)
    pub jobs: Option<jobs::JobsFold>,
    pub episodes: episodes::EpisodesFold,
    /// timeline, leaks, nodes (and jobs' shapes): started once the window is
    /// known, between the engine's passes
    pub diagnosis: Option<crate::audit::diagnosis::DiagnosisFolds>,
}

impl Folds {
    pub fn new(basis: Basis, by: Option<GroupBy>) -> Self {
        Folds {
            tally: tally::TallyFold::new(basis),
            groups: groups::GroupsFold::new(basis, by),
            gpus: gpus::GpusFold::new(basis),
            jobs: None,
            episodes: episodes::EpisodesFold::default(),
            diagnosis: None,
        }
    }

    /// Every interval has been added and every shard merged: the fleet's
    /// tally from the GPUs'.
    pub fn finish_totals(&mut self) {
        self.tally.total_of(self.gpus.every_tally());
    }

    /// The GPU has no more samples: close what is open on it.
    pub fn end_gpu(&mut self, gpu: usize) {
        self.episodes.end_gpu(gpu);
    }
}

impl Fold for Folds {
    fn add(&mut self, iv: &Interval) {
        // one Row for the four tallies, not one each
        let row = row_of(iv);
        // the fleet's tally is the GPUs' summed at the end (folds/tally.rs)
        self.tally.add_span(iv);
        self.groups.add_row(iv, &row);
        self.gpus.add_row(iv, &row);
        if let Some(jobs) = &mut self.jobs {
            jobs.add_row(iv, &row);
        }
        self.episodes.add(iv);
        if let Some(d) = &mut self.diagnosis {
            d.add(iv);
        }
    }
    fn merge(&mut self, other: Self) {
        self.tally.merge(other.tally);
        self.groups.merge(other.groups);
        self.gpus.merge(other.gpus);
        match (&mut self.jobs, other.jobs) {
            (Some(j), Some(o)) => j.merge(o),
            (j @ None, o) => *j = o,
            (Some(_), None) => {}
        }
        self.episodes.merge(other.episodes);
        match (&mut self.diagnosis, other.diagnosis) {
            (Some(d), Some(o)) => d.merge(o),
            (d @ None, o) => *d = o,
            (Some(_), None) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::Activity;

    #[test]
    fn the_fleet_tally_is_the_sum_of_the_gpus_tallies() {
        const H: i64 = crate::audit::interval::TICKS_PER_HOUR as i64;
        let mut activity = Activity::default();
        activity.0[crate::metric::DEVICE_UTIL.0] = Some(0.25);
        let rows = [
            (0, 0, H, true, Some(2.0)),
            (1, 0, H / 2, false, Some(2.0)),
            (0, H, H / 4, true, None),
            (2, 0, 3 * H, true, Some(4.5)),
        ];
        let mut folds = Folds::new(Basis::Active, None);
        let mut direct = crate::audit::tally::Tally::default();
        for (gpu, start, weight, held, price) in rows {
            let iv = Interval {
                gpu,
                start,
                weight,
                held,
                price,
                activity,
                ..Interval::default()
            };
            folds.add(&iv);
            direct.add(&row_of(&iv), Basis::Active);
        }
        folds.finish_totals();
        let total = &folds.tally.total;
        assert_eq!(total.observed_us, direct.observed_us);
        assert_eq!(total.held_us, H + H / 4 + 3 * H);
        assert_eq!(total.unpriced_us, H / 4);
        assert_eq!(total.priced_rows, 3);
        assert_eq!(total.held_usd.get(), direct.held_usd.get());
        assert_eq!(total.held_usd.get(), 2.0 + 13.5);
        assert_eq!(total.busy_h, direct.busy_h);
        assert_eq!(folds.tally.span, Some((0, 3 * H)));
    }
}
