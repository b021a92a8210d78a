//! The audit as an incremental engine over canonical chunks, so that a
//! dataset larger than memory streams through in two passes:
//! pass 1 learns each GPU's median step from its time differences (a
//! histogram per GPU, exact); pass 2 weighs each sample once the next one is
//! seen and folds it into the tallies. Memory grows with GPUs, jobs, groups and
//! idle episodes, never with rows. Rows of one GPU must arrive in time order
//! (any interleaving of GPUs is fine); [`OutOfOrder`] says when they do not.
use super::assemble::{Parts, assemble};
use super::contradictions::{Contradictions, SampleValues};
use super::folds::Folds;
use super::folds::mfu::{JobHeld, MfuFold};
use super::interval::{Fold, Interval, Names};
use super::keys;
use super::model::*;
use super::tally::Present;
use super::{AuditConfig, HeldRule, weights};
use crate::metric::{self, Activity};
use crate::samples::col;
use crate::timeparse::US_PER_HOUR;
use anyhow::Result;
use foldhash::HashMap;
use polars::prelude::{
    BooleanChunked, ChunkedArray, DataFrame, DataType, Float64Chunked, Int64Chunked, Int64Type,
    PolarsNumericType, StringChunked, UInt64Chunked,
};
use polars_arrow::array::Utf8ViewArray;
use std::collections::BTreeSet;
use std::fmt;

/// A GPU's samples went back in time between chunks: the input is not in
/// time order, and the caller must sort it first.
#[derive(Debug)]
pub struct OutOfOrder {
    pub host: String,
    pub gpu: String,
}

impl fmt::Display for OutOfOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "samples of GPU {}/{} are not in time order",
            self.host, self.gpu
        )
    }
}

impl std::error::Error for OutOfOrder {}

/// Label strings, stored once.
#[derive(Default)]
struct Interner {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(id) = self.ids.get(s) {
            return *id;
        }
        let id = self.names.len() as u32;
        self.names.push(s.to_string());
        self.ids.insert(s.to_string(), id);
        id
    }
    fn name(&self, id: u32) -> &str {
        self.names
            .get(id as usize)
            .map(String::as_str)
            .unwrap_or("")
    }
}

/// A sample waiting for the next one to know its weight.
#[derive(Debug, Clone, Copy)]
struct Pending {
    t: i64,
    held: bool,
    held_unknown: bool,
    idle: bool,
    activity: Activity,
    price: Option<f64>,
    model: Option<u32>,
    job: Option<u32>,
    user: Option<u32>,
    team: Option<u32>,
    mem_used: Option<u64>,
    mem_total: Option<u64>,
    power: Option<f64>,
}

/// The GPU ids a streamed audit has registered, checked one new GPU at a
/// time (never per row) for ids that need the whole table
/// (SampleTable::concat decides them): a UUID under two host names, a MIG
/// parent beside one of its instances on the same host.
#[derive(Default)]
struct IdCheck {
    /// UUID -> the host it was first seen under
    uuid_host: HashMap<String, String>,
    /// "host\0parent" of the MIG instances seen
    parents: std::collections::HashSet<String>,
    conflict: bool,
}

impl IdCheck {
    /// A new GPU (host, gpu); `index` holds the GPUs registered before it.
    fn see(&mut self, host: &str, gpu: &str, index: &HashMap<String, usize>) {
        use crate::samples::{mig_parent, uuid_like};
        if uuid_like(gpu) {
            let first = self
                .uuid_host
                .entry(gpu.to_string())
                .or_insert_with(|| host.to_string());
            self.conflict |= first != host;
        }
        match mig_parent(gpu) {
            Some(parent) => {
                let key = format!("{host}\0{parent}");
                self.conflict |= index.contains_key(&key);
                self.parents.insert(key);
            }
            None => self.conflict |= self.parents.contains(&format!("{host}\0{gpu}")),
        }
    }
}

/// What a row is to its GPU's samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Admit {
    /// a new sample in the window
    New,
    /// outside --since/--until
    Outside,
    /// the sample kept last, again (its instant, or within --align)
    Same,
}

impl Pending {
    /// The values a repeat is ranked by: held first, then the activity
    /// metrics (the waterfall's layers, then the others, registry order),
    /// memory and power (a value beats none).
    fn rank(&self) -> [f64; 4 + metric::AUDITED] {
        let v = |x: Option<f64>| x.unwrap_or(f64::NEG_INFINITY);
        let b = |x: Option<u64>| x.map_or(f64::NEG_INFINITY, |b| b as f64);
        let mut out = [f64::NEG_INFINITY; 4 + metric::AUDITED];
        out[0] = f64::from(u8::from(self.held));
        for (at, slot) in out[1..].iter_mut().zip(metric::RANK_ORDER) {
            *at = v(self.activity.get(slot));
        }
        let n = 1 + metric::AUDITED;
        out[n..].copy_from_slice(&[b(self.mem_used), v(self.power), b(self.mem_total)]);
        out
    }

    /// Of two repeats of one sample, whether `self` is kept over `other`:
    /// held over not, then the busier, metric by metric (docs/semantics.md §2).
    fn outranks(&self, other: &Pending) -> bool {
        let (a, b) = (self.rank(), other.rank());
        a.iter()
            .zip(&b)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .is_some_and(|o| o.is_gt())
    }

    /// Whether two repeats say the same (their instants aside).
    fn same_values(&self, other: &Pending) -> bool {
        let (a, b) = (self.rank(), other.rank());
        a.iter().zip(&b).all(|(x, y)| x.total_cmp(y).is_eq())
            && (
                self.held_unknown,
                self.model,
                self.job,
                self.user,
                self.team,
            ) == (
                other.held_unknown,
                other.model,
                other.job,
                other.user,
                other.team,
            )
    }
}

/// A GPU's names, kept by the dispatcher (every shard reads them).
struct GpuState {
    host: String,
    gpu: String,
    host_id: u32,
}

/// One GPU's timing state, kept by the shard that audits it.
#[derive(Default)]
struct Track {
    // pass 1
    first_t1: Option<i64>,
    last_t1: Option<i64>,
    diffs: HashMap<i64, u64>,
    /// the current run of equal differences, folded into `diffs` when it ends:
    /// regular sampling then costs a compare per row, not a hash
    diff_run: Option<(i64, u64)>,
    step: Option<i64>,
    max_gap: Option<i64>,
    /// a third or more of the steps beyond max gap (derived, not --max-gap):
    /// samples in close pairs, as two exporters scraping one GPU give
    paired: bool,
    // pass 2
    last_t2: Option<i64>,
    pending: Option<Pending>,
}

