//! `--pushdown`: the layers computed inside Prometheus with PromQL, for fleets
//! too large to pull. Each layer is `sum_over_time` over a subquery that
//! evaluates a per-GPU expression at every step of the window (the same
//! evaluation times as pulled mode); only the sums per group come back.
//!
//! Where the answer can differ from the pulled one (also printed in the
//! report's notes, see `Note::PushdownCaveat`):
//! - weights: every evaluation point weighs exactly one step. Pulled mode
//!   weighs a sample by the time to the next one, up to max-gap (3 steps), so
//!   around a gap longer than the lookback a GPU counts up to 2 steps more
//!   there; `--max-gap` has no effect here.
//! - lookback: both modes read each series through `last_over_time(...[step])`,
//!   so neither repeats a stopped series over Prometheus's lookback (5m); a
//!   series scraped less often than --step has points only where it has
//!   samples, which pulled mode weighs by its own median step and pushdown by
//!   one --step (choose --step = the scrape interval).
//! - observed time is where DCGM_FI_DEV_GPU_UTIL has a point (pulled mode:
//!   any of the metrics); held comes from one owner label (pulled mode falls
//!   back from `exported_pod` to `pod` to `hpc_job` per series). The held,
//!   idle and exporter-pod tests are the plan's (`plan::rules`, written by
//!   `plan::promql`), the same the reader and the SQL plan apply.
//! - the query is also MetricsQL: VictoriaMetrics gives the same sums
//!   (docs/semantics.md §14).
//! - step alignment: evaluation times are multiples of --step, as in pulled mode;
//!   the last point before an unaligned --until weighs what is left of its step
//!   (pulled mode caps the last sample's weight at --until the same way).
//!
//! The timeline and the leak map (docs/semantics.md §10) come from the
//! same kind of sums: the timeline from one more pass of the layers' points
//! summed per bucket (a range query at the bucket step), the leak classes from
//! set operations per point ([`diagnosis`]). The node view and the jobs need
//! each host's and each job's samples per bucket: null, with a note.
use super::http::Client;
use super::live::{LiveQuery, metrics};
use super::{GPU_LABELS, HOST_LABELS};
use crate::audit::assemble::{Parts, assemble};
use crate::audit::model::{DataQuality, Note, Report, Sources, Warning};
use crate::audit::tally::{Basis, Present, Sum, Tally};
use crate::audit::{AuditConfig, GroupBy};
use crate::metric;
use crate::plan::promql::{self, Held};
use crate::timeparse::{US_PER_HOUR, format_time};
use anyhow::{Result, bail};
use std::collections::{BTreeMap, BTreeSet};

mod batches;
mod diagnosis;

// The caveat note itself: Note::PushdownCaveat (its text in render/notes.rs).

const UTIL: &str = "DCGM_FI_DEV_GPU_UTIL";
const FB: &str = "DCGM_FI_DEV_FB_USED";
/// Evaluation points (GPUs x steps) one subquery may touch: under Prometheus's
/// default --query.max-samples (50M) with room to spare.
const POINTS_PER_QUERY: i64 = 20_000_000;
/// Steps one subquery may evaluate per series: VictoriaMetrics refuses more
/// than 100,000 by default (-search.maxPointsSubqueryPerTimeseries, 1.80+).
const STEPS_PER_SUBQUERY: i64 = 100_000;

/// Sums per (group key, job, model).
type Aggs = BTreeMap<(String, String, String), Agg>;

/// Sums over the evaluation points of one (group key, job, model) or one
/// bucket: weighted point counts (a GPU at a point counts 1) and metric sums.
#[derive(Debug, Clone, Default)]
struct Agg {
    observed: f64,
    held: f64,
    active: f64,
    idle: f64,
    /// per registry ratio metric but device activity (by slot): the held
    /// points' values summed, and the held points that have one
    metric: [f64; metric::AUDITED],
    metric_known: [f64; metric::AUDITED],
    /// leak classes (§9) that are not differences of other sums
    busy: f64,
    starved: f64,
    underfilled: f64,
    memory_bound: f64,
    no_tensor: f64,
    effective: f64,
}

