//! Jobs: shape of demand and effective training time (diagnosis-semantics.md
//! §12, docs/semantics-jobs.md). [`JobsFold`] keeps, per job, one small cell
//! per (bucket, GPU) it held plus O(1) totals, so its memory grows with jobs ×
//! buckets × the job's GPUs, never with samples; [`JobsFold::finish`] turns
//! that into a row per job, the findings and the declared-kind disagreements.
use super::findings::{self, Finding, GangMember, Sizing};
use super::percentile;
use crate::audit::interval::{Fold, Interval, Names, TICKS_PER_HOUR, split_at_buckets};
use crate::audit::tally::Sum;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// What the report says next to ETT.
pub const ETT_NOTE: &str = "ETT is a telemetry proxy for Meta's effective training time: the share of a training job's span in which its GPUs were as busy as usual (≥ 95% of its p90), not a measurement of training steps";

// §12 thresholds, in the order the shape rules read them.
const IDLE_SHAPE_IDLE_SHARE: f64 = 0.80;
const TRAINING_MIN_GANG: usize = 2;
const TRAINING_SYNCHRONY: f64 = 0.90;
const TRAINING_ACTIVE_SHARE: f64 = 0.50;
const INFERENCE_PRESENCE: f64 = 0.80;
const INFERENCE_ACTIVITY_CV: f64 = 0.30;
const INTERACTIVE_IDLE_SHARE: f64 = 0.30;
const INTERACTIVE_MAX_GANG: usize = 8;
const BATCH_SPAN_SHARE: f64 = 0.80;
/// a bucket is synchronous when this share of the job's held GPUs agree
const SYNCHRONOUS_GPUS: f64 = 0.90;
/// ETT: the percentile of active GPUs taken as the job's usual
const ETT_REF_PERCENT: u32 = 90;
/// ETT: a bucket progresses at this share of the usual
const ETT_PROGRESS_SHARE: f64 = 0.95;

/// The shape of a job's demand (§12), or the kind `--jobs` declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    Idle,
    Training,
    Inference,
    Interactive,
    Batch,
    Unknown,
}

impl Shape {
    pub const ALL: [Shape; 6] = [
        Shape::Idle,
        Shape::Training,
        Shape::Inference,
        Shape::Interactive,
        Shape::Batch,
        Shape::Unknown,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Idle => "idle",
            Shape::Training => "training",
            Shape::Inference => "inference",
            Shape::Interactive => "interactive",
            Shape::Batch => "batch",
            Shape::Unknown => "unknown",
        }
    }

    /// A declared kind as `--jobs` spells it (case and spaces ignored).
    pub fn parse(s: &str) -> Option<Shape> {
        let s = s.trim().to_ascii_lowercase();
        Shape::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// What `--jobs` declares about a job that this section reads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Declared {
    pub kind: Option<Shape>,
    /// the job's MFU where `--jobs` declares its work (audit::mfu), copied to the row
    pub mfu: Option<f64>,
}

/// One job's row (JSON `jobs[]`). Shares are fractions 0..1; None where not measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobRow {
    pub job: String,
    /// the declared kind where there is one, else the inferred shape
    pub shape: Shape,
    pub inferred_shape: Shape,
    pub declared_kind: Option<Shape>,
    pub gpus: usize,
    pub hosts: usize,
    pub gang: usize,
    pub span_hours: f64,
    pub presence: Option<f64>,
    pub held_gpu_hours: f64,
    pub idle_held_gpu_hours: f64,
    pub idle_share: Option<f64>,
    pub active_share: Option<f64>,
    pub sm_active_share: Option<f64>,
    pub tensor_active_share: Option<f64>,
    pub activity_cv: Option<f64>,
    pub synchrony: Option<f64>,
    /// training jobs only (shape or declared kind)
    pub ett: Option<f64>,
    pub interruptions: Option<usize>,
    pub mtbi_hours: Option<f64>,
    pub mean_recovery_hours: Option<f64>,
    pub mfu: Option<f64>,
    /// the model the job ran on when it ran on one
    pub model: Option<String>,
    pub usd: Option<f64>,
}

/// A job whose declared kind is not the shape its telemetry shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disagreement {
    pub job: String,
    pub declared_kind: Shape,
    pub inferred_shape: Shape,
}

/// The jobs section: rows by dollars (then held hours), findings by dollars.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobsSection {
    pub jobs: Vec<JobRow>,
    pub findings: Vec<Finding>,
    pub disagreements: Vec<Disagreement>,
    pub ett_note: &'static str,
}

