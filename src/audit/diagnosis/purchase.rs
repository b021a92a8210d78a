//! The purchase question (§11): do we need more GPUs? Percentiles of held and
//! spare GPUs over the observed buckets of the timeline, the output the held
//! GPUs gave, and a verdict by the first rule that holds.
use super::demand::Demand;
use super::percentile_of;
use super::reclaim::{HOURS_PER_MONTH, whole};
use super::timeline::{Timeline, TimelineBucket};
use serde::{Deserialize, Serialize};

/// Fewer observed buckets, or a shorter window in hours, decides nothing.
pub const MIN_OBSERVED_BUCKETS: usize = 24;
pub const MIN_WINDOW_HOURS: f64 = 24.0;
/// The purchase question's settings (a part of `AuditConfig`).
#[derive(Debug, Clone, PartialEq)]
pub struct PurchaseSettings {
    /// `--want`: GPUs asked for
    pub want: Option<u32>,
    /// requests read from `--queue` files (None: no queue given, demand unknown)
    pub queue: Option<super::demand::Queue>,
    /// `--min-window`: the shortest window (hours) a verdict decides on
    pub min_window_hours: f64,
    /// `--own-cost`: the amortized price of an owned GPU
    pub own_cost: Option<crate::catalog::own_cost::OwnCost>,
}

impl Default for PurchaseSettings {
    fn default() -> Self {
        PurchaseSettings {
            want: None,
            queue: None,
            min_window_hours: MIN_WINDOW_HOURS,
            own_cost: None,
        }
    }
}

/// Without `--want`, spare capacity of this share of the fleet says reclaim first.
pub const RECLAIM_SHARE: f64 = 0.10;

/// What the purchase answer cannot see, as data; its words (and the JSON's
/// `caveat` text) are in `render/diagnosis/purchase.rs`. A document read
/// back keeps its text (`Text`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum PurchaseCaveat {
    /// a queue was read: nothing to say (the JSON's empty text)
    #[default]
    None,
    /// no `--queue`: demand that never got a GPU is not visible
    NoQueue,
    Text(String),
}

impl PurchaseCaveat {
    /// Nothing to say.
    pub fn is_empty(&self) -> bool {
        match self {
            PurchaseCaveat::None => true,
            PurchaseCaveat::NoQueue => false,
            PurchaseCaveat::Text(t) => t.is_empty(),
        }
    }
}

impl<'de> Deserialize<'de> for PurchaseCaveat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|t| {
            if t.is_empty() {
                PurchaseCaveat::None
            } else {
                PurchaseCaveat::Text(t)
            }
        })
    }
}

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
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
    /// GPUs nobody held, on a node nobody held (free-node)
    Unallocated,
    /// spare in 95% of the buckets, but no single owner's share is a whole GPU
    Scattered,
}

/// One owner's share of the reclaimable GPUs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reclaim {
    pub source: ReclaimSource,
    /// the job (parked, gang_member_idle, idle_held) or host (stranded,
    /// unallocated); empty for scattered
    pub owner: String,
    /// whole GPUs; the rows sum to `reclaimable_gpus`
    pub gpus: f64,
    /// these GPUs' cost per month (730.5 h) at the owner's spare dollars ÷
    /// hours, else the fleet's mean $/GPU-h (the `--own-cost` rate where
    /// nothing is priced); null when none is known
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
    /// power_w ÷ 1000 × power_usd_per_kwh × (1 + overhead); null without either
    pub power_usd_per_gpu_hour: Option<f64>,
    /// the two together: the amortized $/GPU-h
    pub usd_per_gpu_hour: f64,
}

impl OwnCostFigures {
    /// The figures of `--own-cost` with the fleet's measured power (W).
    pub fn of(spec: &crate::catalog::own_cost::OwnCost, power_w: Option<f64>) -> Self {
        let capex = spec.capex_usd_per_gpu_hour();
        let power = spec.power_usd_per_gpu_hour(power_w);
        OwnCostFigures {
            capex_usd: spec.capex_usd,
            years: spec.years,
            overhead: spec.overhead,
            power_usd_per_kwh: spec.power_usd_per_kwh,
            power_w,
            capex_usd_per_gpu_hour: capex,
            power_usd_per_gpu_hour: power,
            usd_per_gpu_hour: capex + power.unwrap_or(0.0),
        }
    }
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
    /// the no-queue-data caveat; none (the JSON's "") when a queue was read
    pub caveat: PurchaseCaveat,
}

