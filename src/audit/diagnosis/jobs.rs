//! Jobs: shape of demand and effective training time (docs/semantics.md
//! §11). [`JobsFold`] keeps, per job, one small cell
//! per (bucket, GPU) it held plus O(1) totals, so its memory grows with jobs ×
//! buckets × the job's GPUs, never with samples; [`JobsFold::finish`] turns
//! that into a row per job, the findings and the declared-kind disagreements.
use super::findings::{self, Finding, GangMember, Sizing};
use super::percentile_of;
use crate::audit::interval::{ByLabel, Fold, Interval, Names, TICKS_PER_HOUR, split_at_buckets};
use crate::audit::tally::Sum;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

mod rows;
pub use rows::JobRows;

/// A multiply-rotate hash (FxHash's) for the (bucket, GPU) keys: the cell
/// index is hit for every bucket a job enters, and SipHash's DoS resistance
/// buys nothing for keys the engine makes.
#[derive(Default, Clone, Copy)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type KeyMap<V> = HashMap<(i64, usize), V, BuildHasherDefault<KeyHasher>>;

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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    Idle,
    Training,
    Inference,
    Interactive,
    Batch,
    #[default]
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
/// (The shares keep the names of the rows `--jobs` listed before: device_util,
/// sm_active, tensor_active of the job's held time.)
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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
    #[serde(rename = "device_util")]
    pub active_share: Option<f64>,
    #[serde(rename = "sm_active")]
    pub sm_active_share: Option<f64>,
    #[serde(rename = "tensor_active")]
    pub tensor_active_share: Option<f64>,
    pub activity_cv: Option<f64>,
    pub synchrony: Option<f64>,
    /// training jobs only (shape or declared kind)
    pub ett: Option<f64>,
    pub interruptions: Option<usize>,
    pub mtbi_hours: Option<f64>,
    pub mean_recovery_hours: Option<f64>,
    pub mfu: Option<f64>,
    /// mfu × held GPU-hours, where `--jobs` declares the job's work
    pub useful_gpu_hours: Option<f64>,
    /// dollars of the held time that was not useful (by the report's basis)
    pub not_useful_usd: Option<f64>,
    /// the model the job ran on when it ran on one
    pub model: Option<String>,
    pub usd: Option<f64>,
}

/// A job whose declared kind is not the shape its telemetry shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
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
}

impl JobsSection {
    /// The lowest ETT of the training jobs (for a `check` rule on `jobs.ett.min`); None without any.
    #[cfg(test)]
    pub fn min_ett(&self) -> Option<f64> {
        self.jobs
            .iter()
            .filter_map(|r| r.ett)
            .min_by(f64::total_cmp)
    }
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

/// A job's cells by (bucket, GPU). Samples of one GPU come in time order, so
/// the fold remembers per GPU the cell its previous sample went to (a
/// [`Cursor`]) and most adds skip the hash lookup, however GPUs interleave.
#[derive(Debug, Clone, Default)]
struct Cells {
    cells: Vec<((i64, usize), Cell)>,
    /// built once the job has more than [`SCAN_CELLS`] cells: most jobs of a
    /// fleet of many short jobs have one or two, and an index each was half
    /// their memory (boxed: 8 bytes a job without one, not 32)
    index: Option<Box<KeyMap<usize>>>,
}

/// A job with up to this many cells finds a cell by scanning them.
const SCAN_CELLS: usize = 8;

impl Cells {
    /// The place of the cell of `key` in `cells`, added when new.
    fn slot(&mut self, key: (i64, usize)) -> usize {
        let Some(index) = self.index.as_mut() else {
            // newest first: a GPU's samples move forward in time
            if let Some(at) = self.cells.iter().rposition(|(k, _)| *k == key) {
                return at;
            }
            if self.cells.is_empty() {
                // one cell is what most jobs ever have: no room for four
                self.cells.reserve_exact(1);
            }
            self.cells.push((key, Cell::default()));
            if self.cells.len() > SCAN_CELLS {
                self.index = Some(Box::new(
                    self.cells
                        .iter()
                        .enumerate()
                        .map(|(at, (k, _))| (*k, at))
                        .collect(),
                ));
            }
            return self.cells.len() - 1;
        };
        let cells = &mut self.cells;
        *index.entry(key).or_insert_with(|| {
            cells.push((key, Cell::default()));
            cells.len() - 1
        })
    }

    /// The cell of `key`: at `hint`'s place when the hint is of the same bucket.
    fn get_mut(&mut self, key: (i64, usize), hint: &mut Option<(i64, usize)>) -> &mut Cell {
        let at = match *hint {
            Some((k, at)) if k == key.0 => at,
            _ => self.slot(key),
        };
        *hint = Some((key.0, at));
        &mut self.cells[at].1
    }

