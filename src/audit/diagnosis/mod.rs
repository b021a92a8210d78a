//! Why it leaks and what to do (docs/semantics.md §10-§11): the fleet
//! timeline, the leak map, the node view and the purchase answer, each a
//! [`Fold`](super::interval::Fold) over the engine's intervals (or, for the
//! purchase, a pure function of the timeline). Nothing here prints.
//!
//! Every fold has the same shape, so the engine can own one of each:
//! `new(..)`, `impl Fold` (`add`, `merge`), then `finish(&self, names, ..)`
//! builds its report section.
use super::interval::{Fold, Interval, Names};
use serde::{Deserialize, Serialize};

pub mod demand;
pub mod figures;
pub mod findings;
pub mod jobs;
pub mod leaks;
pub mod nodes;
pub mod purchase;
pub mod reclaim;
pub mod timeline;

pub use leaks::{LeakClass, LeakFold, LeakThresholds, Leaks};
pub use nodes::{Nodes, NodesFold};
pub use purchase::{Purchase, Verdict, purchase};
pub use timeline::{Timeline, TimelineBucket, TimelineFold};

const MINUTE_TICKS: i64 = crate::audit::interval::TICKS_PER_MINUTE;
const DAY_TICKS: i64 = 24 * 60 * MINUTE_TICKS;

/// The bucket lengths the automatic rule picks from (§8): 1m, 5m, 15m, 1h, 6h, 1d.
pub const AUTO_BUCKETS: [i64; 6] = [
    MINUTE_TICKS,
    5 * MINUTE_TICKS,
    15 * MINUTE_TICKS,
    60 * MINUTE_TICKS,
    6 * 60 * MINUTE_TICKS,
    DAY_TICKS,
];

/// The most buckets the automatic rule lets a window span (§8).
pub const MAX_AUTO_BUCKETS: i64 = 720;

/// The one quantile rule (§8, "Percentiles"): the nearest rank of the `pct`
/// percentile among `n` values, ceil(pct · n / 100), 1-based, at least 1 and
/// at most n (1 when there are none). In whole numbers, so 95 · 20 / 100 is
/// exactly 19. A percentile is the value at this rank; "pX ≤ t" holds
/// exactly when at least this many of the values are ≤ t.
pub fn nearest_rank_of(n: u64, pct: u32) -> u64 {
    (n * u64::from(pct)).div_ceil(100).clamp(1, n.max(1))
}

/// Nearest-rank percentile (§8): of `sorted` (ascending), the value at
/// [`nearest_rank_of`]. None for an empty slice.
pub fn nearest_rank(sorted: &[f64], pct: u32) -> Option<f64> {
    let rank = nearest_rank_of(sorted.len() as u64, pct) as usize;
    sorted.get(rank.checked_sub(1)?).copied()
}

/// Nearest-rank percentiles of unsorted values (NaN-free): sorts a copy.
pub fn percentile_of(values: &[f64], pct: u32) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    nearest_rank(&sorted, pct)
}

/// The automatic bucket (§8): the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is
/// at least 4 × the fleet step and lets the window span at most 720 buckets.
/// Where none does (a window over 720 days, or a step over 6 h), whole days:
/// the fewest that satisfy both. A window that "spans" n buckets is read as
/// ceil(window / B) ≤ 720, whatever its alignment to the epoch.
pub fn auto_bucket(fleet_step_ticks: i64, window_ticks: i64) -> i64 {
    let step = fleet_step_ticks.max(0);
    let window = window_ticks.max(0);
    let fits = |b: i64| b >= 4 * step && div_ceil(window, b) <= MAX_AUTO_BUCKETS;
    if let Some(b) = AUTO_BUCKETS.iter().copied().find(|b| fits(*b)) {
        return b;
    }
    let days_for_step = div_ceil(4 * step, DAY_TICKS);
    let days_for_window = div_ceil(window, MAX_AUTO_BUCKETS * DAY_TICKS);
    days_for_step.max(days_for_window).max(1) * DAY_TICKS
}

fn div_ceil(a: i64, b: i64) -> i64 {
    (a + b - 1).div_euclid(b)
}

