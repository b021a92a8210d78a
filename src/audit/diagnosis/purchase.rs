//! The purchase question (§11): do we need more GPUs? Percentiles of held and
//! spare GPUs over the observed buckets of the timeline, the output the held
//! GPUs gave, and a verdict by the first rule that holds.
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    #[default]
    InsufficientData,
    ReclaimFirst,
    Saturated,
}

/// The `purchase` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Purchase {
    /// distinct GPUs observed in the window
    pub owned: usize,
    /// nearest-rank percentiles of held GPUs over observed buckets
    pub held_p50: Option<f64>,
    pub held_p95: Option<f64>,
    pub held_max: Option<f64>,
    /// p5 of spare GPUs: in 95% of the buckets at least this many did nothing;
    /// null when device activity (so idle) is not measured
    pub spare_p5: Option<f64>,
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
    /// saturated with `--want`: N − spare_p5, the GPUs idle capacity does not cover
    pub uncovered_gpus: Option<f64>,
    /// buckets with observed > 0 that the percentiles are over
    pub observed_buckets: usize,
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

/// §11 from the timeline. `deepest_layer` is (basis, GPU-hours) of the
/// deepest measured layer (useful > tensor_active > sm_active > active), None
/// when no layer is measured.
pub fn purchase(
    timeline: &Timeline,
    owned: usize,
    deepest_layer: Option<(&str, f64)>,
    window_hours: f64,
    want: Option<u32>,
) -> Purchase {
    let observed: Vec<_> = timeline
        .buckets
        .iter()
        .filter(|b| b.observed > 0.0)
        .collect();
    let held: Vec<f64> = observed.iter().map(|b| b.held).collect();
    // spare is known in every bucket or in none (it needs device activity)
    let spare: Option<Vec<f64>> = observed.iter().map(|b| b.spare).collect();
    let spare_p5 = spare.and_then(|s| percentile_of(&s, 5.0));
    let (verdict, rule, uncovered_gpus) =
        decide(observed.len(), window_hours, owned, spare_p5, want);
    Purchase {
        owned,
        held_p50: percentile_of(&held, 50.0),
        held_p95: percentile_of(&held, 95.0),
        held_max: percentile_of(&held, 100.0),
        spare_p5,
        output_equivalent_gpus: deepest_layer
            .filter(|_| window_hours > 0.0)
            .map(|(_, h)| h / window_hours),
        output_basis: deepest_layer.map(|(basis, _)| basis.to_string()),
        want,
        verdict,
        rule,
        uncovered_gpus,
        observed_buckets: observed.len(),
        caveat: NO_QUEUE_CAVEAT.to_string(),
    }
}

/// The first rule of §11 that holds: (verdict, the rule in words, uncovered GPUs).
fn decide(
    observed_buckets: usize,
    window_hours: f64,
    owned: usize,
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
                Verdict::Saturated,
                PurchaseRule::WantUncovered {
                    spare_p5: spare,
                    want: n,
                    uncovered,
                },
                Some(uncovered),
            )
        }
        None => {
            let floor = RECLAIM_SHARE * owned as f64;
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
                    Verdict::Saturated,
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
        let p = purchase(
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
        let p = purchase(&timeline(23, |_| 50.0), 100, None, 48.0, Some(1));
        assert_eq!(p.verdict, Verdict::InsufficientData);
        let rule = crate::render::diagnosis::purchase::rule_text(&p.rule);
        assert!(rule.contains("23 observed buckets"), "{rule}");
        let p = purchase(&timeline(30, |_| 50.0), 100, None, 23.9, Some(1));
        assert_eq!(p.verdict, Verdict::InsufficientData);
        assert_eq!(p.output_equivalent_gpus, None);
        let empty = purchase(&Timeline::default(), 0, None, 0.0, None);
        assert_eq!(empty.verdict, Verdict::InsufficientData);
        assert_eq!(empty.held_max, None);
    }

    #[test]
    fn want_within_spare_is_reclaim_first_and_beyond_is_saturated() {
        // spare 20 in every bucket
        let t = timeline(24, |_| 20.0);
        let p = purchase(&t, 100, None, 24.0, Some(20));
        assert_eq!(p.verdict, Verdict::ReclaimFirst);
        assert_eq!(p.uncovered_gpus, None);
        let p = purchase(&t, 100, None, 24.0, Some(64));
        assert_eq!(p.verdict, Verdict::Saturated);
        assert_eq!(p.uncovered_gpus, Some(44.0));
        let rule = crate::render::diagnosis::purchase::rule_text(&p.rule);
        assert!(rule.contains("44 GPUs are not covered"), "{rule}");
    }

    #[test]
    fn without_want_ten_percent_of_owned_decides() {
        let t = timeline(24, |_| 10.0);
        assert_eq!(
            purchase(&t, 100, None, 24.0, None).verdict,
            Verdict::ReclaimFirst
        );
        assert_eq!(
            purchase(&t, 101, None, 24.0, None).verdict,
            Verdict::Saturated
        );
    }

    #[test]
    fn unmeasured_idle_is_insufficient_not_saturated() {
        let mut t = timeline(30, |_| 0.0);
        t.buckets.iter_mut().for_each(|b| b.spare = None);
        let p = purchase(&t, 100, None, 30.0, None);
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