/// What a PromQL expression's points sum to: a named sum, or a registry
/// metric's values or known points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Named(&'static str),
    Metric(metric::Slot),
    Known(metric::Slot),
}

impl Agg {
    /// The sum an expression adds to.
    fn slot(&mut self, key: Key) -> &mut f64 {
        let name = match key {
            Key::Metric(s) => return &mut self.metric[s.0],
            Key::Known(s) => return &mut self.metric_known[s.0],
            Key::Named(name) => name,
        };
        match name {
            "observed" => &mut self.observed,
            "held" => &mut self.held,
            "active" => &mut self.active,
            "idle" => &mut self.idle,
            "busy" => &mut self.busy,
            "starved" => &mut self.starved,
            "underfilled" => &mut self.underfilled,
            "memory_bound" => &mut self.memory_bound,
            "no_tensor" => &mut self.no_tensor,
            _ => &mut self.effective,
        }
    }
}

fn first_present<'a>(names: &[String], candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .copied()
        .find(|c| names.iter().any(|n| n == c))
}

struct Plan {
    matchers: String,
    gpu_keys: Vec<String>,
    by_label: Option<String>,
    model_label: Option<String>,
    /// the owner label held is read from: it names the jobs of the leak map
    job_label: Option<String>,
    held: Held,
    step_us: i64,
    /// per registry slot, the series the fleet exports the metric as (None: not exported)
    series: [Option<&'static str>; metric::AUDITED],
}

/// Labels joined for `by (...)`, each once, in order.
fn key_list<'a>(labels: impl IntoIterator<Item = &'a String>) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for l in labels {
        if !seen.contains(&l.as_str()) {
            seen.push(l);
        }
    }
    seen.join(", ")
}

impl Plan {
    /// The series of registry metric `s` (None when the fleet does not export it).
    fn series(&self, s: metric::Slot) -> Option<&'static str> {
        self.series[s.0]
    }

    /// The series of `metric` at each point: the plan's point rule
    /// (`plan::promql::point`).
    fn sel(&self, metric: &str, extra: &str) -> String {
        promql::point(metric, &[self.matchers.as_str(), extra], self.step_us)
    }

    /// The series of `metric` at the points where its GPU is held: the
    /// plan's held rule (`plan::rules`) as PromQL.
    fn held(&self, metric: &str) -> String {
        promql::held(
            metric,
            &self.held,
            &|m, extra| self.sel(m, extra),
            &self.gpu_keys,
            FB,
        )
    }

    fn inner_keys(&self) -> String {
        key_list(self.gpu_keys.iter().chain(self.outer_labels()))
    }

    fn outer_labels(&self) -> impl Iterator<Item = &String> {
        self.by_label
            .iter()
            .chain(self.job_label.iter())
            .chain(self.model_label.iter())
    }

    fn outer_keys(&self) -> String {
        key_list(self.outer_labels())
    }

    /// The (group key, job, model) of one summed series.
    fn key_of(&self, labels: &BTreeMap<String, String>) -> (String, String, String) {
        let get = |l: &Option<String>| {
            l.as_ref()
                .and_then(|l| labels.get(l))
                .cloned()
                .unwrap_or_default()
        };
        (
            get(&self.by_label),
            get(&self.job_label),
            get(&self.model_label),
        )
    }

    /// Per-point expressions, by layer name.
    fn expressions(&self, idle_below: f64) -> Vec<(Key, String)> {
        let k = self.inner_keys();
        let named = [
            (
                "observed",
                format!("group by ({k}) ({})", self.sel(UTIL, "")),
            ),
            ("held", format!("group by ({k}) ({})", self.held(UTIL))),
            (
                "active",
                format!("max by ({k}) ({}) / 100", self.held(UTIL)),
            ),
            (
                "idle",
                format!(
                    "group by ({k}) ({})",
                    promql::idle(&self.held(UTIL), idle_below)
                ),
            ),
        ];
        let mut v: Vec<(Key, String)> =
            named.into_iter().map(|(n, e)| (Key::Named(n), e)).collect();
        // every registry ratio metric but device activity (held and active are read on UTIL)
        for i in (0..metric::AUDITED).filter(|&i| metric::IS_RATIO[i] && i != metric::DEVICE_UTIL.0)
        {
            let s = metric::Slot(i);
            if let Some(m) = self.series(s) {
                v.push((Key::Metric(s), format!("max by ({k}) ({})", self.held(m))));
                v.push((Key::Known(s), format!("group by ({k}) ({})", self.held(m))));
            }
        }
        v
    }
}

