//! `report --partials FILE`: the answer of `gpuaudit sql` (the plan's partial
//! sums, one row per host, gpu, model and group, as any engine exports them:
//! parquet or CSV) read back into the audit's tallies, and the report built
//! by `audit::assemble` as for samples (docs/semantics.md §14).
use crate::audit::assemble::{Parts, assemble};
use crate::audit::model::{DataQuality, GpuSummary, HeldBasis, Note, Report, Sources};
use crate::audit::tally::{Basis, Present, Sum, Tally};
use crate::audit::{AuditConfig, HeldRule};
use crate::metric::{DEVICE_UTIL, SM_ACTIVE, TENSOR_ACTIVE};
use crate::plan::{METRIC_SUMS, SUMS, busy_sum, key};
use crate::timeparse::US_PER_HOUR;
use anyhow::{Context, Result, anyhow, bail};
use polars::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One row of the partial-sums table.
#[derive(Debug, Clone, Default)]
struct Partial {
    host: String,
    gpu: String,
    model: Option<String>,
    group: Option<String>,
    start_us: i64,
    end_us: i64,
    last_us: i64,
    single: i64,
    single_weight_us: Option<i64>,
    /// by SUMS' names; a metric's sums are None where the engine saw no such metric
    ints: BTreeMap<&'static str, i64>,
    floats: BTreeMap<&'static str, Option<f64>>,
    duplicates: u64,
    outside: u64,
    last_held: bool,
    last_mem_used: Option<u64>,
    last_mem_total: Option<u64>,
    last_power: Option<f64>,
    jobs: Vec<String>,
    users: Vec<String>,
    held_rule: String,
    grouped_by: Option<String>,
}

impl Partial {
    fn int(&self, name: &str) -> i64 {
        self.ints.get(name).copied().unwrap_or(0)
    }
    fn hours(&self, name: &str) -> f64 {
        self.floats.get(name).copied().flatten().unwrap_or(0.0)
    }
    fn measured(&self, name: &str) -> bool {
        self.floats.get(name).is_some_and(Option::is_some)
    }
}

/// The columns of SUMS that hold integer ticks or counts.
fn is_int(name: &str) -> bool {
    name == "samples" || name.ends_with("_us")
}

/// Read a partial-sums file and build its report.
pub fn report(path: &Path, cfg: &AuditConfig) -> Result<Report> {
    let name = path.display().to_string();
    let df = read_frame(path, &name)?;
    report_frame(&df, &name, cfg)
}

/// The report of a partial-sums table already read (a file, or an engine's
/// answer over HTTP); `name` is where it came from, for messages.
pub fn report_frame(df: &DataFrame, name: &str, cfg: &AuditConfig) -> Result<Report> {
    let name = name.to_string();
    let (rows, buckets) = partials_of(df, &name)?;
    let Some(first) = rows.first() else {
        bail!("{name}: no rows of partial sums (the query's table had no samples in the window?)");
    };
    check_grouping(&rows, cfg, &name)?;
    let held_rule = held_rule_of(&first.held_rule, &name)?;
    let mut parts = parts_of(&rows, cfg, &name);
    parts.held_rule = held_rule;
    parts.diagnosis = sections_of(&parts, cfg, &buckets);
    if buckets.is_some()
        && let Some(Note::PartialsRead { timeline, .. }) = parts.quality.notes.first_mut()
    {
        *timeline = true;
    }
    crate::audit::assemble::review_prices(&mut parts, cfg)?;
    Ok(assemble(parts, cfg))
}

fn read_frame(path: &Path, name: &str) -> Result<DataFrame> {
    let bytes = std::fs::read(path).with_context(|| format!("--partials {name}: cannot read"))?;
    frame_of_bytes(bytes, name)
}