/// Below this share of the fleet's GPU-hours observed, or of the observed
/// time with held known, the data decides nothing (`insufficient_coverage`).
pub const MIN_COVERAGE: f64 = 0.5;
pub const MIN_HELD_KNOWN: f64 = 0.5;
/// optimize_first: the SM-active GPUs at p95 on cards this SM-active…
pub const OPTIMIZE_SM_TARGET: f64 = 0.5;
/// …need at most this share of the held GPUs at p95.
pub const OPTIMIZE_MAX_SHARE: f64 = 0.75;

/// Spare GPUs in 95% of the buckets, with the bucket length that names the unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spare {
    /// reclaimable whole GPUs
    pub gpus: f64,
    pub bucket_seconds: f64,
}

/// What the plan is asked to cover: `--want N`, or else the queue's pending
/// GPUs at p95 (rounded up to whole GPUs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Need {
    Want(u32),
    Pending(f64),
}

impl Need {
    pub fn gpus(self) -> f64 {
        match self {
            Need::Want(n) => f64::from(n),
            Need::Pending(n) => n,
        }
    }
}

/// Which rule of §10 (Purchase) decided the verdict, with the numbers it compared.
#[derive(Debug, Clone, PartialEq)]
pub enum PurchaseRule {
    /// fewer observed buckets or a shorter window than a decision needs
    TooShort {
        observed_buckets: usize,
        window_hours: f64,
        min_window_hours: f64,
    },
    /// coverage or the held-known share below 50%
    LowCoverage {
        coverage: f64,
        held_known_share: f64,
    },
    /// no device activity: idle held GPUs cannot be counted as spare
    ActivityUnmeasured,
    /// reclaimable ≥ need
    ReclaimCovers { spare: Spare, need: Need },
    /// 1 ≤ reclaimable < need
    ReclaimPart {
        spare: Spare,
        need: Need,
        uncovered: f64,
    },
    /// no need given: reclaimable ≥ 10% of owned
    ShareSpare {
        spare: Spare,
        floor: f64,
        owned: f64,
    },
    /// nothing spare, and the SM-active work fits on `optimize_to` cards
    Optimize {
        spare: Spare,
        sm_p95: f64,
        held_p95: f64,
        optimize_to: f64,
    },
    /// nothing spare, efficient, demand waiting
    Buy {
        spare: Spare,
        need: Need,
        sm_p95: Option<f64>,
    },
    /// under 10% spare, efficient, and neither `--want` nor a queue says what is needed
    DemandUnknown {
        spare: Spare,
        floor: f64,
        owned: f64,
    },
    /// a queue was read and nothing waited in it
    NoDemand { spare: Spare, want: Option<u32> },
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
    /// the fleet's mean price: priced dollars ÷ priced GPU-hours; None when nothing is priced
    pub usd_per_gpu_hour: Option<f64>,
    /// `--own-cost`, with the measured power
    pub own_cost: Option<&'a OwnCostFigures>,
}

/// The figures a verdict compares.
struct Facts {
    observed_buckets: usize,
    window_hours: f64,
    min_window_hours: f64,
    coverage: f64,
    held_known_share: f64,
    reclaimable: Option<f64>,
    owned: f64,
    held_p95: Option<f64>,
    sm_p95: Option<f64>,
    want: Option<u32>,
    /// None: no queue read
    pending_gpus_p95: Option<f64>,
    pending_gpu_hours: Option<f64>,
    bucket_seconds: f64,
}

/// Nearest-rank p95 and p100 of the known values of one per-bucket figure.
fn p95_peak(values: impl Iterator<Item = Option<f64>>) -> (Option<f64>, Option<f64>) {
    let known: Vec<f64> = values.flatten().collect();
    (percentile_of(&known, 95), percentile_of(&known, 100))
}