/// Compute the report inside Prometheus.
pub fn report(
    client: &mut Client,
    q: &LiveQuery,
    cfg: &AuditConfig,
    job_label: Option<&str>,
    team_label: Option<&str>,
) -> Result<Report> {
    let plan = plan_of(client, q, cfg, job_label, team_label)?;
    let gpu_count = count_gpus(client, q, &plan)?;
    let aggs = sum_points(client, q, cfg, &plan, gpu_count)?;
    if aggs.values().all(|a| a.observed == 0.0) {
        bail!(
            "Prometheus at {} has no {UTIL} points matching {} between {} and {}",
            client.base(),
            q.selector(&[UTIL], &[]),
            format_time(q.since_us),
            format_time(q.until_us)
        );
    }
    let timeline = timeline_of(client, q, cfg, &plan, gpu_count)?;
    let mut parts = parts_of(client, q, cfg, &plan, &aggs, gpu_count);
    parts.diagnosis = sections_of(cfg, q, &parts, &aggs, timeline);
    crate::audit::assemble::review_prices(&mut parts, cfg)?;
    Ok(assemble(parts, cfg))
}

/// The timeline's bucket: --bucket, else the engine's automatic rule on the
/// step (every GPU's points are --step apart here) and the window.
fn bucket_of(cfg: &AuditConfig, q: &LiveQuery) -> i64 {
    cfg.timeline
        .bucket_us
        .unwrap_or_else(|| crate::audit::diagnosis::auto_bucket(q.step_us, q.until_us - q.since_us))
}

/// The timeline from the layers' points summed per bucket; Err(reason) when
/// PromQL sums cannot give it exactly.
fn timeline_of(
    client: &mut Client,
    q: &LiveQuery,
    cfg: &AuditConfig,
    plan: &Plan,
    gpu_count: usize,
) -> Result<std::result::Result<crate::audit::diagnosis::Timeline, Note>> {
    let bucket = bucket_of(cfg, q);
    if bucket % q.step_us != 0 {
        return Ok(Err(Note::PushdownBucketNotStepMultiple {
            bucket_us: bucket,
            step_us: q.step_us,
        }));
    }
    let max_steps = (POINTS_PER_QUERY / (gpu_count.max(1) as i64)).clamp(1, STEPS_PER_SUBQUERY);
    let batches = batches::batches(q.since_us, q.until_us, q.step_us, bucket, max_steps);
    let mut per_bucket: BTreeMap<i64, Agg> = BTreeMap::new();
    // the waterfall's layers: the named sums and the metrics with a layer
    for (name, inner) in plan.expressions(cfg.idle.below) {
        let layer = match name {
            Key::Named(n) => ["observed", "held", "active", "idle"].contains(&n),
            Key::Metric(s) | Key::Known(s) => metric::AUDITED_DEFS[s.0].has_layer,
        };
        if !layer {
            continue;
        }
        batches::run(client, &inner, "", q.step_us, &batches, |t, _, v| {
            *per_bucket
                .entry(t.div_euclid(bucket))
                .or_default()
                .slot(name) += v;
        })?;
    }
    Ok(Ok(diagnosis::timeline_of(
        &per_bucket,
        plan,
        bucket,
        (q.since_us, q.until_us),
    )))
}

