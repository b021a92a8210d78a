//! The purchase question (§11): do we need more GPUs? Percentiles of held and
//! spare GPUs over the observed buckets of the timeline, the output the held
//! GPUs gave, and a verdict by the first rule that holds.
use super::demand::Demand;
use super::percentile_of;
use super::timeline::Timeline;
use serde::{Deserialize, Serialize};

/// Fewer observed buckets, or a shorter window in hours, decides nothing.
pub const MIN_OBSERVED_BUCKETS: usize = 24;
pub const MIN_WINDOW_HOURS: f64 = 24.0;
/// Without `--want`, spare capacity of this share of the fleet says reclaim first.
pub const RECLAIM_SHARE: f64 = 0.10;

/// Always printed with the verdict: no queue signal is read today.
pub const NO_QUEUE_CAVEAT: &str =
    "no scheduler queue data: demand that never got a GPU is not visible here";

/// The verdict of §11, graded: how much of the need reclaiming covers, and
/// what to do about the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    #[default]
    InsufficientData,
    /// under 50% of the fleet's GPU-hours observed, or under 50% of the
    /// observed time with held known
    InsufficientCoverage,
    /// reclaiming spare GPUs covers the whole need
    ReclaimFirst,
    /// reclaiming covers part; `uncovered_gpus` remain
    ReclaimThenBuy,
    /// no spare, but SM activity says the same work fits on `optimize_to_gpus` cards
    OptimizeFirst,
    /// no spare, efficient, and demand is waiting
    Buy,
    /// the binary verdict of reports before the graded plan; kept only so an
    /// old document still reads back (never produced)
    Saturated,
}

/// Where reclaimable GPUs come from (the findings, the node view, the timeline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReclaimSource {
    /// a job that held GPUs and did nothing for long (findings: parked)
    Parked,
    /// idle members of a gang job (findings: gang_member_idle)
    GangMemberIdle,
    /// other idle held GPU time, by the job or user that held it
    #[default]
    IdleHeld,
    /// free GPUs on a node where others were held (node view)
    Stranded,
    /// GPUs nobody held
    Unallocated,
}

/// One owner's share of the reclaimable GPUs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reclaim {
    pub source: ReclaimSource,
    /// job, user or node named by the source; "unattributed" where none is
    pub owner: String,
    /// whole GPUs; the rows sum to `reclaimable_gpus`
    pub gpus: f64,
    /// these GPUs' cost per month (730 h) at the fleet's mean $/GPU-h; null when unpriced
    pub usd: Option<f64>,
}

/// Why a verdict decided on a window shorter than a decision needs
/// (`--min-window` let it through).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Provisional {
    pub window_hours: f64,
    pub observed_buckets: usize,
    /// `--min-window`, in hours
    pub min_window_hours: f64,
}

/// `--own-cost`: what an owned GPU costs per hour, amortized.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OwnCostFigures {
    pub capex_usd: f64,
    pub years: f64,
    pub overhead: f64,
    pub power_usd_per_kwh: Option<f64>,
    /// mean measured power of a held GPU, W; null when `power_w` is not measured
    pub power_w: Option<f64>,
    /// capex ÷ (years × 8,766 h) × (1 + overhead)
    pub capex_usd_per_gpu_hour: f64,
    /// power_w ÷ 1000 × power_usd_per_kwh; null without either
    pub power_usd_per_gpu_hour: Option<f64>,
    /// the two together: the amortized $/GPU-h
    pub usd_per_gpu_hour: f64,
}

/// "Buy N", priced in the cloud profile and as owned cards.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BuyPrice {
    pub gpus: f64,
    /// gpus × the fleet's mean cloud $/GPU-h × 730; null when unpriced
    pub cloud_usd_per_month: Option<f64>,
    /// gpus × own $/GPU-h × 730; null without `--own-cost`
    pub own_usd_per_month: Option<f64>,
    /// gpus × capex; null without `--own-cost`
    pub own_capex_usd: Option<f64>,
}

