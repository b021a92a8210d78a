//! The sections agree with each other and with a plain sum over a generated
//! fleet: leak classes sum to observed and held, the timeline's GPUs times
//! bucket lengths give the same GPU-hours, stranded + free = unallocated, and
//! two merged shards give the figures of one fold.
use super::testkit::{H, TestNames};
use super::*;
use crate::audit::interval::TICKS_PER_HOUR;

/// A small deterministic generator (no rand crate in the tree).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        self.0 >> 33
    }
    fn unit(&mut self) -> f64 {
        (self.next() % 1000) as f64 / 1000.0
    }
    fn maybe(&mut self) -> Option<f64> {
        (!self.next().is_multiple_of(4)).then(|| self.unit())
    }
}

/// 6 GPUs on 3 hosts, 30 h window, samples of 7-50 min back to back.
fn fleet() -> Vec<Interval> {
    let mut r = Lcg(42);
    let mut out = Vec::new();
    for gpu in 0..6usize {
        let mut t = 0;
        while t < 30 * H {
            let weight = ((7 + r.next() % 44) as i64 * crate::audit::interval::TICKS_PER_MINUTE)
                .min(30 * H - t);
            let roll = r.next() % 10;
            out.push(Interval {
                gpu,
                host: (gpu / 2) as u32,
                start: t,
                weight,
                held: roll >= 3,
                held_unknown: roll == 0,
                idle: false,
                activity: crate::metric::Activity::default()
                    .with(crate::metric::DEVICE_UTIL, r.maybe())
                    .with(crate::metric::SM_ACTIVE, r.maybe())
                    .with(crate::metric::TENSOR_ACTIVE, r.maybe())
                    .with(crate::metric::DRAM_ACTIVE, r.maybe()),
                price: (gpu != 5).then_some(2.5),
                job: (roll >= 3).then_some((r.next() % 3) as u32),
                team: Some((gpu % 2) as u32),
                ..Interval::default()
            });
            t += weight;
        }
    }
    for iv in &mut out {
        iv.idle = iv.held && iv.device_util().is_some_and(|u| u < 0.01);
    }
    out
}

fn folds() -> DiagnosisFolds {
    DiagnosisFolds::new(
        H,
        0,
        30 * H,
        LeakThresholds::default(),
        Some(crate::audit::GroupBy::Team),
        Default::default(),
    )
}

fn inputs() -> DiagnosisInputs<'static> {
    DiagnosisInputs {
        deepest_layer: Some(("active", 40.0)),
        window_hours: 30.0,
        want: Some(1),
        pending: None,
        top_hosts: None,
        min_window_hours: 24.0,
        observed_gpu_hours: 0.0,
        held_known_gpu_hours: 0.0,
        usd_per_gpu_hour: None,
        own_cost: None,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn sections_agree_with_plain_sums_and_with_each_other() {
    let ivs = fleet();
    let mut f = folds();
    ivs.iter().for_each(|iv| f.add(iv));
    let s = f.finish(&TestNames, inputs());
    let hours = |pick: &dyn Fn(&Interval) -> bool| -> f64 {
        ivs.iter()
            .filter(|iv| pick(iv))
            .map(|iv| iv.weight)
            .sum::<i64>() as f64
            / TICKS_PER_HOUR
    };
    let observed = hours(&|_| true);
    let held = hours(&|iv| iv.held && !iv.held_unknown);
    let unallocated = hours(&|iv| !iv.held && !iv.held_unknown);
    assert_eq!(observed, 180.0);

    let leaks = s.leaks.expect("leaks");
    let class_sum = |held_only: bool| -> f64 {
        leaks
            .classes
            .iter()
            .filter(|r| !held_only || r.class.is_held())
            .map(|r| r.gpu_hours)
            .sum()
    };
    assert!(close(class_sum(false), observed));
    assert!(close(class_sum(true), held));
    let shares: f64 = leaks.classes.iter().filter_map(|r| r.share_of_held).sum();
    assert!(close(shares, 1.0));
    let group_hours: f64 = leaks
        .groups
        .iter()
        .flat_map(|g| g.classes.iter())
        .map(|r| r.gpu_hours)
        .sum();
    assert!(close(group_hours, observed));

    let timeline = s.timeline.expect("timeline");
    assert_eq!(timeline.buckets.len(), 30);
    let over_buckets = |get: &dyn Fn(&TimelineBucket) -> f64| -> f64 {
        timeline.buckets.iter().map(get).sum::<f64>() // every bucket is 1 h long
    };
    assert!(close(over_buckets(&|b| b.observed), observed));
    assert!(close(over_buckets(&|b| b.held), held));
    assert!(close(over_buckets(&|b| b.unallocated), unallocated));
    let active: f64 = ivs
        .iter()
        .filter(|iv| iv.held && !iv.held_unknown)
        .filter_map(|iv| iv.device_util().map(|u| iv.hours() * u))
        .sum();
    assert!(close(over_buckets(&|b| b.active.unwrap_or(0.0)), active));

    let nodes = s.nodes.expect("nodes");
    assert!(close(
        nodes.stranded_gpu_hours + nodes.free_node_gpu_hours,
        unallocated
    ));
    assert!(close(
        nodes.node_held_gpu_hours - nodes.stranded_gpu_hours,
        held
    ));
    let host_stranded: f64 = nodes.hosts.iter().map(|h| h.stranded_gpu_hours).sum();
    assert!(close(host_stranded, nodes.stranded_gpu_hours));
    assert_eq!(nodes.hosts.iter().map(|h| h.gpus).sum::<usize>(), 6);

    let p = s.purchase.expect("purchase");
    assert_eq!(p.gpus_seen, 6);
    assert_eq!(p.observed_buckets, 30);
    assert!(close(p.output_equivalent_gpus.unwrap_or(0.0), 40.0 / 30.0));
}

#[test]
fn two_merged_shards_give_the_figures_of_one_fold() {
    let ivs = fleet();
    let mut one = folds();
    ivs.iter().for_each(|iv| one.add(iv));
    let (mut even, mut odd) = (folds(), folds());
    for iv in &ivs {
        if iv.gpu % 2 == 0 {
            even.add(iv);
        } else {
            odd.add(iv);
        }
    }
    even.merge(odd);
    let a = serde_json::to_value(one.finish(&TestNames, inputs())).expect("json");
    let b = serde_json::to_value(even.finish(&TestNames, inputs())).expect("json");
    assert_json_close(&a, &b);
}

/// Equal documents, numbers to 1e-9 (merged sums may round differently).
fn assert_json_close(a: &serde_json::Value, b: &serde_json::Value) {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            assert!(close(x, y), "{x} != {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len());
            x.iter().zip(y).for_each(|(x, y)| assert_json_close(x, y));
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(x.keys().collect::<Vec<_>>(), y.keys().collect::<Vec<_>>());
            x.iter().for_each(|(k, v)| assert_json_close(v, &y[k]));
        }
        _ => assert_eq!(a, b),
    }
}