impl Track {
    /// Pass 1's median step and max gap (docs/semantics.md §2).
    fn finish_steps(&mut self, max_gap_us: Option<i64>) {
        if let Some((d, n)) = self.diff_run.take() {
            *self.diffs.entry(d).or_default() += n;
        }
        self.step = median_of_histogram(&self.diffs);
        self.max_gap = max_gap_us.or(self.step.map(|s| 3 * s));
        if let (None, Some(max_gap)) = (max_gap_us, self.max_gap) {
            let steps: u64 = self.diffs.values().sum();
            let beyond: u64 = self
                .diffs
                .iter()
                .filter(|(d, _)| **d > max_gap)
                .map(|(_, n)| n)
                .sum();
            self.paired = steps >= PAIRED_MIN_STEPS && 3 * beyond >= steps;
        }
        self.diffs = HashMap::default();
    }
}

/// The fewest steps a GPU needs before its gaps say "close pairs".
const PAIRED_MIN_STEPS: u64 = 6;

/// A row that stopped a shard: the earliest one (in input order) is the
/// error the audit reports, whatever the number of shards.
type RowResult = std::result::Result<(), (usize, OutOfOrder)>;

/// The GPUs of one worker (GPU `g` is in shard `g % shards`, at `g / shards`),
/// with its own folds and counters; shards are merged in order at the end.
struct Shard {
    tracks: Vec<Track>,
    folds: Folds,
    /// Some: a pass that only measures the jobs' held time for MFU
    mfu_fold: Option<MfuFold>,
    counts: RowCounts,
}

/// What a shard counted of its rows, beside the folds.
#[derive(Default)]
struct RowCounts {
    /// time in gaps beyond max gap, in ticks
    unobserved_us: i64,
    duplicates: u64,
    rows_in_window: u64,
    rows_outside_window: u64,
    /// samples within --align of the one kept (not at its instant): one sample
    aligned: u64,
    /// repeats (exact or within --align) whose values differ from the one kept
    disagreeing: u64,
    /// every row's contradicting values (docs/semantics.md §1)
    contradictions: Contradictions,
}

impl RowCounts {
    fn add(&mut self, other: &RowCounts) {
        self.unobserved_us += other.unobserved_us;
        self.duplicates += other.duplicates;
        self.aligned += other.aligned;
        self.disagreeing += other.disagreeing;
        self.rows_in_window += other.rows_in_window;
        self.rows_outside_window += other.rows_outside_window;
        self.contradictions.add(&other.contradictions);
    }
}

/// What every shard reads and none changes while a slice is audited.
#[derive(Clone, Copy)]
struct Shared<'e> {
    cfg: &'e AuditConfig,
    rule: HeldRule,
    present: Present,
    snapshot_us: i64,
    gpus: &'e [GpuState],
    /// GPU -> (shard, place in the shard)
    place: &'e [(u32, u32)],
    /// price per model label (slot 0: no model), filled before the shards run
    prices: &'e [Option<Option<f64>>],
    mfu_by_label: &'e HashMap<u32, f64>,
}

impl Shared<'_> {
    fn in_window(&self, t: i64) -> bool {
        self.cfg.since.is_none_or(|s| t >= s) && self.cfg.until.is_none_or(|u| t < u)
    }

    fn out_of_order(&self, g: usize) -> OutOfOrder {
        let s = &self.gpus[g];
        OutOfOrder {
            host: s.host.clone(),
            gpu: s.gpu.clone(),
        }
    }

    fn price(&self, model: Option<u32>) -> Option<f64> {
        let slot = model.map_or(0, |m| m as usize + 1);
        self.prices.get(slot).copied().flatten().flatten()
    }
}

/// One slice's columns and per-row ids, read by every shard.
struct Slice<'c> {
    cols: &'c Cols,
    slots: &'c [usize],
    models: &'c [Option<u32>],
    jobs: &'c [Option<u32>],
    users: &'c [Option<u32>],
    teams: &'c [Option<u32>],
}

impl Shard {
    fn new(folds: Folds) -> Self {
        Shard {
            tracks: Vec::new(),
            folds,
            mfu_fold: None,
            counts: RowCounts::default(),
        }
    }

    /// Pass 1 over this shard's rows of a slice: each GPU's time differences.
    fn observe(
        &mut self,
        k: u32,
        sh: &Shared,
        slots: &[usize],
        time: &Num<Int64Type>,
    ) -> RowResult {
        for (i, &g) in slots.iter().enumerate() {
            let (shard, local) = sh.place[g];
            if shard != k {
                continue;
            }
            let Some(t) = time.get(i) else { continue };
            if !sh.in_window(t) {
                continue;
            }
            let tr = &mut self.tracks[local as usize];
            if let Some(prev) = tr.last_t1 {
                if t < prev {
                    return Err((i, sh.out_of_order(g)));
                }
                if t > prev && t - prev <= sh.cfg.align_us {
                    continue; // the same sample as the one kept (--align)
                }
                if t > prev {
                    let d = t - prev;
                    match &mut tr.diff_run {
                        Some((run_d, n)) if *run_d == d => *n += 1,
                        run => {
                            if let Some((run_d, n)) = run.replace((d, 1)) {
                                *tr.diffs.entry(run_d).or_default() += n;
                            }
                        }
                    }
                }
            }
            tr.first_t1.get_or_insert(t);
            tr.last_t1 = Some(t);
        }
        Ok(())
    }