/// The diagnosis sections of a report. Each is null where it could not be
/// computed (a source the folds cannot see, e.g. a Prometheus pushdown that
/// has no per-sample state), with the reason in `notes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Sections {
    pub timeline: Option<Timeline>,
    pub leaks: Option<Leaks>,
    pub nodes: Option<Nodes>,
    pub purchase: Option<Purchase>,
    /// demand from `--queue` (§10, Demand); None without a queue
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demand: Option<demand::Demand>,
    /// a row per job (§12); None when the samples carry no job label
    pub jobs: Option<jobs::JobRows>,
    /// jobs found (before --top cuts `jobs` and the leak map's jobs)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs_total: Option<usize>,
    /// parked, gang_member_idle, oversized; None without jobs
    pub findings: Option<Vec<findings::Finding>>,
    /// jobs whose `--jobs` kind is not the shape their telemetry shows
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub job_disagreements: Vec<jobs::Disagreement>,
    /// why a section is null, one note each
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<crate::audit::model::Note>,
}

impl Sections {
    /// Keep the first `top` jobs (by dollars) and the leak map's rows of those
    /// jobs only; `jobs_total` still counts them all. Findings stay whole.
    pub fn keep_top_jobs(&mut self, top: usize) {
        let Some(jobs) = &mut self.jobs else { return };
        self.jobs_total.get_or_insert(jobs.len());
        jobs.truncate(top);
        let kept: std::collections::BTreeSet<&str> = jobs.jobs().collect();
        if let Some(leaks) = &mut self.leaks {
            leaks.jobs.retain(|g| kept.contains(g.name.as_str()));
        }
    }
}

/// A Neumaier sum (the report's own), so dollar sums agree with SQL to 1e-9.
pub(crate) use super::tally::Sum;

/// The diagnosis folds the engine runs side by side: one value per GPU shard,
/// merged at the end, finished into [`Sections`] (the purchase answer is a
/// function of the finished timeline).
#[derive(Debug, Clone)]
pub struct DiagnosisFolds {
    pub timeline: TimelineFold,
    pub leaks: LeakFold,
    pub nodes: NodesFold,
    pub jobs: jobs::JobsFold,
    /// the timeline's buckets (for the purchase plan's owners)
    grid: reclaim::BucketGrid,
    /// Σ held ticks × power (W) and the held ticks that carried power, in the
    /// window: the mean power `--own-cost` prices
    power: (Sum, i64),
}

/// What the sections need beyond the intervals.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiagnosisInputs<'a> {
    /// (basis, GPU-hours) of the deepest measured layer (useful > tensor_active
    /// > sm_active > active), None when no layer is measured
    pub deepest_layer: Option<(&'a str, f64)>,
    pub window_hours: f64,
    /// `--want N`
    pub want: Option<u32>,
    /// requests read from `--queue` (None: no queue given, demand unknown)
    pub pending: Option<&'a [demand::PendingRequest]>,
    /// `--top`: hosts listed in the node view and jobs kept in the jobs
    /// list (and the leak map's jobs); None lists all
    pub top_hosts: Option<usize>,
    /// `--min-window`, hours
    pub min_window_hours: f64,
    /// the fleet's observed GPU-hours and those with held known (held + unallocated)
    pub observed_gpu_hours: f64,
    pub held_known_gpu_hours: f64,
    /// priced dollars ÷ priced GPU-hours; None when nothing is priced
    pub usd_per_gpu_hour: Option<f64>,
    /// `--own-cost`
    pub own_cost: Option<&'a crate::catalog::own_cost::OwnCost>,
}

impl DiagnosisFolds {
    /// `bucket_ticks` from `--bucket` or [`auto_bucket`]; the window is the
    /// report's [start, end), known before the weighing pass.
    pub fn new(
        bucket_ticks: i64,
        window_start: i64,
        window_end: i64,
        thresholds: LeakThresholds,
        by: Option<crate::audit::GroupBy>,
        declared: std::collections::BTreeMap<String, jobs::Declared>,
    ) -> Self {
        DiagnosisFolds {
            jobs: jobs::JobsFold::new(bucket_ticks, window_start, window_end, declared),
            timeline: TimelineFold::new(bucket_ticks, window_start, window_end),
            leaks: LeakFold::new(thresholds, by),
            nodes: NodesFold::new(bucket_ticks, window_start, window_end),
            grid: reclaim::BucketGrid {
                bucket: bucket_ticks.max(1),
                window_start,
                window_end,
                first: window_start.div_euclid(bucket_ticks.max(1)),
                observed: Vec::new(),
            },
            power: (Sum::default(), 0),
        }
    }

