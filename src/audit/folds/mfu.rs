//! Held time per declared job, for MFU (docs/semantics.md §4, "useful"): the
//! wall-clock union of each job's held intervals and its held GPU-time per
//! model. Memory grows with jobs and the gaps in their held time, not rows.
use crate::audit::interval::{Fold, Interval, Names};
use foldhash::HashMap;
use std::collections::BTreeMap;

/// Disjoint [start, end) intervals, merged as they come: a run of adjacent
/// samples is one entry.
#[derive(Debug, Default, Clone)]
pub struct IntervalUnion {
    /// start -> end, disjoint and not touching
    spans: BTreeMap<i64, i64>,
}

impl IntervalUnion {
    pub fn insert(&mut self, mut start: i64, mut end: i64) {
        if end <= start {
            return;
        }
        // the span starting at or before `start` that reaches it absorbs it
        if let Some((&s, &e)) = self.spans.range(..=start).next_back()
            && e >= start
        {
            if e >= end {
                return;
            }
            start = s;
            self.spans.remove(&s);
        }
        // spans starting inside [start, end] are absorbed
        while let Some((&s, &e)) = self.spans.range(start..=end).next() {
            end = end.max(e);
            self.spans.remove(&s);
        }
        self.spans.insert(start, end);
    }

    /// Ticks covered by at least one interval.
    pub fn covered(&self) -> i64 {
        self.spans.iter().map(|(s, e)| e - s).sum()
    }
    fn merge(&mut self, other: IntervalUnion) {
        for (s, e) in other.spans {
            self.insert(s, e);
        }
    }
}

/// What the intervals say about one job's held time.
#[derive(Debug, Default, Clone)]
pub struct JobHeld {
    pub wall: IntervalUnion,
    /// held ticks and held samples per GPU model (None: no model)
    pub ticks_by_model: BTreeMap<Option<String>, i64>,
    pub samples_by_model: BTreeMap<Option<String>, u64>,
}

/// Held (ticks, samples) per model label id (None: no model).
type ByModel = BTreeMap<Option<u32>, (i64, u64)>;

/// Per job label id: its wall-clock union and held time per model.
#[derive(Default)]
pub struct MfuFold {
    jobs: HashMap<u32, (IntervalUnion, ByModel)>,
}

impl MfuFold {
    /// Held time of every job that was held, by job name.
    pub fn by_job(&self, names: &dyn Names) -> BTreeMap<String, JobHeld> {
        let name = |id: &Option<u32>| id.map(|m| names.label(m).to_string());
        self.jobs
            .iter()
            .map(|(job, (wall, models))| {
                let held = JobHeld {
                    wall: wall.clone(),
                    ticks_by_model: models.iter().map(|(m, v)| (name(m), v.0)).collect(),
                    samples_by_model: models.iter().map(|(m, v)| (name(m), v.1)).collect(),
                };
                (names.label(*job).to_string(), held)
            })
            .collect()
    }
}

impl Fold for MfuFold {
    fn add(&mut self, iv: &Interval) {
        let (true, Some(job)) = (iv.held, iv.job) else {
            return;
        };
        if iv.weight <= 0 {
            return;
        }
        let (wall, models) = self.jobs.entry(job).or_default();
        wall.insert(iv.start, iv.end());
        let e = models.entry(iv.model).or_default();
        e.0 += iv.weight;
        e.1 += 1;
    }
    fn merge(&mut self, other: Self) {
        for (job, (wall, models)) in other.jobs {
            let (w, m) = self.jobs.entry(job).or_default();
            w.merge(wall);
            for (model, (ticks, samples)) in models {
                let e = m.entry(model).or_default();
                e.0 += ticks;
                e.1 += samples;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_union_merges_overlapping_and_touching_intervals() {
        let mut u = IntervalUnion::default();
        for (s, e) in [(20, 30), (0, 10), (5, 15), (15, 18), (40, 50), (0, 60)] {
            u.insert(s, e);
            if s == 15 {
                // [0,18) and [20,30): 18 + 10
                assert_eq!(u.covered(), 28);
            }
        }
        assert_eq!(u.covered(), 60);
        assert_eq!(u.spans.len(), 1);
        let mut v = IntervalUnion::default();
        v.insert(100, 110);
        v.insert(7, 7); // empty
        v.merge(u);
        assert_eq!(v.covered(), 70);
    }
}
