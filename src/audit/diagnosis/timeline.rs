//! The fleet timeline (§8): per epoch-aligned bucket, how many GPUs were
//! observed, held, active, idle and unallocated. Each interval is clipped to
//! the window and split at bucket boundaries; metric-weighted sums are split
//! the same way (part × metric), so a bucket holds exactly its share.
use super::Sum;
use crate::audit::interval::{Fold, Interval, Names, TICKS_PER_SECOND, split_at_buckets};
use crate::timeparse::to_datetime;
use serde::{Deserialize, Serialize};

/// The timeline's settings (a part of `AuditConfig`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimelineSettings {
    /// `--bucket`, in ticks; None: the automatic rule
    pub bucket_us: Option<i64>,
}

/// Sums of one bucket, in ticks (weights) and ticks × fraction (metrics).
/// pub(crate): a Prometheus pushdown computes them in PromQL.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BucketSums {
    pub(crate) observed: i64,
    pub(crate) held: i64,
    pub(crate) idle_held: i64,
    pub(crate) unallocated: i64,
    pub(crate) active: Sum,
    pub(crate) sm_active: Sum,
    pub(crate) tensor_active: Sum,
    /// held ticks that carried each metric: a bucket held but never measured is null
    pub(crate) active_known: i64,
    pub(crate) sm_known: i64,
    pub(crate) tensor_known: i64,
}

impl BucketSums {
    fn add(&mut self, iv: &Interval, part: i64) {
        self.observed += part;
        if iv.held {
            self.held += part;
            if iv.idle {
                self.idle_held += part;
            }
            let w = part as f64;
            let metric = |v: Option<f64>, sum: &mut Sum, known: &mut i64| {
                if let Some(m) = v {
                    sum.add(w * m);
                    *known += part;
                }
            };
            metric(iv.device_util(), &mut self.active, &mut self.active_known);
            metric(iv.sm_active(), &mut self.sm_active, &mut self.sm_known);
            metric(
                iv.tensor_active(),
                &mut self.tensor_active,
                &mut self.tensor_known,
            );
        } else if !iv.held_unknown {
            self.unallocated += part;
        }
    }

    fn merge(&mut self, o: &BucketSums) {
        self.observed += o.observed;
        self.held += o.held;
        self.idle_held += o.idle_held;
        self.unallocated += o.unallocated;
        self.active.merge(&o.active);
        self.sm_active.merge(&o.sm_active);
        self.tensor_active.merge(&o.tensor_active);
        self.active_known += o.active_known;
        self.sm_known += o.sm_known;
        self.tensor_known += o.tensor_known;
    }
}

/// Which metrics any interval of the fold carried (held or not).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Seen {
    pub(crate) device_util: bool,
    pub(crate) sm_active: bool,
    pub(crate) tensor_active: bool,
}

/// State of the timeline: one [`BucketSums`] per bucket intersecting the
/// window (so memory grows with buckets, not rows) and one flag per GPU slot.
#[derive(Debug, Clone)]
pub struct TimelineFold {
    bucket: i64,
    window_start: i64,
    window_end: i64,
    /// index k of the first bucket (it covers [k·bucket, (k+1)·bucket))
    first: i64,
    sums: Vec<BucketSums>,
    gpus: Vec<bool>,
    seen: Seen,
}

impl TimelineFold {
    /// Buckets of `bucket_ticks` (> 0; a smaller value is taken as 1) over the
    /// window [window_start, window_end); an empty window has no buckets.
    pub fn new(bucket_ticks: i64, window_start: i64, window_end: i64) -> Self {
        let bucket = bucket_ticks.max(1);
        let first = window_start.div_euclid(bucket);
        let count = if window_end > window_start {
            (window_end - 1).div_euclid(bucket) - first + 1
        } else {
            0
        };
        TimelineFold {
            bucket,
            window_start,
            window_end,
            first,
            sums: vec![BucketSums::default(); count.max(0) as usize],
            gpus: Vec::new(),
            seen: Seen::default(),
        }
    }

    /// The window [start, end) the buckets cover.
    pub fn window(&self) -> (i64, i64) {
        (self.window_start, self.window_end)
    }

    /// Distinct GPUs with observed weight inside the window (§11 `owned`).
    pub fn gpus_observed(&self) -> usize {
        self.gpus.iter().filter(|g| **g).count()
    }

    /// Sums computed elsewhere (a Prometheus pushdown) for the bucket of epoch
    /// index `k` (it covers [k·bucket, (k+1)·bucket)); a bucket outside the
    /// window is ignored. `seen`: the metrics the source carried.
    pub(crate) fn add_sums(&mut self, k: i64, sums: &BucketSums, seen: Seen) {
        if let Some(b) = usize::try_from(k - self.first)
            .ok()
            .and_then(|i| self.sums.get_mut(i))
        {
            b.merge(sums);
        }
        self.seen.device_util |= seen.device_util;
        self.seen.sm_active |= seen.sm_active;
        self.seen.tensor_active |= seen.tensor_active;
    }