/// One job on one GPU in one bucket. Weights in ticks; `active` is Σ ticks × device_util.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Cell {
    held: i64,
    idle: i64,
    active: f64,
    idle_usd: f64,
}

impl Cell {
    /// The GPU's majority state in the bucket: idle when more than half its held weight was idle.
    fn idle_majority(&self) -> bool {
        2 * self.idle > self.held
    }

    fn merge(&mut self, o: &Cell) {
        self.held += o.held;
        self.idle += o.idle;
        self.active += o.active;
        self.idle_usd += o.idle_usd;
    }
}

/// Everything kept for one job.
#[derive(Debug, Clone)]
struct JobState {
    cells: HashMap<(i64, usize), Cell>,
    first_held: i64,
    last_end: i64,
    hosts: Vec<u32>,
    /// held ticks per model id
    models: Vec<(Option<u32>, i64)>,
    held: i64,
    idle: i64,
    util_known: i64,
    active: Sum,
    sm_known: i64,
    sm: Sum,
    tensor_known: i64,
    tensor: Sum,
    priced: i64,
    usd: Sum,
    sizing: Sizing,
}

impl Default for JobState {
    fn default() -> Self {
        JobState {
            cells: HashMap::new(),
            first_held: i64::MAX,
            last_end: i64::MIN,
            hosts: Vec::new(),
            models: Vec::new(),
            held: 0,
            idle: 0,
            util_known: 0,
            active: Sum::default(),
            sm_known: 0,
            sm: Sum::default(),
            tensor_known: 0,
            tensor: Sum::default(),
            priced: 0,
            usd: Sum::default(),
            sizing: Sizing::default(),
        }
    }
}

/// Add `ticks` to the entry for `key` in a short list (hosts, models: a job has few).
fn bump<K: PartialEq + Copy>(list: &mut Vec<(K, i64)>, key: K, ticks: i64) {
    match list.iter_mut().find(|(k, _)| *k == key) {
        Some((_, t)) => *t += ticks,
        None => list.push((key, ticks)),
    }
}

impl JobState {
    fn add(&mut self, iv: &Interval, bucket: i64) {
        let w = iv.weight;
        self.first_held = self.first_held.min(iv.start);
        self.last_end = self.last_end.max(iv.end());
        if !self.hosts.contains(&iv.host) {
            self.hosts.push(iv.host);
        }
        bump(&mut self.models, iv.model, w);
        self.held += w;
        if iv.idle {
            self.idle += w;
        }
        let wf = w as f64;
        if let Some(u) = iv.device_util {
            self.util_known += w;
            self.active.add(wf * u);
        }
        if let Some(s) = iv.sm_active {
            self.sm_known += w;
            self.sm.add(wf * s);
        }
        if let Some(t) = iv.tensor_active {
            self.tensor_known += w;
            self.tensor.add(wf * t);
        }
        if let Some(p) = iv.price {
            self.priced += w;
            self.usd.add(wf / TICKS_PER_HOUR * p);
        }
        self.sizing.add(iv.device_util, iv.sm_active, iv.mem_used);
        for (k, part) in split_at_buckets(iv.start, w, bucket) {
            let c = self.cells.entry((k, iv.gpu)).or_default();
            c.held += part;
            if iv.idle {
                c.idle += part;
                c.idle_usd += iv.price.map_or(0.0, |p| part as f64 / TICKS_PER_HOUR * p);
            }
            if let Some(u) = iv.device_util {
                c.active += part as f64 * u;
            }
        }
    }

    fn merge(&mut self, o: JobState) {
        for (key, c) in o.cells {
            self.cells.entry(key).or_default().merge(&c);
        }
        self.first_held = self.first_held.min(o.first_held);
        self.last_end = self.last_end.max(o.last_end);
        for h in o.hosts {
            if !self.hosts.contains(&h) {
                self.hosts.push(h);
            }
        }
        for (m, t) in o.models {
            bump(&mut self.models, m, t);
        }
        self.held += o.held;
        self.idle += o.idle;
        self.util_known += o.util_known;
        self.active.merge(&o.active);
        self.sm_known += o.sm_known;
        self.sm.merge(&o.sm);
        self.tensor_known += o.tensor_known;
        self.tensor.merge(&o.tensor);
        self.priced += o.priced;
        self.usd.merge(&o.usd);
        self.sizing.merge(&o.sizing);
    }

    fn usd(&self) -> Option<f64> {
        (self.priced > 0).then(|| self.usd.get())
    }
}