/// The `purchase` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Purchase {
    /// nearest-rank p95 of GPUs observed per observed bucket (§11); null
    /// without an observed bucket
    pub owned: Option<f64>,
    /// distinct GPUs with any sample in the window
    pub gpus_seen: usize,
    /// nearest-rank percentiles of held GPUs over observed buckets
    pub held_p50: Option<f64>,
    pub held_p95: Option<f64>,
    pub held_max: Option<f64>,
    /// p5 of spare GPUs: in 95% of the buckets at least this many did nothing;
    /// null when device activity (so idle) is not measured
    pub spare_p5: Option<f64>,
    /// device-active GPUs (Σ w·device_util ÷ bucket length) at p95 and at the
    /// peak over observed buckets: the work, in GPUs
    pub busy_equivalent_gpus_p95: Option<f64>,
    pub busy_equivalent_gpus_peak: Option<f64>,
    /// the same on SM and tensor activity: efficiency lines, never the need
    pub sm_equivalent_gpus_p95: Option<f64>,
    pub sm_equivalent_gpus_peak: Option<f64>,
    pub tensor_equivalent_gpus_p95: Option<f64>,
    pub tensor_equivalent_gpus_peak: Option<f64>,
    /// GPU-hours of the deepest known layer ÷ window hours
    pub output_equivalent_gpus: Option<f64>,
    /// useful, tensor_active, sm_active or active
    pub output_basis: Option<String>,
    /// `--want N`: GPUs asked for
    pub want: Option<u32>,
    pub verdict: Verdict,
    /// the rule that decided, with its numbers; written as its text
    /// (render/diagnosis/purchase.rs), read back from a document as `Text`
    pub rule: PurchaseRule,
    /// whole GPUs spare in 95% of the buckets: floor(spare_p5)
    pub reclaimable_gpus: Option<f64>,
    /// the reclaimable GPUs by owner, largest first
    pub reclaim: Vec<Reclaim>,
    /// with `--want`: min(want, reclaimable_gpus)
    pub covered_by_reclaim: Option<f64>,
    /// with `--want`: want − covered_by_reclaim, when above 0
    pub uncovered_gpus: Option<f64>,
    /// optimize_first: the cards the work needs on the SM basis
    pub optimize_to_gpus: Option<f64>,
    /// observed GPU-hours ÷ (gpus_seen × window hours)
    pub coverage: Option<f64>,
    /// observed GPU-hours with held known (held or unallocated) ÷ observed GPU-hours
    pub held_known_share: Option<f64>,
    pub observed_gpu_hours: f64,
    /// gpus_seen × window hours − observed GPU-hours
    pub unobserved_gpu_hours: f64,
    /// set when `--min-window` let a window shorter than 24 h decide
    pub provisional: Option<Provisional>,
    /// `--own-cost`
    pub own_cost: Option<OwnCostFigures>,
    /// the uncovered GPUs (or `want` for buy), priced both ways
    pub buy: Option<BuyPrice>,
    /// demand (`--queue`): null without queue data
    pub pending_gpu_hours: Option<f64>,
    pub pending_gpus_p95: Option<f64>,
    pub wait_hours_p50: Option<f64>,
    pub wait_hours_p95: Option<f64>,
    /// nearest-rank p95 over observed buckets of held + pending GPUs
    pub demand_p95: Option<f64>,
    /// spare GPUs in 95% of buckets while requests waited: a scheduling or
    /// fragmentation problem, not a shortage
    pub spare_with_queue: bool,
    /// buckets with observed > 0 that the percentiles are over
    pub observed_buckets: usize,
    /// the no-queue-data caveat; empty when a queue was read
    pub caveat: String,
}

/// Which rule of §11 decided the verdict, with the numbers it compared.
#[derive(Debug, Clone, PartialEq)]
pub enum PurchaseRule {
    /// fewer observed buckets or a shorter window than a decision needs
    TooShort {
        observed_buckets: usize,
        window_hours: f64,
    },
    /// no device activity: idle held GPUs cannot be counted as spare
    ActivityUnmeasured,
    /// spare_p5 >= want
    WantFits {
        spare_p5: f64,
        want: u32,
    },
    /// spare_p5 < want: `uncovered` GPUs are not covered
    WantUncovered {
        spare_p5: f64,
        want: u32,
        uncovered: f64,
    },
    /// no --want: spare_p5 against RECLAIM_SHARE of the owned GPUs
    ShareSpare {
        spare_p5: f64,
        floor: f64,
    },
    ShareShort {
        spare_p5: f64,
        floor: f64,
    },
    /// a rule read back from a document (its text)
    Text(String),
}

impl Default for PurchaseRule {
    fn default() -> Self {
        PurchaseRule::Text(String::new())
    }
}

impl<'de> Deserialize<'de> for PurchaseRule {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(PurchaseRule::Text)
    }
}

/// What the purchase answer needs beyond the timeline.
#[derive(Debug, Clone, Copy, Default)]
pub struct PurchaseInputs<'a> {
    /// distinct GPUs with any sample in the window
    pub gpus_seen: usize,
    /// (basis, GPU-hours) of the deepest measured layer, see [`deepest_layer`]
    pub deepest_layer: Option<(&'a str, f64)>,
    pub window_hours: f64,
    /// `--want N`
    pub want: Option<u32>,
    /// `--min-window`, hours (MIN_WINDOW_HOURS by default)
    pub min_window_hours: f64,
    pub observed_gpu_hours: f64,
    /// held + unallocated GPU-hours: observed time whose held state is known
    pub held_known_gpu_hours: f64,
}