    /// Ticks of bucket `i` inside the window: len(b) of §8.
    fn len_in_window(&self, i: usize) -> i64 {
        let start = (self.first + i as i64) * self.bucket;
        let end = start + self.bucket;
        end.min(self.window_end) - start.max(self.window_start)
    }

    pub fn finish(&self, _names: &dyn Names) -> Timeline {
        let buckets: Vec<TimelineBucket> =
            (0..self.sums.len()).map(|i| self.bucket_of(i)).collect();
        Timeline {
            bucket_seconds: self.bucket as f64 / TICKS_PER_SECOND as f64,
            unobserved_buckets: self.sums.iter().filter(|s| s.observed == 0).count(),
            buckets,
        }
    }

    fn bucket_of(&self, i: usize) -> TimelineBucket {
        let s = self.sums.get(i).copied().unwrap_or_default();
        let len = self.len_in_window(i).max(1) as f64;
        let gpus = |ticks: i64| ticks as f64 / len;
        let observed = s.observed > 0;
        // null when never measured, in an empty bucket, or held with no reading
        let metric = |seen: bool, sum: Sum, known: i64| {
            (seen && observed && (s.held == 0 || known > 0)).then(|| sum.get() / len)
        };
        let idle_held = self.seen.device_util.then(|| gpus(s.idle_held));
        let unallocated = gpus(s.unallocated);
        TimelineBucket {
            start: to_datetime((self.first + i as i64) * self.bucket),
            observed: gpus(s.observed),
            held: gpus(s.held),
            active: metric(self.seen.device_util, s.active, s.active_known),
            sm_active: metric(self.seen.sm_active, s.sm_active, s.sm_known),
            tensor_active: metric(self.seen.tensor_active, s.tensor_active, s.tensor_known),
            idle_held,
            unallocated,
            spare: idle_held.map(|idle| unallocated + idle),
            pending: None,
        }
    }
}

impl Fold for TimelineFold {
    fn add(&mut self, iv: &Interval) {
        let start = iv.start.max(self.window_start);
        let end = iv.end().min(self.window_end);
        if end <= start {
            return;
        }
        self.seen.device_util |= iv.device_util().is_some();
        self.seen.sm_active |= iv.sm_active().is_some();
        self.seen.tensor_active |= iv.tensor_active().is_some();
        if self.gpus.len() <= iv.gpu {
            self.gpus.resize(iv.gpu + 1, false);
        }
        if let Some(g) = self.gpus.get_mut(iv.gpu) {
            *g = true;
        }
        for (k, part) in split_at_buckets(start, end - start, self.bucket) {
            if let Some(b) = self.sums.get_mut((k - self.first) as usize) {
                b.add(iv, part);
            }
        }
    }
    fn merge(&mut self, other: Self) {
        for (mine, theirs) in self.sums.iter_mut().zip(other.sums.iter()) {
            mine.merge(theirs);
        }
        if self.gpus.len() < other.gpus.len() {
            self.gpus.resize(other.gpus.len(), false);
        }
        for (mine, theirs) in self.gpus.iter_mut().zip(other.gpus) {
            *mine |= theirs;
        }
        self.seen.device_util |= other.seen.device_util;
        self.seen.sm_active |= other.seen.sm_active;
        self.seen.tensor_active |= other.seen.tensor_active;
    }
}

impl Timeline {
    /// Each bucket's pending GPUs (demand's, same order as the buckets).
    pub fn set_pending(&mut self, pending: &[f64]) {
        for (b, p) in self.buckets.iter_mut().zip(pending) {
            b.pending = Some(*p);
        }
    }
}