/// §10 (Purchase) from the timeline. `demand`: the queue's pending GPUs
/// (`--queue`), None when no queue was read.
pub fn purchase(timeline: &Timeline, inputs: &PurchaseInputs, demand: Option<&Demand>) -> Purchase {
    let observed: Vec<(usize, &TimelineBucket)> = timeline
        .buckets
        .iter()
        .enumerate()
        .filter(|(_, b)| b.observed > 0.0)
        .collect();
    let per = |f: &dyn Fn(&TimelineBucket) -> f64| -> Vec<f64> {
        observed.iter().map(|(_, b)| f(b)).collect()
    };
    let held = per(&|b| b.held);
    // spare is known in every bucket or in none (it needs device activity)
    let spare: Option<Vec<f64>> = observed.iter().map(|(_, b)| b.spare).collect();
    let spare_p5 = spare.and_then(|s| percentile_of(&s, 5));
    let (busy_p95, busy_peak) = p95_peak(observed.iter().map(|(_, b)| b.active));
    let (sm_p95, sm_peak) = p95_peak(observed.iter().map(|(_, b)| b.sm_active));
    let (tensor_p95, tensor_peak) = p95_peak(observed.iter().map(|(_, b)| b.tensor_active));
    let pending =
        |i: usize| demand.map_or(0.0, |d| d.pending_per_bucket.get(i).copied().unwrap_or(0.0));
    let demand_load: Vec<f64> = observed.iter().map(|(i, b)| b.held + pending(*i)).collect();
    let mut p = Purchase {
        owned: percentile_of(&per(&|b| b.observed), 95),
        gpus_seen: inputs.gpus_seen,
        held_p50: percentile_of(&held, 50),
        held_p95: percentile_of(&held, 95),
        held_max: percentile_of(&held, 100),
        spare_p5,
        busy_equivalent_gpus_p95: busy_p95,
        busy_equivalent_gpus_peak: busy_peak,
        sm_equivalent_gpus_p95: sm_p95,
        sm_equivalent_gpus_peak: sm_peak,
        tensor_equivalent_gpus_p95: tensor_p95,
        tensor_equivalent_gpus_peak: tensor_peak,
        output_equivalent_gpus: inputs
            .deepest_layer
            .filter(|_| inputs.window_hours > 0.0)
            .map(|(_, h)| h / inputs.window_hours),
        output_basis: inputs.deepest_layer.map(|(basis, _)| basis.to_string()),
        want: inputs.want,
        reclaimable_gpus: spare_p5.map(whole),
        own_cost: inputs.own_cost.cloned(),
        demand_p95: demand.and_then(|_| percentile_of(&demand_load, 95)),
        observed_buckets: observed.len(),
        ..Purchase::default()
    };
    coverage(&mut p, inputs);
    queue(&mut p, demand);
    let facts = Facts {
        observed_buckets: observed.len(),
        window_hours: inputs.window_hours,
        min_window_hours: inputs.min_window_hours,
        coverage: p.coverage.unwrap_or(0.0),
        held_known_share: p.held_known_share.unwrap_or(0.0),
        reclaimable: p.reclaimable_gpus,
        owned: p.owned.unwrap_or(0.0),
        held_p95: p.held_p95,
        sm_p95,
        want: inputs.want,
        pending_gpus_p95: demand.map(|d| d.pending_gpus_p95.unwrap_or(0.0)),
        pending_gpu_hours: p.pending_gpu_hours,
        bucket_seconds: timeline.bucket_seconds,
    };
    let (verdict, rule) = decide(&facts);
    plan(&mut p, verdict, rule, &facts, inputs);
    p
}

/// Coverage (§10 Purchase): observed GPU-hours against the GPUs seen × the window.
fn coverage(p: &mut Purchase, inputs: &PurchaseInputs) {
    let seen_gpu_hours = inputs.gpus_seen as f64 * inputs.window_hours;
    p.coverage = (seen_gpu_hours > 0.0).then(|| inputs.observed_gpu_hours / seen_gpu_hours);
    p.held_known_share = (inputs.observed_gpu_hours > 0.0)
        .then(|| inputs.held_known_gpu_hours / inputs.observed_gpu_hours);
    p.observed_gpu_hours = inputs.observed_gpu_hours;
    p.unobserved_gpu_hours = (seen_gpu_hours - inputs.observed_gpu_hours).max(0.0);
}