    /// Pass 2 over this shard's rows of a slice: weigh and fold.
    fn add(&mut self, k: u32, sh: &Shared, s: &Slice) -> RowResult {
        let c = s.cols;
        let time = Num::of(Some(&c.time));
        let activity = c.activity.each_ref().map(|a| Num::of(a.as_ref()));
        let power = Num::of(c.power.as_ref());
        let (mem_used, mem_total) = (Num::of(c.mem_used.as_ref()), Num::of(c.mem_total.as_ref()));
        for (i, &g) in s.slots.iter().enumerate() {
            let (shard, local) = sh.place[g];
            if shard != k {
                continue;
            }
            let activity = Activity(activity.each_ref().map(|a| a.get(i)));
            let (mem_used, mem_total) = (mem_used.get(i), mem_total.get(i));
            let held_value = c.held.as_ref().and_then(|h| h.get(i));
            let job = s.jobs[i];
            // every row read, whatever its time or window (docs/semantics.md §1)
            self.counts.contradictions.count_sample(&SampleValues {
                device_util: activity.device_util(),
                sm_active: activity.sm_active(),
                tensor_active: activity.tensor_active(),
                mem_used,
                mem_total,
                held: held_value,
                job_named: job.is_some(),
            });
            let Some(t) = time.get(i) else { continue };
            let local = local as usize;
            let admitted = self
                .admit(local, t, sh)
                .map_err(|()| (i, sh.out_of_order(g)))?;
            if admitted == Admit::Outside {
                continue;
            }
            let (model, user, team) = (s.models[i], s.users[i], s.teams[i]);
            let held = sh.rule.holds(held_value, job.is_some(), mem_used);
            let held_unknown = sh.rule == HeldRule::HeldColumn && held_value.is_none();
            let p = Pending {
                t,
                held,
                held_unknown,
                idle: super::held::is_idle(held, activity.device_util(), sh.cfg.idle.below),
                activity,
                price: sh.price(model),
                model,
                job,
                user,
                team,
                mem_used,
                mem_total,
                power: power.get(i),
            };
            match admitted {
                Admit::Same => self.merge_same(local, p),
                _ => self.weigh_previous(g, local, p, sh),
            }
        }
        Ok(())
    }

    /// A repeat of the sample kept for the GPU at `local` (at its instant, or
    /// within --align after it) is one sample with it: of two that disagree
    /// the one that ranks first is kept ([`Pending::outranks`]), whatever the
    /// order of the inputs, at the kept one's instant, and the disagreement is counted.
    fn merge_same(&mut self, local: usize, p: Pending) {
        let Some(kept) = self.tracks[local].pending.as_mut() else {
            return;
        };
        if !p.same_values(kept) {
            self.counts.disagreeing += 1;
        }
        if p.outranks(kept) {
            *kept = Pending { t: kept.t, ..p };
        }
    }

    /// Whether a row at `t` of the GPU at `local` is a new sample in the window
    /// (counting what is not); Err when the GPU's samples go back in time.
    fn admit(&mut self, local: usize, t: i64, sh: &Shared) -> std::result::Result<Admit, ()> {
        if !sh.in_window(t) {
            self.counts.rows_outside_window += 1;
            return Ok(Admit::Outside);
        }
        if let Some(prev) = self.tracks[local].last_t2 {
            if t == prev {
                self.counts.duplicates += 1; // exact duplicate of (host, gpu, time)
                return Ok(Admit::Same);
            }
            if t < prev {
                return Err(());
            }
            if t - prev <= sh.cfg.align_us {
                self.counts.aligned += 1;
                return Ok(Admit::Same);
            }
        }
        self.counts.rows_in_window += 1;
        Ok(Admit::New)
    }

    /// `p` is GPU `g`'s newest sample: the one before it now has its weight.
    fn weigh_previous(&mut self, g: usize, local: usize, p: Pending, sh: &Shared) {
        let tr = &mut self.tracks[local];
        tr.last_t2 = Some(p.t);
        if let Some(prev) = tr.pending.replace(p) {
            let gap = p.t - prev.t;
            let max_gap = tr.max_gap.unwrap_or(gap);
            let (w, unobserved) = weights::weigh_gap(gap, max_gap);
            self.counts.unobserved_us += unobserved;
            let w = weights::cap_until(prev.t, w, sh.cfg.until);
            self.finalize(g, prev, w, gap > max_gap, sh);
        }
    }

    /// The weighed interval of one sample, handed to every fold.
    fn finalize(&mut self, g: usize, p: Pending, w_us: i64, gap_after: bool, sh: &Shared) {
        // no jobs file (the usual case): no lookup per interval
        let mfu = p
            .job
            .filter(|_| !sh.mfu_by_label.is_empty())
            .and_then(|j| sh.mfu_by_label.get(&j).copied());
        let iv = Interval {
            gpu: g,
            host: sh.gpus[g].host_id,
            start: p.t,
            weight: w_us,
            held: p.held,
            held_unknown: p.held_unknown,
            idle: p.idle,
            activity: p.activity,
            mem_used: p.mem_used,
            mem_total: p.mem_total,
            power: p.power,
            price: p.price,
            mfu: if sh.present.useful { mfu } else { None },
            model: p.model,
            job: p.job,
            user: p.user,
            team: p.team,
            gap_after,
        };
        match &mut self.mfu_fold {
            Some(mfu) => mfu.add(&iv),
            None => self.folds.add(&iv),
        }
    }

    /// Weigh the last sample of every GPU of shard `k` of `n`: the folds
    /// have seen every interval.
    fn finalize_last(&mut self, k: usize, n: usize, sh: &Shared) {
        for local in 0..self.tracks.len() {
            let g = local * n + k;
            if let Some(p) = self.tracks[local].pending.take() {
                let tr = &self.tracks[local];
                let w = weights::weigh_last(tr.step, tr.max_gap, sh.snapshot_us);
                let w = weights::cap_until(p.t, w, sh.cfg.until);
                self.finalize(g, p, w, false, sh);
            }
            self.folds.end_gpu(g);
        }
    }

    /// Another shard's folds and counters into this one's (GPUs disjoint).
    fn merge(&mut self, other: Shard) {
        self.folds.merge(other.folds);
        match (&mut self.mfu_fold, other.mfu_fold) {
            (Some(m), Some(o)) => m.merge(o),
            (m @ None, o) => *m = o,
            (Some(_), None) => {}
        }
        self.counts.add(&other.counts);
    }
}

/// Run `work` on every shard, shard 0 on this thread and the others on their
/// own (scoped: they end before this returns). The earliest failing row wins,
/// so the error does not depend on the number of shards.
fn run_shards<F>(shards: &mut [Shard], work: F) -> Result<()>
where
    F: Fn(u32, &mut Shard) -> RowResult + Sync,
{
    let Some((first, rest)) = shards.split_first_mut() else {
        return Ok(());
    };
    let results: Vec<std::thread::Result<RowResult>> = std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = rest
            .iter_mut()
            .enumerate()
            .map(|(i, shard)| scope.spawn(move || work(i as u32 + 1, shard)))
            .collect();
        let mut results = vec![Ok(work(0, first))];
        results.extend(handles.into_iter().map(|h| h.join()));
        results
    });
    let mut earliest: Option<(usize, OutOfOrder)> = None;
    for r in results {
        match r {
            Err(_) => anyhow::bail!("internal: an audit worker thread panicked"),
            Ok(Err((row, e))) if earliest.as_ref().is_none_or(|(r, _)| row < *r) => {
                earliest = Some((row, e));
            }
            Ok(_) => {}
        }
    }
    match earliest {
        Some((_, e)) => Err(e.into()),
        None => Ok(()),
    }
}