/// A partial-sums table from parquet or CSV (with a header row) bytes.
pub fn frame_of_bytes(bytes: Vec<u8>, name: &str) -> Result<DataFrame> {
    if bytes.starts_with(b"PAR1") {
        return ParquetReader::new(std::io::Cursor::new(bytes))
            .finish()
            .map_err(|e| anyhow!("{name}: not a readable parquet file: {e}"));
    }
    // ClickHouse writes NULL as \N in CSV
    let nulls = NullValues::AllColumnsSingle("\\N".into());
    CsvReadOptions::default()
        .with_has_header(true)
        .with_infer_schema_length(None)
        .with_parse_options(CsvParseOptions::default().with_null_values(Some(nulls)))
        .into_reader_with_file_handle(std::io::Cursor::new(bytes))
        .finish()
        .map_err(|e| anyhow!("{name}: not a parquet file or a CSV file with a header row: {e}"))
}

/// A column of the table cast to `dtype`; a missing column is an error naming it.
fn column(df: &DataFrame, file: &str, name: &str, dtype: &DataType) -> Result<Series> {
    let c = df.column(name).map_err(|_| {
        anyhow!(
            "{file}: no column '{name}': not a partial-sums table (write one with `gpuaudit sql`; its columns: {}, {}, {}, {}, {}, ...)",
            key::HOST,
            key::GPU,
            key::MODEL,
            key::GROUP,
            SUMS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
        )
    })?;
    c.as_materialized_series()
        .cast(dtype)
        .map_err(|e| anyhow!("{file}: column '{name}' is not {dtype}: {e}"))
}

fn texts(df: &DataFrame, file: &str, name: &str) -> Result<Vec<Option<String>>> {
    let s = column(df, file, name, &DataType::String)?;
    Ok(s.str()?.iter().map(|v| v.map(str::to_string)).collect())
}

fn ints(df: &DataFrame, file: &str, name: &str) -> Result<Vec<Option<i64>>> {
    let s = column(df, file, name, &DataType::Int64)?;
    Ok(s.i64()?.iter().collect())
}

fn floats(df: &DataFrame, file: &str, name: &str) -> Result<Vec<Option<f64>>> {
    let s = column(df, file, name, &DataType::Float64)?;
    Ok(s.f64()?.iter().collect())
}

fn bools(df: &DataFrame, file: &str, name: &str) -> Result<Vec<Option<bool>>> {
    let s = column(df, file, name, &DataType::String)?;
    Ok(s.str()?
        .iter()
        .map(|v| {
            let v = v?.trim().to_ascii_lowercase();
            let yes = crate::audit::held::HELD_TRUE.contains(&v.as_str()) || v == "1.0";
            Some(yes)
        })
        .collect())
}

/// A JSON array of names (null: none).
fn names(file: &str, column: &str, row: usize, text: Option<&str>) -> Result<Vec<String>> {
    match text {
        None => Ok(Vec::new()),
        Some(t) => serde_json::from_str(t).map_err(|e| {
            anyhow!("{file}: row {row}, column '{column}': expected a JSON array of names: {e}")
        }),
    }
}