/// The queue's figures, or the caveat that none was read.
fn queue(p: &mut Purchase, demand: Option<&Demand>) {
    p.pending_gpu_hours = demand.map(|d| d.pending_gpu_hours);
    p.pending_gpus_p95 = demand.and_then(|d| d.pending_gpus_p95);
    p.wait_hours_p50 = demand.and_then(|d| d.wait_hours_p50);
    p.wait_hours_p95 = demand.and_then(|d| d.wait_hours_p95);
    p.caveat = match demand {
        Some(_) => PurchaseCaveat::None,
        None => PurchaseCaveat::NoQueue,
    };
}

/// The verdict's consequences: covered, uncovered, optimize-to, buy prices,
/// provisional, spare beside a queue.
fn plan(
    p: &mut Purchase,
    verdict: Verdict,
    rule: PurchaseRule,
    f: &Facts,
    inputs: &PurchaseInputs,
) {
    let need = need_of(f);
    if let (Some(n), Some(r)) = (need, f.reclaimable) {
        p.covered_by_reclaim = Some(n.gpus().min(r));
    }
    match &rule {
        PurchaseRule::ReclaimPart { uncovered, .. } => p.uncovered_gpus = Some(*uncovered),
        PurchaseRule::Buy { need, .. } => p.uncovered_gpus = Some(need.gpus()),
        PurchaseRule::Optimize { optimize_to, .. } => p.optimize_to_gpus = Some(*optimize_to),
        _ => {}
    }
    p.buy = p.uncovered_gpus.map(|gpus| BuyPrice {
        gpus,
        cloud_usd_per_month: inputs.usd_per_gpu_hour.map(|u| gpus * u * HOURS_PER_MONTH),
        own_usd_per_month: inputs
            .own_cost
            .map(|o| gpus * o.usd_per_gpu_hour * HOURS_PER_MONTH),
        own_capex_usd: inputs.own_cost.map(|o| gpus * o.capex_usd),
    });
    let decided = !matches!(rule, PurchaseRule::TooShort { .. });
    if decided && f.window_hours < MIN_WINDOW_HOURS {
        p.provisional = Some(Provisional {
            window_hours: f.window_hours,
            observed_buckets: f.observed_buckets,
            min_window_hours: f.min_window_hours,
        });
    }
    p.spare_with_queue =
        f.reclaimable.is_some_and(|r| r >= 1.0) && f.pending_gpu_hours.is_some_and(|h| h > 0.0);
    p.verdict = verdict;
    p.rule = rule;
}

/// `--want N`, or else whole GPUs of the queue's pending p95 when above 0.
fn need_of(f: &Facts) -> Option<Need> {
    f.want.map(Need::Want).or_else(|| {
        f.pending_gpus_p95
            .filter(|p| *p > 0.0)
            .map(|p| Need::Pending((p - 1e-9).ceil().max(1.0)))
    })
}

/// optimize_first's card count: the SM-active GPUs at p95 on cards
/// OPTIMIZE_SM_TARGET SM-active, when that is at most OPTIMIZE_MAX_SHARE of
/// the held GPUs at p95.
fn optimize_to(f: &Facts) -> Option<(f64, f64, f64)> {
    let (sm, held) = (f.sm_p95?, f.held_p95?);
    let to = (sm / OPTIMIZE_SM_TARGET - 1e-9).ceil().max(1.0);
    (held > 0.0 && to <= OPTIMIZE_MAX_SHARE * held).then_some((sm, held, to))
}

/// The first rule of §10 (Purchase) that holds.
fn decide(f: &Facts) -> (Verdict, PurchaseRule) {
    if f.observed_buckets < MIN_OBSERVED_BUCKETS || f.window_hours < f.min_window_hours {
        let rule = PurchaseRule::TooShort {
            observed_buckets: f.observed_buckets,
            window_hours: f.window_hours,
            min_window_hours: f.min_window_hours,
        };
        return (Verdict::InsufficientData, rule);
    }
    if f.coverage < MIN_COVERAGE || f.held_known_share < MIN_HELD_KNOWN {
        let rule = PurchaseRule::LowCoverage {
            coverage: f.coverage,
            held_known_share: f.held_known_share,
        };
        return (Verdict::InsufficientCoverage, rule);
    }
    let Some(r) = f.reclaimable else {
        // our choice: without device activity idle GPUs cannot be told apart
        return (Verdict::InsufficientData, PurchaseRule::ActivityUnmeasured);
    };
    let spare = Spare {
        gpus: r,
        bucket_seconds: f.bucket_seconds,
    };
    match need_of(f) {
        Some(need) => decide_need(f, spare, need),
        None => decide_share(f, spare),
    }
}

