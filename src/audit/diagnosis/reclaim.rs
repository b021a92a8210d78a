//! The purchase plan's owners (docs/semantics.md §10, Purchase): which job or
//! node leaves the reclaimable GPUs spare. Each candidate owner's spare GPUs
//! per observed bucket get the same p5 as the fleet's; whole GPUs of the
//! largest owners first, capped at the fleet's reclaimable GPUs, and what no
//! single owner accounts for in 95% of the buckets is `scattered`.
use super::findings::{Finding, FindingKind};
use super::jobs::JobsFold;
use super::nodes::NodesFold;
use super::percentile_of;
use super::purchase::{Reclaim, ReclaimSource};
use crate::audit::interval::Names;
use std::collections::BTreeMap;

/// Hours in the month the plan prices by (365.25 × 24 ÷ 12).
pub const HOURS_PER_MONTH: f64 = 730.5;

/// Slack so a p5 of 7.999999999 GPUs (float sums of ticks) is 8 whole GPUs.
const WHOLE_SLACK: f64 = 1e-9;

/// Whole GPUs in `gpus` (floor, with float slack).
pub fn whole(gpus: f64) -> f64 {
    (gpus + WHOLE_SLACK).floor().max(0.0)
}

/// The timeline's buckets: which are observed, and each one's length inside the window.
#[derive(Debug, Clone, Default)]
pub struct BucketGrid {
    /// bucket length, ticks
    pub bucket: i64,
    pub window_start: i64,
    pub window_end: i64,
    /// index k of the timeline's first bucket
    pub first: i64,
    /// per timeline bucket: observed > 0
    pub observed: Vec<bool>,
}

impl BucketGrid {
    /// Ticks of bucket k inside the window.
    fn len(&self, k: i64) -> i64 {
        let start = k * self.bucket;
        (start + self.bucket).min(self.window_end) - start.max(self.window_start)
    }

    /// p5 (nearest rank) over the observed buckets of ticks ÷ bucket length;
    /// a bucket the owner has no ticks in counts 0.
    fn p5(&self, ticks: &BTreeMap<i64, i64>) -> f64 {
        let values: Vec<f64> = (self.first..)
            .zip(&self.observed)
            .filter(|(_, seen)| **seen)
            .map(|(k, _)| {
                let t = ticks.get(&k).copied().unwrap_or(0);
                t as f64 / self.len(k).max(1) as f64
            })
            .collect();
        percentile_of(&values, 5.0).unwrap_or(0.0)
    }

    /// Whether an owner with ticks in `nonzero` buckets can have a p5 above 0:
    /// p5 takes rank ceil(0.05 n), so it is 0 when at least that many are 0.
    fn may_be_spare(&self, nonzero: usize) -> bool {
        let n = self.observed.iter().filter(|o| **o).count();
        let rank = ((5 * n).div_ceil(100)).max(1);
        n > 0 && n - nonzero.min(n) < rank
    }
}

/// A candidate owner with its spare ticks per bucket index.
struct Candidate {
    source: ReclaimSource,
    owner: String,
    ticks: BTreeMap<i64, i64>,
}

/// Every job with idle held time (named by its finding, if any) and every
/// host with unallocated cards (stranded where the node was held in that
/// bucket, free-node otherwise), as candidates.
fn candidates(
    jobs: &JobsFold,
    nodes: &NodesFold,
    findings: &[Finding],
    names: &dyn Names,
) -> Vec<Candidate> {
    let source_of = |job: &str| {
        let kind = findings.iter().find(|f| f.job == job).map(|f| f.kind);
        match kind {
            Some(FindingKind::Parked) => ReclaimSource::Parked,
            Some(FindingKind::GangMemberIdle) => ReclaimSource::GangMemberIdle,
            _ => ReclaimSource::IdleHeld,
        }
    };
    let mut out: Vec<Candidate> = jobs
        .idle_by_bucket()
        .into_iter()
        .map(|(id, ticks)| {
            let owner = names.label(id).to_string();
            Candidate {
                source: source_of(&owner),
                owner,
                ticks,
            }
        })
        .collect();
    for (host, per) in nodes.unallocated_by_bucket() {
        let owner = names.label(host).to_string();
        let stranded = per.iter().filter(|p| p.1 > 0).map(|p| (p.0, p.1)).collect();
        let free = per.iter().filter(|p| p.2 > 0).map(|p| (p.0, p.2)).collect();
        for (source, ticks) in [
            (ReclaimSource::Stranded, stranded),
            (ReclaimSource::Unallocated, free),
        ] {
            out.push(Candidate {
                source,
                owner: owner.clone(),
                ticks,
            });
        }
    }
    out
}