/// The jobs fold: every held interval that carries a job.
#[derive(Debug, Clone)]
pub struct JobsFold {
    bucket_ticks: i64,
    window_start: i64,
    window_end: i64,
    declared: BTreeMap<String, Declared>,
    index: HashMap<u32, usize>,
    jobs: Vec<(u32, JobState)>,
}

impl JobsFold {
    /// `bucket_ticks` is B of §8 (> 0); the window is [start, end) in ticks;
    /// `declared` is keyed by job name as the samples' job column has it.
    pub fn new(
        bucket_ticks: i64,
        window_start: i64,
        window_end: i64,
        declared: BTreeMap<String, Declared>,
    ) -> Self {
        JobsFold {
            bucket_ticks: bucket_ticks.max(1),
            window_start,
            window_end,
            declared,
            index: HashMap::new(),
            jobs: Vec::new(),
        }
    }

    fn state(&mut self, job: u32) -> &mut JobState {
        let at = *self.index.entry(job).or_insert_with(|| {
            self.jobs.push((job, JobState::default()));
            self.jobs.len() - 1
        });
        &mut self.jobs[at].1
    }
}

impl Fold for JobsFold {
    fn add(&mut self, iv: &Interval) {
        if !iv.held {
            return;
        }
        let Some(job) = iv.job else { return };
        let bucket = self.bucket_ticks;
        self.state(job).add(iv, bucket);
    }

    fn merge(&mut self, other: Self) {
        for (job, s) in other.jobs {
            self.state(job).merge(s);
        }
    }
}

/// A bucket of one job: its GPUs' cells.
type Buckets = BTreeMap<i64, Vec<(usize, Cell)>>;

/// The features §12 computes from a job's buckets.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Features {
    gpus: usize,
    gang: usize,
    span: i64,
    presence: Option<f64>,
    idle_share: Option<f64>,
    active_share: Option<f64>,
    activity_cv: Option<f64>,
    synchrony: Option<f64>,
}

/// The first shape rule of §12 that holds.
fn infer_shape(f: &Features, window: i64) -> Shape {
    let idle_share = f.idle_share.unwrap_or(0.0);
    if idle_share >= IDLE_SHAPE_IDLE_SHARE {
        return Shape::Idle;
    }
    if f.gang >= TRAINING_MIN_GANG
        && f.synchrony.is_some_and(|s| s >= TRAINING_SYNCHRONY)
        && f.active_share.is_some_and(|a| a >= TRAINING_ACTIVE_SHARE)
    {
        return Shape::Training;
    }
    if f.presence.is_some_and(|p| p >= INFERENCE_PRESENCE)
        && f.activity_cv.is_some_and(|cv| cv >= INFERENCE_ACTIVITY_CV)
    {
        return Shape::Inference;
    }
    if idle_share >= INTERACTIVE_IDLE_SHARE && f.gang <= INTERACTIVE_MAX_GANG {
        return Shape::Interactive;
    }
    if window > 0 && (f.span as f64) < BATCH_SPAN_SHARE * window as f64 {
        return Shape::Batch;
    }
    Shape::Unknown
}

/// Effective training time of one job (§12).
#[derive(Debug, Clone, Default, PartialEq)]
struct Ett {
    ett: Option<f64>,
    interruptions: usize,
    mtbi_hours: f64,
    mean_recovery_hours: Option<f64>,
    /// the progressing buckets, for gang_member_idle
    progressing: Vec<i64>,
}

impl JobsFold {
    /// len(b): the part of bucket k inside the window (the whole bucket where
    /// the window does not cover it: such samples are the engine's to drop).
    fn bucket_len(&self, k: i64) -> i64 {
        let (lo, hi) = (k * self.bucket_ticks, (k + 1) * self.bucket_ticks);
        let len = hi.min(self.window_end) - lo.max(self.window_start);
        if len > 0 { len } else { self.bucket_ticks }
    }

