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
use crate::audit::interval::{Names, TICKS_PER_HOUR};
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
        percentile_of(&values, 5).unwrap_or(0.0)
    }

    /// Whether an owner with ticks in `nonzero` of the `n` observed buckets can
    /// have a p5 above 0: p5 takes rank ceil(0.05 n), so it is 0 when at least
    /// that many are 0. (Ticks in an unobserved bucket cannot be: no weight.)
    fn may_be_spare(n: usize, nonzero: usize) -> bool {
        let rank = super::nearest_rank_of(n as u64, 5) as usize;
        n > 0 && n - nonzero.min(n) < rank
    }
}

/// A candidate owner with its spare ticks per bucket index and their dollars.
struct Candidate {
    source: ReclaimSource,
    owner: String,
    ticks: BTreeMap<i64, i64>,
    usd: f64,
}

impl Candidate {
    /// Its spare time's own price: dollars ÷ hours, when any was priced.
    fn price(&self) -> Option<f64> {
        let ticks: i64 = self.ticks.values().sum();
        (self.usd > 0.0 && ticks > 0).then(|| self.usd / (ticks as f64 / TICKS_PER_HOUR))
    }
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
    // each job's first finding, looked up once per idle job (a scan of every
    // finding per idle job was quadratic on a million jobs)
    let mut first_kind: std::collections::HashMap<&str, FindingKind> =
        std::collections::HashMap::with_capacity(findings.len());
    for f in findings {
        first_kind.entry(f.job.as_str()).or_insert(f.kind);
    }
    let source_of = |job: &str| {
        let kind = first_kind.get(job).copied();
        match kind {
            Some(FindingKind::Parked) => ReclaimSource::Parked,
            Some(FindingKind::GangMemberIdle) => ReclaimSource::GangMemberIdle,
            _ => ReclaimSource::IdleHeld,
        }
    };
    let mut out: Vec<Candidate> = jobs
        .idle_by_bucket()
        .into_iter()
        .map(|idle| {
            let owner = names.label(idle.job).to_string();
            Candidate {
                source: source_of(&owner),
                owner,
                ticks: idle.ticks,
                usd: idle.usd,
            }
        })
        .collect();
    for spare in nodes.unallocated_by_bucket() {
        let owner = names.label(spare.host).to_string();
        for (source, ticks, usd) in [
            (ReclaimSource::Stranded, spare.stranded, spare.stranded_usd),
            (ReclaimSource::Unallocated, spare.free, spare.free_usd),
        ] {
            out.push(Candidate {
                source,
                owner: owner.clone(),
                ticks,
                usd,
            });
        }
    }
    out
}

