//! The timeline (§8) and the leak map (§9) from PromQL sums: the cascade of
//! leak classes as set operations on the per-GPU series at each evaluation
//! point, and the per-bucket sums handed to the engine's own timeline and
//! leak folds, so shares, nulls, sorting and dollars follow one set of rules.
use super::{Agg, Aggs, Plan, UTIL};
use crate::audit::diagnosis::leaks::{LeakClass, LeakFold, LeakThresholds, Leaks};
use crate::audit::diagnosis::timeline::{BucketSums, Seen, Timeline, TimelineFold};
use crate::audit::interval::{Interval, Names};
use crate::audit::tally::Sum;
use crate::audit::{AuditConfig, GroupBy};
use std::collections::BTreeMap;

/// The thresholds the report uses: `--leak-thresholds`, its idle row from
/// --idle-below (as the engine does).
pub(super) fn thresholds_of(cfg: &AuditConfig) -> LeakThresholds {
    let mut t = cfg.leak_thresholds;
    t.idle_below = cfg.idle_below;
    t
}

/// `metric` fraction (0..1) as the engine reads it: the percent × 0.01.
fn fraction(series: &str) -> String {
    format!("({series}) * 0.01")
}

impl Plan {
    /// `left and on (GPU)` / `left unless on (GPU)` the per-GPU `right`.
    fn on(&self, left: &str, op: &str, right: &str) -> String {
        format!("({left}) {op} on ({}) ({right})", self.gpu_keys.join(", "))
    }

    /// Per-point expressions of the held classes of §9 that are not
    /// differences of others: `busy` (device_util ≥ starved_below), then rows
    /// 4-8. Each is a set of held UTIL series; a test whose metric the fleet
    /// does not export is skipped, as in the engine (its class gets nothing).
    /// unmeasured = held − idle − starved − busy; busy_unprofiled = busy − rows 5-8.
    pub(super) fn class_expressions(&self, t: &LeakThresholds) -> Vec<(&'static str, String)> {
        let k = self.inner_keys();
        let util = fraction(&self.held(UTIL));
        let sel = |m: Option<&str>| m.map(|m| self.sel(m, ""));
        let (sm, tensor, dram) = (sel(self.sm), sel(self.tensor), sel(self.dram));
        let busy = format!("{util} >= {}", t.starved_below);
        let mut v = vec![
            (
                "starved",
                format!("({util} >= {}) < {}", t.idle_below, t.starved_below),
            ),
            ("busy", busy.clone()),
        ];
        let mut rest = busy;
        let mut row = |name: &'static str, test: Option<String>, rest: &mut String| {
            if let Some(test) = test {
                v.push((name, self.on(rest, "and", &test)));
                *rest = self.on(rest, "unless", &test);
            }
        };
        let sm_low = sm
            .as_ref()
            .map(|s| format!("{s} < {}", t.underfilled_below));
        row("underfilled", sm_low, &mut rest);
        let dram_high = dram.map(|d| {
            let high = format!("{d} >= {}", t.memory_bound_dram_at_least);
            match &tensor {
                // tensor_active unknown or below the bar: not known and at least it
                Some(tn) => self.on(
                    &high,
                    "unless",
                    &format!("{tn} >= {}", t.memory_bound_tensor_below),
                ),
                None => high,
            }
        });
        row("memory_bound", dram_high, &mut rest);
        let tensor_low = tensor
            .as_ref()
            .map(|tn| format!("{tn} < {}", t.no_tensor_below));
        row("no_tensor", tensor_low, &mut rest);
        if let (Some(s), Some(tn)) = (&sm, &tensor) {
            let both = self.on(s, "and", tn);
            v.push(("effective", self.on(&rest, "and", &both)));
        }
        v.into_iter()
            .map(|(name, e)| (name, format!("group by ({k}) ({e})")))
            .collect()
    }
}

