//! Demand that never got a GPU (docs/semantics.md §10, Demand): requests read
//! from a scheduler queue (`--queue`: Slurm sacct, kube-state-metrics), folded
//! onto the timeline's buckets as pending GPUs, and their waits.
//!
//! This file is the shared shape between the queue readers (src/source/queue/)
//! and the purchase plan (purchase.rs); the fold itself lives here too.
use crate::audit::interval::{TICKS_PER_HOUR, TICKS_PER_SECOND, split_at_buckets};
use serde::{Deserialize, Serialize};

/// One request for GPUs that waited: from `submit_us` until `start_us` (None:
/// still pending when the data ends). Times in µs since the Unix epoch (UTC),
/// the audit's tick (`crate::audit::interval::TICKS_PER_SECOND`).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingRequest {
    /// the user / account / namespace that asked, where the queue names one
    pub owner: Option<String>,
    /// GPUs asked for (all nodes together)
    pub gpus: f64,
    pub submit_us: i64,
    pub start_us: Option<i64>,
}

/// Every request read from the queues (`--queue`, `--prom-queue`), and what
/// the readers say about them (notes for the report's data quality).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Queue {
    pub requests: Vec<PendingRequest>,
    pub notes: Vec<crate::audit::model::Note>,
}

/// Demand over the report's window, in the timeline's buckets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Demand {
    /// pending GPUs per timeline bucket (same length and order as the timeline's buckets)
    pub pending_per_bucket: Vec<f64>,
    /// Σ over requests of gpus × hours waited inside the window
    pub pending_gpu_hours: f64,
    /// nearest-rank p95 of pending GPUs over the observed buckets
    pub pending_gpus_p95: Option<f64>,
    /// nearest-rank p50/p95 of the waits (hours, inside the window) of the requests that waited
    pub wait_hours_p50: Option<f64>,
    pub wait_hours_p95: Option<f64>,
    /// requests that waited inside the window
    pub requests: usize,
    /// who waited: one row per owner (`-` where the queue names none), most
    /// pending GPU-hours first, then by name
    pub owners: Vec<OwnerDemand>,
}

/// One owner's waiting inside the window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OwnerDemand {
    pub owner: String,
    pub pending_gpu_hours: f64,
    pub requests: usize,
    /// the longest wait inside the window, hours
    pub wait_hours_max: f64,
}

/// Per-owner sums: (GPU-ticks, requests, longest wait in ticks).
#[derive(Default)]
struct OwnerSums(super::Sum, usize, i64);

fn owner_rows(sums: std::collections::BTreeMap<&str, OwnerSums>) -> Vec<OwnerDemand> {
    let mut rows: Vec<OwnerDemand> = sums
        .into_iter()
        .map(|(owner, s)| OwnerDemand {
            owner: owner.to_string(),
            pending_gpu_hours: s.0.get() / TICKS_PER_HOUR,
            requests: s.1,
            wait_hours_max: s.2 as f64 / TICKS_PER_HOUR,
        })
        .collect();
    // BTreeMap order is by name; a stable sort keeps it among equals
    rows.sort_by(|a, b| b.pending_gpu_hours.total_cmp(&a.pending_gpu_hours));
    rows
}

/// The timeline's grid: epoch-aligned buckets of `bucket` ticks over the
/// window [window_start, window_end) (§10, Buckets and the timeline).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    pub bucket: i64,
    pub window_start: i64,
    pub window_end: i64,
}

impl Grid {
    /// Epoch index of the first bucket and how many buckets meet the window.
    fn span(&self) -> (i64, usize) {
        let first = self.window_start.div_euclid(self.bucket);
        let count = if self.window_end > self.window_start {
            (self.window_end - 1).div_euclid(self.bucket) - first + 1
        } else {
            0
        };
        (first, count.max(0) as usize)
    }

    /// Ticks of bucket `i` (from the first) inside the window.
    fn len_in_window(&self, first: i64, i: usize) -> i64 {
        let start = (first + i as i64) * self.bucket;
        (start + self.bucket).min(self.window_end) - start.max(self.window_start)
    }
}