    fn iter(&self) -> impl Iterator<Item = &((i64, usize), Cell)> {
        self.cells.iter()
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.cells.len()
    }
}

/// Everything kept for one job.
#[derive(Debug, Clone)]
struct JobState {
    cells: Cells,
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
            cells: Cells::default(),
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
        None => {
            if list.is_empty() {
                list.reserve_exact(1); // most jobs run on one model
            }
            list.push((key, ticks));
        }
    }
}

impl JobState {
    /// `hint`: the bucket and cell of this GPU's previous sample of this job.
    fn add(&mut self, iv: &Interval, bucket: i64, hint: &mut Option<(i64, usize)>) {
        let w = iv.weight;
        self.first_held = self.first_held.min(iv.start);
        self.last_end = self.last_end.max(iv.end());
        if !self.hosts.contains(&iv.host) {
            if self.hosts.is_empty() {
                self.hosts.reserve_exact(1);
            }
            self.hosts.push(iv.host);
        }
        bump(&mut self.models, iv.model, w);
        self.held += w;
        if iv.idle {
            self.idle += w;
        }
        let wf = w as f64;
        if let Some(u) = iv.device_util() {
            self.util_known += w;
            self.active.add(wf * u);
        }
        if let Some(s) = iv.sm_active() {
            self.sm_known += w;
            self.sm.add(wf * s);
        }
        if let Some(t) = iv.tensor_active() {
            self.tensor_known += w;
            self.tensor.add(wf * t);
        }
        if let Some(p) = iv.price {
            self.priced += w;
            self.usd.add(wf / TICKS_PER_HOUR * p);
        }
        self.sizing
            .add(iv.device_util(), iv.sm_active(), iv.mem_used);
        for (k, part) in split_at_buckets(iv.start, w, bucket) {
            let c = self.cells.get_mut((k, iv.gpu), hint);
            c.held += part;
            if iv.idle {
                c.idle += part;
                c.idle_usd += iv.price.map_or(0.0, |p| part as f64 / TICKS_PER_HOUR * p);
            }
            if let Some(u) = iv.device_util() {
                c.active += part as f64 * u;
            }
        }
    }
    fn merge(&mut self, o: JobState) {
        for (key, c) in o.cells.iter() {
            self.cells.get_mut(*key, &mut None).merge(c);
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
    jobs: ByLabel<JobState>,
    /// the previous sample's job and its place in `jobs` (consecutive samples share a job)
    last: Option<(u32, usize)>,
    /// per GPU slot: the place in `jobs` of its previous held sample's job and
    /// that sample's (bucket, cell)
    cursors: Vec<Option<(usize, (i64, usize))>>,
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
            jobs: ByLabel::default(),
            last: None,
            cursors: Vec::new(),
        }
    }

    /// The place of `job` in `jobs`, added when new.
    fn place(&mut self, job: u32) -> usize {
        match self.last {
            Some((j, at)) if j == job => at,
            _ => {
                let at = self.jobs.place(job);
                self.last = Some((job, at));
                at
            }
        }
    }

    #[cfg(test)]
    fn state(&mut self, job: u32) -> &mut JobState {
        self.jobs.entry(job)
    }
}

/// One job's idle held ticks per bucket index k and their dollars (unpriced: $0).
#[derive(Debug, Clone, Default)]
pub(crate) struct JobIdle {
    pub job: u32,
    pub ticks: BTreeMap<i64, i64>,
    pub usd: f64,
}

impl JobsFold {
    /// Per job (label id): its idle held ticks per bucket index k, for the
    /// purchase plan's owners (docs/semantics.md §10, Purchase).
    pub(crate) fn idle_by_bucket(&self) -> Vec<JobIdle> {
        self.jobs
            .iter()
            .filter(|(_, s)| s.idle > 0)
            .map(|(id, s)| {
                let mut idle = JobIdle {
                    job: id,
                    ..JobIdle::default()
                };
                for ((k, _), c) in s.cells.iter().filter(|(_, c)| c.idle > 0) {
                    *idle.ticks.entry(*k).or_default() += c.idle;
                    idle.usd += c.idle_usd;
                }
                idle
            })
            .collect()
    }
}