    /// The sections; the per-job states are freed as their rows are built
    /// (on a million jobs they and the rows do not fit in memory together).
    pub fn finish(&mut self, names: &dyn Names, inputs: DiagnosisInputs) -> Sections {
        let mut timeline = self.timeline.finish(names);
        let demand = inputs
            .pending
            .map(|p| demand::fold_on_timeline(p, &timeline, self.timeline.window()));
        if let Some(d) = &demand {
            timeline.set_pending(&d.pending_per_bucket);
        }
        // the rows first: under --top only the kept jobs' leak rows are built
        let top = inputs.top_hosts;
        let job_section = self.jobs.finish_taking(names, top);
        let kept: Option<std::collections::HashSet<&str>> =
            top.map(|_| job_section.jobs.jobs().collect());
        let leak_jobs = self.leaks.take_jobs(names, kept.as_ref());
        let mut leaks = self.leaks.finish(names);
        leaks.jobs = leak_jobs;
        let purchase = self.purchase(
            &timeline,
            &job_section.findings,
            names,
            &inputs,
            demand.as_ref(),
        );
        let any_job = job_section.total > 0;
        Sections {
            jobs_total: top.filter(|_| any_job).map(|_| job_section.total),
            jobs: any_job.then_some(job_section.jobs),
            findings: any_job.then_some(job_section.findings),
            job_disagreements: job_section.disagreements,
            leaks: Some(leaks),
            nodes: Some(self.nodes.finish(names, inputs.top_hosts)),
            purchase: Some(purchase),
            timeline: Some(timeline),
            demand,
            notes: Vec::new(),
        }
    }
}

impl DiagnosisFolds {
    /// Mean power (W) of the held time that measured it, in the window.
    fn power_w(&self) -> Option<f64> {
        let (sum, known) = self.power;
        (known > 0).then(|| sum.get() / known as f64)
    }

    /// The purchase answer and its owners (§10, Purchase); no queue is read yet.
    fn purchase(
        &self,
        timeline: &Timeline,
        findings: &[findings::Finding],
        names: &dyn Names,
        inputs: &DiagnosisInputs,
        demand: Option<&demand::Demand>,
    ) -> Purchase {
        let own_cost = inputs
            .own_cost
            .map(|spec| purchase::OwnCostFigures::of(spec, self.power_w()));
        let mut p = purchase(
            timeline,
            &purchase::PurchaseInputs {
                gpus_seen: self.timeline.gpus_observed(),
                deepest_layer: inputs.deepest_layer,
                window_hours: inputs.window_hours,
                want: inputs.want,
                min_window_hours: inputs.min_window_hours,
                observed_gpu_hours: inputs.observed_gpu_hours,
                held_known_gpu_hours: inputs.held_known_gpu_hours,
                usd_per_gpu_hour: inputs.usd_per_gpu_hour,
                own_cost: own_cost.as_ref(),
            },
            demand,
        );
        let grid = reclaim::BucketGrid {
            observed: timeline.buckets.iter().map(|b| b.observed > 0.0).collect(),
            ..self.grid.clone()
        };
        let price = inputs
            .usd_per_gpu_hour
            .or(own_cost.as_ref().map(|o| o.usd_per_gpu_hour));
        if let Some(r) = p.reclaimable_gpus {
            p.reclaim =
                reclaim::by_owner(&self.jobs, &self.nodes, findings, names, &grid, r, price);
        }
        p
    }
}

impl Fold for DiagnosisFolds {
    fn add(&mut self, iv: &Interval) {
        if let (true, Some(w)) = (iv.held, iv.power) {
            let part = iv.end().min(self.grid.window_end) - iv.start.max(self.grid.window_start);
            if part > 0 {
                self.power.0.add(part as f64 * w);
                self.power.1 += part;
            }
        }
        self.timeline.add(iv);
        self.leaks.add(iv);
        self.nodes.add(iv);
        self.jobs.add(iv);
    }
    fn merge(&mut self, other: Self) {
        self.timeline.merge(other.timeline);
        self.leaks.merge(other.leaks);
        self.nodes.merge(other.nodes);
        self.jobs.merge(other.jobs);
        self.power.0.merge(&other.power.0);
        self.power.1 += other.power.1;
    }
}