/// The diagnosis sections: the timeline and purchase answer (when the bucket
/// allows), the leak map; the node view and jobs null with the reason.
fn sections_of(
    cfg: &AuditConfig,
    q: &LiveQuery,
    parts: &Parts,
    aggs: &Aggs,
    timeline: std::result::Result<crate::audit::diagnosis::Timeline, Note>,
) -> crate::audit::diagnosis::Sections {
    let mut notes = vec![Note::NodesJobsNotWithPushdown];
    let window_hours = (q.until_us - q.since_us) as f64 / US_PER_HOUR;
    let mut demand = None;
    let (timeline, purchase) = match timeline {
        Ok(mut t) => {
            demand = cfg.purchase.queue.as_ref().map(|queue| {
                let window = (q.since_us, q.until_us);
                crate::audit::diagnosis::demand::fold_on_timeline(&queue.requests, &t, window)
            });
            if let Some(d) = &demand {
                t.set_pending(&d.pending_per_bucket);
            }
            let layers = parts.total.layers(&parts.present);
            let deepest = crate::audit::diagnosis::purchase::deepest_layer(&layers);
            // power is not pushed down: --own-cost prices capex only
            let own_cost = cfg
                .purchase
                .own_cost
                .as_ref()
                .map(|spec| crate::audit::diagnosis::purchase::OwnCostFigures::of(spec, None));
            let inputs = crate::audit::diagnosis::purchase::PurchaseInputs {
                gpus_seen: parts.gpu_count,
                deepest_layer: deepest,
                window_hours,
                want: cfg.purchase.want,
                min_window_hours: cfg.purchase.min_window_hours,
                observed_gpu_hours: layers.observed_gpu_hours,
                held_known_gpu_hours: layers.held_gpu_hours + layers.unallocated_gpu_hours,
                usd_per_gpu_hour: crate::audit::engine::mean_price(&parts.total),
                own_cost: own_cost.as_ref(),
            };
            let p = crate::audit::diagnosis::purchase(&t, &inputs, demand.as_ref());
            (Some(t), Some(p))
        }
        Err(note) => {
            notes.push(note);
            (None, None)
        }
    };
    crate::audit::diagnosis::Sections {
        timeline,
        purchase,
        demand,
        leaks: Some(diagnosis::leaks_of(aggs, cfg, q.step_us)),
        notes,
        ..Default::default()
    }
}

/// The GPU key labels of the util series: host (when any), GPU, MIG instance.
fn gpu_keys_of(labels: &[String], client: &Client) -> Result<Vec<String>> {
    let mut gpu_keys: Vec<String> = Vec::new();
    gpu_keys.extend(first_present(labels, HOST_LABELS).map(str::to_string));
    let gpu_label = first_present(labels, GPU_LABELS).map(str::to_string);
    gpu_keys.extend(gpu_label.clone());
    if labels.iter().any(|l| l == "GPU_I_ID") {
        gpu_keys.push("GPU_I_ID".to_string());
    }
    if gpu_label.is_none() {
        bail!(
            "Prometheus at {}: the {UTIL} series have no GPU label (expected UUID or gpu)",
            client.base()
        );
    }
    Ok(gpu_keys)
}