impl Fold for JobsFold {
    fn add(&mut self, iv: &Interval) {
        // a zero-weight sample stands for no time: it neither extends a span nor counts in p95
        if !iv.held || iv.weight <= 0 {
            return;
        }
        let Some(job) = iv.job else { return };
        let bucket = self.bucket_ticks;
        let at = self.place(job);
        if self.cursors.len() <= iv.gpu {
            self.cursors.resize(iv.gpu + 1, None);
        }
        let Some(cursor) = self.cursors.get_mut(iv.gpu) else {
            return;
        };
        let mut hint = cursor.and_then(|(job_at, cell)| (job_at == at).then_some(cell));
        if let Some(s) = self.jobs.at_mut(at) {
            s.add(iv, bucket, &mut hint);
        }
        *cursor = hint.map(|cell| (at, cell));
    }
    fn merge(&mut self, other: Self) {
        self.jobs.merge_from(other.jobs, JobState::merge);
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
        let present: Vec<f64> = buckets.iter().map(|(k, c)| active_gpus(*k, c)).collect();
        let reference = percentile_of(&present, ETT_REF_PERCENT).unwrap_or(0.0);
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

/// A jobs section as it is built: sorted by [`SectionParts::sorted`].
#[derive(Default)]
struct SectionParts {
    jobs: JobRows,
    /// jobs with a row (before `--top` cut `jobs`)
    total: usize,
    found: Vec<Finding>,
    disagreements: Vec<Disagreement>,
}

/// The jobs section as the report keeps it: the rows packed ([`JobRows`])
/// and, under `--top`, only the first rows, with `total` counting them all.
#[derive(Debug, Clone, PartialEq)]
pub struct JobsKept {
    pub jobs: JobRows,
    pub total: usize,
    pub findings: Vec<Finding>,
    pub disagreements: Vec<Disagreement>,
}

impl JobsKept {
    /// As a section to compare (every kept row built).
    #[cfg(test)]
    pub fn section(&self) -> JobsSection {
        JobsSection {
            jobs: self.jobs.iter().collect(),
            findings: self.findings.clone(),
            disagreements: self.disagreements.clone(),
        }
    }
}

impl SectionParts {
    /// Under `--top n`, the rows beyond the first n by the section's order
    /// are dropped every [`crate::audit::interval::FREE_EVERY`] rows, so
    /// the list never holds many more than n.
    fn bound(&mut self, top: Option<usize>) {
        if let Some(n) = top
            && self.jobs.len() >= n.saturating_add(crate::audit::interval::FREE_EVERY)
        {
            self.jobs.keep_first_sorted(n);
        }
    }

    /// Rows by dollars, findings by dollars, disagreements by job: every key
    /// ends on the job's name, so the order the jobs came in does not show.
    fn sorted(mut self, top: Option<usize>) -> JobsKept {
        let by_usd =
            |a: Option<f64>, b: Option<f64>| b.unwrap_or(-1.0).total_cmp(&a.unwrap_or(-1.0));
        // ties (every job unpriced) by idle GPU-hours: the waste first, not pod hashes
        self.jobs.keep_first_sorted(top.unwrap_or(usize::MAX));
        self.found.sort_by(|a, b| {
            by_usd(a.usd, b.usd)
                .then(b.gpu_hours.total_cmp(&a.gpu_hours))
                .then_with(|| (a.kind, &a.job).cmp(&(b.kind, &b.job)))
        });
        self.disagreements.sort_by(|a, b| a.job.cmp(&b.job));
        JobsKept {
            jobs: self.jobs,
            total: self.total,
            findings: self.found,
            disagreements: self.disagreements,
        }
    }
}

impl JobsFold {
    /// The section: a row per job, findings, and the jobs whose declared kind
    /// is not their inferred shape (tests; the report takes the states, [`JobsFold::finish_taking`]).
    #[cfg(test)]
    pub fn finish(&self, names: &dyn Names) -> JobsSection {
        let mut parts = SectionParts::default();
        for (id, s) in self.jobs.iter() {
            self.add_job(&mut parts, id, s, names);
        }
        parts.sorted(None).section()
    }

    /// [`JobsFold::finish`], freeing each job's state once its row is built
    /// (a million jobs' states and rows do not fit in memory together), and
    /// under `--top n` (`top`) keeping only the first n rows; the jobs with
    /// idle held time stay, for [`JobsFold::idle_by_bucket`].
    pub fn finish_taking(&mut self, names: &dyn Names, top: Option<usize>) -> JobsKept {
        let mut states: Vec<(u32, JobState)> = std::mem::take(&mut self.jobs).into_iter().collect();
        let mut parts = SectionParts::default();
        let mut idle = Vec::new();
        while let Some((id, s)) = states.pop() {
            self.add_job(&mut parts, id, &s, names);
            parts.bound(top);
            if s.idle > 0 {
                idle.push((id, s));
            }
            if states.capacity() - states.len() >= crate::audit::interval::FREE_EVERY {
                states.shrink_to_fit();
            }
        }
        // back in the order first seen, as idle_by_bucket lists them
        for (id, s) in idle.into_iter().rev() {
            *self.jobs.entry(id) = s;
        }
        self.last = None;
        self.cursors = Vec::new();
        parts.sorted(top)
    }

    fn add_job(&self, parts: &mut SectionParts, id: u32, s: &JobState, names: &dyn Names) {
        let name = names.label(id).to_string();
        let (row, mut job_findings) = self.job_row(&name, s, names);
        if let Some(declared) = row.declared_kind.filter(|d| *d != row.inferred_shape) {
            parts.disagreements.push(Disagreement {
                job: name,
                declared_kind: declared,
                inferred_shape: row.inferred_shape,
            });
        }
        parts.jobs.push(&row);
        parts.total += 1;
        parts.found.append(&mut job_findings);
    }

    /// One job's row and findings.
    fn job_row(&self, name: &str, s: &JobState, names: &dyn Names) -> (JobRow, Vec<Finding>) {
        let mut buckets: Buckets = BTreeMap::new();
        for &((k, gpu), c) in s.cells.iter() {
            buckets.entry(k).or_default().push((gpu, c));
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
            // the jobs file's figures are joined on by the engine
            useful_gpu_hours: None,
            not_useful_usd: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::diagnosis::findings::FindingKind;

    const H: i64 = TICKS_PER_HOUR as i64;
    const MINUTE: i64 = crate::audit::interval::TICKS_PER_MINUTE;
    const PRICE: f64 = 2.0;

    /// Label ids are indexes into `labels`; GPU n is "g<n>".
    struct TestNames {
        labels: Vec<String>,
        gpus: Vec<String>,
    }

    impl TestNames {
        fn new(labels: &[&str]) -> Self {
            TestNames {
                labels: labels.iter().map(|s| s.to_string()).collect(),
                gpus: (0..64).map(|g| format!("g{g}")).collect(),
            }
        }
    }

    impl Names for TestNames {
        fn label(&self, id: u32) -> &str {
            self.labels.get(id as usize).map_or("?", String::as_str)
        }
        fn host_of(&self, _gpu: usize) -> &str {
            "host"
        }
        fn gpu_of(&self, gpu: usize) -> &str {
            self.gpus.get(gpu).map_or("?", String::as_str)
        }
    }

    /// One held hour-long (or `hours`-long) sample of `job` on `gpu` at `util`.
    fn held(job: u32, gpu: usize, start_h: f64, hours: f64, util: f64) -> Interval {
        Interval {
            gpu,
            host: 100,
            start: (start_h * H as f64) as i64,
            weight: (hours * H as f64) as i64,
            held: true,
            idle: util < 0.01,
            activity: crate::metric::Activity::default()
                .with(crate::metric::DEVICE_UTIL, Some(util)),
            price: Some(PRICE),
            job: Some(job),
            ..Interval::default()
        }
    }

    /// A fold with one-hour buckets over [0, window_h) and no declarations.
    fn fold(window_h: i64) -> JobsFold {
        JobsFold::new(H, 0, window_h * H, BTreeMap::new())
    }

    fn run(f: &mut JobsFold, ivs: &[Interval]) -> JobsSection {
        for iv in ivs {
            f.add(iv);
        }
        f.finish(&TestNames::new(&[
            "job0",
            "job1",
            "job2",
            "NVIDIA H100 80GB HBM3",
        ]))
    }

    fn only(section: &JobsSection) -> &JobRow {
        assert_eq!(section.jobs.len(), 1, "{section:#?}");
        &section.jobs[0]
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-9)
    }

    #[test]
    fn idle_shape_and_parked() {
        // 3 GPUs × 10 h, all idle: 30 GPU-h ≥ 24, parked at 30 × $2
        let ivs: Vec<_> = (0..3)
            .flat_map(|g| (0..10).map(move |h| held(0, g, h as f64, 1.0, 0.0)))
            .collect();
        let s = run(&mut fold(10), &ivs);
        let r = only(&s);
        assert_eq!((r.shape, r.gpus, r.hosts, r.gang), (Shape::Idle, 3, 1, 3));
        assert_eq!(r.idle_share, Some(1.0));
        assert_eq!(r.held_gpu_hours, 30.0);
        assert!(r.ett.is_none() && r.interruptions.is_none());
        assert_eq!(s.findings.len(), 1);
        let f = &s.findings[0];
        assert_eq!((f.kind, f.gpu_hours), (FindingKind::Parked, 30.0));
        assert!(close(f.usd, 60.0));
        // one GPU idle 9 h of 10 (idle share 0.9): idle, but 10 GPU-h is not parked
        let mut ivs: Vec<_> = (0..9).map(|h| held(0, 0, h as f64, 1.0, 0.0)).collect();
        ivs.push(held(0, 0, 9.0, 1.0, 0.5));
        let s = run(&mut fold(10), &ivs);
        assert_eq!(only(&s).shape, Shape::Idle);
        assert!(close(only(&s).idle_share, 0.9));
        assert!(s.findings.is_empty());
    }

    #[test]
    fn training_shape_of_a_busy_synchronous_gang() {
        let ivs: Vec<_> = (0..4)
            .flat_map(|g| (0..10).map(move |h| held(0, g, h as f64, 1.0, 0.9)))
            .collect();
        let s = run(&mut fold(20), &ivs);
        let r = only(&s);
        assert_eq!(
            (r.shape, r.gang, r.synchrony),
            (Shape::Training, 4, Some(1.0))
        );
        assert!(close(r.active_share, 0.9));
        assert!(close(r.presence, 0.5));
        assert_eq!(r.ett, Some(1.0));
        assert_eq!(r.interruptions, Some(0));
        assert_eq!(r.mtbi_hours, Some(10.0));
        assert_eq!(r.mean_recovery_hours, None);
    }

    #[test]
    fn inference_interactive_batch_and_unknown_shapes() {
        // always there, busy 0.9 and 0.1 in turn: per-bucket activity mean 0.5,
        // population std 0.4, cv 0.8 ≥ 0.3
        let ivs: Vec<_> = (0..10)
            .map(|h| held(0, 0, h as f64, 1.0, if h % 2 == 0 { 0.9 } else { 0.1 }))
            .collect();
        let s = run(&mut fold(10), &ivs);
        assert_eq!(only(&s).shape, Shape::Inference);
        assert!(close(only(&s).activity_cv, 0.8));
        // 4 h of a 10 h window, idle half of it: interactive
        let ivs = [held(0, 0, 0.0, 2.0, 0.0), held(0, 0, 2.0, 2.0, 0.5)];
        let s = run(&mut fold(10), &ivs);
        assert_eq!(only(&s).shape, Shape::Interactive);
        assert!(close(only(&s).idle_share, 0.5));
        // 4 h busy of 10: batch (span 4 < 0.8 × 10)
        let s = run(&mut fold(10), &[held(0, 0, 0.0, 4.0, 0.9)]);
        assert_eq!(only(&s).shape, Shape::Batch);
        // the whole window at a steady 0.9 on one GPU: no rule holds
        let s = run(&mut fold(10), &[held(0, 0, 0.0, 10.0, 0.9)]);
        assert_eq!(only(&s).shape, Shape::Unknown);
        assert_eq!(s.min_ett(), None);
        assert!(close(only(&s).activity_cv, 0.0));
    }

    #[test]
    fn a_declared_kind_wins_and_a_disagreement_is_listed() {
        let declared = BTreeMap::from([
            (
                "job0".to_string(),
                Declared {
                    kind: Some(Shape::Inference),
                    mfu: Some(0.4),
                },
            ),
            (
                "job1".to_string(),
                Declared {
                    kind: Some(Shape::Batch),
                    mfu: None,
                },
            ),
        ]);
        let mut f = JobsFold::new(H, 0, 10 * H, declared);
        let s = run(
            &mut f,
            &[held(0, 0, 0.0, 4.0, 0.9), held(1, 1, 0.0, 4.0, 0.9)],
        );
        let job0 = s.jobs.iter().find(|r| r.job == "job0").expect("job0");
        assert_eq!(job0.shape, Shape::Inference);
        assert_eq!(job0.inferred_shape, Shape::Batch);
        assert_eq!(job0.declared_kind, Some(Shape::Inference));
        assert_eq!(job0.mfu, Some(0.4));
        // job1 declares what it looks like: no disagreement
        assert_eq!(
            s.disagreements,
            vec![Disagreement {
                job: "job0".to_string(),
                declared_kind: Shape::Inference,
                inferred_shape: Shape::Batch,
            }]
        );
    }

    /// A gang of 10 GPUs over 10 one-hour buckets: g9 idle throughout, the
    /// other nine at 0.9 except two hangs (bucket 2; buckets 6 and 7) where all are idle.
    fn hanging_gang() -> Vec<Interval> {
        let hang = |h: i64| h == 2 || h == 6 || h == 7;
        (0..10)
            .flat_map(|g| {
                (0..10).map(move |h| {
                    let util = if g == 9 || hang(h) { 0.0 } else { 0.9 };
                    held(0, g, h as f64, 1.0, util)
                })
            })
            .collect()
    }

    #[test]
    fn ett_with_two_hangs_and_a_permanently_idle_member() {
        let s = run(&mut fold(10), &hanging_gang());
        let r = only(&s);
        // idle: g9's 10 h + 3 hang buckets × 9 GPUs = 37 of 100
        assert!(close(r.idle_share, 0.37));
        // 9 of 10 agree in a working bucket, 10 of 10 in a hang: synchrony 1
        assert_eq!(
            (r.shape, r.gang, r.synchrony),
            (Shape::Training, 10, Some(1.0))
        );
        // active GPUs: 9 in 7 buckets, 0 in 3; p90 (rank 9 of 10) = 9; 7 progress
        assert!(close(r.ett, 0.7));
        assert_eq!(r.interruptions, Some(2));
        assert!(close(r.mtbi_hours, 3.5));
        // runs of 1 h and 2 h
        assert!(close(r.mean_recovery_hours, 1.5));
        // g9 idle in 7 of 7 progressing buckets: 7 idle GPU-h at $2
        assert_eq!(s.findings.len(), 1, "{:#?}", s.findings);
        let f = &s.findings[0];
        assert_eq!(f.kind, FindingKind::GangMemberIdle);
        assert!((f.gpu_hours - 7.0).abs() < 1e-9);
        assert!(close(f.usd, 14.0));
        let words = crate::render::diagnosis::jobs::finding_detail(&f.detail);
        assert!(words.starts_with("g9 idle in 7 of 7"), "{words}");
        assert!(close(s.min_ett(), 0.7));
    }

    #[test]
    fn a_gang_that_lost_its_gpus_makes_no_progress() {
        // buckets 0 and 2 busy on 2 GPUs, bucket 1 without the job: ett 2/3, one interruption
        let ivs: Vec<_> = (0..2)
            .flat_map(|g| [held(0, g, 0.0, 1.0, 0.9), held(0, g, 2.0, 1.0, 0.9)])
            .collect();
        let s = run(&mut fold(3), &ivs);
        let r = only(&s);
        assert_eq!(r.shape, Shape::Training);
        assert!(close(r.ett, 2.0 / 3.0));
        assert_eq!(r.interruptions, Some(1));
        assert!(close(r.mtbi_hours, 2.0));
        assert!(close(r.mean_recovery_hours, 1.0));
    }

    #[test]
    fn a_job_declared_training_gets_ett_and_partial_buckets_weigh_by_their_span() {
        // one GPU from 0.5 h to 2.5 h at 0.9, declared training (inferred batch):
        // buckets 0 and 2 hold half an hour of the span each, still one GPU busy
        let declared = BTreeMap::from([(
            "job0".to_string(),
            Declared {
                kind: Some(Shape::Training),
                mfu: None,
            },
        )]);
        let mut f = JobsFold::new(H, 0, 10 * H, declared);
        let s = run(&mut f, &[held(0, 0, 0.5, 2.0, 0.9)]);
        let r = only(&s);
        assert_eq!((r.shape, r.inferred_shape), (Shape::Training, Shape::Batch));
        assert_eq!(r.span_hours, 2.0);
        assert_eq!(r.ett, Some(1.0));
        assert_eq!(r.interruptions, Some(0));
    }

    #[test]
    fn oversized_from_the_fold_names_a_profile() {
        // 20 half-hour samples at 30% with 8 GiB used on an H100: 1g.10gb; saves 6/7 of 10 GPU-h
        let ivs: Vec<_> = (0..20)
            .map(|i| Interval {
                model: Some(3),
                mem_used: Some(8 << 30),
                ..held(0, 0, i as f64 * 0.5, 0.5, 0.3)
            })
            .collect();
        let s = run(&mut fold(10), &ivs);
        assert_eq!(only(&s).model.as_deref(), Some("NVIDIA H100 80GB HBM3"));
        let f = s
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::Oversized)
            .expect("oversized");
        let words = crate::render::diagnosis::jobs::finding_detail(&f.detail);
        assert!(words.contains("1g.10gb"), "{words}");
        assert!((f.gpu_hours - 10.0 * 6.0 / 7.0).abs() < 1e-9);
        assert!(close(f.usd, 20.0 * 6.0 / 7.0));
    }

    #[test]
    fn a_gang_of_four_with_an_idle_member_is_not_synchronous() {
        // 3 of 4 GPUs agree (75% < 90%) in every bucket: synchrony 0, so not training;
        // idle share 0.25 < 0.30 and the span is the window: unknown
        let ivs: Vec<_> = (0..4)
            .flat_map(|g| {
                (0..10).map(move |h| held(0, g, h as f64, 1.0, if g == 3 { 0.0 } else { 0.9 }))
            })
            .collect();
        let s = run(&mut fold(10), &ivs);
        let r = only(&s);
        assert_eq!((r.synchrony, r.shape), (Some(0.0), Shape::Unknown));
        assert!(r.ett.is_none() && s.findings.is_empty());
    }

    #[test]
    fn a_gpu_idle_exactly_half_a_bucket_is_not_idle_there() {
        // g1 idle 30 of 60 minutes: not idle (needs more than half), so both GPUs agree
        let ivs = [
            held(0, 0, 0.0, 1.0, 0.9),
            held(0, 1, 0.0, 0.5, 0.0),
            held(0, 1, 0.5, 0.5, 0.9),
        ];
        let s = run(&mut fold(1), &ivs);
        assert_eq!(only(&s).synchrony, Some(1.0));
        // 31 minutes idle: idle there, 1 of 2 agree, not synchronous
        let ivs = [
            held(0, 0, 0.0, 1.0, 0.9),
            held(0, 1, 0.0, 31.0 / 60.0, 0.0),
            held(0, 1, 31.0 / 60.0, 29.0 / 60.0, 0.9),
        ];
        let s = run(&mut fold(1), &ivs);
        assert_eq!(only(&s).synchrony, Some(0.0));
    }

    #[test]
    fn the_json_fields_are_the_issues_names() -> anyhow::Result<()> {
        let s = run(&mut fold(10), &hanging_gang());
        let v = serde_json::to_value(&s)?;
        let row = &v["jobs"][0];
        for key in [
            "job",
            "shape",
            "declared_kind",
            "gpus",
            "hosts",
            "gang",
            "span_hours",
            "held_gpu_hours",
            "idle_share",
            "ett",
            "interruptions",
            "mtbi_hours",
            "mean_recovery_hours",
            "mfu",
            "usd",
        ] {
            assert!(row.get(key).is_some(), "jobs[0] lacks {key}: {row}");
        }
        assert_eq!(row["shape"], "training");
        assert_eq!(row["declared_kind"], serde_json::Value::Null);
        assert_eq!(row["interruptions"], 2);
        let finding = &v["findings"][0];
        assert_eq!(finding["kind"], "gang_member_idle");
        assert_eq!(finding["job"], "job0");
        Ok(())
    }

    #[test]
    fn unheld_and_jobless_samples_are_not_jobs_and_unpriced_jobs_have_no_dollars() {
        let mut unheld = held(0, 0, 0.0, 1.0, 0.9);
        unheld.held = false;
        let jobless = Interval {
            job: None,
            ..held(0, 1, 0.0, 1.0, 0.9)
        };
        let unpriced = Interval {
            price: None,
            ..held(1, 2, 0.0, 1.0, 0.9)
        };
        let s = run(&mut fold(10), &[unheld, jobless, unpriced]);
        let r = only(&s);
        assert_eq!((r.job.as_str(), r.usd), ("job1", None));
    }

    #[test]
    fn merged_shards_give_the_same_section_as_one_fold() {
        let ivs = hanging_gang();
        let whole = run(&mut fold(10), &ivs);
        let (mut a, mut b) = (fold(10), fold(10));
        for iv in &ivs {
            if iv.gpu < 5 { a.add(iv) } else { b.add(iv) }
        }
        a.merge(b);
        assert_eq!(a.finish(&TestNames::new(&["job0"])), whole);
    }

    #[test]
    fn taking_the_states_gives_the_same_section_and_keeps_the_idle_jobs() {
        // job0 a hanging gang over 10 buckets (past the cells a scan covers),
        // job1 busy, job2 idle: the last stays for the purchase plan's owners
        let mut ivs = hanging_gang();
        ivs.push(held(1, 20, 0.0, 2.0, 0.9));
        ivs.push(held(2, 21, 0.0, 3.0, 0.0));
        let mut f = fold(10);
        for iv in &ivs {
            f.add(iv);
        }
        assert!(f.state(0).cells.len() > SCAN_CELLS);
        let names = TestNames::new(&["job0", "job1", "job2"]);
        let whole = f.finish(&names);
        let idle_before: Vec<(u32, BTreeMap<i64, i64>)> = f
            .idle_by_bucket()
            .into_iter()
            .map(|j| (j.job, j.ticks))
            .collect();
        assert_eq!(
            f.clone().finish_taking(&names, Some(2)).section().jobs,
            whole.jobs[..2]
        );
        assert_eq!(f.finish_taking(&names, None).section(), whole);
        let idle_after: Vec<(u32, BTreeMap<i64, i64>)> = f
            .idle_by_bucket()
            .into_iter()
            .map(|j| (j.job, j.ticks))
            .collect();
        assert_eq!(idle_after, idle_before);
        assert_eq!(idle_after.iter().map(|j| j.0).collect::<Vec<_>>(), [0, 2]);
        assert_eq!(f.jobs.len(), 2, "job1 had no idle time: freed");
    }

    #[test]
    fn top_keeps_the_first_rows_of_many_jobs_and_counts_them_all() {
        // more jobs than the list is cut at (FREE_EVERY), priced by id, so
        // the rows cut on the way are those the whole list sorts last
        let n = crate::audit::interval::FREE_EVERY + 300;
        let labels: Vec<String> = (0..n).map(|j| format!("j{j:06}")).collect();
        let names = TestNames {
            labels,
            gpus: vec!["g0".to_string()],
        };
        let mut f = fold(10);
        for j in 0..n {
            let mut iv = held(j as u32, 0, 0.0, 1.0, 0.5);
            iv.price = Some(1.0 + (j % 977) as f64);
            f.add(&iv);
        }
        let whole = f.finish(&names);
        assert_eq!(whole.jobs.len(), n);
        let kept = f.finish_taking(&names, Some(250));
        assert_eq!(kept.total, n);
        assert_eq!(kept.jobs.len(), 250);
        assert_eq!(kept.section().jobs, whole.jobs[..250]);
        // the first: the dearest price ($977), the lowest name of those
        assert_eq!(kept.jobs.job(0), "j000976");
        assert_eq!(kept.section().findings, whole.findings);
    }

    #[test]
    fn state_grows_with_buckets_and_gpus_not_samples() {
        // 3,600 one-second samples in one hour on one GPU: one cell
        let mut f = fold(1);
        for s in 0..3600 {
            f.add(&held(0, 0, s as f64 / 3600.0, 1.0 / 3600.0, 0.9));
        }
        assert_eq!(f.jobs.len(), 1);
        assert_eq!(f.state(0).cells.len(), 1);
        // a sample across a boundary is split: 0.5 h in bucket 0 and in bucket 1
        let mut f = fold(2);
        f.add(&held(0, 0, 0.5, 1.0, 0.9));
        let mut cells: Vec<_> = f
            .state(0)
            .cells
            .iter()
            .map(|(k, c)| (k.0, c.held))
            .collect();
        cells.sort();
        assert_eq!(cells, vec![(0, H / 2), (1, H / 2)]);
    }

    /// cargo test --lib jobs_fold_speed -- --ignored --nocapture (a figure, not an
    /// assertion; a debug build is ~20x slower than release, see docs/semantics.md §11)
    #[test]
    #[ignore]
    fn jobs_fold_speed() {
        // 1,000 GPUs × 1,000 one-minute samples (1M intervals), one job per GPU, 15-minute buckets
        let (gpus, samples) = (1000usize, 1000i64);
        let mut f = JobsFold::new(15 * MINUTE, 0, samples * MINUTE, BTreeMap::new());
        let t = std::time::Instant::now();
        for g in 0..gpus {
            for s in 0..samples {
                let util = ((g as i64 * 7 + s) % 100) as f64 / 100.0;
                f.add(&Interval {
                    gpu: g,
                    start: s * MINUTE,
                    weight: MINUTE,
                    held: true,
                    idle: util < 0.01,
                    activity: crate::metric::Activity::default()
                        .with(crate::metric::DEVICE_UTIL, Some(util))
                        .with(crate::metric::SM_ACTIVE, Some(util * 0.8)),
                    mem_used: Some(1 << 30),
                    price: Some(PRICE),
                    job: Some((g % 1000) as u32),
                    ..Interval::default()
                });
            }
        }
        let added = t.elapsed();
        let t = std::time::Instant::now();
        let section = f.finish(&TestNames::new(&[]));
        let finished = t.elapsed();
        let n = (gpus as i64 * samples) as f64;
        println!(
            "jobs fold: {:.0} ns per interval added ({n} intervals, {} jobs); finish {:.1} ms",
            added.as_nanos() as f64 / n,
            section.jobs.len(),
            finished.as_secs_f64() * 1e3
        );
    }
}