    fn features(&self, s: &JobState, buckets: &Buckets) -> Features {
        let mut gpus: Vec<usize> = buckets.values().flatten().map(|(g, _)| *g).collect();
        gpus.sort_unstable();
        gpus.dedup();
        let span = (s.last_end - s.first_held).max(0);
        let window = self.window_end - self.window_start;
        let gang = buckets.values().map(Vec::len).max().unwrap_or(0);
        let share = |num: f64, den: i64| (den > 0).then(|| num / den as f64);
        // active GPUs per present bucket: Σ ticks × util ÷ len(b)
        let activity: Vec<f64> = buckets
            .iter()
            .map(|(k, cells)| {
                cells.iter().map(|(_, c)| c.active).sum::<f64>() / self.bucket_len(*k) as f64
            })
            .collect();
        let activity_cv = (s.util_known > 0 && !activity.is_empty()).then(|| {
            let n = activity.len() as f64;
            let mean = activity.iter().sum::<f64>() / n;
            let var = activity.iter().map(|a| (a - mean).powi(2)).sum::<f64>() / n;
            if mean > 0.0 { var.sqrt() / mean } else { 0.0 }
        });
        let synchronous = buckets
            .values()
            .filter(|cells| {
                let idle = cells.iter().filter(|(_, c)| c.idle_majority()).count();
                let same = idle.max(cells.len() - idle);
                same as f64 >= SYNCHRONOUS_GPUS * cells.len() as f64
            })
            .count();
        Features {
            gpus: gpus.len(),
            gang,
            span,
            presence: share(span as f64, window),
            idle_share: share(s.idle as f64, s.held),
            active_share: share(s.active.get(), s.util_known),
            activity_cv,
            synchrony: (gang >= TRAINING_MIN_GANG)
                .then(|| synchronous as f64 / buckets.len().max(1) as f64),
        }
    }

    /// ETT over the job's span: buckets of the span in order, progressing or not.
    fn ett(&self, s: &JobState, buckets: &Buckets) -> Ett {
        let (from, to) = (s.first_held, s.last_end);
        if to <= from {
            return Ett::default();
        }
        let b = self.bucket_ticks;
        let in_span = |k: i64| ((k + 1) * b).min(to) - (k * b).max(from);
        let active_gpus = |k: i64, cells: &Vec<(usize, Cell)>| {
            let non_idle: i64 = cells.iter().map(|(_, c)| c.held - c.idle).sum();
            non_idle as f64 / in_span(k).max(1) as f64
        };
        let mut present: Vec<f64> = buckets.iter().map(|(k, c)| active_gpus(*k, c)).collect();
        let reference = percentile(&mut present, ETT_REF_PERCENT).unwrap_or(0.0);
        let mut out = Ett::default();
        let (mut progressing_ticks, mut recovery_ticks) = (0i64, 0i64);
        let (mut seen_progress, mut previous_progressing) = (false, false);
        for k in from.div_euclid(b)..=(to - 1).div_euclid(b) {
            // a bucket of the span without the job's held weight makes no progress
            let progressing = reference > 0.0
                && buckets
                    .get(&k)
                    .is_some_and(|c| active_gpus(k, c) >= ETT_PROGRESS_SHARE * reference);
            if progressing {
                progressing_ticks += in_span(k);
                out.progressing.push(k);
                seen_progress = true;
            } else if seen_progress {
                out.interruptions += usize::from(previous_progressing);
                recovery_ticks += in_span(k);
            }
            previous_progressing = progressing;
        }
        // a run that never started after progress is not an interruption
        out.ett = Some(progressing_ticks as f64 / (to - from) as f64);
        out.mtbi_hours =
            progressing_ticks as f64 / TICKS_PER_HOUR / out.interruptions.max(1) as f64;
        out.mean_recovery_hours = (out.interruptions > 0)
            .then(|| recovery_ticks as f64 / TICKS_PER_HOUR / out.interruptions as f64);
        out
    }
}

impl JobsFold {
    /// The section: a row per job, findings, and the jobs whose declared kind
    /// is not their inferred shape.
    pub fn finish(&self, names: &dyn Names) -> JobsSection {
        let mut jobs = Vec::with_capacity(self.jobs.len());
        let mut found = Vec::new();
        let mut disagreements = Vec::new();
        for (id, s) in &self.jobs {
            let name = names.label(*id).to_string();
            let (row, mut job_findings) = self.job_row(&name, s, names);
            if let Some(declared) = row.declared_kind.filter(|d| *d != row.inferred_shape) {
                disagreements.push(Disagreement {
                    job: name.clone(),
                    declared_kind: declared,
                    inferred_shape: row.inferred_shape,
                });
            }
            jobs.push(row);
            found.append(&mut job_findings);
        }
        let by_usd =
            |a: Option<f64>, b: Option<f64>| b.unwrap_or(-1.0).total_cmp(&a.unwrap_or(-1.0));
        jobs.sort_by(|a, b| {
            by_usd(a.usd, b.usd)
                .then(b.held_gpu_hours.total_cmp(&a.held_gpu_hours))
                .then_with(|| a.job.cmp(&b.job))
        });
        found.sort_by(|a, b| {
            by_usd(a.usd, b.usd)
                .then(b.gpu_hours.total_cmp(&a.gpu_hours))
                .then_with(|| (a.kind, &a.job).cmp(&(b.kind, &b.job)))
        });
        disagreements.sort_by(|a, b| a.job.cmp(&b.job));
        JobsSection {
            jobs,
            findings: found,
            disagreements,
            ett_note: ETT_NOTE,
        }
    }