/// The reclaimable GPUs by owner: each candidate's whole p5 GPUs, largest
/// first (then source, then owner), capped so the rows sum to `reclaimable`;
/// the rest is one `scattered` row. `usd_per_gpu_hour` prices a row per month.
pub fn by_owner(
    jobs: &JobsFold,
    nodes: &NodesFold,
    findings: &[Finding],
    names: &dyn Names,
    grid: &BucketGrid,
    reclaimable: f64,
    usd_per_gpu_hour: Option<f64>,
) -> Vec<Reclaim> {
    let mut owned: Vec<(f64, Candidate)> = candidates(jobs, nodes, findings, names)
        .into_iter()
        .filter(|c| grid.may_be_spare(c.ticks.len()))
        .map(|c| (whole(grid.p5(&c.ticks)), c))
        .filter(|(g, _)| *g >= 1.0)
        .collect();
    owned.sort_by(|(ga, a), (gb, b)| {
        gb.total_cmp(ga)
            .then(a.source.cmp(&b.source))
            .then_with(|| a.owner.cmp(&b.owner))
    });
    let price = |gpus: f64| usd_per_gpu_hour.map(|p| gpus * p * HOURS_PER_MONTH);
    let mut left = reclaimable;
    let mut rows = Vec::new();
    for (gpus, c) in owned {
        let take = gpus.min(left);
        if take < 1.0 {
            break;
        }
        left -= take;
        rows.push(Reclaim {
            source: c.source,
            owner: c.owner,
            gpus: take,
            usd: price(take),
        });
    }
    if left >= 1.0 {
        rows.push(Reclaim {
            source: ReclaimSource::Scattered,
            owner: String::new(),
            gpus: left,
            usd: price(left),
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: usize) -> BucketGrid {
        BucketGrid {
            bucket: 10,
            window_start: 0,
            window_end: 10 * n as i64,
            first: 0,
            observed: vec![true; n],
        }
    }

    #[test]
    fn p5_counts_missing_buckets_as_zero_and_divides_by_length() {
        // 20 buckets of 10 ticks: p5 is rank 1, the smallest
        let g = grid(20);
        let full: BTreeMap<i64, i64> = (0..20).map(|k| (k, 20)).collect();
        assert_eq!(g.p5(&full), 2.0);
        let mut one_short = full.clone();
        one_short.remove(&3);
        assert_eq!(g.p5(&one_short), 0.0);
        assert!(g.may_be_spare(20));
        assert!(!g.may_be_spare(19));
        // 40 buckets: rank 2, so one empty bucket still leaves a p5
        let g = grid(40);
        assert!(g.may_be_spare(39));
        assert!(!g.may_be_spare(38));
        // a cut last bucket: 5 ticks inside the window, 5 ticks of weight is 1 GPU
        let cut = BucketGrid {
            window_end: 195,
            ..grid(20)
        };
        let ticks: BTreeMap<i64, i64> =
            (0..20).map(|k| (k, if k == 19 { 5 } else { 10 })).collect();
        assert_eq!(cut.p5(&ticks), 1.0);
    }

    #[test]
    fn whole_gpus_floor_with_slack() {
        assert_eq!(whole(7.999_999_999_9), 8.0);
        assert_eq!(whole(7.9), 7.0);
        assert_eq!(whole(-0.5), 0.0);
    }
}