/// The wait of a request inside the window, [from, to): from max(submit,
/// window start) to min(start, window end); a request still pending waits to
/// the window end. None when it did not wait inside the window.
pub fn wait_in_window(r: &PendingRequest, grid: &Grid) -> Option<(i64, i64)> {
    let from = r.submit_us.max(grid.window_start);
    let to = r.start_us.unwrap_or(grid.window_end).min(grid.window_end);
    (to > from).then_some((from, to))
}

/// Fold the requests onto the timeline's buckets (§10, Demand). `observed[i]`:
/// whether bucket i of the timeline observed any GPU (the percentile is taken
/// over those buckets only, as the timeline's are). Requests asking for no GPU
/// (gpus ≤ 0 or not finite) are left out.
pub fn fold(requests: &[PendingRequest], grid: Grid, observed: &[bool]) -> Demand {
    let grid = Grid {
        bucket: grid.bucket.max(1),
        ..grid
    };
    let (first, count) = grid.span();
    let mut gpu_ticks = vec![super::Sum::default(); count];
    let mut total = super::Sum::default();
    let mut waits = Vec::new();
    let mut owners: std::collections::BTreeMap<&str, OwnerSums> = Default::default();
    for r in requests
        .iter()
        .filter(|r| r.gpus.is_finite() && r.gpus > 0.0)
    {
        let Some((from, to)) = wait_in_window(r, &grid) else {
            continue;
        };
        waits.push((to - from) as f64 / TICKS_PER_HOUR);
        total.add(r.gpus * (to - from) as f64);
        let o = owners.entry(r.owner.as_deref().unwrap_or("-")).or_default();
        o.0.add(r.gpus * (to - from) as f64);
        o.1 += 1;
        o.2 = o.2.max(to - from);
        for (k, part) in split_at_buckets(from, to - from, grid.bucket) {
            if let Some(b) = usize::try_from(k - first)
                .ok()
                .and_then(|i| gpu_ticks.get_mut(i))
            {
                b.add(r.gpus * part as f64);
            }
        }
    }
    let pending_per_bucket: Vec<f64> = gpu_ticks
        .iter()
        .enumerate()
        .map(|(i, s)| s.get() / grid.len_in_window(first, i).max(1) as f64)
        .collect();
    let in_observed: Vec<f64> = pending_per_bucket
        .iter()
        .zip(observed)
        .filter(|(_, seen)| **seen)
        .map(|(p, _)| *p)
        .collect();
    Demand {
        pending_gpus_p95: super::percentile_of(&in_observed, 95),
        pending_per_bucket,
        pending_gpu_hours: total.get() / TICKS_PER_HOUR,
        wait_hours_p50: super::percentile_of(&waits, 50),
        wait_hours_p95: super::percentile_of(&waits, 95),
        requests: waits.len(),
        owners: owner_rows(owners),
    }
}

/// [`fold`] onto a finished timeline over the window [start, end).
pub fn fold_on_timeline(
    requests: &[PendingRequest],
    timeline: &super::Timeline,
    window: (i64, i64),
) -> Demand {
    let grid = Grid {
        bucket: (timeline.bucket_seconds * TICKS_PER_SECOND as f64).round() as i64,
        window_start: window.0,
        window_end: window.1,
    };
    let observed: Vec<bool> = timeline.buckets.iter().map(|b| b.observed > 0.0).collect();
    fold(requests, grid, &observed)
}

#[cfg(test)]
mod tests {
    use super::*;
    const H: i64 = crate::audit::interval::TICKS_PER_HOUR as i64;

    fn req(gpus: f64, submit_h: f64, start_h: Option<f64>) -> PendingRequest {
        let at = |h: f64| (h * H as f64) as i64;
        PendingRequest {
            owner: (gpus > 2.0).then(|| "big".to_string()),
            gpus,
            submit_us: at(submit_h),
            start_us: start_h.map(at),
        }
    }