/// The `timeline` section: GPUs per bucket (GPU-hours in the bucket ÷ the
/// bucket's length inside the window, in hours).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Timeline {
    pub bucket_seconds: f64,
    /// buckets in which no GPU was observed (left out of every percentile)
    pub unobserved_buckets: usize,
    pub buckets: Vec<TimelineBucket>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimelineBucket {
    /// start of the bucket (epoch-aligned; the window may start later), RFC 3339
    #[serde(with = "crate::timeparse::rfc3339_serde")]
    pub start: chrono::DateTime<chrono::Utc>,
    pub observed: f64,
    pub held: f64,
    /// Σ w·device_util over held samples; null when not measured
    pub active: Option<f64>,
    pub sm_active: Option<f64>,
    pub tensor_active: Option<f64>,
    /// null when device activity is not measured anywhere (idle cannot be told)
    pub idle_held: Option<f64>,
    pub unallocated: f64,
    /// unallocated + idle_held: GPUs that did nothing in the bucket
    pub spare: Option<f64>,
    /// GPUs asked for and waiting in a `--queue` (§10, Demand); absent without a queue
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{H, TestNames, free, held};
    use super::*;
    const MINUTE: i64 = crate::audit::interval::TICKS_PER_MINUTE;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn an_interval_across_a_boundary_is_split_with_its_metric() {
        // window [0, 2h), 1h buckets; GPU 0 held at 0.6 over [0.5h, 1.5h)
        let mut f = TimelineFold::new(H, 0, 2 * H);
        let mut iv = held(0, 0, H / 2, H, Some(0.6));
        iv.activity = iv.activity.with(crate::metric::TENSOR_ACTIVE, Some(0.2));
        f.add(&iv);
        // GPU 1 free the whole window
        f.add(&free(1, 0, 0, 2 * H));
        let t = f.finish(&TestNames);
        assert_eq!(t.bucket_seconds, 3600.0);
        assert_eq!(t.buckets.len(), 2);
        assert_eq!(t.unobserved_buckets, 0);
        let b0 = &t.buckets[0];
        assert_eq!(b0.start, crate::timeparse::utc("1970-01-01T00:00:00Z"));
        // half an hour held in a 1h bucket: 0.5 GPUs held, 0.3 active
        assert!(close(b0.observed, 1.5));
        assert!(close(b0.held, 0.5));
        assert!(close(b0.active.unwrap_or(-1.0), 0.3));
        assert!(close(b0.tensor_active.unwrap_or(-1.0), 0.1));
        assert_eq!(b0.sm_active, None, "never measured: null, not 0");
        assert_eq!(b0.idle_held, Some(0.0));
        assert!(close(b0.unallocated, 1.0));
        assert_eq!(b0.spare, Some(1.0));
        let b1 = &t.buckets[1];
        assert!(close(b1.held, 0.5));
        assert!(close(b1.active.unwrap_or(-1.0), 0.3));
        assert_eq!(f.gpus_observed(), 2);
    }

    #[test]
    fn empty_buckets_are_listed_and_counted() {
        // window [0, 3h): only the last hour has a sample
        let mut f = TimelineFold::new(H, 0, 3 * H);
        f.add(&held(0, 0, 2 * H, H, Some(0.0)));
        let t = f.finish(&TestNames);
        assert_eq!(t.buckets.len(), 3);
        assert_eq!(t.unobserved_buckets, 2);
        assert_eq!(t.buckets[0].observed, 0.0);
        assert_eq!(t.buckets[0].active, None);
        assert_eq!(
            t.buckets[1].start,
            crate::timeparse::utc("1970-01-01T01:00:00Z")
        );
        // the idle hour: 1 GPU held, idle, spare
        assert_eq!(t.buckets[2].idle_held, Some(1.0));
        assert_eq!(t.buckets[2].spare, Some(1.0));
        assert_eq!(t.buckets[2].active, Some(0.0));
    }

    #[test]
    fn partial_buckets_divide_by_their_part_inside_the_window() {
        // window [0.5h, 1.5h): buckets 0 and 1 each have 0.5 h inside it;
        // a sample over [0, 2h) counts only inside the window
        let mut f = TimelineFold::new(H, H / 2, H + H / 2);
        f.add(&held(0, 0, 0, 2 * H, None));
        let t = f.finish(&TestNames);
        assert_eq!(t.buckets.len(), 2);
        assert!(close(t.buckets[0].held, 1.0));
        assert!(close(t.buckets[1].held, 1.0));
        // no device activity anywhere: active and idle are unknown
        assert_eq!(t.buckets[0].active, None);
        assert_eq!(t.buckets[0].idle_held, None);
        assert_eq!(t.buckets[0].spare, None);
    }

    #[test]
    fn a_held_bucket_without_a_reading_is_null_and_held_unknown_is_neither() {
        let mut f = TimelineFold::new(H, 0, 2 * H);
        f.add(&held(0, 0, 0, H, Some(0.5)));
        f.add(&held(0, 0, H, H, None));
        let mut unknown = free(1, 0, 0, 2 * H);
        unknown.held_unknown = true;
        f.add(&unknown);
        let t = f.finish(&TestNames);
        assert_eq!(t.buckets[0].active, Some(0.5));
        assert_eq!(t.buckets[1].active, None);
        assert!(close(t.buckets[1].observed, 2.0));
        assert_eq!(t.buckets[1].unallocated, 0.0);
        assert_eq!(t.buckets[1].spare, Some(0.0));
    }

    #[test]
    fn merged_shards_equal_one_fold() {
        let ivs = [
            held(0, 0, 0, 90 * MINUTE, Some(0.25)),
            free(1, 1, 30 * MINUTE, H),
        ];
        let mut one = TimelineFold::new(H, 0, 2 * H);
        ivs.iter().for_each(|iv| one.add(iv));
        let mut a = TimelineFold::new(H, 0, 2 * H);
        let mut b = TimelineFold::new(H, 0, 2 * H);
        a.add(&ivs[0]);
        b.add(&ivs[1]);
        a.merge(b);
        assert_eq!(a.finish(&TestNames), one.finish(&TestNames));
        assert_eq!(a.gpus_observed(), 2);
    }

    #[test]
    fn an_empty_window_has_no_buckets() {
        let f = TimelineFold::new(H, 5, 5);
        let t = f.finish(&TestNames);
        assert!(t.buckets.is_empty());
        assert_eq!(t.unobserved_buckets, 0);
    }
}