/// The GPU-points of each class of §9 in one (group, job, model) sum.
fn class_points(a: &Agg) -> [(LeakClass, f64); 9] {
    let busy_rest = a.busy - a.underfilled - a.memory_bound - a.no_tensor - a.effective;
    [
        (LeakClass::Unallocated, a.observed - a.held),
        (LeakClass::Unmeasured, a.held - a.idle - a.starved - a.busy),
        (LeakClass::Idle, a.idle),
        (LeakClass::Starved, a.starved),
        (LeakClass::Underfilled, a.underfilled),
        (LeakClass::MemoryBound, a.memory_bound),
        (LeakClass::NoTensor, a.no_tensor),
        (LeakClass::Effective, a.effective),
        (LeakClass::BusyUnprofiled, busy_rest),
    ]
}

/// Label values as the ids the folds name things by.
#[derive(Default)]
struct Interned {
    names: Vec<String>,
    ids: BTreeMap<String, u32>,
}

impl Interned {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(id) = self.ids.get(name) {
            return *id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.ids.insert(name.to_string(), id);
        id
    }
}

impl Names for Interned {
    fn label(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }
    fn host_of(&self, _gpu: usize) -> &str {
        ""
    }
    fn gpu_of(&self, _gpu: usize) -> &str {
        ""
    }
}

/// The leak map: one interval per (class, group, job, model) into the
/// engine's leak fold. A job is the owner label of held points (an unheld
/// point carries none, as the held rule reads it); `--by model` groups by model.
pub(super) fn leaks_of(aggs: &Aggs, cfg: &AuditConfig, step_ms: i64) -> Leaks {
    let mut names = Interned::default();
    let mut fold = LeakFold::new(thresholds_of(cfg), cfg.by);
    let ticks = |points: f64| (points * step_ms as f64).round() as i64;
    for ((group, job, model), a) in aggs {
        let m = (!model.is_empty()).then_some(model.as_str());
        let price = cfg.prices.price_of(m);
        let model_id = m.map(|m| names.id(m));
        let group_name = if cfg.by == Some(GroupBy::Model) {
            model
        } else {
            group
        };
        let group_id = (!group_name.is_empty()).then(|| names.id(group_name));
        let job_id = (!job.is_empty()).then(|| names.id(job));
        for (class, points) in class_points(a) {
            let weight = ticks(points);
            if weight <= 0 {
                continue;
            }
            let mut iv = Interval {
                weight,
                price,
                model: model_id,
                job: job_id.filter(|_| class.is_held()),
                ..Interval::default()
            };
            match cfg.by {
                Some(GroupBy::Team) => iv.team = group_id,
                Some(GroupBy::User) => iv.user = group_id,
                Some(GroupBy::Job) => iv.job = group_id.filter(|_| class.is_held()),
                Some(GroupBy::Host) => iv.host = group_id.unwrap_or_else(|| names.id("-")),
                Some(GroupBy::Model) | None => {}
            }
            fold.add_classified(class, &iv);
        }
    }
    fold.finish(&names)
}

/// The timeline from per-bucket sums (bucket epoch index → sums), through the
/// engine's timeline fold: the window [since, until), every bucket listed.
pub(super) fn timeline_of(
    per_bucket: &BTreeMap<i64, Agg>,
    plan: &Plan,
    bucket_ms: i64,
    window: (i64, i64),
) -> Timeline {
    let mut fold = TimelineFold::new(bucket_ms, window.0, window.1);
    let step = plan.step_ms as f64;
    let ticks = |points: f64| (points * step).round() as i64;
    let sum = |points: f64| Sum::from(points * step);
    let seen = Seen {
        device_util: true,
        sm_active: plan.sm.is_some(),
        tensor_active: plan.tensor.is_some(),
    };
    fold.add_sums(
        window.0.div_euclid(bucket_ms.max(1)),
        &BucketSums::default(),
        seen,
    );
    for (k, a) in per_bucket {
        let sums = BucketSums {
            observed: ticks(a.observed),
            held: ticks(a.held),
            idle_held: ticks(a.idle),
            unallocated: ticks(a.observed) - ticks(a.held),
            active: sum(a.active),
            sm_active: sum(a.sm),
            tensor_active: sum(a.tensor),
            // every held point has a UTIL value (held is read on UTIL)
            active_known: ticks(a.held),
            sm_known: ticks(a.sm_known),
            tensor_known: ticks(a.tensor_known),
        };
        fold.add_sums(*k, &sums, seen);
    }
    fold.finish(&Interned::default())
}