/// The label `--by` groups on (None without --by, or --by host without a host label).
fn by_label_of(
    cfg: &AuditConfig,
    gpu_keys: &[String],
    model_label: &Option<String>,
    job: &Option<String>,
    team: &Option<String>,
) -> Result<Option<String>> {
    Ok(match cfg.by {
        None => None,
        Some(GroupBy::Host) => gpu_keys
            .first()
            .cloned()
            .filter(|h| HOST_LABELS.contains(&h.as_str())),
        Some(GroupBy::Model) => model_label.clone(),
        Some(GroupBy::Job) => job.clone(),
        Some(GroupBy::Team) => team.clone(),
        Some(GroupBy::User) => {
            bail!("--by user is not available with --pushdown (DCGM series carry no user label)")
        }
    })
}

/// What to ask Prometheus, from the metrics and labels it has.
fn plan_of(
    client: &mut Client,
    q: &LiveQuery,
    cfg: &AuditConfig,
    job_label: Option<&str>,
    team_label: Option<&str>,
) -> Result<Plan> {
    let last = q.last_point_us();
    let present_metrics =
        client.label_values("__name__", &q.selector(&metrics(), &[]), q.since_us, last)?;
    let has = |m: &str| present_metrics.iter().any(|p| p == m);
    if !has(UTIL) {
        bail!(
            "Prometheus at {} has no {UTIL} series matching {} between {} and {} (--pushdown measures time on it; check --selector and the time range)",
            client.base(),
            q.selector(&[UTIL], &[]),
            format_time(q.since_us),
            format_time(q.until_us)
        );
    }
    // a layer's series: the first of the registry's DCGM names the fleet exports
    let pick = |s: metric::Slot| metric::AUDITED_DEFS[s.0].promql_name(&has);
    let util_sel = q.selector(&[UTIL], &[]);
    let labels = client.label_names(&util_sel, q.since_us, last)?;
    let gpu_keys = gpu_keys_of(&labels, client)?;
    let job = match job_label {
        Some(l) => Some(l.to_string()),
        None => first_present(&labels, &["exported_pod", "pod", "hpc_job"]).map(str::to_string),
    };
    let held = match (&job, has(FB)) {
        // the reader reads the container label beside a pod label unless --job-label names it
        (Some(j), _) => Held::Owner {
            label: j.clone(),
            container: job_label.is_none(),
        },
        (None, true) => Held::Rule(crate::audit::HeldRule::Memory(cfg.held.mem_bytes)),
        (None, false) if cfg.held.assume => Held::Rule(crate::audit::HeldRule::Assumed),
        (None, false) => bail!(
            "Prometheus at {}: cannot tell which GPUs are held: the series have no owner label (exported_pod, pod, hpc_job; or --job-label) and there is no {FB}; pass --assume-held",
            client.base()
        ),
    };
    let team = team_label
        .map(str::to_string)
        .or_else(|| match job.as_deref() {
            Some("exported_pod") => Some("exported_namespace".to_string()),
            _ => first_present(&labels, &["exported_namespace", "namespace"]).map(str::to_string),
        });
    let model_label = first_present(&labels, &["modelName", "model"]).map(str::to_string);
    let by_label = by_label_of(cfg, &gpu_keys, &model_label, &job, &team)?;
    Ok(Plan {
        matchers: q.matchers.clone(),
        gpu_keys,
        by_label: by_label.filter(|b| Some(b) != model_label.as_ref()),
        model_label,
        job_label: match &held {
            Held::Owner { label, .. } => Some(label.clone()),
            Held::Rule(_) => None,
        },
        held,
        step_us: q.step_us,
        series: std::array::from_fn(|i| pick(metric::Slot(i))),
    })
}

/// The GPUs in the window (the util series' GPU keys).
fn count_gpus(client: &mut Client, q: &LiveQuery, plan: &Plan) -> Result<usize> {
    let series = client.series(&q.selector(&[UTIL], &[]), q.since_us, q.last_point_us())?;
    let gpus: BTreeSet<Vec<String>> = series
        .iter()
        .map(|s| {
            plan.gpu_keys
                .iter()
                .map(|k| s.get(k).cloned().unwrap_or_default())
                .collect()
        })
        .collect();
    Ok(gpus.len())
}