/// The plan's sums as read: integer ticks and counts, and hours.
struct SumColumns {
    ints: Vec<(&'static str, Vec<Option<i64>>)>,
    floats: Vec<(&'static str, Vec<Option<f64>>)>,
}

impl SumColumns {
    fn read(df: &DataFrame, file: &str) -> Result<Self> {
        let mut sums = SumColumns {
            ints: Vec::new(),
            floats: Vec::new(),
        };
        for s in SUMS {
            if is_int(s.name) {
                sums.ints.push((s.name, ints(df, file, s.name)?));
            } else {
                sums.floats.push((s.name, floats(df, file, s.name)?));
            }
        }
        Ok(sums)
    }
}

/// Row `i`'s sums into `p`: a tick sum is required and never negative, an
/// hour sum is null (metric absent) or a non-negative number.
fn sums_into(p: &mut Partial, sums: &SumColumns, i: usize, file: &str) -> Result<()> {
    let line = i + 1;
    for (name, col) in &sums.ints {
        let v = col[i].ok_or_else(|| anyhow!("{file}: row {line}, column '{name}' is empty"))?;
        if v < 0 {
            bail!(
                "{file}: row {line}, column '{name}' is negative ({v}): a sum of weights cannot be"
            );
        }
        p.ints.insert(name, v);
    }
    for (name, col) in &sums.floats {
        if let Some(v) = col[i]
            && !(v.is_finite() && v >= 0.0)
        {
            bail!(
                "{file}: row {line}, column '{name}' is {v}: expected a non-negative number of GPU-hours"
            );
        }
        p.floats.insert(name, col[i]);
    }
    Ok(())
}

/// The timeline's rows of an answer: the bucket's ticks and each bucket's sums.
struct Buckets {
    bucket_us: i64,
    rows: Vec<(i64, Partial)>,
}

impl Buckets {
    /// The timeline of an answer whose rows give a bucket length, else None.
    fn of(bucket_us: &[Option<i64>]) -> Option<Buckets> {
        bucket_us
            .iter()
            .flatten()
            .next()
            .filter(|b| **b > 0)
            .map(|b| Buckets {
                bucket_us: *b,
                rows: Vec::new(),
            })
    }

    /// Row `i`, bucket `k`: its sums into the timeline (an error without one).
    fn push(
        buckets: Option<&mut Buckets>,
        k: i64,
        sums: &SumColumns,
        i: usize,
        file: &str,
    ) -> Result<()> {
        let Some(b) = buckets else {
            bail!(
                "{file}: row {} is a timeline bucket, but no row says the bucket's length ({})",
                i + 1,
                key::BUCKET_US
            )
        };
        let mut p = Partial::default();
        sums_into(&mut p, sums, i, file)?;
        b.rows.push((k, p));
        Ok(())
    }
}

fn partials_of(df: &DataFrame, file: &str) -> Result<(Vec<Partial>, Option<Buckets>)> {
    let n = df.height();
    let (host, gpu, model, group) = (
        texts(df, file, key::HOST)?,
        texts(df, file, key::GPU)?,
        texts(df, file, key::MODEL)?,
        texts(df, file, key::GROUP)?,
    );
    let (bucket, bucket_us) = (
        ints(df, file, key::BUCKET)?,
        ints(df, file, key::BUCKET_US)?,
    );
    let mut buckets = Buckets::of(&bucket_us);
    let (start, end, last) = (
        ints(df, file, key::START_US)?,
        ints(df, file, key::END_US)?,
        ints(df, file, key::LAST_US)?,
    );
    let (single, fleet) = (
        ints(df, file, key::SINGLE)?,
        ints(df, file, key::SINGLE_WEIGHT)?,
    );
    let (dups, outside) = (
        ints(df, file, key::DUPLICATES)?,
        ints(df, file, key::OUTSIDE)?,
    );
    let last_held = bools(df, file, key::LAST_HELD)?;
    let (mem_used, mem_total, power) = (
        ints(df, file, key::LAST_MEM_USED)?,
        ints(df, file, key::LAST_MEM_TOTAL)?,
        floats(df, file, key::LAST_POWER)?,
    );
    let (jobs, users) = (texts(df, file, key::JOBS)?, texts(df, file, key::USERS)?);
    let (held_rule, grouped_by) = (
        texts(df, file, key::HELD_RULE)?,
        texts(df, file, key::GROUPED_BY)?,
    );
    let sums = SumColumns::read(df, file)?;
    let mut rows = Vec::with_capacity(n);
    for i in 0..n {
        let line = i + 1;
        if let Some(k) = bucket[i] {
            Buckets::push(buckets.as_mut(), k, &sums, i, file)?;
            continue;
        }
        let need = |v: Option<i64>, c: &str| {
            v.ok_or_else(|| anyhow!("{file}: row {line}, column '{c}' is empty"))
        };
        let Some(g) = gpu[i].clone() else {
            bail!("{file}: row {line}, column '{}' is empty", key::GPU)
        };
        let mut p = Partial {
            host: host[i].clone().unwrap_or_default(),
            gpu: g,
            model: model[i].clone().filter(|m| !m.is_empty()),
            group: group[i].clone().filter(|m| !m.is_empty()),
            start_us: need(start[i], key::START_US)?,
            end_us: need(end[i], key::END_US)?,
            last_us: need(last[i], key::LAST_US)?,
            single: single[i].unwrap_or(0),
            single_weight_us: fleet[i],
            duplicates: dups[i].unwrap_or(0).max(0) as u64,
            outside: outside[i].unwrap_or(0).max(0) as u64,
            last_held: last_held[i].unwrap_or(false),
            last_mem_used: mem_used[i].and_then(|v| u64::try_from(v).ok()),
            last_mem_total: mem_total[i].and_then(|v| u64::try_from(v).ok()),
            last_power: power[i],
            jobs: names(file, key::JOBS, line, jobs[i].as_deref())?,
            users: names(file, key::USERS, line, users[i].as_deref())?,
            held_rule: held_rule[i].clone().unwrap_or_default(),
            grouped_by: grouped_by[i].clone().filter(|b| !b.is_empty()),
            ..Partial::default()
        };
        sums_into(&mut p, &sums, i, file)?;
        rows.push(p);
    }
    Ok((rows, buckets))
}

/// The tally of one partial row priced at `price` (a row's samples share its
/// model, so its dollars are its hours times the price: docs/semantics.md §6).
fn tally_of(p: &Partial, price: Option<f64>, basis: Basis) -> Tally {
    let h = |us: i64| us as f64 / US_PER_HOUR;
    let usd = |hours: f64| Sum::from(hours * price.unwrap_or(0.0));
    let (observed, held) = (p.int("observed_us"), p.int("held_us"));
    let unallocated = observed - held - p.int("held_unknown_us");
    // the useful basis (MFU) is never in sums: device activity stands for it
    let basis_h = busy_sum(basis.slot().unwrap_or(DEVICE_UTIL)).map_or(0.0, |s| p.hours(s));
    let mut tally = Tally {
        observed_us: observed,
        held_us: held,
        idle_held_us: p.int("idle_held_us"),
        held_unknown_activity_us: p.int("held_unknown_activity_us"),
        held_unknown_us: p.int("held_unknown_us"),
        unpriced_us: if price.is_none() { observed } else { 0 },
        useful_h: Sum::default(),
        observed_usd: usd(h(observed)),
        held_usd: usd(h(held)),
        idle_held_usd: usd(h(p.int("idle_held_us"))),
        unallocated_usd: usd(h(unallocated)),
        basis_usd: usd(basis_h),
        priced_rows: if price.is_some() {
            p.int("samples").max(0) as u64
        } else {
            0
        },
        ..Tally::default()
    };
    let usd_per_hour = price.unwrap_or(0.0);
    for (slot, busy, known) in METRIC_SUMS {
        tally.set_metric(slot, p.hours(busy), p.hours(known), usd_per_hour);
    }
    tally
}

/// A row without a group label split as the engine's groups split samples:
/// its held time is "(unlabelled)", the rest "(unallocated)".
fn split_unlabelled(p: &Partial) -> [(&'static str, Partial); 2] {
    let held = p.int("held_us");
    let mut on = p.clone();
    on.ints.insert("observed_us", held);
    on.ints.insert("held_unknown_us", 0);
    let mut off = Partial {
        ints: BTreeMap::new(),
        floats: BTreeMap::new(),
        ..p.clone()
    };
    off.ints.insert("observed_us", p.int("observed_us") - held);
    off.ints.insert("held_unknown_us", p.int("held_unknown_us"));
    off.ints.insert("samples", p.int("samples"));
    if held == 0 {
        on.ints.insert("samples", 0);
    }
    [("(unlabelled)", on), ("(unallocated)", off)]
}

/// One GPU's facts gathered from its rows.
#[derive(Default)]
struct GpuFacts {
    tally: Tally,
    samples: u64,
    model: Option<(i64, String)>,
    first: Option<Partial>,
}

/// The rows folded: the fleet, the groups, each GPU, the span and the
/// unpriced models.
#[derive(Default)]
struct Folded {
    total: Tally,
    groups: BTreeMap<String, Tally>,
    unpriced: BTreeSet<String>,
    gpus: BTreeMap<(String, String), GpuFacts>,
    start: Option<i64>,
    end: Option<i64>,
    unobserved_us: i64,
}

impl Folded {
    fn add(&mut self, p: &Partial, cfg: &AuditConfig, basis: Basis) {
        let price = cfg.prices.price_of(p.model.as_deref());
        if price.is_none() {
            self.unpriced
                .insert(p.model.clone().unwrap_or_else(|| "(no model)".into()));
        }
        let t = tally_of(p, price, basis);
        self.total.merge(&t);
        self.start = Some(self.start.map_or(p.start_us, |s| s.min(p.start_us)));
        self.end = Some(self.end.map_or(p.end_us, |e| e.max(p.end_us)));
        self.unobserved_us += p.int("unobserved_us");
        if cfg.by.is_some() {
            match &p.group {
                Some(g) => self.groups.entry(g.clone()).or_default().merge(&t),
                None => {
                    for (name, part) in split_unlabelled(p) {
                        if part.int("observed_us") > 0 {
                            let t = tally_of(&part, price, basis);
                            self.groups.entry(name.into()).or_default().merge(&t);
                        }
                    }
                }
            }
        }
        let g = self
            .gpus
            .entry((p.host.clone(), p.gpu.clone()))
            .or_default();
        g.tally.merge(&t);
        g.samples += p.int("samples").max(0) as u64;
        if let Some(m) = &p.model
            && g.model.as_ref().is_none_or(|(at, _)| p.last_us > *at)
        {
            g.model = Some((p.last_us, m.clone()));
        }
        if g.first.is_none() {
            g.first = Some(p.clone());
        }
    }
}

fn parts_of(rows: &[Partial], cfg: &AuditConfig, file: &str) -> Parts {
    let has = |slot| busy_sum(slot).is_some_and(|name| rows.iter().any(|p| p.measured(name)));
    let present = Present {
        device_util: has(DEVICE_UTIL),
        sm_active: has(SM_ACTIVE),
        tensor_active: has(TENSOR_ACTIVE),
        useful: false,
    };
    let mut f = Folded::default();
    for p in rows {
        f.add(p, cfg, present.basis());
    }
    let Folded {
        total,
        groups,
        unpriced,
        gpus,
        unobserved_us,
        ..
    } = f;
    let start = cfg.since.or(f.start).unwrap_or(0);
    // --until past the last sample does not stretch the window
    let end = match (cfg.until, f.end) {
        (Some(u), Some(e)) => u.min(e),
        (u, e) => e.or(u).unwrap_or(0),
    };
    let summaries = gpu_summaries(&gpus, &present, cfg);
    // the whole table's count, on every row
    let outside = rows.first().map_or(0, |p| p.outside);
    let facts: Vec<&Partial> = gpus.values().filter_map(|g| g.first.as_ref()).collect();
    let mut notes = vec![Note::PartialsRead {
        file: file.to_string(),
        rows: rows.len() as u64,
        timeline: false,
    }];
    notes.extend(single_notes(&gpus, &facts));
    Parts {
        window_start: start,
        window_end: end,
        snapshot: gpus.values().all(|g| g.samples <= 1),
        sources: Sources {
            files: vec![file.to_string()],
            rows_read: summaries.iter().map(|g| g.samples).sum::<u64>()
                + facts.iter().map(|p| p.duplicates).sum::<u64>()
                + outside,
            rows_used: summaries.iter().map(|g| g.samples).sum(),
            text_rows_streamed: None,
        },
        held_rule: HeldBasis::Assumed,
        present,
        total,
        unpriced_models: unpriced.into_iter().collect(),
        groups: cfg.by.map(|by| (by, groups.into_iter().collect())),
        episodes: Vec::new(),
        model_hours: summaries
            .iter()
            .map(|g| (g.model.clone(), g.observed_gpu_hours))
            .collect(),
        vendors: crate::audit::vendors::lines(
            gpus.values()
                .map(|g| (g.model.as_ref().map(|(_, m)| m.as_str()), &g.tally)),
            &present,
        ),
        gpu_count: summaries.len(),
        gpus: summaries,
        quality: DataQuality {
            duplicates: facts.iter().map(|p| p.duplicates).sum(),
            unobserved_gpu_hours: unobserved_us as f64 / US_PER_HOUR,
            rows_outside_window: outside,
            notes,
            ..DataQuality::default()
        },
        note_unmeasured_basis: true,
        diagnosis: crate::audit::diagnosis::Sections::default(),
    }
}

/// The held rule the query was written with, as its answer names it.
fn held_rule_of(text: &str, file: &str) -> Result<HeldBasis> {
    match HeldRule::from_key(text) {
        Some(rule) => Ok(rule.basis()),
        None => bail!(
            "{file}: column '{}' is {text:?}: expected {}",
            key::HELD_RULE,
            HeldRule::KEY_FORMS
        ),
    }
}

/// The query's --by must be the report's: groups cannot be regrouped from sums.
fn check_grouping(rows: &[Partial], cfg: &AuditConfig, file: &str) -> Result<()> {
    let query = rows.first().and_then(|p| p.grouped_by.clone());
    let asked = cfg.by.map(|b| b.column().to_string());
    if query != asked {
        let say = |b: &Option<String>| {
            b.as_ref()
                .map_or("no --by".to_string(), |b| format!("--by {b}"))
        };
        bail!(
            "{file}: the partial sums were grouped with {} (gpuaudit sql), the report asks {}: give both the same --by",
            say(&query),
            say(&asked)
        );
    }
    Ok(())
}

/// Snapshot and lone-sample notes, as the engine writes them (§2), with the
/// weight the query gave a single sample.
fn single_notes(gpus: &BTreeMap<(String, String), GpuFacts>, facts: &[&Partial]) -> Vec<Note> {
    let mut notes = Vec::new();
    let Some(weight_us) = facts.iter().find_map(|p| p.single_weight_us) else {
        return notes;
    };
    if gpus.values().all(|g| g.samples <= 1) {
        notes.push(Note::Snapshot { weight_us });
    }
    let lone = facts.iter().filter(|p| p.single == 2).count();
    if lone > 0 {
        notes.push(Note::LoneSamples {
            gpus: lone,
            weight_us,
        });
    }
    notes
}

fn gpu_summaries(
    gpus: &BTreeMap<(String, String), GpuFacts>,
    present: &Present,
    cfg: &AuditConfig,
) -> Vec<GpuSummary> {
    gpus.iter()
        .map(|((host, gpu), g)| {
            let r = g.tally.ratios(present);
            let model = g.model.as_ref().map(|(_, m)| m.clone());
            let f = g.first.clone().unwrap_or_default();
            GpuSummary {
                host: host.clone(),
                gpu: gpu.clone(),
                usd_per_hour: cfg.prices.price_of(model.as_deref()),
                model,
                samples: g.samples,
                jobs: f.jobs,
                users: f.users,
                observed_gpu_hours: g.tally.observed_h(),
                held_gpu_hours: g.tally.held_h(),
                idle_held_gpu_hours: present.device_util.then_some(g.tally.idle_held_h()),
                device_util: r.active(),
                sm_active: r.sm_active(),
                tensor_active: r.tensor_active(),
                last_mem_used_bytes: f.last_mem_used,
                last_mem_total_bytes: f.last_mem_total,
                last_power_w: f.last_power,
                last_held: f.last_held,
            }
        })
        .collect()
}

/// The timeline from the answer's bucket sums (`gpuaudit sql --bucket`) and
/// the purchase answer from it, as the engine's diagnosis gives them; without
/// buckets, both are absent with the reason in the notes.
fn sections_of(
    parts: &Parts,
    cfg: &AuditConfig,
    buckets: &Option<Buckets>,
) -> crate::audit::diagnosis::Sections {
    use crate::audit::diagnosis::timeline::{BucketSums, Seen, TimelineFold};
    let Some(b) = buckets else {
        return crate::audit::diagnosis::Sections::default();
    };
    let window = (parts.window_start, parts.window_end);
    let mut fold = TimelineFold::new(b.bucket_us, window.0, window.1);
    let seen = Seen {
        device_util: parts.present.device_util,
        sm_active: parts.present.sm_active,
        tensor_active: parts.present.tensor_active,
    };
    fold.add_sums(
        window.0.div_euclid(b.bucket_us),
        &BucketSums::default(),
        seen,
    );
    // hours back to ticks: the fold sums weight x fraction in ticks
    let ticks = |h: f64| Sum::from(h * US_PER_HOUR);
    for (k, p) in &b.rows {
        let sums = BucketSums {
            observed: p.int("observed_us"),
            held: p.int("held_us"),
            idle_held: p.int("idle_held_us"),
            unallocated: p.int("observed_us") - p.int("held_us") - p.int("held_unknown_us"),
            active: ticks(p.hours("active_h")),
            sm_active: ticks(p.hours("sm_h")),
            tensor_active: ticks(p.hours("tensor_h")),
            active_known: (p.hours("active_known_h") * US_PER_HOUR).round() as i64,
            sm_known: (p.hours("sm_known_h") * US_PER_HOUR).round() as i64,
            tensor_known: (p.hours("tensor_known_h") * US_PER_HOUR).round() as i64,
        };
        fold.add_sums(*k, &sums, seen);
    }
    let mut timeline = fold.finish(&NoNames);
    let window_hours = (window.1 - window.0) as f64 / US_PER_HOUR;
    let demand = cfg.purchase.queue.as_ref().map(|queue| {
        crate::audit::diagnosis::demand::fold_on_timeline(&queue.requests, &timeline, window)
    });
    if let Some(d) = &demand {
        timeline.set_pending(&d.pending_per_bucket);
    }
    let layers = parts.total.layers(&parts.present);
    // power is not in partial sums: --own-cost prices capex only
    let own_cost = cfg
        .purchase
        .own_cost
        .as_ref()
        .map(|spec| crate::audit::diagnosis::purchase::OwnCostFigures::of(spec, None));
    let inputs = crate::audit::diagnosis::purchase::PurchaseInputs {
        gpus_seen: parts.gpu_count,
        deepest_layer: crate::audit::diagnosis::purchase::deepest_layer(&layers),
        window_hours,
        want: cfg.purchase.want,
        min_window_hours: cfg.purchase.min_window_hours,
        observed_gpu_hours: layers.observed_gpu_hours,
        held_known_gpu_hours: layers.held_gpu_hours + layers.unallocated_gpu_hours,
        usd_per_gpu_hour: crate::audit::engine::mean_price(&parts.total),
        own_cost: own_cost.as_ref(),
    };
    let purchase = crate::audit::diagnosis::purchase(&timeline, &inputs, demand.as_ref());
    crate::audit::diagnosis::Sections {
        timeline: Some(timeline),
        purchase: Some(purchase),
        demand,
        ..Default::default()
    }
}

/// The timeline names nothing (sums carry no labels).
struct NoNames;

impl crate::audit::interval::Names for NoNames {
    fn label(&self, _id: u32) -> &str {
        ""
    }
    fn host_of(&self, _gpu: usize) -> &str {
        ""
    }
    fn gpu_of(&self, _gpu: usize) -> &str {
        ""
    }
}
