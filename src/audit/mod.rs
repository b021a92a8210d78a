//! Pure computation on the canonical sample table: weights, held, layers,
//! idle episodes, dollars, showback. Nothing here prints.
use crate::prices::PriceBook;
use crate::samples::{SampleTable, col};
use anyhow::{Context, Result, bail};
use engine::Engine;
use model::Report;
use polars::prelude::{DataFrame, DataType, SortMultipleOptions};
use std::collections::BTreeMap;
use tally::Present;

pub mod check;
pub mod diagnosis;
pub mod engine;
pub mod interval;
pub mod listing;
pub mod mfu;
pub mod model;
pub mod tally;
pub mod weights;

/// How a row is decided held (report-semantics.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldRule {
    HeldColumn,
    JobColumn,
    Memory(u64),
    Assumed,
}

impl HeldRule {
    /// Whether one sample is held, from the values the rules read: the held
    /// column, whether a job is set, the memory used.
    pub fn holds(self, held: Option<bool>, has_job: bool, mem_used: Option<u64>) -> bool {
        match self {
            HeldRule::HeldColumn => held.unwrap_or(false),
            HeldRule::JobColumn => has_job,
            HeldRule::Memory(limit) => mem_used.is_some_and(|m| m > limit),
            HeldRule::Assumed => true,
        }
    }

    pub fn describe(self) -> String {
        match self {
            HeldRule::HeldColumn => "held column".to_string(),
            HeldRule::JobColumn => "job column: held when a job is set".to_string(),
            HeldRule::Memory(b) => format!("memory used > {} MiB", b / (1024 * 1024)),
            HeldRule::Assumed => "--assume-held: every sample held".to_string(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
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

/// Plain options of the audit (no clap inside).
#[derive(Debug, Clone)]
pub struct AuditConfig {
    pub since: Option<i64>,
    pub until: Option<i64>,
    pub max_gap_ms: Option<i64>,
    pub interval_ms: Option<i64>,
    pub idle_below: f64,
    pub min_idle_ms: i64,
    pub held_mem_bytes: u64,
    pub assume_held: bool,
    pub prices: PriceBook,
    pub by: Option<GroupBy>,
    pub top: Option<usize>,
    /// MFU (fraction) of each declared job, computed by `audit::mfu` when a jobs file is given
    pub job_mfu: Option<BTreeMap<String, f64>>,
}

impl AuditConfig {
    pub fn new(prices: PriceBook) -> Self {
        AuditConfig {
            since: None,
            until: None,
            max_gap_ms: None,
            interval_ms: None,
            idle_below: 0.01,
            min_idle_ms: 30 * 60_000,
            held_mem_bytes: 1 << 30,
            assume_held: false,
            prices,
            by: None,
            top: None,
            job_mfu: None,
        }
    }
}

pub const DEFAULT_SNAPSHOT_MS: i64 = 3_600_000;

/// Decide the held rule from the columns the input has.
pub fn held_rule(table: &SampleTable, cfg: &AuditConfig) -> Result<HeldRule> {
    held_rule_from(&|c| table.has(c), &table.sources, cfg)
}

/// The held rule for any source that can say which canonical columns it has.
pub fn held_rule_from(
    has: &dyn Fn(&str) -> bool,
    sources: &[String],
    cfg: &AuditConfig,
) -> Result<HeldRule> {
    if has(col::HELD) {
        Ok(HeldRule::HeldColumn)
    } else if has(col::JOB) {
        Ok(HeldRule::JobColumn)
    } else if has(col::MEM_USED_BYTES) {
        Ok(HeldRule::Memory(cfg.held_mem_bytes))
    } else if cfg.assume_held {
        Ok(HeldRule::Assumed)
    } else {
        bail!(
            "{}: cannot tell which GPUs are held: the input has no 'held' column (true/false), no job column (job, pod, hpc_job) and no memory column (mem_used_bytes, DCGM_FI_DEV_FB_USED, memory.used); add one, map one with --map, or pass --assume-held",
            sources.join(", ")
        )
    }
}

/// Earliest and latest sample time (ms), for relative --since/--until.
pub fn time_range(table: &SampleTable) -> Result<Option<(i64, i64)>> {
    let t = table.df.column(col::TIME)?.cast(&DataType::Int64)?;
    let ca = t.i64()?;
    let mut range: Option<(i64, i64)> = None;
    for v in ca.iter().flatten() {
        range = Some(match range {
            None => (v, v),
            Some((lo, hi)) => (lo.min(v), hi.max(v)),
        });
    }
    Ok(range)
}

/// Which layers the input can show (an absent column gives a null layer, not 0).
pub fn present_of(table: &SampleTable, cfg: &AuditConfig) -> Present {
    present_from(&|c| table.has(c), cfg)
}

fn present_from(has: &dyn Fn(&str) -> bool, cfg: &AuditConfig) -> Present {
    Present {
        device_util: has(col::DEVICE_UTIL),
        sm_active: has(col::SM_ACTIVE),
        sm_occupancy: has(col::SM_OCCUPANCY),
        tensor_active: has(col::TENSOR_ACTIVE),
        useful: cfg.job_mfu.is_some(),
    }
}

/// A dataset read in chunks, twice: first only time/host/gpu (steps), then
/// every column (weights and tallies). Chunks must keep each GPU's samples in
/// time order; the engine answers [`engine::OutOfOrder`] when they do not.
pub trait ChunkSource {
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
pub fn audit_chunks(source: &dyn ChunkSource, cfg: &AuditConfig) -> Result<Report> {
    let has = |c: &str| source.has(c);
    let rule = held_rule_from(&has, &source.sources(), cfg)?;
    let mut engine = Engine::new(cfg, rule, present_from(&has, cfg));
    source.for_each_chunk(true, &mut |df| engine.observe_steps(df))?;
    engine.finish_steps();
    let quality = source.for_each_chunk(false, &mut |df| engine.add(df))?;
    engine.finish(source.sources(), source.rows_read(), &quality)
}

const IN_MEMORY_SLICE_ROWS: usize = 1 << 20;

/// Run the audit on an in-memory table: sort by GPU and time (stable, so of
/// exact duplicates the first in input order is kept), then the two passes.
pub fn audit(table: &SampleTable, cfg: &AuditConfig) -> Result<Report> {
    let rule = held_rule(table, cfg)?;
    let sorted = table
        .df
        .sort(
            [col::HOST, col::GPU, col::TIME],
            SortMultipleOptions::default().with_maintain_order(true),
        )
        .map_err(anyhow::Error::from)
        .context("sorting samples")?;
    let mut engine = Engine::new(cfg, rule, present_of(table, cfg));
    // zero-copy slices keep the engine's per-slice row vectors small
    let slices = || {
        (0..sorted.height())
            .step_by(IN_MEMORY_SLICE_ROWS)
            .map(|offset| sorted.slice(offset as i64, IN_MEMORY_SLICE_ROWS))
    };
    for slice in slices() {
        engine.observe_steps(&slice)?;
    }
    engine.finish_steps();
    for slice in slices() {
        engine.add(&slice)?;
    }
    engine.finish(table.sources.clone(), table.rows_read, &table.quality)
}

#[cfg(test)]
mod tests;