/// Column accessors for one chunk; absent columns are None.
struct Cols {
    time: Int64Chunked,
    host: StringChunked,
    gpu: StringChunked,
    model: Option<StringChunked>,
    held: Option<BooleanChunked>,
    job: Option<StringChunked>,
    user: Option<StringChunked>,
    team: Option<StringChunked>,
    /// the registry's audited metrics, by slot
    activity: [Option<Float64Chunked>; metric::AUDITED],
    mem_used: Option<UInt64Chunked>,
    mem_total: Option<UInt64Chunked>,
    power: Option<Float64Chunked>,
}

fn opt_str(df: &DataFrame, name: &str) -> Result<Option<StringChunked>> {
    match df.column(name) {
        Ok(c) => Ok(Some(
            c.cast(&DataType::String)?.str()?.rechunk().into_owned(),
        )),
        Err(_) => Ok(None),
    }
}
fn opt_f64(df: &DataFrame, name: &str) -> Result<Option<Float64Chunked>> {
    match df.column(name) {
        Ok(c) => Ok(Some(
            c.cast(&DataType::Float64)?.f64()?.rechunk().into_owned(),
        )),
        Err(_) => Ok(None),
    }
}
fn opt_u64(df: &DataFrame, name: &str) -> Result<Option<UInt64Chunked>> {
    match df.column(name) {
        Ok(c) => Ok(Some(
            c.cast(&DataType::UInt64)?.u64()?.rechunk().into_owned(),
        )),
        Err(_) => Ok(None),
    }
}

/// The key columns of a sample table, contiguous: time (epoch µs), host, gpu.
pub(crate) fn sample_keys(df: &DataFrame) -> Result<(Int64Chunked, StringChunked, StringChunked)> {
    let time = df
        .column(col::TIME)?
        .cast(&DataType::Int64)?
        .i64()?
        .rechunk()
        .into_owned();
    let host = df
        .column(col::HOST)?
        .cast(&DataType::String)?
        .str()?
        .rechunk()
        .into_owned();
    let gpu = df
        .column(col::GPU)?
        .cast(&DataType::String)?
        .str()?
        .rechunk()
        .into_owned();
    Ok((time, host, gpu))
}

impl Cols {
    fn keys(df: &DataFrame) -> Result<(Int64Chunked, StringChunked, StringChunked)> {
        sample_keys(df)
    }

    fn new(df: &DataFrame) -> Result<Self> {
        let (time, host, gpu) = Cols::keys(df)?;
        let held = match df.column(col::HELD) {
            Ok(c) => Some(c.cast(&DataType::Boolean)?.bool()?.rechunk().into_owned()),
            Err(_) => None,
        };
        Ok(Cols {
            time,
            host,
            gpu,
            model: opt_str(df, col::MODEL)?,
            held,
            job: opt_str(df, col::JOB)?,
            user: opt_str(df, col::USER)?,
            team: opt_str(df, col::TEAM)?,
            activity: activity_columns(df)?,
            mem_used: opt_u64(df, col::MEM_USED_BYTES)?,
            mem_total: opt_u64(df, col::MEM_TOTAL_BYTES)?,
            power: opt_f64(df, col::POWER_W)?,
        })
    }
}

/// The audited metrics' columns of a chunk, by registry slot.
fn activity_columns(df: &DataFrame) -> Result<[Option<Float64Chunked>; metric::AUDITED]> {
    let mut out: [Option<Float64Chunked>; metric::AUDITED] = Default::default();
    for (at, m) in out.iter_mut().zip(metric::AUDITED_DEFS) {
        *at = opt_f64(df, m.name)?;
    }
    Ok(out)
}

/// Row access to a numeric column without `ChunkedArray::get`'s chunk search
/// on every call: the values themselves when the column has no nulls.
enum Num<'a, T: PolarsNumericType> {
    Dense(&'a [T::Native]),
    /// one chunk with nulls: its values and validity bits, read directly
    /// (ChunkedArray::get finds the chunk and tests the bit on every call)
    Masked(&'a [T::Native], &'a polars_arrow::bitmap::Bitmap),
    Sparse(&'a ChunkedArray<T>),
    Absent,
}

impl<'a, T: PolarsNumericType> Num<'a, T> {
    fn of(c: Option<&'a ChunkedArray<T>>) -> Self {
        match c {
            None => Num::Absent,
            Some(c) => {
                if let Ok(v) = c.cont_slice() {
                    return Num::Dense(v);
                }
                let mut chunks = c.downcast_iter();
                match (chunks.next(), chunks.next()) {
                    (Some(arr), None) => match arr.validity() {
                        Some(bits) => Num::Masked(arr.values().as_slice(), bits),
                        None => Num::Dense(arr.values().as_slice()),
                    },
                    _ => Num::Sparse(c),
                }
            }
        }
    }
    // inlined: it is called a dozen times per row, and out of line its call
    // and jump table were 7% of a report's CPU
    #[inline(always)]
    fn get(&self, i: usize) -> Option<T::Native> {
        match self {
            Num::Dense(v) => v.get(i).copied(),
            Num::Masked(v, bits) => {
                if i < bits.len() && bits.get_bit(i) {
                    v.get(i).copied()
                } else {
                    None
                }
            }
            Num::Sparse(c) => Self::sparse_get(c, i),
            Num::Absent => None,
        }
    }

    #[cold]
    #[inline(never)]
    fn sparse_get(c: &ChunkedArray<T>, i: usize) -> Option<T::Native> {
        c.get(i)
    }
}

pub struct Engine<'a> {
    cfg: &'a AuditConfig,
    rule: HeldRule,
    present: Present,
    snapshot_us: i64,
    /// what a GPU's single sample weighs: the fleet's step when other GPUs
    /// have one and no --interval says otherwise, else `snapshot_us`
    lone_us: i64,
    /// GPUs weighed the fleet's step for their single sample
    lone_gpus: usize,
    /// GPUs whose samples come in close pairs (Track::paired)
    paired_gpus: usize,
    /// streamed: what is seen of the GPU ids, to find those that need the whole table
    ids: Option<IdCheck>,
    /// "host\0gpu" -> GPU index
    index: HashMap<String, usize>,
    key_buf: String,
    gpus: Vec<GpuState>,
    /// GPU -> (shard, place in the shard)
    place: Vec<(u32, u32)>,
    /// the workers' state: GPUs, folds, counters (one shard: no threads)
    shards: Vec<Shard>,
    labels: Interner,
    /// price per model label (slot 0: no model), filled on first use
    prices: Vec<Option<Option<f64>>>,
    unpriced_models: BTreeSet<String>,
    mfu_by_label: HashMap<u32, f64>,
    /// the declared jobs' MFU by name (None: no jobs file)
    job_mfu: Option<std::collections::BTreeMap<String, f64>>,
    /// the kinds `--jobs` declares, by job name (the diagnosis' jobs section)
    job_kinds: std::collections::BTreeMap<String, super::diagnosis::jobs::Shape>,
    /// per-row ids of the slice being audited, kept between slices: fresh
    /// ones each slice were ~40 MB of first-touch page faults a slice
    buffers: SliceBuffers,
}