/// With a need (`--want` or a queue): reclaim what is spare, then optimize or buy.
fn decide_need(f: &Facts, spare: Spare, need: Need) -> (Verdict, PurchaseRule) {
    let n = need.gpus();
    if spare.gpus >= n {
        return (
            Verdict::ReclaimFirst,
            PurchaseRule::ReclaimCovers { spare, need },
        );
    }
    if spare.gpus >= 1.0 {
        let uncovered = n - spare.gpus;
        return (
            Verdict::ReclaimThenBuy,
            PurchaseRule::ReclaimPart {
                spare,
                need,
                uncovered,
            },
        );
    }
    if let Some((sm_p95, held_p95, optimize_to)) = optimize_to(f) {
        let rule = PurchaseRule::Optimize {
            spare,
            sm_p95,
            held_p95,
            optimize_to,
        };
        return (Verdict::OptimizeFirst, rule);
    }
    if f.pending_gpu_hours.is_some_and(|h| h <= 0.0) {
        let rule = PurchaseRule::NoDemand {
            spare,
            want: f.want,
        };
        return (Verdict::InsufficientData, rule);
    }
    let rule = PurchaseRule::Buy {
        spare,
        need,
        sm_p95: f.sm_p95,
    };
    (Verdict::Buy, rule)
}