#[cfg(test)]
pub(crate) mod testkit;

#[cfg(test)]
mod invariants;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_takes_the_ceil_rank_one_based() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        // p95 of 20: rank ceil(19) = 19 -> 19; p5: rank ceil(1) = 1 -> 1
        assert_eq!(nearest_rank(&v, 95), Some(19.0));
        assert_eq!(nearest_rank(&v, 5), Some(1.0));
        assert_eq!(nearest_rank(&v, 50), Some(10.0));
        assert_eq!(nearest_rank(&v, 100), Some(20.0));
        // p5 of 30: rank ceil(1.5) = 2
        let w: Vec<f64> = (1..=30).map(f64::from).collect();
        assert_eq!(nearest_rank(&w, 5), Some(2.0));
        // p0 still takes the first value; one value is every percentile
        assert_eq!(nearest_rank(&w, 0), Some(1.0));
        assert_eq!(nearest_rank(&[7.0], 95), Some(7.0));
        assert_eq!(nearest_rank(&[], 50), None);
        assert_eq!(percentile_of(&[3.0, 1.0, 2.0], 50), Some(2.0));
    }

    #[test]
    fn the_rank_rule_worked_by_hand() {
        // p95 of 20 values: 95 · 20 / 100 = 19 exactly, so rank 19 (not 20)
        assert_eq!(nearest_rank_of(20, 95), 19);
        // p95 of 21: 19.95 -> 20; p5 of 21: 1.05 -> 2; p5 of 20: 1 -> 1
        assert_eq!(nearest_rank_of(21, 95), 20);
        assert_eq!(nearest_rank_of(21, 5), 2);
        assert_eq!(nearest_rank_of(20, 5), 1);
        // p90 of 7: 6.3 -> 7; p50 of 7: 3.5 -> 4; p100 is the last
        assert_eq!(nearest_rank_of(7, 90), 7);
        assert_eq!(nearest_rank_of(7, 50), 4);
        assert_eq!(nearest_rank_of(7, 100), 7);
        // p0 is the first; no values still name rank 1 (a count test needs >= 1)
        assert_eq!(nearest_rank_of(7, 0), 1);
        assert_eq!(nearest_rank_of(0, 95), 1);
    }

    #[test]
    fn auto_bucket_is_the_smallest_that_fits_step_and_window() {
        let min = MINUTE_TICKS;
        // 10 s step, 1 h window: 1m >= 40 s and 60 buckets
        assert_eq!(auto_bucket(min / 6, 60 * min), min);
        // 30 s step: 4 x 30 s = 2 min -> 5m
        assert_eq!(auto_bucket(min / 2, 60 * min), 5 * min);
        // 15 s step over 14 days: 1m gives 20,160 buckets, 15m 1,344, 1h 336
        assert_eq!(auto_bucket(min / 4, 14 * DAY_TICKS), 60 * min);
        // exactly 720 buckets fit; 721 do not
        assert_eq!(auto_bucket(1, 720 * min), min);
        assert_eq!(auto_bucket(1, 720 * min + 1), 5 * min);
        // a step of 4 h needs 16 h: 1d
        assert_eq!(auto_bucket(4 * 60 * min, DAY_TICKS), DAY_TICKS);
        // two years of daily buckets are 730 > 720: two-day buckets
        assert_eq!(auto_bucket(min, 730 * DAY_TICKS), 2 * DAY_TICKS);
        // a step of 2 days needs 8 days
        assert_eq!(auto_bucket(2 * DAY_TICKS, 10 * DAY_TICKS), 8 * DAY_TICKS);
        // an empty window still gets a bucket
        assert_eq!(auto_bucket(0, 0), min);
    }

    #[test]
    fn sections_parse_from_an_empty_object() {
        let s: Sections = serde_json::from_str("{}").unwrap_or_default();
        assert_eq!(s, Sections::default());
        let text = serde_json::to_string(&Sections::default()).unwrap_or_default();
        assert_eq!(
            text,
            r#"{"timeline":null,"leaks":null,"nodes":null,"purchase":null,"jobs":null,"findings":null}"#
        );
    }
}