/// §11 from the timeline. `demand`: the queue's pending GPUs (`--queue`),
/// None when no queue was read.
pub fn purchase(timeline: &Timeline, inputs: &PurchaseInputs, demand: Option<&Demand>) -> Purchase {
    let window_hours = inputs.window_hours;
    let deepest_layer = inputs.deepest_layer;
    let observed: Vec<_> = timeline
        .buckets
        .iter()
        .filter(|b| b.observed > 0.0)
        .collect();
    let held: Vec<f64> = observed.iter().map(|b| b.held).collect();
    let owned_per_bucket: Vec<f64> = observed.iter().map(|b| b.observed).collect();
    let owned = percentile_of(&owned_per_bucket, 95.0);
    // spare is known in every bucket or in none (it needs device activity)
    let spare: Option<Vec<f64>> = observed.iter().map(|b| b.spare).collect();
    let spare_p5 = spare.and_then(|s| percentile_of(&s, 5.0));
    let (verdict, rule, uncovered_gpus) = decide(
        observed.len(),
        window_hours,
        owned.unwrap_or(0.0),
        spare_p5,
        inputs.want,
    );
    let _ = demand;
    Purchase {
        owned,
        gpus_seen: inputs.gpus_seen,
        held_p50: percentile_of(&held, 50.0),
        held_p95: percentile_of(&held, 95.0),
        held_max: percentile_of(&held, 100.0),
        spare_p5,
        output_equivalent_gpus: deepest_layer
            .filter(|_| window_hours > 0.0)
            .map(|(_, h)| h / window_hours),
        output_basis: deepest_layer.map(|(basis, _)| basis.to_string()),
        want: inputs.want,
        verdict,
        rule,
        uncovered_gpus,
        observed_buckets: observed.len(),
        caveat: NO_QUEUE_CAVEAT.to_string(),
        ..Purchase::default()
    }
}

/// The first rule of §11 that holds: (verdict, the rule in words, uncovered GPUs).
fn decide(
    observed_buckets: usize,
    window_hours: f64,
    owned: f64,
    spare_p5: Option<f64>,
    want: Option<u32>,
) -> (Verdict, PurchaseRule, Option<f64>) {
    if observed_buckets < MIN_OBSERVED_BUCKETS || window_hours < MIN_WINDOW_HOURS {
        return (
            Verdict::InsufficientData,
            PurchaseRule::TooShort {
                observed_buckets,
                window_hours,
            },
            None,
        );
    }
    let Some(spare) = spare_p5 else {
        // our choice: without device activity idle GPUs cannot be told apart
        return (
            Verdict::InsufficientData,
            PurchaseRule::ActivityUnmeasured,
            None,
        );
    };
    match want {
        Some(n) if spare >= f64::from(n) => (
            Verdict::ReclaimFirst,
            PurchaseRule::WantFits {
                spare_p5: spare,
                want: n,
            },
            None,
        ),
        Some(n) => {
            let uncovered = f64::from(n) - spare;
            (
                Verdict::ReclaimThenBuy,
                PurchaseRule::WantUncovered {
                    spare_p5: spare,
                    want: n,
                    uncovered,
                },
                Some(uncovered),
            )
        }
        None => {
            let floor = RECLAIM_SHARE * owned;
            if spare >= floor {
                (
                    Verdict::ReclaimFirst,
                    PurchaseRule::ShareSpare {
                        spare_p5: spare,
                        floor,
                    },
                    None,
                )
            } else {
                (
                    Verdict::Buy,
                    PurchaseRule::ShareShort {
                        spare_p5: spare,
                        floor,
                    },
                    None,
                )
            }
        }
    }
}

/// The deepest measured layer (§11: useful > tensor_active > sm_active >
/// active) as (basis named in the paragraph, GPU-hours); None when no layer is measured.
pub fn deepest_layer(layers: &crate::audit::model::Layers) -> Option<(&'static str, f64)> {
    [
        ("useful", layers.useful_gpu_hours),
        ("tensor-active", layers.tensor_active_gpu_hours),
        ("SM-active", layers.sm_active_gpu_hours),
        ("device-active", layers.active_gpu_hours),
    ]
    .into_iter()
    .find_map(|(basis, h)| h.map(|h| (basis, h)))
}

#[cfg(test)]
mod tests {
    use super::super::timeline::TimelineBucket;
    use super::*;

