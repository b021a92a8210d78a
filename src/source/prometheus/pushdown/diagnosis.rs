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
use crate::metric;
use std::collections::BTreeMap;

/// The thresholds the report uses: `--leak-thresholds`, its idle row from
/// --idle-below (as the engine does).
pub(super) fn thresholds_of(cfg: &AuditConfig) -> LeakThresholds {
    let mut t = cfg.leak_thresholds;
    t.idle_below = cfg.idle.below;
    t
}

/// `metric` fraction (0..1) as the engine reads it (`plan::rules::PERCENT`).
fn fraction(series: &str) -> String {
    crate::plan::promql::percent(series)
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
        let (sm, tensor, dram) = (
            sel(self.series(metric::SM_ACTIVE)),
            sel(self.series(metric::TENSOR_ACTIVE)),
            sel(self.series(metric::DRAM_ACTIVE)),
        );
        let busy = format!("{util} >= {}", t.starved_below);
        let mut v = vec![
            (
                "starved",
                format!(
                    "({util} {} {}) < {}",
                    crate::plan::rules::IDLE_CMP.negated_op(),
                    t.idle_below,
                    t.starved_below
                ),
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
pub(super) fn leaks_of(aggs: &Aggs, cfg: &AuditConfig, step_us: i64) -> Leaks {
    let mut names = Interned::default();
    let mut fold = LeakFold::new(thresholds_of(cfg), cfg.by);
    let ticks = |points: f64| (points * step_us as f64).round() as i64;
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
    bucket_us: i64,
    window: (i64, i64),
) -> Timeline {
    let mut fold = TimelineFold::new(bucket_us, window.0, window.1);
    let step = plan.step_us as f64;
    let ticks = |points: f64| (points * step).round() as i64;
    let sum = |points: f64| Sum::from(points * step);
    let seen = Seen {
        device_util: true,
        sm_active: plan.series(metric::SM_ACTIVE).is_some(),
        tensor_active: plan.series(metric::TENSOR_ACTIVE).is_some(),
    };
    fold.add_sums(
        window.0.div_euclid(bucket_us.max(1)),
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
            sm_active: sum(a.metric[metric::SM_ACTIVE.0]),
            tensor_active: sum(a.metric[metric::TENSOR_ACTIVE.0]),
            // every held point has a UTIL value (held is read on UTIL)
            active_known: ticks(a.held),
            sm_known: ticks(a.metric_known[metric::SM_ACTIVE.0]),
            tensor_known: ticks(a.metric_known[metric::TENSOR_ACTIVE.0]),
        };
        fold.add_sums(*k, &sums, seen);
    }
    fold.finish(&Interned::default())
}

#[cfg(test)]
mod tests {
    use super::super::Held;
    use super::*;
    use crate::catalog::prices::PriceBook;

    const M: i64 = 60_000_000;

    /// Per-metric sums with only SM active set.
    fn sm_only(v: f64) -> [f64; metric::AUDITED] {
        let mut a = [0.0; metric::AUDITED];
        a[metric::SM_ACTIVE.0] = v;
        a
    }

    fn plan(sm: bool, tensor: bool, dram: bool) -> Plan {
        let mut p = Plan {
            matchers: "cluster=\"a\"".into(),
            gpu_keys: vec!["Hostname".into(), "UUID".into()],
            by_label: Some("exported_namespace".into()),
            model_label: Some("modelName".into()),
            job_label: Some("exported_pod".into()),
            held: Held::Owner {
                label: "exported_pod".into(),
                container: true,
            },
            step_us: M,
            series: [None; metric::AUDITED],
        };
        for (on, slot, series) in [
            (sm, metric::SM_ACTIVE, "DCGM_FI_PROF_SM_ACTIVE"),
            (
                tensor,
                metric::TENSOR_ACTIVE,
                "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
            ),
            (dram, metric::DRAM_ACTIVE, "DCGM_FI_PROF_DRAM_ACTIVE"),
        ] {
            if on {
                p = p.with(slot, series);
            }
        }
        p
    }

    const U: &str = "last_over_time(DCGM_FI_DEV_GPU_UTIL{cluster=\"a\", exported_pod!=\"\", exported_pod!~\"(?i).*(dcgm-exporter|dcgm_exporter|metrics-exporter).*\", exported_container!~\"(?i).*(dcgm-exporter|dcgm_exporter|metrics-exporter).*\"}[59999ms])";
    const SM: &str = "last_over_time(DCGM_FI_PROF_SM_ACTIVE{cluster=\"a\"}[59999ms])";
    const K: &str = "Hostname, UUID, exported_namespace, exported_pod, modelName";

    #[test]
    fn the_cascade_in_promql() {
        let e: BTreeMap<&str, String> = plan(true, true, true)
            .class_expressions(&LeakThresholds::default())
            .into_iter()
            .collect();
        assert_eq!(
            e["starved"],
            format!("group by ({K}) ((({U}) * 0.01 >= 0.01) < 0.5)")
        );
        assert_eq!(e["busy"], format!("group by ({K}) (({U}) * 0.01 >= 0.5)"));
        assert_eq!(
            e["underfilled"],
            format!("group by ({K}) ((({U}) * 0.01 >= 0.5) and on (Hostname, UUID) ({SM} < 0.5))")
        );
        // later rows test what the earlier ones left
        assert!(e["memory_bound"].contains(&format!("unless on (Hostname, UUID) ({SM} < 0.5)")));
        assert!(e["memory_bound"].contains(">= 0.6) unless on (Hostname, UUID) ("));
        assert!(e["no_tensor"].contains("< 0.15)"));
        assert!(e["effective"].ends_with(&format!(
            "and on (Hostname, UUID) (({SM}) and on (Hostname, UUID) (last_over_time(DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{{cluster=\"a\"}}[59999ms]))))"
        )));
        assert_eq!(e.len(), 6);
        // no profiling metrics: rows 5-8 are skipped, everything busy is busy_unprofiled
        let bare = plan(false, false, false).class_expressions(&LeakThresholds::default());
        let names: Vec<&str> = bare.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["starved", "busy"]);
        // DRAM without tensor: memory-bound needs only the DRAM test
        let dram_only = plan(false, false, true).class_expressions(&LeakThresholds::default());
        assert!(dram_only.iter().any(|(n, e)| *n == "memory_bound"
            && e.ends_with(
                "(last_over_time(DCGM_FI_PROF_DRAM_ACTIVE{cluster=\"a\"}[59999ms]) >= 0.6))"
            )));
    }

    use crate::audit::diagnosis::leaks::LeakRow;

    fn row(rows: &[LeakRow], c: LeakClass) -> &LeakRow {
        rows.iter()
            .find(|r| r.class == c)
            .expect("every class is listed")
    }

    #[test]
    fn leak_classes_from_sums_by_hand() -> anyhow::Result<()> {
        let mut cfg = AuditConfig::new(PriceBook::new(Some(2.0), None, false)?);
        cfg.by = Some(GroupBy::Team);
        let mut aggs = Aggs::new();
        // 120 held GPU-minutes of one job: 30 idle, 30 starved, 60 busy of
        // which 10 underfilled, 5 memory-bound, 15 no-tensor, 20 effective
        let job = Agg {
            observed: 120.0,
            held: 120.0,
            idle: 30.0,
            starved: 30.0,
            busy: 60.0,
            underfilled: 10.0,
            memory_bound: 5.0,
            no_tensor: 15.0,
            effective: 20.0,
            ..Agg::default()
        };
        aggs.insert(("research".into(), "train-0".into(), "H100".into()), job);
        // 60 GPU-minutes nobody held
        let free = Agg {
            observed: 60.0,
            ..Agg::default()
        };
        aggs.insert((String::new(), String::new(), "H100".into()), free);
        let l = leaks_of(&aggs, &cfg, M);
        let h = |c| row(&l.classes, c).gpu_hours;
        assert_eq!(h(LeakClass::Unallocated), 1.0);
        assert_eq!(h(LeakClass::Unmeasured), 0.0);
        assert_eq!(h(LeakClass::Idle), 0.5);
        assert_eq!(h(LeakClass::Starved), 0.5);
        assert_eq!(h(LeakClass::Underfilled), 10.0 / 60.0);
        assert_eq!(h(LeakClass::MemoryBound), 5.0 / 60.0);
        assert_eq!(h(LeakClass::NoTensor), 0.25);
        assert_eq!(h(LeakClass::Effective), 20.0 / 60.0);
        // 60 busy - 50 tested = 10 minutes busy but unprofiled
        assert_eq!(h(LeakClass::BusyUnprofiled), 10.0 / 60.0);
        let idle = row(&l.classes, LeakClass::Idle);
        assert_eq!(idle.share_of_held, Some(0.25));
        assert_eq!(idle.share_of_observed, Some(30.0 / 180.0));
        assert_eq!(idle.usd, Some(1.0));
        assert_eq!(row(&l.classes, LeakClass::Unallocated).usd, Some(2.0));
        // the team first (held hours), then the unlabelled "-"; the job has held time only
        let groups: Vec<&str> = l.groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(groups, ["research", "-"]);
        assert_eq!(l.by.as_deref(), Some("team"));
        assert_eq!(l.jobs.len(), 1);
        assert_eq!(l.jobs[0].name, "train-0");
        assert_eq!(
            row(&l.jobs[0].classes(), LeakClass::Unallocated).gpu_hours,
            0.0
        );
        assert_eq!(
            row(&l.jobs[0].classes(), LeakClass::Idle).share_of_held,
            Some(0.25)
        );
        Ok(())
    }

    #[test]
    fn timeline_from_bucket_sums_by_hand() {
        // window [0, 12m), 5m buckets: [0,5m), [5m,10m) empty, [10m,12m) of 2 minutes
        let mut per_bucket = BTreeMap::new();
        per_bucket.insert(
            0,
            Agg {
                observed: 10.0,
                held: 5.0,
                active: 2.5,
                idle: 1.0,
                metric: sm_only(1.0),
                metric_known: sm_only(5.0),
                ..Agg::default()
            },
        );
        per_bucket.insert(
            2,
            Agg {
                observed: 2.0,
                held: 2.0,
                active: 1.0,
                ..Agg::default()
            },
        );
        let t = timeline_of(&per_bucket, &plan(true, false, false), 5 * M, (0, 12 * M));
        assert_eq!(t.bucket_seconds, 300.0);
        assert_eq!(t.buckets.len(), 3);
        assert_eq!(t.unobserved_buckets, 1);
        let b0 = &t.buckets[0];
        assert_eq!((b0.observed, b0.held, b0.unallocated), (2.0, 1.0, 1.0));
        assert_eq!(b0.active, Some(0.5));
        assert_eq!(b0.sm_active, Some(0.2));
        assert_eq!(b0.tensor_active, None, "no tensor metric: null, not 0");
        assert_eq!(b0.idle_held, Some(0.2));
        assert_eq!(b0.spare, Some(1.2));
        assert_eq!(t.buckets[1].active, None);
        let b2 = &t.buckets[2];
        assert_eq!(crate::timeparse::rfc3339(&b2.start), "1970-01-01T00:10:00Z");
        // 2 GPU-minutes in a 2-minute bucket: 1 GPU, half active; held without an SM reading
        assert_eq!((b2.observed, b2.held, b2.active), (1.0, 1.0, Some(0.5)));
        assert_eq!(b2.sm_active, None);
    }
}