/// Every layer's and leak class's points summed per (group key, job, model)
/// over the window, in time chunks that keep each answer small.
fn sum_points(
    client: &mut Client,
    q: &LiveQuery,
    cfg: &AuditConfig,
    plan: &Plan,
    gpu_count: usize,
) -> Result<Aggs> {
    let steps_per_chunk = (POINTS_PER_QUERY / (gpu_count.max(1) as i64))
        .min(STEPS_PER_SUBQUERY)
        .clamp(1, q.points());
    // chunks as buckets of steps_per_chunk steps: one instant query each
    let batches = batches::batches(
        q.since_us,
        q.until_us,
        q.step_us,
        steps_per_chunk * q.step_us,
        steps_per_chunk,
    );
    let mut aggs = Aggs::new();
    let outer = plan.outer_keys();
    let mut expressions = plan.expressions(cfg.idle.below);
    let classes = plan.class_expressions(&diagnosis::thresholds_of(cfg));
    expressions.extend(classes.into_iter().map(|(n, e)| (Key::Named(n), e)));
    for (name, inner) in expressions {
        batches::run(
            client,
            &inner,
            &outer,
            q.step_us,
            &batches,
            |_, labels, v| {
                *aggs.entry(plan.key_of(labels)).or_default().slot(name) += v;
            },
        )?;
    }
    Ok(aggs)
}

/// The report's parts from the sums.
fn parts_of(
    client: &Client,
    q: &LiveQuery,
    cfg: &AuditConfig,
    plan: &Plan,
    aggs: &Aggs,
    gpu_count: usize,
) -> Parts {
    let present = Present {
        device_util: true,
        sm_active: plan.series(metric::SM_ACTIVE).is_some(),
        tensor_active: plan.series(metric::TENSOR_ACTIVE).is_some(),
        useful: false,
    };
    let held_rule = match &plan.held {
        Held::Owner { label, .. } => crate::audit::model::HeldBasis::PromLabel(label.clone()),
        Held::Rule(rule) => rule.promql_basis(),
    };
    let mut notes = vec![
        Note::PushdownCaveat,
        Note::PushdownQueried {
            query: q.query_of(client.base()),
            requests: client.requests,
        },
    ];
    if let Some(b) = &plan.by_label {
        notes.push(Note::GroupsFromLabel { label: b.clone() });
    }
    if let Some(queue) = &cfg.purchase.queue {
        notes.extend(queue.notes.iter().cloned());
    }
    let warnings = client
        .warnings
        .iter()
        .map(|w| Warning::PrometheusWarned { text: w.clone() })
        .collect();
    let sums = sums_of(aggs, cfg, q.step_us, present.basis());
    Parts {
        window_start: q.since_us,
        window_end: q.until_us,
        snapshot: false,
        sources: Sources {
            files: vec![client.base().to_string()],
            rows_read: 0,
            rows_used: 0,
            text_rows_streamed: None,
        },
        held_rule,
        present,
        total: sums.total,
        unpriced_models: sums.unpriced_models.into_iter().collect(),
        groups: cfg.by.map(|by| (by, sums.groups.into_iter().collect())),
        // no idle episodes or per-GPU rows from sums (CAVEAT)
        episodes: Vec::new(),
        gpus: Vec::new(),
        gpu_count,
        // vendor lines count GPUs per family: no per-GPU rows from sums
        vendors: Vec::new(),
        model_hours: sums.model_hours,
        quality: DataQuality {
            notes,
            warnings,
            ..DataQuality::default()
        },
        note_unmeasured_basis: false,
        // filled by sections_of from the same sums and the per-bucket pass
        diagnosis: crate::audit::diagnosis::Sections::default(),
    }
}