/// Without a need: 10% of owned spare says reclaim; else optimize, else demand is unknown.
fn decide_share(f: &Facts, spare: Spare) -> (Verdict, PurchaseRule) {
    let floor = RECLAIM_SHARE * f.owned;
    if spare.gpus >= 1.0 && spare.gpus >= floor {
        let rule = PurchaseRule::ShareSpare {
            spare,
            floor,
            owned: f.owned,
        };
        return (Verdict::ReclaimFirst, rule);
    }
    if let Some((sm_p95, held_p95, optimize_to)) = optimize_to(f) {
        let rule = PurchaseRule::Optimize {
            spare,
            sm_p95,
            held_p95,
            optimize_to,
        };
        return (Verdict::OptimizeFirst, rule);
    }
    if f.pending_gpu_hours.is_some() {
        return (
            Verdict::InsufficientData,
            PurchaseRule::NoDemand { spare, want: None },
        );
    }
    let rule = PurchaseRule::DemandUnknown {
        spare,
        floor,
        owned: f.owned,
    };
    (Verdict::InsufficientData, rule)
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
    use super::*;

    /// One hourly bucket: `observed` GPUs, `held` of them, `spare` doing
    /// nothing, `active` device-active and `sm` SM-active GPUs.
    fn bucket(observed: f64, held: f64, spare: f64, active: f64, sm: f64) -> TimelineBucket {
        TimelineBucket {
            observed,
            held,
            active: Some(active),
            sm_active: Some(sm),
            tensor_active: Some(sm / 2.0),
            idle_held: Some(spare - (observed - held)),
            unallocated: observed - held,
            spare: Some(spare),
            ..TimelineBucket::default()
        }
    }

    /// `n` observed hourly buckets of `b`, then one unobserved bucket that must not count.
    fn timeline(n: usize, b: TimelineBucket) -> Timeline {
        let mut buckets = vec![b; n];
        buckets.push(TimelineBucket::default());
        Timeline {
            bucket_seconds: 3600.0,
            unobserved_buckets: 1,
            buckets,
        }
    }

    /// 30 h, 10 GPUs seen and observed throughout, held known throughout.
    fn inputs(want: Option<u32>) -> PurchaseInputs<'static> {
        PurchaseInputs {
            gpus_seen: 10,
            deepest_layer: None,
            window_hours: 30.0,
            want,
            min_window_hours: MIN_WINDOW_HOURS,
            observed_gpu_hours: 300.0,
            held_known_gpu_hours: 300.0,
            usd_per_gpu_hour: Some(2.0),
            own_cost: None,
        }
    }

    fn rule(p: &Purchase) -> String {
        crate::render::diagnosis::purchase::rule_text(&p.rule)
    }

    /// 6 of 10 held, 2 of them idle: 4 spare (2 unallocated + 2 idle held).
    fn roomy() -> Timeline {
        timeline(30, bucket(10.0, 6.0, 4.0, 3.0, 2.0))
    }

    /// All 10 held and busy; SM-active `sm` GPUs.
    fn full(sm: f64) -> Timeline {
        timeline(30, bucket(10.0, 10.0, 0.0, 9.0, sm))
    }

    #[test]
    fn reclaim_first_when_spare_covers_the_want() {
        let p = purchase(&roomy(), &inputs(Some(4)), None);
        assert_eq!(p.verdict, Verdict::ReclaimFirst);
        assert_eq!(p.reclaimable_gpus, Some(4.0));
        assert_eq!(p.covered_by_reclaim, Some(4.0));
        assert_eq!(p.uncovered_gpus, None);
        assert_eq!(p.buy, None);
        assert_eq!(rule(&p), "4 GPUs spare in 95% of hours ≥ the 4 asked for");
        assert_eq!(p.caveat, PurchaseCaveat::NoQueue);
    }

    #[test]
    fn reclaim_then_buy_prices_the_rest_both_ways() {
        // own: capex 35,064 over 4 years (35,064 h), no overhead: $1/GPU-h
        let spec = crate::catalog::own_cost::OwnCost::parse("capex=35064,years=4,overhead=0")
            .unwrap_or_else(|e| panic!("{e}"));
        let own = OwnCostFigures::of(&spec, Some(400.0));
        assert_eq!(own.usd_per_gpu_hour, 1.0);
        // no $/kWh given: power is measured but not priced
        assert_eq!(
            (own.power_w, own.power_usd_per_gpu_hour),
            (Some(400.0), None)
        );
        let p = purchase(
            &roomy(),
            &PurchaseInputs {
                own_cost: Some(&own),
                ..inputs(Some(6))
            },
            None,
        );
        assert_eq!(p.verdict, Verdict::ReclaimThenBuy);
        assert_eq!(p.covered_by_reclaim, Some(4.0));
        assert_eq!(p.uncovered_gpus, Some(2.0));
        // 2 GPUs × $2/GPU-h × 730.5 h; 2 × $1 × 730.5; 2 × $35,064
        let buy = p.buy.clone().unwrap_or_default();
        assert_eq!(buy.cloud_usd_per_month, Some(2922.0));
        assert_eq!(buy.own_usd_per_month, Some(1461.0));
        assert_eq!(buy.own_capex_usd, Some(70_128.0));
        assert_eq!(
            rule(&p),
            "4 GPUs spare in 95% of hours < the 6 asked for: 2 not covered"
        );
    }

    #[test]
    fn optimize_first_when_nothing_is_spare_but_sm_activity_is_low() {
        // SM-active 3.6 GPUs: ceil(3.6 / 0.5) = 8 ≤ 0.75 × 10 = 7.5? no; 3.5 → 7 ≤ 7.5: yes
        let p = purchase(&full(3.5), &inputs(Some(2)), None);
        assert_eq!(p.verdict, Verdict::OptimizeFirst);
        assert_eq!(p.optimize_to_gpus, Some(7.0));
        assert_eq!(p.covered_by_reclaim, Some(0.0));
        assert_eq!(p.uncovered_gpus, None);
        let p = purchase(&full(3.6), &inputs(Some(2)), None);
        assert_eq!(p.verdict, Verdict::Buy);
    }

    #[test]
    fn buy_when_nothing_is_spare_the_work_is_efficient_and_demand_waits() {
        let p = purchase(&full(6.0), &inputs(Some(3)), None);
        assert_eq!(p.verdict, Verdict::Buy);
        assert_eq!(p.uncovered_gpus, Some(3.0));
        assert_eq!(
            p.buy.as_ref().and_then(|b| b.cloud_usd_per_month),
            Some(4383.0)
        );
        assert_eq!(
            rule(&p),
            "0 GPUs spare in 95% of hours, SM activity fits no fewer than 75.0% of the held cards, and the 3 asked for are not covered"
        );
        // without --want and without a queue nothing says what is needed
        let p = purchase(&full(6.0), &inputs(None), None);
        assert_eq!(p.verdict, Verdict::InsufficientData);
        assert!(rule(&p).ends_with("no --want and no --queue say what is needed"));
    }

    #[test]
    fn insufficient_data_when_short_or_unmeasured() {
        let p = purchase(
            &timeline(23, bucket(10.0, 6.0, 4.0, 3.0, 2.0)),
            &inputs(Some(1)),
            None,
        );
        assert_eq!(p.verdict, Verdict::InsufficientData);
        assert!(rule(&p).contains("23 observed buckets"), "{}", rule(&p));
        let short = PurchaseInputs {
            window_hours: 23.9,
            observed_gpu_hours: 239.0,
            held_known_gpu_hours: 239.0,
            ..inputs(Some(1))
        };
        let p = purchase(&roomy(), &short, None);
        assert_eq!(p.verdict, Verdict::InsufficientData);
        assert_eq!(p.provisional, None);
        // --min-window 12h lets it decide, provisionally
        let p = purchase(
            &roomy(),
            &PurchaseInputs {
                min_window_hours: 12.0,
                ..short
            },
            None,
        );
        assert_eq!(p.verdict, Verdict::ReclaimFirst);
        assert_eq!(
            p.provisional,
            Some(Provisional {
                window_hours: 23.9,
                observed_buckets: 30,
                min_window_hours: 12.0
            })
        );
        let mut t = roomy();
        t.buckets.iter_mut().for_each(|b| b.spare = None);
        let p = purchase(&t, &inputs(None), None);
        assert_eq!((p.spare_p5, p.reclaimable_gpus), (None, None));
        assert_eq!(p.verdict, Verdict::InsufficientData);
        let empty = purchase(&Timeline::default(), &PurchaseInputs::default(), None);
        assert_eq!(empty.verdict, Verdict::InsufficientData);
        assert_eq!(
            (empty.owned, empty.held_max, empty.coverage),
            (None, None, None)
        );
    }

    #[test]
    fn insufficient_coverage_below_half_observed_or_half_held_known() {
        // 100 GPUs seen, 10 observed per bucket: 300 of 3,000 GPU-h
        let sparse = PurchaseInputs {
            gpus_seen: 100,
            ..inputs(Some(1))
        };
        let p = purchase(&roomy(), &sparse, None);
        assert_eq!(p.verdict, Verdict::InsufficientCoverage);
        assert_eq!(p.coverage, Some(0.1));
        assert_eq!(p.unobserved_gpu_hours, 2700.0);
        assert_eq!(p.owned, Some(10.0));
        assert_eq!(p.gpus_seen, 100);
        // held known for 140 of 300 GPU-h
        let unknown = PurchaseInputs {
            held_known_gpu_hours: 140.0,
            ..inputs(Some(1))
        };
        let p = purchase(&roomy(), &unknown, None);
        assert_eq!(p.verdict, Verdict::InsufficientCoverage);
        assert_eq!(
            rule(&p),
            "coverage 100.0% of the GPUs' window, held known for 46.7% of the observed time; 50% of each needed"
        );
        // exactly half of each still decides
        let half = PurchaseInputs {
            gpus_seen: 20,
            held_known_gpu_hours: 150.0,
            ..inputs(Some(1))
        };
        assert_eq!(
            purchase(&roomy(), &half, None).verdict,
            Verdict::ReclaimFirst
        );
    }

    #[test]
    fn without_want_ten_percent_of_owned_decides() {
        // 1 spare of 10 observed per bucket: 1 ≥ 1.0
        let t = timeline(30, bucket(10.0, 9.0, 1.0, 8.0, 7.0));
        let p = purchase(&t, &inputs(None), None);
        assert_eq!(p.verdict, Verdict::ReclaimFirst);
        assert_eq!(
            rule(&p),
            "1 GPUs spare in 95% of hours ≥ 1, 10% of the 10 observed"
        );
        // 11 observed per bucket: 1 < 1.1, and SM says no smaller fleet
        let t = timeline(30, bucket(11.0, 10.0, 1.0, 9.0, 7.0));
        let p = purchase(&t, &inputs(None), None);
        assert_eq!(p.verdict, Verdict::InsufficientData);
        assert_eq!(p.owned, Some(11.0));
    }

    #[test]
    fn percentiles_and_work_are_over_observed_buckets() {
        // 40 buckets: held 10..49, active i/2, spare i: p5 rank 2, p95 rank 38
        let buckets: Vec<TimelineBucket> = (0..40)
            .map(|i| {
                let i = i as f64;
                bucket(50.0, 10.0 + i, i, i / 2.0, i / 4.0)
            })
            .collect();
        let t = Timeline {
            bucket_seconds: 3600.0,
            unobserved_buckets: 0,
            buckets,
        };
        let p = purchase(
            &t,
            &PurchaseInputs {
                deepest_layer: Some(("tensor_active", 480.0)),
                window_hours: 48.0,
                ..inputs(None)
            },
            None,
        );
        assert_eq!(p.observed_buckets, 40);
        assert_eq!(
            (p.held_p50, p.held_p95, p.held_max),
            (Some(29.0), Some(47.0), Some(49.0))
        );
        assert_eq!(p.spare_p5, Some(1.0));
        assert_eq!(p.busy_equivalent_gpus_p95, Some(18.5));
        assert_eq!(p.busy_equivalent_gpus_peak, Some(19.5));
        assert_eq!(p.sm_equivalent_gpus_p95, Some(9.25));
        assert_eq!(p.tensor_equivalent_gpus_peak, Some(4.875));
        assert_eq!(p.output_equivalent_gpus, Some(10.0));
        assert_eq!(p.output_basis.as_deref(), Some("tensor_active"));
    }

    #[test]
    fn demand_sets_the_need_and_flags_spare_beside_a_queue() {
        // 30 buckets: pending 2.5 GPUs in each → need ceil(2.5) = 3 ≤ 4 spare
        let demand = Demand {
            pending_per_bucket: vec![2.5; 31],
            pending_gpu_hours: 75.0,
            pending_gpus_p95: Some(2.5),
            wait_hours_p50: Some(1.0),
            wait_hours_p95: Some(6.0),
            requests: 5,
            owners: vec![],
        };
        let p = purchase(&roomy(), &inputs(None), Some(&demand));
        assert_eq!(p.verdict, Verdict::ReclaimFirst);
        assert_eq!(
            rule(&p),
            "4 GPUs spare in 95% of hours ≥ the 3 pending in the queue at p95"
        );
        assert!(p.spare_with_queue);
        assert_eq!(p.caveat, PurchaseCaveat::None);
        // held 6 + pending 2.5
        assert_eq!(p.demand_p95, Some(8.5));
        assert_eq!(
            (p.pending_gpu_hours, p.wait_hours_p95),
            (Some(75.0), Some(6.0))
        );
        // a full, efficient fleet with a queue: buy the pending p95
        let p = purchase(&full(6.0), &inputs(None), Some(&demand));
        assert_eq!((p.verdict, p.uncovered_gpus), (Verdict::Buy, Some(3.0)));
        assert!(!p.spare_with_queue);
        // a queue read with nothing in it: the want is not shown waiting
        let idle_queue = Demand::default();
        let p = purchase(&full(6.0), &inputs(Some(3)), Some(&idle_queue));
        assert_eq!(p.verdict, Verdict::InsufficientData);
        assert!(rule(&p).ends_with("no purchase is indicated"));
    }

    #[test]
    fn verdicts_serialize_snake_case_and_old_saturated_reads_back() {
        let text = serde_json::to_string(&Verdict::ReclaimThenBuy).unwrap_or_default();
        assert_eq!(text, "\"reclaim_then_buy\"");
        let back: Purchase =
            serde_json::from_str("{\"verdict\":\"saturated\",\"owned\":12}").unwrap_or_default();
        assert_eq!(back.verdict, Verdict::Saturated);
        assert_eq!(back.owned, Some(12.0));
    }
}