/// A slice's GPU slot and model, job, user and team label ids per row.
#[derive(Default)]
struct SliceBuffers {
    slots: Vec<usize>,
    labels: [Vec<Option<u32>>; 4],
    /// one per shard thread: its range of a slice's keys
    parts: Vec<super::keys::KeyPart>,
}

/// The shards' results, merged: what the report is assembled from.
struct Merged {
    folds: Folds,
    mfu_fold: Option<MfuFold>,
    counts: RowCounts,
}

impl<'a> Engine<'a> {
    pub fn new(cfg: &'a AuditConfig, rule: HeldRule, present: Present) -> Self {
        let shards = (0..cfg.threads.max(1))
            .map(|_| Shard::new(Folds::new(present.basis(), cfg.by)))
            .collect();
        Engine {
            cfg,
            rule,
            present,
            snapshot_us: cfg
                .weights
                .interval_us
                .unwrap_or(super::DEFAULT_SNAPSHOT_US),
            lone_us: cfg
                .weights
                .interval_us
                .unwrap_or(super::DEFAULT_SNAPSHOT_US),
            lone_gpus: 0,
            paired_gpus: 0,
            ids: cfg.streamed.then(IdCheck::default),
            index: HashMap::default(),
            key_buf: String::new(),
            gpus: Vec::new(),
            place: Vec::new(),
            shards,
            labels: Interner::default(),
            prices: Vec::new(),
            unpriced_models: BTreeSet::new(),
            mfu_by_label: HashMap::default(),
            job_mfu: None,
            job_kinds: Default::default(),
            buffers: SliceBuffers {
                parts: (0..cfg.threads.max(1))
                    .map(|_| Default::default())
                    .collect(),
                ..Default::default()
            },
        }
    }

    /// The jobs file's MFU per job, an input of the audit: the useful layer
    /// exists, and the job summaries are listed.
    pub fn with_job_mfu(mut self, mfu: &std::collections::BTreeMap<String, f64>) -> Self {
        for (job, m) in mfu {
            let id = self.labels.intern(job);
            self.mfu_by_label.insert(id, *m);
        }
        self.present.useful = true;
        for shard in &mut self.shards {
            shard.folds = Folds::new(self.present.basis(), self.cfg.by);
            shard.folds.jobs = Some(super::folds::jobs::JobsFold::new(self.present.basis()));
        }
        self.job_mfu = Some(mfu.clone());
        self
    }

    /// The kinds the jobs file declares: a declared kind wins over the shape.
    pub fn with_job_kinds(
        mut self,
        kinds: &std::collections::BTreeMap<String, super::diagnosis::jobs::Shape>,
    ) -> Self {
        self.job_kinds = kinds.clone();
        self
    }

    /// What the jobs file declares per job, for the jobs section.
    fn declared_jobs(
        &self,
    ) -> std::collections::BTreeMap<String, super::diagnosis::jobs::Declared> {
        let mut declared: std::collections::BTreeMap<String, super::diagnosis::jobs::Declared> =
            self.job_kinds
                .iter()
                .map(|(job, kind)| {
                    (
                        job.clone(),
                        super::diagnosis::jobs::Declared {
                            kind: Some(*kind),
                            mfu: None,
                        },
                    )
                })
                .collect();
        for (job, mfu) in self.job_mfu.iter().flatten() {
            declared.entry(job.clone()).or_default().mfu = Some(*mfu);
        }
        declared
    }

    /// Only measure each job's held time (for MFU): see [`Engine::finish_mfu`].
    pub fn collecting_mfu(mut self) -> Self {
        for shard in &mut self.shards {
            shard.mfu_fold = Some(MfuFold::default());
        }
        self
    }

