//! Pure computation on the canonical sample table: weights, held, layers,
//! idle episodes, dollars, showback. Nothing here prints.
use crate::prices::PriceBook;
use crate::samples::{SampleTable, col};
use crate::timeparse::{MS_PER_HOUR, format_time};
use anyhow::{Context, Result, bail};
use model::*;
use polars::prelude::{BooleanChunked, DataFrame, DataType, Float64Chunked, Int64Chunked, IntoLazy, SortMultipleOptions, StringChunked, UInt64Chunked, lit};
use std::collections::{BTreeMap, HashMap};
use tally::{Basis, Present, Row, Tally};

pub mod check;
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
    if table.has(col::HELD) {
        Ok(HeldRule::HeldColumn)
    } else if table.has(col::JOB) {
        Ok(HeldRule::JobColumn)
    } else if table.has(col::MEM_USED_BYTES) {
        Ok(HeldRule::Memory(cfg.held_mem_bytes))
    } else if cfg.assume_held {
        Ok(HeldRule::Assumed)
    } else {
        bail!(
            "{}: cannot tell which GPUs are held: the input has no 'held' column (true/false), no job column (job, pod, hpc_job) and no memory column (mem_used_bytes, DCGM_FI_DEV_FB_USED, memory.used); add one, map one with --map, or pass --assume-held",
            table.sources.join(", ")
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

/// Column accessors that tolerate absent columns.
struct Cols {
    time: Int64Chunked,
    host: StringChunked,
    gpu: StringChunked,
    model: Option<StringChunked>,
    held: Option<BooleanChunked>,
    job: Option<StringChunked>,
    user: Option<StringChunked>,
    team: Option<StringChunked>,
    device_util: Option<Float64Chunked>,
    sm_active: Option<Float64Chunked>,
    sm_occupancy: Option<Float64Chunked>,
    tensor_active: Option<Float64Chunked>,
    mem_used: Option<UInt64Chunked>,
    mem_total: Option<UInt64Chunked>,
    power: Option<Float64Chunked>,
}

fn opt_str(df: &DataFrame, name: &str) -> Result<Option<StringChunked>> {
    match df.column(name) {
        Ok(c) => Ok(Some(c.cast(&DataType::String)?.str()?.clone())),
        Err(_) => Ok(None),
    }
}
fn opt_f64(df: &DataFrame, name: &str) -> Result<Option<Float64Chunked>> {
    match df.column(name) {
        Ok(c) => Ok(Some(c.cast(&DataType::Float64)?.f64()?.clone())),
        Err(_) => Ok(None),
    }
}
fn opt_u64(df: &DataFrame, name: &str) -> Result<Option<UInt64Chunked>> {
    match df.column(name) {
        Ok(c) => Ok(Some(c.cast(&DataType::UInt64)?.u64()?.clone())),
        Err(_) => Ok(None),
    }
}

impl Cols {
    fn new(df: &DataFrame) -> Result<Self> {
        let time = df.column(col::TIME)?.cast(&DataType::Int64)?.i64()?.rechunk().into_owned();
        let host = df.column(col::HOST)?.str()?.rechunk().into_owned();
        let gpu = df.column(col::GPU)?.str()?.rechunk().into_owned();
        let held = match df.column(col::HELD) {
            Ok(c) => Some(c.bool()?.rechunk().into_owned()),
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
            device_util: opt_f64(df, col::DEVICE_UTIL)?,
            sm_active: opt_f64(df, col::SM_ACTIVE)?,
            sm_occupancy: opt_f64(df, col::SM_OCCUPANCY)?,
            tensor_active: opt_f64(df, col::TENSOR_ACTIVE)?,
            mem_used: opt_u64(df, col::MEM_USED_BYTES)?,
            mem_total: opt_u64(df, col::MEM_TOTAL_BYTES)?,
            power: opt_f64(df, col::POWER_W)?,
        })
    }
}

fn get_str(c: &Option<StringChunked>, i: usize) -> Option<&str> {
    c.as_ref().and_then(|c| c.get(i)).filter(|s| !s.is_empty())
}
fn get_f64(c: &Option<Float64Chunked>, i: usize) -> Option<f64> {
    c.as_ref().and_then(|c| c.get(i))
}

/// An idle episode being built.
struct OpenEpisode {
    first: usize,
    job: Option<String>,
    start_ms: i64,
    end_ms: i64,
    weight_ms: i64,
    hours: f64,
    usd: Option<f64>,
}

/// Run the audit: the whole report model from the canonical table.
pub fn audit(table: &SampleTable, cfg: &AuditConfig) -> Result<Report> {
    let rule = held_rule(table, cfg)?;

    // Window (§2): since <= time < until, before weights are taken.
    let mut lf = table.df.clone().lazy();
    let time_i64 = polars::prelude::col(col::TIME).cast(DataType::Int64);
    if let Some(s) = cfg.since {
        lf = lf.filter(time_i64.clone().gt_eq(lit(s)));
    }
    if let Some(u) = cfg.until {
        lf = lf.filter(time_i64.clone().lt(lit(u)));
    }
    // Stable sort: of exact duplicates the first in input order is kept.
    let sorted = lf
        .sort(
            [col::HOST, col::GPU, col::TIME],
            SortMultipleOptions::default().with_maintain_order(true),
        )
        .collect()
        .map_err(anyhow::Error::from)
        .context("sorting samples")?;
    let rows_in_window = sorted.height() as u64;
    let rows_outside_window = table.df.height() as u64 - rows_in_window;
    if rows_in_window == 0 {
        if table.df.height() == 0 {
            bail!("no usable samples in {}", table.sources.join(", "));
        }
        bail!(
            "no samples between --since and --until ({} samples lie outside the window)",
            rows_outside_window
        );
    }
    let c = Cols::new(&sorted)?;

    let present = Present {
        device_util: table.has(col::DEVICE_UTIL),
        sm_active: table.has(col::SM_ACTIVE),
        sm_occupancy: table.has(col::SM_OCCUPANCY),
        tensor_active: table.has(col::TENSOR_ACTIVE),
        useful: cfg.job_mfu.is_some(),
    };
    let basis = present.basis();
    let snapshot_ms = cfg.interval_ms.unwrap_or(DEFAULT_SNAPSHOT_MS);

    let mut total = Tally::default();
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    let mut job_tallies: BTreeMap<String, (Tally, std::collections::BTreeSet<(String, String)>)> = BTreeMap::new();
    let mut episodes: Vec<IdleEpisode> = Vec::new();
    let mut gpus: Vec<GpuSummary> = Vec::new();
    let mut duplicates = 0u64;
    let mut unobserved_ms: i64 = 0;
    let mut price_cache: HashMap<Option<String>, Option<f64>> = HashMap::new();
    let mut unpriced_models: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let mut all_single = true;
    let mut window_start = i64::MAX;
    let mut window_end = i64::MIN;

    let n = sorted.height();
    let mut start = 0;
    while start < n {
        // One GPU: the run of rows with the same (host, gpu).
        let host = c.host.get(start).unwrap_or("");
        let gpu = c.gpu.get(start).unwrap_or("");
        let mut end = start + 1;
        while end < n && c.host.get(end).unwrap_or("") == host && c.gpu.get(end).unwrap_or("") == gpu {
            end += 1;
        }
        // Drop exact duplicates of (host, gpu, time), first kept.
        let mut idx: Vec<usize> = Vec::with_capacity(end - start);
        let mut times: Vec<i64> = Vec::with_capacity(end - start);
        for i in start..end {
            let t = c.time.get(i).unwrap_or(0);
            if times.last() == Some(&t) {
                duplicates += 1;
                continue;
            }
            idx.push(i);
            times.push(t);
        }
        if idx.len() > 1 {
            all_single = false;
        }
        let gw = weights::weights(&times, cfg.max_gap_ms, cfg.until, snapshot_ms);
        unobserved_ms += gw.unobserved_ms;

        let mut gpu_tally = Tally::default();
        let mut gpu_jobs: Vec<String> = Vec::new();
        let mut gpu_users: Vec<String> = Vec::new();
        let mut open: Option<OpenEpisode> = None;
        let mut model_of_gpu: Option<String> = None;
        let mut last_held = false;

        let close = |open: &mut Option<OpenEpisode>, episodes: &mut Vec<IdleEpisode>| {
            if let Some(e) = open.take()
                && e.end_ms - e.start_ms > 0
                && e.weight_ms >= cfg.min_idle_ms
            {
                episodes.push(IdleEpisode {
                    host: host.to_string(),
                    gpu: gpu.to_string(),
                    job: e.job,
                    user: get_str(&c.user, e.first).map(str::to_string),
                    team: get_str(&c.team, e.first).map(str::to_string),
                    start: format_time(e.start_ms),
                    end: format_time(e.end_ms),
                    hours: e.hours,
                    usd: e.usd,
                });
            }
        };
        let mut episodes_found = 0usize;

        for (k, &i) in idx.iter().enumerate() {
            let t = times[k];
            let w_ms = gw.weight_ms[k];
            let w = w_ms as f64 / MS_PER_HOUR;
            window_start = window_start.min(t);
            window_end = window_end.max(t + w_ms);
            let model = get_str(&c.model, i);
            if model.is_some() {
                model_of_gpu = model.map(str::to_string);
            }
            let price = *price_cache.entry(model.map(str::to_string)).or_insert_with(|| cfg.prices.price_of(model));
            if price.is_none() {
                unpriced_models.insert(model.unwrap_or("(no model)").to_string());
            }
            let job = get_str(&c.job, i);
            let held = match rule {
                HeldRule::HeldColumn => c.held.as_ref().and_then(|h| h.get(i)).unwrap_or(false),
                HeldRule::JobColumn => job.is_some(),
                HeldRule::Memory(limit) => c.mem_used.as_ref().and_then(|m| m.get(i)).is_some_and(|m| m > limit),
                HeldRule::Assumed => true,
            };
            let device_util = get_f64(&c.device_util, i);
            let idle = held && device_util.is_some_and(|u| u < cfg.idle_below);
            let mfu = match (&cfg.job_mfu, job) {
                (Some(map), Some(j)) => map.get(j).copied(),
                _ => None,
            };
            let row = Row {
                w,
                w_ms,
                held,
                idle,
                device_util,
                sm_active: get_f64(&c.sm_active, i),
                sm_occupancy: get_f64(&c.sm_occupancy, i),
                tensor_active: get_f64(&c.tensor_active, i),
                mfu,
                price,
            };
            total.add(&row, basis);
            gpu_tally.add(&row, basis);
            if let Some(by) = cfg.by {
                let key = match by {
                    GroupBy::Host => Some(host),
                    GroupBy::Model => model,
                    GroupBy::Job => job,
                    GroupBy::User => get_str(&c.user, i),
                    GroupBy::Team => get_str(&c.team, i),
                };
                let key = key.map(str::to_string).unwrap_or_else(|| {
                    if held { "(unlabelled)".to_string() } else { "(unallocated)".to_string() }
                });
                groups.entry(key).or_default().add(&row, basis);
            }
            if held && let Some(j) = job {
                let entry = job_tallies.entry(j.to_string()).or_default();
                entry.0.add(&row, basis);
                entry.1.insert((host.to_string(), gpu.to_string()));
            }
            if held {
                if let Some(j) = job
                    && gpu_jobs.last().map(String::as_str) != Some(j)
                {
                    gpu_jobs.retain(|x| x != j);
                    gpu_jobs.push(j.to_string());
                }
                if let Some(u) = get_str(&c.user, i)
                    && gpu_users.last().map(String::as_str) != Some(u)
                {
                    gpu_users.retain(|x| x != u);
                    gpu_users.push(u.to_string());
                }
            }
            last_held = held;

            // Idle episodes (§5): consecutive idle held samples, same job, no gap.
            if idle {
                let continues = open.as_ref().is_some_and(|e| e.job.as_deref() == job);
                if !continues {
                    if open.is_some() {
                        episodes_found += 1;
                    }
                    close(&mut open, &mut episodes);
                    open = Some(OpenEpisode {
                        first: i,
                        job: job.map(str::to_string),
                        start_ms: t,
                        end_ms: t,
                        weight_ms: 0,
                        hours: 0.0,
                        usd: Some(0.0),
                    });
                }
                if let Some(e) = open.as_mut() {
                    e.end_ms = t + w_ms;
                    e.weight_ms += w_ms;
                    e.hours = e.weight_ms as f64 / MS_PER_HOUR;
                    e.usd = match (e.usd, price) {
                        (Some(a), Some(p)) => Some(a + w * p),
                        _ => None,
                    };
                }
                if gw.gap_after[k] {
                    episodes_found += 1;
                    close(&mut open, &mut episodes);
                }
            } else if open.is_some() {
                episodes_found += 1;
                close(&mut open, &mut episodes);
            }
        }
        if open.is_some() {
            episodes_found += 1;
        }
        close(&mut open, &mut episodes);
        let _ = episodes_found;

        let last = *idx.last().unwrap_or(&start);
        let gr = gpu_tally.ratios(&present);
        gpus.push(GpuSummary {
            host: host.to_string(),
            gpu: gpu.to_string(),
            model: model_of_gpu.clone(),
            samples: idx.len() as u64,
            jobs: gpu_jobs,
            users: gpu_users,
            observed_gpu_hours: gpu_tally.observed_h,
            held_gpu_hours: gpu_tally.held_h,
            idle_held_gpu_hours: present.device_util.then_some(gpu_tally.idle_held_h),
            device_util: gr.active,
            sm_active: gr.sm_active,
            tensor_active: gr.tensor_active,
            last_mem_used_bytes: c.mem_used.as_ref().and_then(|m| m.get(last)),
            last_mem_total_bytes: c.mem_total.as_ref().and_then(|m| m.get(last)),
            last_power_w: get_f64(&c.power, last),
            last_held,
            usd_per_hour: cfg.prices.price_of(model_of_gpu.as_deref()),
        });
        start = end;
    }

    if let Some(s) = cfg.since {
        window_start = s;
    }
    if let Some(u) = cfg.until {
        window_end = window_end.max(u).min(u);
    }
    let window_hours = (window_end - window_start).max(0) as f64 / MS_PER_HOUR;
    let monthly = |v: Option<f64>| v.and_then(|x| if window_hours > 0.0 { Some(x / window_hours * 730.0) } else { None });

    let layers = total.layers(&present);
    let ratios = total.ratios(&present);
    let cost = Cost {
        currency: "USD".to_string(),
        price_source: cfg.prices.source.describe(),
        observed_usd: total.priced(total.observed_usd),
        held_usd: total.priced(total.held_usd),
        idle_held_usd: total.priced(total.idle_held_usd),
        unallocated_usd: total.priced(total.unallocated_usd),
        not_useful_usd: total.not_useful_usd(),
        not_useful_basis: total.not_useful_usd().map(|_| basis.name().to_string()),
        unpriced_gpu_hours: total.unpriced_h,
        unpriced_models: unpriced_models.into_iter().collect(),
        monthly_run_rate: MonthlyRunRate {
            observed_usd: monthly(total.priced(total.observed_usd)),
            held_usd: monthly(total.priced(total.held_usd)),
            idle_held_usd: monthly(total.priced(total.idle_held_usd)),
            unallocated_usd: monthly(total.priced(total.unallocated_usd)),
            not_useful_usd: monthly(total.not_useful_usd()),
        },
    };

    let pct = |v: Option<f64>, of: f64| v.and_then(|x| if of > 0.0 { Some(x / of) } else { None });
    let held = layers.held_gpu_hours;
    let observed = layers.observed_gpu_hours;
    let step = |name: &str, v: Option<f64>| WaterfallStep {
        layer: name.to_string(),
        gpu_hours: v,
        pct_of_held: pct(v, held),
        pct_of_observed: pct(v, observed),
    };
    let waterfall = vec![
        WaterfallStep { pct_of_held: None, ..step("observed", Some(observed)) },
        step("held", Some(held)),
        step("active", layers.active_gpu_hours),
        step("sm_active", layers.sm_active_gpu_hours),
        step("tensor_active", layers.tensor_active_gpu_hours),
        step("useful", layers.useful_gpu_hours),
        step("idle_held", layers.idle_held_gpu_hours),
    ];

    episodes.sort_by(|a, b| b.hours.total_cmp(&a.hours).then_with(|| a.start.cmp(&b.start)));
    let idle_episodes_total = episodes.len();
    if let Some(top) = cfg.top {
        episodes.truncate(top);
    }

    let group_rows = cfg.by.map(|by| {
        let mut rows: Vec<Group> = groups
            .into_iter()
            .map(|(key, t)| Group {
                by: by.column().to_string(),
                key,
                layers: t.layers(&present),
                ratios: t.ratios(&present),
                cost: t.group_cost(),
            })
            .collect();
        rows.sort_by(|a, b| b.layers.held_gpu_hours.total_cmp(&a.layers.held_gpu_hours).then_with(|| a.key.cmp(&b.key)));
        rows
    });

    let jobs = cfg.job_mfu.as_ref().map(|mfu| {
        let mut rows: Vec<JobSummary> = job_tallies
            .iter()
            .map(|(job, (t, gpu_set))| {
                let r = t.ratios(&present);
                let m = mfu.get(job).copied();
                JobSummary {
                    job: job.clone(),
                    gpus: gpu_set.len(),
                    held_gpu_hours: t.held_h,
                    device_util: r.active,
                    sm_active: r.sm_active,
                    tensor_active: r.tensor_active,
                    mfu: m,
                    useful_gpu_hours: m.map(|m| m * t.held_h),
                    not_useful_usd: t.not_useful_usd(),
                }
            })
            .collect();
        rows.sort_by(|a, b| b.held_gpu_hours.total_cmp(&a.held_gpu_hours));
        rows
    });

    let mut notes = table.quality.notes.clone();
    if all_single {
        notes.push(format!(
            "snapshot: every GPU has a single sample, weighed {} each; GPU-hours read as GPUs and dollars as per hour",
            crate::timeparse::format_duration_ms(snapshot_ms)
        ));
    }
    if basis != Basis::Useful && present.device_util {
        // say what the deepest basis is, so nobody mistakes it for MFU
    }
    let data_quality = DataQuality {
        duplicates,
        invalid: table.quality.invalid.clone(),
        unobserved_gpu_hours: unobserved_ms as f64 / MS_PER_HOUR,
        held_unknown_activity_gpu_hours: total.held_unknown_activity_h,
        rows_outside_window,
        rows_dropped: table.quality.rows_dropped,
        notes,
        warnings: table.quality.warnings.clone(),
    };

    Ok(Report {
        schema: SCHEMA.to_string(),
        window: Window {
            start: format_time(window_start),
            end: format_time(window_end),
            hours: window_hours,
            snapshot: all_single,
        },
        sources: Sources {
            files: table.sources.clone(),
            rows_read: table.rows_read,
            rows_used: rows_in_window - duplicates,
        },
        data_quality,
        held_rule: rule.describe(),
        layers,
        ratios,
        cost,
        waterfall,
        idle_episodes_total,
        idle_episodes: episodes,
        groups: group_rows,
        gpu_count: gpus.len(),
        gpus,
        jobs,
    })
}

#[cfg(test)]
mod tests;