/// The tally of one (group, model) sum: each point weighs one step.
fn tally_of(a: &Agg, step_us: i64, price: Option<f64>, basis: Basis) -> Tally {
    let h = |n: f64| n * step_us as f64 / US_PER_HOUR;
    let ticks = |n: f64| (n * step_us as f64).round() as i64;
    let p = price.unwrap_or(0.0);
    let (observed_h, held_h) = (h(a.observed), h(a.held));
    let fraction_h = match basis.slot() {
        Some(s) if s != metric::DEVICE_UTIL => h(a.metric[s.0]),
        _ => h(a.active),
    };
    let mut t = Tally {
        observed_us: ticks(a.observed),
        held_us: ticks(a.held),
        idle_held_us: ticks(a.idle),
        unpriced_us: if price.is_none() {
            ticks(a.observed)
        } else {
            0
        },
        observed_usd: Sum::from(observed_h * p),
        held_usd: Sum::from(held_h * p),
        idle_held_usd: Sum::from(h(a.idle) * p),
        unallocated_usd: Sum::from((observed_h - held_h) * p),
        basis_usd: Sum::from(fraction_h * p),
        priced_rows: u64::from(price.is_some()),
        ..Tally::default()
    };
    // the registry's ratio metrics: device activity over every held point
    // (held is read on UTIL), the others over the points that have a value
    for i in (0..metric::AUDITED).filter(|&i| metric::IS_RATIO[i]) {
        let (busy, known) = if i == metric::DEVICE_UTIL.0 {
            (a.active, a.held)
        } else {
            (a.metric[i], a.metric_known[i])
        };
        t.set_metric(metric::Slot(i), h(busy), h(known), p);
    }
    t
}

/// The Prometheus sums in the audit's tallies: the fleet, the --by groups
/// (an empty owner label splits into unlabelled and unallocated, as the
/// engine's groups do), the unpriced models and the hours per model.
struct Sums {
    total: Tally,
    groups: BTreeMap<String, Tally>,
    unpriced_models: BTreeSet<String>,
    model_hours: Vec<(Option<String>, f64)>,
}

fn sums_of(aggs: &Aggs, cfg: &AuditConfig, step_us: i64, basis: Basis) -> Sums {
    let mut sums = Sums {
        total: Tally::default(),
        groups: BTreeMap::new(),
        unpriced_models: BTreeSet::new(),
        model_hours: Vec::new(),
    };
    let mut model_hours: BTreeMap<Option<String>, f64> = BTreeMap::new();
    for ((group, _job, model), a) in aggs {
        // --by model: the model label is the group (it is not a by_label of its own)
        let key = if cfg.by == Some(GroupBy::Model) {
            model
        } else {
            group
        };
        let m = (!model.is_empty()).then_some(model.as_str());
        let price = cfg.prices.price_of(m);
        if price.is_none() {
            sums.unpriced_models
                .insert(m.unwrap_or("(no model)").to_string());
        }
        let t = tally_of(a, step_us, price, basis);
        *model_hours.entry(m.map(str::to_string)).or_default() += t.observed_h();
        sums.total.merge(&t);
        if cfg.by.is_none() {
            continue;
        }
        if key.is_empty() {
            let held = Agg {
                observed: a.held,
                ..a.clone()
            };
            let rest = Agg {
                observed: a.observed - a.held,
                ..Agg::default()
            };
            for (name, part) in [("(unlabelled)", held), ("(unallocated)", rest)] {
                sums.groups
                    .entry(name.into())
                    .or_default()
                    .merge(&tally_of(&part, step_us, price, basis));
            }
        } else {
            sums.groups.entry(key.clone()).or_default().merge(&t);
        }
    }
    sums.groups.retain(|_, t| t.observed_us > 0);
    sums.model_hours = model_hours.into_iter().collect();
    sums
}