    fn grid(bucket_h: i64, start_h: f64, end_h: f64) -> Grid {
        Grid {
            bucket: bucket_h * H,
            window_start: (start_h * H as f64) as i64,
            window_end: (end_h * H as f64) as i64,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[test]
    fn a_wait_is_clipped_to_the_window_and_split_at_buckets() {
        // window [0.5 h, 3.5 h), 1 h buckets: [0,1) holds 0.5 h, [1,2) and
        // [2,3) 1 h, [3,4) 0.5 h. 4 GPUs submitted before the window (-2 h),
        // started at 1.5 h: 1 h inside -> bucket 0: 4·0.5/0.5 = 4, bucket 1:
        // 4·0.5/1 = 2. 2 GPUs submitted at 2.75 h, still pending: to 3.5 h
        // (0.75 h) -> bucket 2: 2·0.25/1 = 0.5, bucket 3: 2·0.5/0.5 = 2.
        let rs = [req(4.0, -2.0, Some(1.5)), req(2.0, 2.75, None)];
        let d = fold(&rs, grid(1, 0.5, 3.5), &[true, true, true, true]);
        assert_eq!(d.pending_per_bucket, vec![4.0, 2.0, 0.5, 2.0]);
        // 4 × 1 h + 2 × 0.75 h
        assert!(close(d.pending_gpu_hours, 5.5));
        // p95 of [0.5, 2, 2, 4]: rank ceil(3.8) = 4 -> 4
        assert_eq!(d.pending_gpus_p95, Some(4.0));
        // waits [1, 0.75]: p50 rank 1 -> 0.75; p95 rank 2 -> 1
        assert_eq!(d.wait_hours_p50, Some(0.75));
        assert_eq!(d.wait_hours_p95, Some(1.0));
        assert_eq!(d.requests, 2);
        // "big" (4 GPUs) waited 4 GPU-h, the unnamed 2 GPUs 1.5
        let rows: Vec<(&str, f64, usize, f64)> = d
            .owners
            .iter()
            .map(|o| {
                (
                    o.owner.as_str(),
                    o.pending_gpu_hours,
                    o.requests,
                    o.wait_hours_max,
                )
            })
            .collect();
        assert_eq!(rows, vec![("big", 4.0, 1, 1.0), ("-", 1.5, 1, 0.75)]);
    }

    #[test]
    fn requests_outside_the_window_or_without_gpus_do_not_count() {
        let rs = [
            req(8.0, -3.0, Some(-1.0)), // started before the window
            req(8.0, 5.0, None),        // submitted after it
            req(0.0, 0.0, None),        // no GPU
            req(1.0, 1.0, Some(1.0)),   // never waited
        ];
        let d = fold(&rs, grid(1, 0.0, 4.0), &[true; 4]);
        assert_eq!(d.pending_per_bucket, vec![0.0; 4]);
        assert_eq!(d.pending_gpu_hours, 0.0);
        assert_eq!(d.pending_gpus_p95, Some(0.0));
        assert_eq!((d.wait_hours_p50, d.requests), (None, 0));
    }

    #[test]
    fn the_percentile_skips_unobserved_buckets() {
        // 2 GPUs pending over the whole window [0, 4 h): every bucket 2, but a
        // third request of 6 GPUs in bucket 1 only, which observed nothing
        let rs = [req(2.0, 0.0, None), req(6.0, 1.0, Some(2.0))];
        let d = fold(&rs, grid(1, 0.0, 4.0), &[true, false, true, true]);
        assert_eq!(d.pending_per_bucket, vec![2.0, 8.0, 2.0, 2.0]);
        assert_eq!(d.pending_gpus_p95, Some(2.0));
        assert!(close(d.pending_gpu_hours, 14.0));
        let none = fold(&rs, grid(1, 0.0, 4.0), &[false; 4]);
        assert_eq!(none.pending_gpus_p95, None);
    }

    #[test]
    fn an_empty_window_has_no_buckets() {
        let d = fold(&[req(1.0, 0.0, None)], grid(1, 2.0, 2.0), &[]);
        assert!(d.pending_per_bucket.is_empty());
        assert_eq!((d.requests, d.pending_gpus_p95), (0, None));
    }
}