    /// What the shards read while they run (the prices must be filled first).
    fn shared(&self) -> Shared<'_> {
        Shared {
            cfg: self.cfg,
            rule: self.rule,
            present: self.present,
            snapshot_us: self.lone_us,
            gpus: &self.gpus,
            place: &self.place,
            prices: &self.prices,
            mfu_by_label: &self.mfu_by_label,
        }
    }

    /// `work` on every shard, each on its own thread, with what they share.
    fn on_shards<F>(&mut self, work: F) -> Result<()>
    where
        F: Fn(u32, &mut Shard, &Shared) -> RowResult + Sync,
    {
        let mut shards = std::mem::take(&mut self.shards);
        let sh = self.shared();
        let done = run_shards(&mut shards, |k, shard| work(k, shard, &sh));
        self.shards = shards;
        done
    }

    /// The GPU index of every row of a slice (new GPUs are added), from the
    /// parts' keys in row order ([`keys::find`]): each part's distinct keys
    /// numbered here, in order, the rows by [`keys::spread`].
    fn gpu_slots(&mut self, c: &keys::KeyColumns, parts: &mut [keys::KeyPart]) -> Result<()> {
        for p in parts.iter_mut() {
            let mut ids = std::mem::take(&mut p.gpu_ids);
            ids.clear();
            for &row in &p.gpus.firsts {
                ids.push(self.gpu_index(keys::text_at(c.host, row), keys::text_at(c.gpu, row)));
            }
            p.gpu_ids = ids;
        }
        if self.ids.as_ref().is_some_and(|c| c.conflict) {
            return Err(crate::samples::NeedsWholeTable.into());
        }
        Ok(())
    }

    fn gpu_index(&mut self, host: &str, gpu: &str) -> usize {
        self.key_buf.clear();
        self.key_buf.push_str(host);
        self.key_buf.push('\0');
        self.key_buf.push_str(gpu);
        if let Some(i) = self.index.get(self.key_buf.as_str()) {
            return *i;
        }
        if let Some(ids) = self.ids.as_mut() {
            ids.see(host, gpu, &self.index);
        }
        let host_id = self.labels.intern(host);
        self.gpus.push(GpuState {
            host: host.to_string(),
            gpu: gpu.to_string(),
            host_id,
        });
        let i = self.gpus.len() - 1;
        // round robin: shards hold about as many GPUs (and rows) each
        let n = self.shards.len();
        self.place.push(((i % n) as u32, (i / n) as u32));
        self.shards[i % n].tracks.push(Track::default());
        self.index.insert(self.key_buf.clone(), i);
        i
    }

    /// The label id of each part's distinct keys of label column `which`
    /// (None: null or empty; no column: no keys), in order.
    fn label_ids(&mut self, c: &keys::KeyColumns, parts: &mut [keys::KeyPart], which: usize) {
        let arr = c.labels[which].flatten();
        for p in parts.iter_mut() {
            let mut ids = std::mem::take(&mut p.label_ids[which]);
            ids.clear();
            for &row in &p.labels[which].firsts {
                let s = keys::text_at(arr, row);
                ids.push((!s.is_empty()).then(|| self.labels.intern(s)));
            }
            p.label_ids[which] = ids;
        }
    }

    /// Pass 1: the time differences of each GPU.
    pub fn observe_steps(&mut self, chunk: &DataFrame) -> Result<()> {
        let (time, host, gpu) = Cols::keys(chunk)?;
        let c = keys::KeyColumns {
            host: keys::one_chunk(&host)?,
            gpu: keys::one_chunk(&gpu)?,
            labels: [None; 4],
        };
        let mut parts = std::mem::take(&mut self.buffers.parts);
        let mut slots = std::mem::take(&mut self.buffers.slots);
        let done = keys::find(&c, time.len(), &mut parts, false).and_then(|n| {
            self.gpu_slots(&c, &mut parts[..n])?;
            keys::spread(&parts[..n], &mut slots, None)
        });
        self.buffers.parts = parts;
        let done = done.and_then(|()| {
            let time = Num::of(Some(&time));
            self.on_shards(|k, shard, sh| shard.observe(k, sh, &slots, &time))
        });
        self.buffers.slots = slots;
        done
    }

    /// Between the passes: median step and max gap per GPU (docs/semantics.md §2).
    pub fn finish_steps(&mut self) {
        for shard in &mut self.shards {
            for tr in &mut shard.tracks {
                tr.finish_steps(self.cfg.weights.max_gap_us);
            }
        }
        self.weigh_lone_samples();
        self.paired_gpus = self.tracks().filter(|t| t.paired).count();
        self.start_diagnosis();
    }

    /// The median of the GPUs' steps (None: no GPU has two samples).
    fn fleet_step(&self) -> Option<i64> {
        let mut steps: Vec<i64> = self.tracks().filter_map(|g| g.step).collect();
        steps.sort_unstable();
        weights::median_by_rank(steps.len() as u64, |i| steps[i as usize])
    }

    /// A GPU seen once inside a time series (docs/semantics.md §2) weighs the
    /// fleet's step, not the snapshot hour: one stray row would otherwise
    /// stand for an hour of a 1-minute dump. --interval, when given, is the
    /// user's word for it and stays.
    fn weigh_lone_samples(&mut self) {
        let Some(step) = self.fleet_step() else {
            return;
        };
        if self.cfg.weights.interval_us.is_some() {
            return;
        }
        self.lone_us = step;
        self.lone_gpus = self
            .tracks()
            .filter(|g| g.step.is_none() && g.last_t1.is_some())
            .count();
    }

    fn tracks(&self) -> impl Iterator<Item = &Track> {
        self.shards.iter().flat_map(|s| s.tracks.iter())
    }

    /// The report's window, known once pass 1 has seen every time: from the
    /// first sample (or --since) to the end of the last one's weight (capped by
    /// --until), as the tally's span will be.
    fn window_of_pass1(&self) -> Option<(i64, i64)> {
        let first = self.tracks().filter_map(|g| g.first_t1).min()?;
        let end = self
            .tracks()
            .filter_map(|g| {
                let t = g.last_t1?;
                let w = weights::weigh_last(g.step, g.max_gap, self.lone_us);
                Some(t + weights::cap_until(t, w, self.cfg.until))
            })
            .max()?;
        let start = self.cfg.since.unwrap_or(first);
        let end = self.cfg.until.map_or(end, |u| u.min(end));
        Some((start, end))
    }

    /// Timeline, leak and node folds over the window, bucketed by --bucket or
    /// the automatic rule on the fleet step (the median of the GPUs' steps).
    fn start_diagnosis(&mut self) {
        let Some((start, end)) = self.window_of_pass1() else {
            return;
        };
        let fleet_step = self.fleet_step();
        let bucket = self.cfg.timeline.bucket_us.unwrap_or_else(|| {
            super::diagnosis::auto_bucket(fleet_step.unwrap_or(self.snapshot_us), end - start)
        });
        let mut thresholds = self.cfg.leak_thresholds;
        thresholds.idle_below = self.cfg.idle.below;
        let declared = self.declared_jobs();
        for shard in &mut self.shards {
            shard.folds.diagnosis = Some(super::diagnosis::DiagnosisFolds::new(
                bucket,
                start,
                end,
                thresholds,
                self.cfg.by,
                declared.clone(),
            ));
        }
    }

    /// Pass 2: weigh and tally. Chunks must come in the same order as in pass 1.
    pub fn add(&mut self, chunk: &DataFrame) -> Result<()> {
        let c = Cols::new(chunk)?;
        let mut buffers = std::mem::take(&mut self.buffers);
        let done = self.add_slice(&c, chunk.height(), &mut buffers);
        self.buffers = buffers;
        done
    }

    /// [`Engine::add`] with the per-row buffers it fills.
    fn add_slice(&mut self, c: &Cols, rows: usize, buffers: &mut SliceBuffers) -> Result<()> {
        fn label(col: &Option<StringChunked>) -> Result<Option<Option<&Utf8ViewArray>>> {
            col.as_ref().map(keys::one_chunk).transpose()
        }
        let k = keys::KeyColumns {
            host: keys::one_chunk(&c.host)?,
            gpu: keys::one_chunk(&c.gpu)?,
            labels: [
                label(&c.model)?,
                label(&c.job)?,
                label(&c.user)?,
                label(&c.team)?,
            ],
        };
        let n = keys::find(&k, rows, &mut buffers.parts, true)?;
        let parts = &mut buffers.parts[..n];
        self.gpu_slots(&k, parts)?;
        for which in 0..k.labels.len() {
            self.label_ids(&k, parts, which);
        }
        // every model's price is known before the shards read the table:
        // looked up per distinct model of each part, not per row
        if rows > 0 && k.labels[0].flatten().is_none() {
            self.price_of(None);
        }
        for p in parts.iter() {
            for &m in &p.label_ids[0] {
                self.price_of(m);
            }
        }
        keys::spread(parts, &mut buffers.slots, Some(&mut buffers.labels))?;
        let [models, jobs, users, teams] = &buffers.labels;
        let slice = Slice {
            cols: c,
            slots: &buffers.slots,
            models,
            jobs,
            users,
            teams,
        };
        self.on_shards(|k, shard, sh| shard.add(k, sh, &slice))
    }

    /// The price of a model label, looked up once per model (unpriced ones noted).
    fn price_of(&mut self, model: Option<u32>) -> Option<f64> {
        let slot = model.map_or(0, |m| m as usize + 1);
        if let Some(Some(p)) = self.prices.get(slot) {
            return *p;
        }
        let p = self.cfg.prices.price_of(model.map(|m| self.labels.name(m)));
        if p.is_none() {
            self.unpriced_models.insert(
                model
                    .map(|m| self.labels.name(m))
                    .unwrap_or("(no model)")
                    .to_string(),
            );
        }
        if self.prices.len() <= slot {
            self.prices.resize(slot + 1, None);
        }
        self.prices[slot] = Some(p);
        p
    }

    /// Weigh the last sample of every GPU and merge the shards, in order.
    fn merge_shards(&mut self) -> Merged {
        let n = self.shards.len();
        let mut shards = std::mem::take(&mut self.shards);
        {
            let sh = self.shared();
            for (k, shard) in shards.iter_mut().enumerate() {
                shard.finalize_last(k, n, &sh);
            }
        }
        let mut iter = shards.into_iter();
        let mut total = iter
            .next()
            .unwrap_or_else(|| Shard::new(Folds::new(self.present.basis(), self.cfg.by)));
        for shard in iter {
            total.merge(shard);
        }
        total.folds.finish_totals();
        Merged {
            folds: total.folds,
            mfu_fold: total.mfu_fold,
            counts: total.counts,
        }
    }

    /// The held time of each job, after a pass [`Engine::collecting_mfu`].
    pub fn finish_mfu(mut self) -> std::collections::BTreeMap<String, JobHeld> {
        let merged = self.merge_shards();
        merged
            .mfu_fold
            .as_ref()
            .map(|f| f.by_job(&self))
            .unwrap_or_default()
    }

    /// Weigh the last sample of every GPU and assemble the report.
    pub fn finish(
        mut self,
        sources: Vec<String>,
        rows_read: u64,
        quality: &crate::samples::Quality,
    ) -> Result<Report> {
        let merged = self.merge_shards();
        if merged.counts.rows_in_window == 0 {
            if merged.counts.rows_outside_window == 0 {
                anyhow::bail!("no usable samples in {}", sources.join(", "));
            }
            anyhow::bail!(
                "no samples between --since and --until ({} samples lie outside the window)",
                merged.counts.rows_outside_window
            );
        }
        let mut merged = merged;
        let mut parts = self.parts(&mut merged, sources, rows_read, quality);
        super::assemble::review_prices(&mut parts, self.cfg)?;
        Ok(assemble(parts, self.cfg))
    }

    /// The report's window: the tally's span, from --since when given, and
    /// --until past the last sample does not stretch it (nor shrink run-rates).
    fn window(&self, folds: &Folds) -> (i64, i64) {
        let (mut window_start, mut window_end) = folds.tally.span.unwrap_or((0, 0));
        if let Some(s) = self.cfg.since {
            window_start = s;
        }
        if let Some(u) = self.cfg.until {
            window_end = u.min(window_end);
        }
        (window_start, window_end)
    }

    /// The diagnosis folds' results over the window (MFU joined to the job
    /// rows when a jobs file gave it).
    fn diagnosis(
        &self,
        folds: &mut Folds,
        (window_start, window_end): (i64, i64),
    ) -> super::diagnosis::Sections {
        let cfg = self.cfg;
        let layers = folds.tally.total.layers(&self.present);
        let usd_per_gpu_hour = mean_price(&folds.tally.total);
        let diagnosis = folds.diagnosis.as_mut().map_or_else(Default::default, |d| {
            d.finish(
                self,
                super::diagnosis::DiagnosisInputs {
                    deepest_layer: super::diagnosis::purchase::deepest_layer(&layers),
                    window_hours: (window_end - window_start).max(0) as f64 / US_PER_HOUR,
                    want: cfg.purchase.want,
                    pending: cfg.purchase.queue.as_ref().map(|q| q.requests.as_slice()),
                    top_hosts: cfg.top,
                    min_window_hours: cfg.purchase.min_window_hours,
                    observed_gpu_hours: layers.observed_gpu_hours,
                    held_known_gpu_hours: layers.held_gpu_hours + layers.unallocated_gpu_hours,
                    usd_per_gpu_hour,
                    own_cost: cfg.purchase.own_cost.as_ref(),
                },
            )
        });
        let mut diagnosis = diagnosis;
        if let (Some(mfu), Some(rows), Some(jobs)) =
            (&self.job_mfu, &mut diagnosis.jobs, &folds.jobs)
        {
            let summaries = jobs.summaries(self, &self.present, mfu);
            join_mfu(rows, &summaries);
        }
        diagnosis
    }

    /// The notes and warnings of the data-quality section: normalisation's,
    /// the queue's and what the shards counted.
    fn quality_lines(
        &self,
        counts: &RowCounts,
        quality: &crate::samples::Quality,
        snapshot: bool,
    ) -> (Vec<crate::audit::model::Note>, Vec<Warning>) {
        let cfg = self.cfg;
        let mut notes = quality.notes.clone();
        if let Some(q) = &cfg.purchase.queue {
            notes.extend(q.notes.iter().cloned());
        }
        let mut warnings = quality.warnings.clone();
        if counts.contradictions.total() > 0 {
            warnings.push(Warning::Contradictions {
                counts: counts.contradictions,
            });
        }
        if snapshot {
            notes.push(crate::audit::model::Note::Snapshot {
                weight_us: self.snapshot_us,
            });
        }
        if self.lone_gpus > 0 {
            notes.push(crate::audit::model::Note::LoneSamples {
                gpus: self.lone_gpus,
                weight_us: self.lone_us,
            });
        }
        if counts.aligned > 0 {
            notes.push(crate::audit::model::Note::SamplesAligned {
                samples: counts.aligned,
                align_us: cfg.align_us,
            });
        }
        if self.paired_gpus > 0 {
            warnings.push(Warning::ClosePairs {
                gpus: self.paired_gpus,
            });
        }
        if counts.disagreeing > 0 {
            warnings.push(Warning::RepeatsDisagree {
                samples: counts.disagreeing,
            });
        }
        (notes, warnings)
    }

    /// The folds' results as the parts of a report.
    fn parts(
        &self,
        merged: &mut Merged,
        sources: Vec<String>,
        rows_read: u64,
        quality: &crate::samples::Quality,
    ) -> Parts {
        let cfg = self.cfg;
        let folds = &mut merged.folds;
        let (window_start, window_end) = self.window(folds);
        let diagnosis = self.diagnosis(folds, (window_start, window_end));
        let snapshot = folds.gpus.all_single();
        let gpus = folds.gpus.summaries(self, &self.present, &cfg.prices);
        let (notes, warnings) = self.quality_lines(&merged.counts, quality, snapshot);
        Parts {
            window_start,
            window_end,
            snapshot,
            sources: Sources {
                files: sources,
                rows_read,
                rows_used: merged.counts.rows_in_window,
                text_rows_streamed: None,
            },
            held_rule: self.rule.basis(),
            present: self.present,
            total: folds.tally.total.clone(),
            unpriced_models: self.unpriced_models.iter().cloned().collect(),
            groups: folds.groups.named(self),
            episodes: folds.episodes.episodes(self, cfg.idle.min_episode_us),
            model_hours: gpus
                .iter()
                .map(|g| (g.model.clone(), g.observed_gpu_hours))
                .collect(),
            gpu_count: gpus.len(),
            vendors: super::vendors::lines(folds.gpus.tallies(self), &self.present),
            gpus,
            quality: DataQuality {
                duplicates: merged.counts.duplicates,
                invalid: quality.invalid.clone(),
                unobserved_gpu_hours: merged.counts.unobserved_us as f64 / US_PER_HOUR,
                rows_outside_window: merged.counts.rows_outside_window,
                rows_dropped: quality.rows_dropped,
                notes,
                warnings,
                ..DataQuality::default()
            },
            note_unmeasured_basis: true,
            diagnosis,
        }
    }
}