/// The reclaimable GPUs by owner: each candidate's whole p5 GPUs, largest
/// first (then source, then owner), capped so the rows sum to `reclaimable`;
/// the rest is one `scattered` row. A row is priced per month at its owner's
/// price (its spare dollars ÷ hours), else at `usd_per_gpu_hour`.
pub fn by_owner(
    jobs: &JobsFold,
    nodes: &NodesFold,
    findings: &[Finding],
    names: &dyn Names,
    grid: &BucketGrid,
    reclaimable: f64,
    usd_per_gpu_hour: Option<f64>,
) -> Vec<Reclaim> {
    let n = grid.observed.iter().filter(|o| **o).count();
    let mut owned: Vec<(f64, Candidate)> = candidates(jobs, nodes, findings, names)
        .into_iter()
        .filter(|c| BucketGrid::may_be_spare(n, c.ticks.len()))
        .map(|c| (whole(grid.p5(&c.ticks)), c))
        .filter(|(g, _)| *g >= 1.0)
        .collect();
    owned.sort_by(|(ga, a), (gb, b)| {
        gb.total_cmp(ga)
            .then(a.source.cmp(&b.source))
            .then_with(|| a.owner.cmp(&b.owner))
    });
    let month = |gpus: f64, price: Option<f64>| price.map(|p| gpus * p * HOURS_PER_MONTH);
    let mut left = reclaimable;
    let mut rows = Vec::new();
    for (gpus, c) in owned {
        let take = gpus.min(left);
        if take < 1.0 {
            break;
        }
        left -= take;
        let usd = month(take, c.price().or(usd_per_gpu_hour));
        rows.push(Reclaim {
            source: c.source,
            owner: c.owner,
            gpus: take,
            usd,
        });
    }
    if left >= 1.0 {
        rows.push(Reclaim {
            source: ReclaimSource::Scattered,
            owner: String::new(),
            gpus: left,
            usd: month(left, usd_per_gpu_hour),
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
        assert!(BucketGrid::may_be_spare(20, 20));
        assert!(!BucketGrid::may_be_spare(20, 19));
        // 40 buckets: rank 2, so one empty bucket still leaves a p5
        assert!(BucketGrid::may_be_spare(40, 39));
        assert!(!BucketGrid::may_be_spare(40, 38));
        assert!(!BucketGrid::may_be_spare(0, 0));
        // a cut last bucket: 5 ticks inside the window, 5 ticks of weight is 1 GPU
        let cut = BucketGrid {
            window_end: 195,
            ..grid(20)
        };
        let ticks: BTreeMap<i64, i64> =
            (0..20).map(|k| (k, if k == 19 { 5 } else { 10 })).collect();
        assert_eq!(cut.p5(&ticks), 1.0);
    }

    /// 20 hourly buckets. Host l0: GPUs 0-2 held idle by job l1 throughout,
    /// GPU 3 free (stranded). Host l2: GPU 4 free (free-node). Host l4: GPU 5
    /// held idle by job l3 for 19 of 20 hours (its p5, the minimum, is 0).
    fn folds() -> (JobsFold, NodesFold, BucketGrid) {
        use super::super::testkit::{H, free, held};
        let mut jobs = JobsFold::new(H, 0, 20 * H, Default::default());
        let mut nodes = NodesFold::new(H, 0, 20 * H);
        let with_job = |mut iv: crate::audit::interval::Interval, job| {
            iv.job = Some(job);
            iv
        };
        let mut ivs = vec![free(3, 0, 0, 20 * H), free(4, 2, 0, 20 * H)];
        // job l1's cards cost $4/GPU-h: its row is priced at them, not at the mean
        ivs.extend((0..3).map(|g| {
            let mut iv = with_job(held(g, 0, 0, 20 * H, Some(0.0)), 1);
            iv.price = Some(4.0);
            iv
        }));
        ivs.push(with_job(held(5, 4, 0, 19 * H, Some(0.0)), 3));
        for iv in &ivs {
            crate::audit::interval::Fold::add(&mut jobs, iv);
            crate::audit::interval::Fold::add(&mut nodes, iv);
        }
        let grid = BucketGrid {
            bucket: H,
            window_start: 0,
            window_end: 20 * H,
            first: 0,
            observed: vec![true; 20],
        };
        (jobs, nodes, grid)
    }

    fn rows(
        reclaimable: f64,
        findings: &[Finding],
    ) -> Vec<(ReclaimSource, String, f64, Option<f64>)> {
        let (jobs, nodes, grid) = folds();
        let names = super::super::testkit::TestNames;
        by_owner(
            &jobs,
            &nodes,
            findings,
            &names,
            &grid,
            reclaimable,
            Some(2.0),
        )
        .into_iter()
        .map(|r| (r.source, r.owner, r.gpus, r.usd))
        .collect()
    }

    #[test]
    fn owners_take_whole_p5_gpus_largest_first_capped_at_the_fleet() {
        use ReclaimSource::*;
        let month = |g: f64| Some(g * 2.0 * HOURS_PER_MONTH);
        // the fleet's spare: 6 in 19 buckets, 5 in one → p5 (rank 1) = 5
        assert_eq!(
            rows(5.0, &[]),
            vec![
                (
                    IdleHeld,
                    "l1".to_string(),
                    3.0,
                    Some(3.0 * 4.0 * HOURS_PER_MONTH)
                ),
                (Stranded, "l0".to_string(), 1.0, month(1.0)),
                (Unallocated, "l2".to_string(), 1.0, month(1.0)),
            ]
        );
        // capped: the last owner does not fit
        let parked = Finding {
            kind: FindingKind::Parked,
            job: "l1".to_string(),
            ..Finding::default()
        };
        assert_eq!(
            rows(4.0, &[parked]),
            vec![
                (
                    Parked,
                    "l1".to_string(),
                    3.0,
                    Some(3.0 * 4.0 * HOURS_PER_MONTH)
                ),
                (Stranded, "l0".to_string(), 1.0, month(1.0)),
            ]
        );
        // more spare than the owners account for: the rest is scattered
        let all = rows(7.0, &[]);
        assert_eq!(all.len(), 4);
        assert_eq!(all[3], (Scattered, String::new(), 2.0, month(2.0)));
        assert!(rows(0.0, &[]).is_empty());
    }

    #[test]
    fn whole_gpus_floor_with_slack() {
        assert_eq!(whole(7.999_999_999_9), 8.0);
        assert_eq!(whole(7.9), 7.0);
        assert_eq!(whole(-0.5), 0.0);
    }
}