    /// purchase() with the old positional inputs
    fn run(
        t: &Timeline,
        gpus_seen: usize,
        deepest_layer: Option<(&str, f64)>,
        window_hours: f64,
        want: Option<u32>,
    ) -> Purchase {
        let inputs = PurchaseInputs {
            gpus_seen,
            deepest_layer,
            window_hours,
            want,
            min_window_hours: MIN_WINDOW_HOURS,
            ..PurchaseInputs::default()
        };
        purchase(t, &inputs, None)
    }

    /// `n` observed hourly buckets with held = 10 + i and spare = spare(i),
    /// plus one unobserved bucket that must not count.
    fn timeline(n: usize, spare: impl Fn(usize) -> f64) -> Timeline {
        let mut buckets: Vec<TimelineBucket> = (0..n)
            .map(|i| TimelineBucket {
                observed: 100.0,
                held: 10.0 + i as f64,
                spare: Some(spare(i)),
                ..TimelineBucket::default()
            })
            .collect();
        buckets.push(TimelineBucket::default());
        Timeline {
            bucket_seconds: 3600.0,
            unobserved_buckets: 1,
            buckets,
        }
    }

    #[test]
    fn percentiles_are_over_observed_buckets_by_nearest_rank() {
        // 40 buckets: held 10..49; spare i → p5 at rank 2 → 1
        let p = run(
            &timeline(40, |i| i as f64),
            100,
            Some(("tensor_active", 480.0)),
            48.0,
            None,
        );
        assert_eq!(p.observed_buckets, 40);
        assert_eq!(p.held_p50, Some(29.0));
        assert_eq!(p.held_p95, Some(47.0));
        assert_eq!(p.held_max, Some(49.0));
        assert_eq!(p.spare_p5, Some(1.0));
        assert_eq!(p.output_equivalent_gpus, Some(10.0));
        assert_eq!(p.output_basis.as_deref(), Some("tensor_active"));
        assert_eq!(p.caveat, NO_QUEUE_CAVEAT);
    }

    #[test]
    fn too_few_buckets_or_too_short_a_window_is_insufficient() {
        let p = run(&timeline(23, |_| 50.0), 100, None, 48.0, Some(1));
        assert_eq!(p.verdict, Verdict::InsufficientData);
        let rule = crate::render::diagnosis::purchase::rule_text(&p.rule);
        assert!(rule.contains("23 observed buckets"), "{rule}");
        let p = run(&timeline(30, |_| 50.0), 100, None, 23.9, Some(1));
        assert_eq!(p.verdict, Verdict::InsufficientData);
        assert_eq!(p.output_equivalent_gpus, None);
        let empty = run(&Timeline::default(), 0, None, 0.0, None);
        assert_eq!(empty.verdict, Verdict::InsufficientData);
        assert_eq!(empty.held_max, None);
    }

    #[test]
    fn want_within_spare_is_reclaim_first_and_beyond_is_saturated() {
        // spare 20 in every bucket
        let t = timeline(24, |_| 20.0);
        let p = run(&t, 100, None, 24.0, Some(20));
        assert_eq!(p.verdict, Verdict::ReclaimFirst);
        assert_eq!(p.uncovered_gpus, None);
        let p = run(&t, 100, None, 24.0, Some(64));
        assert_eq!(p.verdict, Verdict::Saturated);
        assert_eq!(p.uncovered_gpus, Some(44.0));
        let rule = crate::render::diagnosis::purchase::rule_text(&p.rule);
        assert!(rule.contains("44 GPUs are not covered"), "{rule}");
    }

    #[test]
    fn without_want_ten_percent_of_owned_decides() {
        let t = timeline(24, |_| 10.0);
        assert_eq!(
            run(&t, 100, None, 24.0, None).verdict,
            Verdict::ReclaimFirst
        );
        assert_eq!(run(&t, 101, None, 24.0, None).verdict, Verdict::Saturated);
    }

    #[test]
    fn unmeasured_idle_is_insufficient_not_saturated() {
        let mut t = timeline(30, |_| 0.0);
        t.buckets.iter_mut().for_each(|b| b.spare = None);
        let p = run(&t, 100, None, 30.0, None);
        assert_eq!(p.spare_p5, None);
        assert_eq!(p.verdict, Verdict::InsufficientData);
    }

    #[test]
    fn verdicts_serialize_snake_case() {
        let text = serde_json::to_string(&Verdict::ReclaimFirst).unwrap_or_default();
        assert_eq!(text, "\"reclaim_first\"");
        let back: Purchase =
            serde_json::from_str("{\"verdict\":\"saturated\"}").unwrap_or_default();
        assert_eq!(back.verdict, Verdict::Saturated);
    }
}