/// The end of the data's window as a report without --since/--until shows
/// it: the latest end of a GPU's last sample's weight (docs/semantics.md §2).
/// A span (`--since 30m`) counts back from here, so it gives a 30-minute
/// window, not one step more. One keys-only pass over `source`.
pub(crate) fn window_end(
    source: &dyn super::ChunkSource,
    cfg: &AuditConfig,
) -> Result<Option<i64>> {
    let mut open = cfg.clone();
    (open.since, open.until) = (None, None);
    open.threads = 1;
    let present = Present {
        device_util: false,
        sm_active: false,
        tensor_active: false,
        useful: false,
    };
    let mut engine = Engine::new(&open, HeldRule::Assumed, present);
    source.for_each_chunk(true, &mut |df| engine.observe_steps(df))?;
    engine.finish_steps();
    Ok(engine.window_of_pass1().map(|(_, end)| end))
}

/// The jobs file's MFU figures onto the jobs' rows, by job name.
fn join_mfu(rows: &mut super::diagnosis::jobs::JobRows, summaries: &[super::model::JobSummary]) {
    let by_job: HashMap<&str, &super::model::JobSummary> =
        summaries.iter().map(|s| (s.job.as_str(), s)).collect();
    for i in 0..rows.len() {
        if let Some(s) = by_job.get(rows.job(i)) {
            rows.set_mfu(i, s.mfu, s.useful_gpu_hours, s.not_useful_usd);
        }
    }
}

