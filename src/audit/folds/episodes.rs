//! Idle episodes (docs/semantics.md §5): consecutive idle held intervals of one
//! GPU with the same job and no gap beyond max gap between them.
use crate::audit::interval::{Fold, Interval, Names};
use crate::audit::model::IdleEpisode;
use crate::timeparse::to_datetime;

struct Episode {
    gpu: usize,
    job: Option<u32>,
    user: Option<u32>,
    team: Option<u32>,
    start: i64,
    end: i64,
    weight: i64,
    usd: Option<f64>,
}

#[derive(Default)]
pub struct EpisodesFold {
    /// by GPU slot, the episode still running on it
    open: Vec<Option<Episode>>,
    closed: Vec<Episode>,
}

impl EpisodesFold {
    fn close(&mut self, gpu: usize) {
        if let Some(ep) = self.open.get_mut(gpu).and_then(Option::take) {
            self.closed.push(ep);
        }
    }

    /// The GPU has no more intervals: its open episode ends.
    pub fn end_gpu(&mut self, gpu: usize) {
        self.close(gpu);
    }

    /// Closed episodes of positive length and at least `min_idle` ticks, in no
    /// particular order.
    pub fn episodes(&self, names: &dyn Names, min_idle: i64) -> Vec<IdleEpisode> {
        let name = |id: Option<u32>| id.map(|i| names.label(i).to_string());
        self.closed
            .iter()
            .filter(|e| e.end > e.start && e.weight >= min_idle)
            .map(|e| IdleEpisode {
                host: names.host_of(e.gpu).to_string(),
                gpu: names.gpu_of(e.gpu).to_string(),
                job: name(e.job),
                user: name(e.user),
                team: name(e.team),
                start: to_datetime(e.start),
                end: to_datetime(e.end),
                hours: e.weight as f64 / crate::audit::interval::TICKS_PER_HOUR,
                usd: e.usd,
            })
            .collect()
    }
}

impl Fold for EpisodesFold {
    fn add(&mut self, iv: &Interval) {
        if self.open.len() <= iv.gpu {
            self.open.resize_with(iv.gpu + 1, || None);
        }
        if !iv.idle {
            self.close(iv.gpu);
            return;
        }
        let continues = self.open[iv.gpu].as_ref().is_some_and(|e| e.job == iv.job);
        if !continues {
            self.close(iv.gpu);
            self.open[iv.gpu] = Some(Episode {
                gpu: iv.gpu,
                job: iv.job,
                user: iv.user,
                team: iv.team,
                start: iv.start,
                end: iv.start,
                weight: 0,
                usd: Some(0.0),
            });
        }
        if let Some(e) = self.open[iv.gpu].as_mut() {
            e.end = iv.end();
            e.weight += iv.weight;
            e.usd = match (e.usd, iv.price) {
                (Some(a), Some(price)) => Some(a + iv.hours() * price),
                _ => None,
            };
        }
        if iv.gap_after {
            self.close(iv.gpu);
        }
    }
    fn merge(&mut self, other: Self) {
        if self.open.len() < other.open.len() {
            self.open.resize_with(other.open.len(), || None);
        }
        for (mine, theirs) in self.open.iter_mut().zip(other.open) {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
        self.closed.extend(other.closed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Labels;
    impl Names for Labels {
        fn label(&self, id: u32) -> &str {
            ["job-a", "job-b"].get(id as usize).copied().unwrap_or("")
        }
        fn host_of(&self, _: usize) -> &str {
            "node"
        }
        fn gpu_of(&self, _: usize) -> &str {
            "0"
        }
    }

    const MIN: i64 = crate::audit::interval::TICKS_PER_MINUTE;

    fn idle(start_min: i64, job: u32, gap_after: bool) -> Interval {
        Interval {
            start: start_min * MIN,
            weight: 10 * MIN,
            held: true,
            idle: true,
            job: Some(job),
            price: Some(6.0),
            gap_after,
            ..Interval::default()
        }
    }

    #[test]
    fn episodes_break_at_a_job_change_a_gap_and_a_busy_sample() {
        let mut f = EpisodesFold::default();
        f.add(&idle(0, 0, false));
        f.add(&idle(10, 0, false)); // same job: 20 min so far
        f.add(&idle(20, 1, true)); // job changes, then a gap: 10 min of job-b
        f.add(&idle(100, 1, false));
        f.add(&Interval {
            start: 110 * MIN,
            weight: 10 * MIN,
            ..Interval::default()
        }); // busy: closes the third
        f.end_gpu(0);
        let mut e = f.episodes(&Labels, 0);
        e.sort_by_key(|e| e.start);
        let hours: Vec<f64> = e.iter().map(|e| e.hours).collect();
        assert_eq!(hours.len(), 3);
        assert!((hours[0] - 1.0 / 3.0).abs() < 1e-12);
        assert!((hours[1] - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(e[0].job.as_deref(), Some("job-a"));
        assert_eq!(e[2].job.as_deref(), Some("job-b"));
        // 20 min at $6/h
        assert!((e[0].usd.unwrap_or(0.0) - 2.0).abs() < 1e-12);
        // only episodes of at least 15 minutes
        assert_eq!(f.episodes(&Labels, 15 * MIN).len(), 1);
    }
}
