//! Pure computation on the canonical sample table: weights, held, layers,
//! idle episodes, dollars, showback. Nothing here prints.
use crate::catalog::prices::PriceBook;
use crate::samples::{SampleTable, col};
use anyhow::{Context, Result};
use engine::Engine;
pub(crate) use held::{HeldRule, held_rule_from};
use model::Report;
use polars::prelude::{DataFrame, SortMultipleOptions};
use tally::Present;

pub(crate) mod assemble;
pub(crate) mod calculator;
pub mod check;
pub(crate) mod contradictions;
pub(crate) mod diagnosis;
pub(crate) mod engine;
pub(crate) mod folds;
pub(crate) mod held;
pub(crate) mod interval;
mod keys;
pub(crate) mod listing;
pub(crate) mod mfu;
pub mod model;
pub(crate) mod rules_file;
pub(crate) mod scan;
pub(crate) mod tally;
pub(crate) mod vendors;
pub(crate) mod weights;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupBy {
    Team,
    User,
    Job,
    Host,
    Model,
}

impl GroupBy {
    pub fn column(self) -> &'static str {
        match self {
            GroupBy::Team => col::TEAM,
            GroupBy::User => col::USER,
            GroupBy::Job => col::JOB,
            GroupBy::Host => col::HOST,
            GroupBy::Model => col::MODEL,
        }
    }
}

/// Plain options of the audit (no clap inside): the run's own (window,
/// grouping, prices, threads) and each rule's settings, declared beside the
/// rule with its defaults (docs/semantics.md §15).
#[derive(Debug, Clone)]
pub(crate) struct AuditConfig {
    pub since: Option<i64>,
    pub until: Option<i64>,
    pub weights: weights::WeightSettings,
    pub held: held::HeldSettings,
    pub idle: held::IdleSettings,
    pub prices: PriceBook,
    pub by: Option<GroupBy>,
    pub top: Option<usize>,
    pub timeline: diagnosis::timeline::TimelineSettings,
    /// leak cascade thresholds (`--leak-thresholds`); its idle row is --idle-below
    pub leak_thresholds: diagnosis::LeakThresholds,
    pub purchase: diagnosis::purchase::PurchaseSettings,
    /// audit workers: GPUs are sharded across this many threads (1: no threads)
    pub threads: usize,
    /// samples of one GPU at most this far after the one kept are the same sample (`--align`)
    pub align_us: i64,
    /// the samples come streamed: GPU ids that need the whole table (a UUID
    /// under two hosts, a MIG parent beside its instances) stop the audit
    /// with `samples::NeedsWholeTable`, and the in-memory path reads them
    pub streamed: bool,
}

impl AuditConfig {
    pub fn new(prices: PriceBook) -> Self {
        AuditConfig {
            since: None,
            until: None,
            weights: Default::default(),
            held: Default::default(),
            idle: Default::default(),
            prices,
            by: None,
            top: None,
            timeline: Default::default(),
            leak_thresholds: Default::default(),
            purchase: Default::default(),
            threads: 1,
            align_us: 0,
            streamed: false,
        }
    }
}

pub const DEFAULT_SNAPSHOT_US: i64 = 3_600 * interval::TICKS_PER_SECOND;

/// Which layers the input can show (an absent column gives a null layer, not 0).
/// (`useful` needs a jobs file: see [`engine::Engine::with_job_mfu`].)
fn present_from(has: &dyn Fn(&str) -> bool) -> Present {
    Present {
        device_util: has(col::DEVICE_UTIL),
        sm_active: has(col::SM_ACTIVE),
        tensor_active: has(col::TENSOR_ACTIVE),
        useful: false,
    }
}

/// A dataset read in chunks, twice: first only time/host/gpu (steps), then
/// every column (weights and tallies). Chunks must keep each GPU's samples in
/// time order; the engine answers [`engine::OutOfOrder`] when they do not.
pub(crate) trait ChunkSource {
    fn has(&self, column: &str) -> bool;
    fn sources(&self) -> Vec<String>;
    fn rows_read(&self) -> u64;
    /// Call `f` on each canonical chunk; returns what normalisation counted.
    fn for_each_chunk(
        &self,
        keys_only: bool,
        f: &mut dyn FnMut(&DataFrame) -> Result<()>,
    ) -> Result<crate::samples::Quality>;
}