impl Names for Engine<'_> {
    fn label(&self, id: u32) -> &str {
        self.labels.name(id)
    }
    fn host_of(&self, gpu: usize) -> &str {
        self.gpus.get(gpu).map_or("", |g| g.host.as_str())
    }
    fn gpu_of(&self, gpu: usize) -> &str {
        self.gpus.get(gpu).map_or("", |g| g.gpu.as_str())
    }
}

/// Median of positive differences from their histogram: the mean of the
/// middle two for an even count, as `weights::median_step`.
pub fn median_of_histogram(diffs: &HashMap<i64, u64>) -> Option<i64> {
    let n: u64 = diffs.values().sum();
    let mut sorted: Vec<(i64, u64)> = diffs.iter().map(|(d, c)| (*d, *c)).collect();
    sorted.sort_unstable();
    let nth = |k: u64| -> i64 {
        let mut seen = 0;
        for (d, c) in &sorted {
            seen += c;
            if seen > k {
                return *d;
            }
        }
        sorted.last().map(|x| x.0).unwrap_or(0)
    };
    weights::median_by_rank(n, nth)
}

/// Priced dollars ÷ priced GPU-hours: the fleet's mean $/GPU-h for the
/// purchase plan; None when nothing is priced.
pub(crate) fn mean_price(t: &super::tally::Tally) -> Option<f64> {
    let priced_h = t.observed_h() - t.unpriced_h();
    t.priced(t.observed_usd)
        .filter(|_| priced_h > 0.0)
        .map(|usd| usd / priced_h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_median_matches_the_sorted_median() {
        let mut h = HashMap::default();
        for d in [10, 20, 30, 40] {
            *h.entry(d).or_default() += 1;
        }
        assert_eq!(
            median_of_histogram(&h),
            super::super::weights::median_step(&[0, 10, 30, 60, 100])
        );
        h.insert(60_000, 5);
        assert_eq!(median_of_histogram(&h), Some(60_000));
        assert_eq!(median_of_histogram(&HashMap::default()), None);
    }
}