    /// One job's row and findings.
    fn job_row(&self, name: &str, s: &JobState, names: &dyn Names) -> (JobRow, Vec<Finding>) {
        let mut buckets: Buckets = BTreeMap::new();
        for (&(k, gpu), c) in &s.cells {
            buckets.entry(k).or_default().push((gpu, *c));
        }
        for cells in buckets.values_mut() {
            cells.sort_by_key(|(g, _)| *g);
        }
        let f = self.features(s, &buckets);
        let window = self.window_end - self.window_start;
        let inferred = infer_shape(&f, window);
        let declared = self.declared.get(name).copied().unwrap_or_default();
        let shape = declared.kind.unwrap_or(inferred);
        let ett = (shape == Shape::Training).then(|| self.ett(s, &buckets));
        let held_h = s.held as f64 / TICKS_PER_HOUR;
        let share = |num: f64, den: i64| (den > 0).then(|| num / den as f64);
        let only_model = match s.models.as_slice() {
            [(Some(m), _)] => Some(names.label(*m).to_string()),
            _ => None,
        };
        let mut found = Vec::new();
        if inferred == Shape::Idle {
            found.extend(findings::parked(
                name,
                f.idle_share.unwrap_or(0.0),
                held_h,
                s.usd(),
            ));
        }
        if let Some(e) = &ett {
            let members = gang_members(&buckets, &e.progressing, s.priced > 0, names);
            found.extend(findings::gang_member_idle(
                name,
                e.progressing.len(),
                &members,
            ));
        }
        let card = only_model
            .as_deref()
            .and_then(|m| match crate::catalog::resolve(m) {
                crate::catalog::Resolved::Card(g) => Some(g),
                _ => None,
            });
        if let Some(gpu) = card {
            found.extend(findings::oversized(name, gpu, &s.sizing, held_h, s.usd()));
        }
        let row = JobRow {
            job: name.to_string(),
            shape,
            inferred_shape: inferred,
            declared_kind: declared.kind,
            gpus: f.gpus,
            hosts: s.hosts.len(),
            gang: f.gang,
            span_hours: f.span as f64 / TICKS_PER_HOUR,
            presence: f.presence,
            held_gpu_hours: held_h,
            idle_held_gpu_hours: s.idle as f64 / TICKS_PER_HOUR,
            idle_share: f.idle_share,
            active_share: f.active_share,
            sm_active_share: share(s.sm.get(), s.sm_known),
            tensor_active_share: share(s.tensor.get(), s.tensor_known),
            activity_cv: f.activity_cv,
            synchrony: f.synchrony,
            ett: ett.as_ref().and_then(|e| e.ett),
            interruptions: ett.as_ref().map(|e| e.interruptions),
            mtbi_hours: ett.as_ref().map(|e| e.mtbi_hours),
            mean_recovery_hours: ett.as_ref().and_then(|e| e.mean_recovery_hours),
            mfu: declared.mfu,
            model: only_model,
            usd: s.usd(),
        };
        (row, found)
    }
}

/// Per GPU of a training job: the progressing buckets in which it was held and mostly idle.
fn gang_members(
    buckets: &Buckets,
    progressing: &[i64],
    priced: bool,
    names: &dyn Names,
) -> Vec<GangMember> {
    let mut by_gpu: BTreeMap<usize, (usize, i64, f64)> = BTreeMap::new();
    for cells in progressing.iter().filter_map(|k| buckets.get(k)) {
        for (gpu, c) in cells.iter().filter(|(_, c)| c.idle_majority()) {
            let e = by_gpu.entry(*gpu).or_default();
            e.0 += 1;
            e.1 += c.idle;
            e.2 += c.idle_usd;
        }
    }
    by_gpu
        .into_iter()
        .map(|(gpu, (idle_buckets, idle, usd))| GangMember {
            gpu: names.gpu_of(gpu).to_string(),
            idle_buckets,
            idle_gpu_hours: idle as f64 / TICKS_PER_HOUR,
            idle_usd: priced.then_some(usd),
        })
        .collect()
}