/// The streaming audit: memory grows with GPUs, jobs and episodes, not rows.
/// A jobs file adds passes over the chunks (each job's held time, for MFU)
/// before the audit's own, so it streams too.
#[cfg_attr(not(feature = "fuzzing"), allow(dead_code))] // fuzzed (feature fuzzing) and tested
pub(crate) fn audit_chunks(source: &dyn ChunkSource, cfg: &AuditConfig) -> Result<Report> {
    audit_chunks_with_jobs(source, cfg, None)
}

/// The streaming audit with a jobs file's declarations.
pub(crate) fn audit_chunks_with_jobs(
    source: &dyn ChunkSource,
    cfg: &AuditConfig,
    jobs: Option<&mfu::DeclaredJobs>,
) -> Result<Report> {
    // a jobs file of kinds only declares no work: no MFU passes
    let job_mfu = jobs
        .filter(|j| !j.decls.is_empty())
        .map(|j| mfu::declared_mfu(source, cfg, &j.decls).with_context(|| j.label.clone()))
        .transpose()?;
    let has = |c: &str| source.has(c);
    let rule = held_rule_from(&has, &source.sources(), cfg)?;
    let mut engine = Engine::new(cfg, rule, present_from(&has));
    if let Some(m) = &job_mfu {
        engine = engine.with_job_mfu(&m.mfu);
    }
    if let Some(j) = jobs {
        engine = engine.with_job_kinds(&j.kinds);
    }
    source.for_each_chunk(true, &mut |df| engine.observe_steps(df))?;
    engine.finish_steps();
    let quality = source.for_each_chunk(false, &mut |df| engine.add(df))?;
    let mut report = engine.finish(source.sources(), source.rows_read(), &quality)?;
    if let Some(m) = job_mfu {
        report.data_quality.warnings.extend(m.warnings);
        report.data_quality.notes.extend(m.notes);
    }
    Ok(report)
}

const IN_MEMORY_SLICE_ROWS: usize = 1 << 20;

/// An in-memory table as a chunk source: sorted by GPU and time once (stable,
/// so of exact duplicates the first in input order is kept), then read in
/// zero-copy slices that keep the engine's per-slice row vectors small.
pub(crate) struct TableChunks<'t> {
    table: &'t SampleTable,
    sorted: DataFrame,
}

impl<'t> TableChunks<'t> {
    pub(crate) fn new(table: &'t SampleTable) -> Result<Self> {
        let sorted = table
            .df
            .sort(
                [col::HOST, col::GPU, col::TIME],
                SortMultipleOptions::default().with_maintain_order(true),
            )
            .map_err(anyhow::Error::from)
            .context("sorting samples")?;
        Ok(TableChunks { table, sorted })
    }
}

impl ChunkSource for TableChunks<'_> {
    fn has(&self, column: &str) -> bool {
        self.table.has(column)
    }
    fn sources(&self) -> Vec<String> {
        self.table.sources.clone()
    }
    fn rows_read(&self) -> u64 {
        self.table.rows_read
    }
    fn for_each_chunk(
        &self,
        _keys_only: bool,
        f: &mut dyn FnMut(&DataFrame) -> Result<()>,
    ) -> Result<crate::samples::Quality> {
        for offset in (0..self.sorted.height()).step_by(IN_MEMORY_SLICE_ROWS) {
            f(&self.sorted.slice(offset as i64, IN_MEMORY_SLICE_ROWS))?;
        }
        Ok(self.table.quality.clone())
    }
}

/// Run the audit on an in-memory table.
pub(crate) fn audit(table: &SampleTable, cfg: &AuditConfig) -> Result<Report> {
    audit_with_jobs(table, cfg, None)
}

/// The audit of an in-memory table, with a jobs file's declarations.
pub(crate) fn audit_with_jobs(
    table: &SampleTable,
    cfg: &AuditConfig,
    jobs: Option<&mfu::DeclaredJobs>,
) -> Result<Report> {
    audit_chunks_with_jobs(&TableChunks::new(table)?, cfg, jobs)
}

#[cfg(test)]
mod tests;