#[cfg(test)]
impl Plan {
    /// The plan with registry metric `s` exported as `series`.
    fn with(mut self, s: metric::Slot, series: &'static str) -> Self {
        self.series[s.0] = Some(series);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(label: &str) -> Held {
        Held::Owner {
            label: label.into(),
            container: true,
        }
    }

    fn plan(held: Held) -> Plan {
        Plan {
            matchers: "cluster=\"a\"".into(),
            gpu_keys: vec!["Hostname".into(), "UUID".into()],
            by_label: Some("exported_namespace".into()),
            model_label: Some("modelName".into()),
            job_label: None,
            held,
            step_us: 60_000_000,
            series: [None; metric::AUDITED],
        }
        .with(metric::SM_ACTIVE, "DCGM_FI_PROF_SM_ACTIVE")
    }

    /// Every registry ratio metric is summed in the PromQL plan when the fleet
    /// exports it, read from the registry's DCGM name (device activity from UTIL).
    #[test]
    fn every_registry_ratio_metric_is_in_the_promql_plan() {
        let all = |_: &str| true;
        let pick = |s: metric::Slot| metric::AUDITED_DEFS[s.0].promql_name(&all);
        let p = Plan {
            series: std::array::from_fn(|i| pick(metric::Slot(i))),
            ..plan(owner("exported_pod"))
        };
        let text: String = p
            .expressions(0.01)
            .into_iter()
            .map(|(_, e)| e)
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            metric::AUDITED_DEFS[metric::DEVICE_UTIL.0].dcgm_exporter()[0],
            UTIL
        );
        for m in metric::AUDITED_DEFS.iter().filter(|m| m.ratio.is_some()) {
            let name = m.dcgm_exporter()[0];
            assert!(
                text.contains(&format!("{name}{{")),
                "{name} not in the plan:\n{text}"
            );
        }
        let fb = metric::by_name("mem_used_bytes").map(|m| m.dcgm_exporter()[0]);
        assert_eq!(fb, Some(FB));
    }

    #[test]
    fn promql_per_layer() {
        let p = plan(owner("exported_pod"));
        let e: BTreeMap<&str, String> = p
            .expressions(0.01)
            .into_iter()
            .map(|(k, e)| match k {
                Key::Named(n) => (n, e),
                Key::Metric(s) => (metric::AUDITED_DEFS[s.0].name, e),
                Key::Known(_) => ("known", e),
            })
            .collect();
        let held = "last_over_time(DCGM_FI_DEV_GPU_UTIL{cluster=\"a\", exported_pod!=\"\", exported_pod!~\"(?i).*(dcgm-exporter|dcgm_exporter|metrics-exporter).*\", exported_container!~\"(?i).*(dcgm-exporter|dcgm_exporter|metrics-exporter).*\"}[59999ms])";
        assert_eq!(
            e["held"],
            format!("group by (Hostname, UUID, exported_namespace, modelName) ({held})")
        );
        assert_eq!(
            e["idle"],
            format!(
                "group by (Hostname, UUID, exported_namespace, modelName) (({held}) * 0.01 < 0.01)"
            )
        );
        assert!(e["sm_active"].starts_with("max by (Hostname, UUID, exported_namespace, modelName) (last_over_time(DCGM_FI_PROF_SM_ACTIVE{"));
        assert!(!e.contains_key("tensor_active"));
        // the exporter's own pod: the markers the reader skips it by
        let pod = plan(owner("pod"));
        assert!(pod.held(UTIL).contains(
            "pod!=\"\", pod!~\"(?i).*(dcgm-exporter|dcgm_exporter|metrics-exporter).*\", container!~"
        ));
        let m = plan(Held::Rule(crate::audit::HeldRule::Memory(1 << 30)));
        assert_eq!(
            m.held(UTIL),
            "(last_over_time(DCGM_FI_DEV_GPU_UTIL{cluster=\"a\"}[59999ms]) and on (Hostname, UUID) (last_over_time(DCGM_FI_DEV_FB_USED{cluster=\"a\"}[59999ms]) * 1048576 > 1073741824.0))"
        );
    }
}
