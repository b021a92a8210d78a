//! The ONE canonical sample table every source becomes (docs/semantics.md §1).
//!
//! A source adapter produces a polars `DataFrame` whose columns carry source
//! names (or canonical names); [`normalize`] maps them onto the canonical
//! columns, converts units, and counts values it cannot use. Only columns the
//! source had are present: an absent metric stays absent (null layers), never 0.
use crate::audit::model::{ColumnName, Note, TimeBulk, Warning};
use crate::timeparse::{
    US_PER_DAY, epoch_integer_to_us, epoch_number_to_us, parse_timestamp_zoned,
};
use anyhow::{Context, Result, bail};
use polars::prelude::*;
use polars_arrow::array::Array;
use std::collections::{BTreeMap, BTreeSet};

pub mod col {
    pub const TIME: &str = "time";
    pub const HOST: &str = "host";
    pub const GPU: &str = "gpu";
    pub const MODEL: &str = "model";
    pub const HELD: &str = "held";
    pub const JOB: &str = "job";
    pub const USER: &str = "user";
    pub const TEAM: &str = "team";
    pub const DEVICE_UTIL: &str = "device_util";
    pub const GR_ENGINE_ACTIVE: &str = "gr_engine_active";
    pub const SM_ACTIVE: &str = "sm_active";
    pub const SM_OCCUPANCY: &str = "sm_occupancy";
    pub const TENSOR_ACTIVE: &str = "tensor_active";
    pub const DRAM_ACTIVE: &str = "dram_active";
    pub const MEM_USED_BYTES: &str = "mem_used_bytes";
    pub const MEM_TOTAL_BYTES: &str = "mem_total_bytes";
    pub const POWER_W: &str = "power_w";
}

/// What a canonical column holds, which decides how values are converted and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Time,
    Label,
    Held,
    /// 0..1
    Fraction,
    /// >= 0, stored as u64
    Bytes,
    /// >= 0
    Watts,
}

/// The label columns, in output order (the metric columns follow, from the registry).
const LABEL_COLUMNS: [(&str, Kind); 8] = [
    (col::TIME, Kind::Time),
    (col::HOST, Kind::Label),
    (col::GPU, Kind::Label),
    (col::MODEL, Kind::Label),
    (col::HELD, Kind::Held),
    (col::JOB, Kind::Label),
    (col::USER, Kind::Label),
    (col::TEAM, Kind::Label),
];

const ALL_COLUMNS: usize = LABEL_COLUMNS.len() + crate::metric::METRICS.len();

const fn columns() -> [(&'static str, Kind); ALL_COLUMNS] {
    let mut out = [(col::TIME, Kind::Time); ALL_COLUMNS];
    let mut i = 0;
    while i < LABEL_COLUMNS.len() {
        out[i] = LABEL_COLUMNS[i];
        i += 1;
    }
    let metrics = crate::metric::METRICS;
    let mut j = 0;
    while j < metrics.len() {
        out[i + j] = (metrics[j].name, metrics[j].kind);
        j += 1;
    }
    out
}

/// The canonical columns in output order: the labels, then the metric registry's.
pub const COLUMNS: &[(&str, Kind)] = &columns();

pub fn kind_of(canonical: &str) -> Option<Kind> {
    COLUMNS
        .iter()
        .find(|(name, _)| *name == canonical)
        .map(|(_, k)| *k)
}

/// The polars type a canonical column has after normalisation.
pub fn dtype_of(kind: Kind) -> DataType {
    match kind {
        Kind::Time => DataType::Datetime(TimeUnit::Microseconds, Some(TimeZone::UTC)),
        Kind::Label => DataType::String,
        Kind::Held => DataType::Boolean,
        Kind::Fraction | Kind::Watts => DataType::Float64,
        Kind::Bytes => DataType::UInt64,
    }
}

/// How a source value converts into the canonical unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    AsIs,
    /// 0-100 -> 0..1
    Percent,
    /// MiB -> bytes
    Mib,
    /// already a fraction, as `--map X=Y:fraction` states (never inferred)
    Fraction,
    /// already bytes, as `--map X=Y:bytes` states (never inferred)
    Bytes,
    /// thousandths (milliwatts -> watts: the Gaudi exporter's habanalabs_power_mW)
    Milli,
}

impl Unit {
    fn factor(self) -> f64 {
        match self {
            Unit::AsIs | Unit::Fraction | Unit::Bytes => 1.0,
            Unit::Percent => 0.01,
            Unit::Mib => 1_048_576.0,
            Unit::Milli => 0.001,
        }
    }
    /// Canonical as is: no conversion (stated or not).
    fn is_identity(self) -> bool {
        matches!(self, Unit::AsIs | Unit::Fraction | Unit::Bytes)
    }
}

/// Known source names of the label columns, lower-case, in priority order per
/// canonical column (the first one present wins: `UUID` beats `gpu`, which
/// beats `index`). The metric columns' names are the registry's ([`aliases_of`]).
const LABEL_ALIASES: &[(&str, &str, Unit)] = &[
    ("time", col::TIME, Unit::AsIs),
    ("timestamp", col::TIME, Unit::AsIs),
    ("ts", col::TIME, Unit::AsIs),
    ("@timestamp", col::TIME, Unit::AsIs),
    ("host", col::HOST, Unit::AsIs),
    ("hostname", col::HOST, Unit::AsIs),
    ("node", col::HOST, Unit::AsIs),
    ("uuid", col::GPU, Unit::AsIs),
    ("gpu_uuid", col::GPU, Unit::AsIs),
    ("gpu", col::GPU, Unit::AsIs),
    ("gpu_id", col::GPU, Unit::AsIs),
    ("index", col::GPU, Unit::AsIs),
    ("model", col::MODEL, Unit::AsIs),
    ("modelname", col::MODEL, Unit::AsIs),
    ("name", col::MODEL, Unit::AsIs),
    ("gpu_name", col::MODEL, Unit::AsIs),
    ("product_name", col::MODEL, Unit::AsIs),
    ("held", col::HELD, Unit::AsIs),
    ("allocated", col::HELD, Unit::AsIs),
    ("job", col::JOB, Unit::AsIs),
    ("job_id", col::JOB, Unit::AsIs),
    ("exported_pod", col::JOB, Unit::AsIs),
    ("pod", col::JOB, Unit::AsIs),
    ("hpc_job", col::JOB, Unit::AsIs),
    ("user", col::USER, Unit::AsIs),
    ("username", col::USER, Unit::AsIs),
    ("owner", col::USER, Unit::AsIs),
    ("team", col::TEAM, Unit::AsIs),
    ("exported_namespace", col::TEAM, Unit::AsIs),
    ("namespace", col::TEAM, Unit::AsIs),
    ("project", col::TEAM, Unit::AsIs),
];

/// The known source names of a canonical column, in priority order.
fn aliases_of(canonical: &str) -> impl Iterator<Item = (&'static str, Unit)> + '_ {
    LABEL_ALIASES
        .iter()
        .filter(move |(_, c, _)| *c == canonical)
        .map(|(s, _, u)| (*s, *u))
        .chain(
            crate::metric::by_name(canonical)
                .into_iter()
                .flat_map(|m| m.column_aliases()),
        )
}

/// "no GPU id column (expected one of: uuid, gpu_uuid, gpu, gpu_id, index;
/// found [...]; or --map YOURS=gpu)": every message about a missing column
/// lists the spellings the alias table reads, in its priority order, so the
/// message and the reader cannot drift apart. `found`: the file's columns.
pub fn missing_column(canonical: &str, found: Option<&str>) -> String {
    let noun = if canonical == col::GPU {
        "GPU id"
    } else {
        canonical
    };
    let found = found.map(|f| format!("; found {f}")).unwrap_or_default();
    format!(
        "no {noun} column (expected one of: {}{found}; or --map YOURS={canonical})",
        spellings(canonical, usize::MAX)
    )
}

/// The first `at_most` source spellings of a canonical column from the alias
/// table, in priority order, ", …" when there are more: "job, job_id, …".
pub fn spellings(canonical: &str, at_most: usize) -> String {
    let all: Vec<&str> = aliases_of(canonical).map(|(s, _)| s).collect();
    let mut out = all
        .iter()
        .take(at_most)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if all.len() > at_most {
        out.push_str(", …");
    }
    out
}

/// One user `--map SOURCE=CANONICAL[:percent|:mib]`.
#[derive(Debug, Clone, PartialEq)]
pub struct UserMap {
    pub source: String,
    pub canonical: &'static str,
    pub unit: Unit,
}

impl UserMap {
    pub fn parse(spec: &str) -> Result<Self> {
        let (source, target) = spec.split_once('=').with_context(|| {
            format!("--map '{spec}': expected SOURCE=CANONICAL[:percent|:fraction|:mib|:bytes]")
        })?;
        let (canonical, unit) = match target.split_once(':') {
            Some((c, u)) => (c, u),
            None => (target, ""),
        };
        let unit = match unit.trim().to_ascii_lowercase().as_str() {
            "" => Unit::AsIs,
            "percent" | "%" => Unit::Percent,
            "mib" => Unit::Mib,
            "fraction" | "ratio" => Unit::Fraction,
            "bytes" | "b" => Unit::Bytes,
            other => bail!(
                "--map '{spec}': unknown unit '{other}' (expected percent, fraction, mib or bytes)"
            ),
        };
        let canonical = COLUMNS
            .iter()
            .map(|(n, _)| *n)
            .find(|n| n.eq_ignore_ascii_case(canonical.trim()))
            .with_context(|| {
                let names: Vec<&str> = COLUMNS.iter().map(|(n, _)| *n).collect();
                format!(
                    "--map '{spec}': '{canonical}' is not a canonical column (expected one of {})",
                    names.join(", ")
                )
            })?;
        if source.trim().is_empty() {
            bail!("--map '{spec}': the source column name is empty");
        }
        Ok(UserMap {
            source: source.trim().to_string(),
            canonical,
            unit,
        })
    }
}

/// Which source column feeds each canonical column.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub source: String,
    pub canonical: &'static str,
    pub unit: Unit,
}

/// Map a source's column names onto canonical columns: `--map` entries first,
/// then the canonical name itself, then the known aliases, case-insensitively.
pub fn resolve_columns(source_columns: &[String], user_maps: &[UserMap]) -> Vec<Resolved> {
    let mut out: Vec<Resolved> = Vec::new();
    let mut used_sources: BTreeSet<String> = BTreeSet::new();
    let find = |name: &str| {
        source_columns
            .iter()
            .find(|c| c.trim().eq_ignore_ascii_case(name))
            .cloned()
    };
    for (canonical, _) in COLUMNS {
        let candidates = user_maps
            .iter()
            .filter(|m| m.canonical == *canonical)
            .map(|m| (m.source.as_str(), m.unit))
            // a registry name lives longer than a --map: shorten it to match
            .chain(aliases_of(canonical).map(|(s, u)| -> (&str, Unit) { (s, u) }));
        for (source_name, unit) in candidates {
            if let Some(found) = find(source_name)
                && !used_sources.contains(&found)
            {
                used_sources.insert(found.clone());
                out.push(Resolved {
                    source: found,
                    canonical,
                    unit,
                });
                break;
            }
        }
    }
    out
}

/// The `--map` sources found among `columns` (case-insensitively, as resolution matches).
pub fn maps_found(columns: &[String], maps: &[UserMap]) -> BTreeSet<String> {
    maps.iter()
        .filter(|m| {
            columns
                .iter()
                .any(|c| c.trim().eq_ignore_ascii_case(&m.source))
        })
        .map(|m| m.source.clone())
        .collect()
}

/// A GPU id that names one card wherever it appears: an NVIDIA UUID
/// (`GPU-…`, `MIG-…`), or a MIG instance of one (`GPU-…/1/0`).
pub fn uuid_like(gpu: &str) -> bool {
    let g = gpu.trim();
    g.len() > 8
        && g.get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("GPU-") || p.eq_ignore_ascii_case("MIG-"))
}

/// The parent of a MIG instance written `<gpu>/<gi>/<ci>` (docs/semantics.md §1).
pub fn mig_parent(gpu: &str) -> Option<&str> {
    let (parent, rest) = gpu.split_once('/')?;
    let (gi, ci) = rest.split_once('/')?;
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (!parent.is_empty() && number(gi) && number(ci)).then_some(parent)
}

/// A streamed dataset whose GPU ids need the whole table (a UUID under two
/// host names, a MIG parent beside its instances): the in-memory path reads it.
#[derive(Debug)]
pub struct NeedsWholeTable;

impl std::fmt::Display for NeedsWholeTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GPU identities that need the whole table")
    }
}

impl std::error::Error for NeedsWholeTable {}

/// The least distance beyond the middle half of the data that makes a sample
/// stray: a week (a dataset spanning less cannot hold a stray sample).
pub const MIN_TIME_FENCE_US: i64 = 7 * US_PER_DAY;

/// The bulk of the data in time (epoch µs), from its quartiles: within 7 days,
/// or 10x the interquartile span, of the middle half.
pub fn time_fences(q1: i64, q3: i64) -> (i64, i64) {
    let fence = (10 * (q3 - q1)).max(MIN_TIME_FENCE_US);
    (q1 - fence, q3 + fence)
}

/// The 0-based ranks of the time quartiles among `n` sorted times, one rule
/// for every reader (polars' Lower: floor((n - 1) q)).
pub fn quartile_ranks(n: u64) -> (u64, u64) {
    let last = n.saturating_sub(1);
    (last / 4, last * 3 / 4)
}

/// At most this many samples outside the bulk are stray rows, left out; more is data.
pub fn outlier_limit(rows: usize) -> usize {
    (rows / 100).max(5)
}

/// A `--map` whose source column no input has is a typo, not a no-op: refused naming it.
pub fn check_maps(found: &BTreeSet<String>, maps: &[UserMap], sources: &[String]) -> Result<()> {
    if let Some(m) = maps.iter().find(|m| !found.contains(&m.source)) {
        bail!(
            "--map {}={}: no input has a column '{}' (in {})",
            m.source,
            m.canonical,
            m.source,
            sources.join(", ")
        );
    }
    Ok(())
}

/// Source columns that would feed a metric (or held) column already fed: an
/// alias beside the canonical name (`device_util` and `DCGM_FI_DEV_GPU_UTIL`),
/// or a duplicate header polars renamed (`device_util_duplicated_0`).
/// Labels are left out: `gpu` beside `UUID` is an index beside an id, not a twin.
pub fn twins(columns: &[String], resolved: &[Resolved]) -> Vec<Resolved> {
    let used = |c: &str| resolved.iter().any(|r| r.source == c);
    let mut out = Vec::new();
    for r in resolved {
        if !matches!(
            kind_of(r.canonical),
            Some(Kind::Fraction | Kind::Bytes | Kind::Watts | Kind::Held)
        ) {
            continue;
        }
        let dup_prefix = format!("{}_duplicated_", r.source.to_ascii_lowercase());
        for c in columns.iter().filter(|c| !used(c)) {
            let lower = c.trim().to_ascii_lowercase();
            let unit = if lower.starts_with(&dup_prefix) {
                Some(r.unit)
            } else {
                aliases_of(r.canonical)
                    .find(|(a, _)| a.eq_ignore_ascii_case(&lower))
                    .map(|(_, u)| u)
            };
            if let Some(unit) = unit {
                out.push(Resolved {
                    source: c.clone(),
                    canonical: r.canonical,
                    unit,
                });
            }
        }
    }
    out
}

/// Two columns that give the same canonical column must agree (after each
/// one's unit is applied); where they differ the input is refused naming both.
pub fn check_twins(
    raw: &DataFrame,
    resolved: &[Resolved],
    twins: &[Resolved],
    origin: &str,
) -> Result<()> {
    let values = |r: &Resolved| -> Result<Vec<Option<f64>>> {
        let src = raw.column(&r.source)?.as_materialized_series().clone();
        let kind = kind_of(r.canonical).unwrap_or(Kind::Fraction);
        if kind == Kind::Held {
            let (v, _) = to_held(&src);
            return Ok(v.into_iter().map(|b| b.map(f64::from)).collect());
        }
        let mut scratch = Quality::default();
        let unit = decide_units(raw, std::slice::from_ref(r), origin, &mut scratch)?
            .get(r.canonical)
            .copied()
            .unwrap_or(r.unit);
        Ok(to_numbers(&src, unit, kind)
            .map(|(v, _)| v)
            .unwrap_or_default())
    };
    for t in twins {
        let Some(main) = resolved.iter().find(|r| r.canonical == t.canonical) else {
            continue;
        };
        let (a, b) = (values(main)?, values(t)?);
        let differ = a
            .iter()
            .zip(&b)
            .enumerate()
            .find(|(_, (x, y))| match (x, y) {
                (Some(x), Some(y)) => (x - y).abs() > 1e-6 * x.abs().max(1.0),
                _ => false,
            });
        if let Some((i, (Some(x), Some(y)))) = differ {
            bail!(
                "{origin}: columns '{}' and '{}' both give {} and disagree at data row {} ({x} vs {y}): drop one, or map one elsewhere with --map",
                main.source,
                t.source,
                t.canonical,
                i + 1
            );
        }
    }
    Ok(())
}

/// Counts of what could not be used, per canonical column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Quality {
    /// values that did not parse or were out of range, per canonical column
    pub invalid: BTreeMap<String, u64>,
    /// rows dropped because a required value (gpu) was missing
    pub rows_dropped: u64,
    /// what a reader decided (which source column fed what, timestamps assumed, ...)
    pub notes: Vec<Note>,
    /// warnings a reader counted (e.g. lines it skipped)
    pub warnings: Vec<Warning>,
    /// source columns of `--map` entries some input had (a map no input matches is refused)
    pub maps_found: BTreeSet<String>,
    /// what the values of each column whose unit the data decides looked like,
    /// merged over every input read (the whole input decides: [`decide_whole`])
    pub unit_evidence: BTreeMap<&'static str, UnitEvidence>,
}

impl DecidedColumn {
    /// A fraction column whose unit the data decided (`applied`), as read;
    /// None for any other column.
    fn of(r: &Resolved, kind: Kind, applied: Unit, raw: &Series, bad: u64) -> Option<Self> {
        (kind == Kind::Fraction && r.unit == Unit::AsIs).then(|| DecidedColumn {
            canonical: r.canonical,
            applied,
            raw: raw.clone(),
            keep: None,
            bad,
        })
    }
}

/// Evidence of two parts of an input together: the stats merged per column.
pub fn merge_evidence(
    into: &mut BTreeMap<&'static str, UnitEvidence>,
    from: BTreeMap<&'static str, UnitEvidence>,
) {
    for (k, e) in from {
        into.entry(k)
            .and_modify(|x| x.stats = x.stats.merge(e.stats))
            .or_insert(e);
    }
}

/// The bare numbers of one column whose unit no name and no `--map` states.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitEvidence {
    /// the column as the first input that had it names it
    pub column: Resolved,
    /// that input, for a refusal
    pub origin: String,
    pub stats: crate::units::Stats,
}

/// The units of a whole input (docs/semantics.md §1), decided in this ONE
/// place for every reader: the in-memory table ([`SampleTable::concat`]) and
/// the streamed parquet dataset call it with the stats of all their files
/// merged, so a directory, a glob, a list of files and stdin decide alike.
/// Returns the unit of each column read as other than named, and the notes
/// and warnings that say so; a column that cannot tell is refused.
pub fn decide_whole(
    evidence: &BTreeMap<&'static str, UnitEvidence>,
) -> Result<(BTreeMap<&'static str, Unit>, Quality)> {
    let mut units = BTreeMap::new();
    let mut quality = Quality::default();
    for e in evidence.values() {
        let Some(kind) = kind_of(e.column.canonical) else {
            continue;
        };
        let d = crate::units::decide(kind, e.column.unit, &e.stats);
        match_decision(d, &e.column, &e.origin, &mut quality, &mut units)?;
    }
    Ok((units, quality))
}

/// A fraction column whose unit the data decided, kept as read until the
/// whole input is known ([`SampleTable::concat`] converts it again when the
/// whole input decides otherwise than this file alone did).
#[derive(Debug, Clone)]
pub struct DecidedColumn {
    pub canonical: &'static str,
    /// the unit this file alone decided (and the table holds)
    pub applied: Unit,
    /// the source column as read, every row (before rows without a GPU left)
    pub raw: Series,
    /// the rows kept (None: all)
    pub keep: Option<BooleanChunked>,
    /// values counted invalid under `applied`
    pub bad: u64,
}

impl Quality {
    pub fn merge(&mut self, other: Quality) {
        for (k, v) in other.invalid {
            *self.invalid.entry(k).or_default() += v;
        }
        self.rows_dropped += other.rows_dropped;
        self.notes.extend(other.notes);
        self.warnings.extend(other.warnings);
        self.maps_found.extend(other.maps_found);
        merge_evidence(&mut self.unit_evidence, other.unit_evidence);
    }
    pub fn count_invalid(&mut self, column: &str, n: u64) {
        if n > 0 {
            *self.invalid.entry(column.to_string()).or_default() += n;
        }
    }
}

/// The canonical table plus what is known about where it came from.
#[derive(Debug, Clone)]
pub struct SampleTable {
    /// canonical columns only, in [`COLUMNS`] order; absent metrics are absent
    pub df: DataFrame,
    /// canonical columns some source actually had
    pub present: BTreeSet<&'static str>,
    pub quality: Quality,
    /// the inputs, as the user named them
    pub sources: Vec<String>,
    /// rows the sources held before anything was dropped
    pub rows_read: u64,
    /// fraction columns whose unit this table's data alone decided
    pub decided: Vec<DecidedColumn>,
}

impl SampleTable {
    pub fn has(&self, column: &str) -> bool {
        self.present.contains(column)
    }

    /// Stack tables from several inputs; a column one of them lacks is null there.
    pub fn concat(mut tables: Vec<SampleTable>) -> Result<SampleTable> {
        let units_said = decide_units_of_whole(&mut tables)?;
        let mut present = BTreeSet::new();
        for t in &tables {
            present.extend(t.present.iter().copied());
        }
        let mut quality = Quality::default();
        let mut sources = Vec::new();
        let mut rows_read = 0;
        let mut frames = Vec::new();
        for t in tables {
            let df = with_columns(t.df, &present)?;
            frames.push(df);
            quality.merge(t.quality);
            sources.extend(t.sources);
            rows_read += t.rows_read;
        }
        let df = match frames.len() {
            0 => empty_frame(&present)?,
            1 => frames.pop().unwrap_or_default(),
            _ => {
                let mut it = frames.into_iter();
                let mut acc = it.next().unwrap_or_default();
                for f in it {
                    acc.vstack_mut_owned(f)?;
                }
                acc.rechunk_mut();
                acc
            }
        };
        if let Some(said) = units_said {
            quality.notes.extend(said.notes);
            quality.warnings.extend(said.warnings);
        }
        let mut table = SampleTable {
            df,
            present,
            quality,
            sources,
            rows_read,
            decided: Vec::new(),
        };
        table.forget_unmeasured()?;
        table.drop_time_outliers()?;
        table.unify_uuid_hosts()?;
        table.drop_mig_parents()?;
        Ok(table)
    }

    /// One UUID is one GPU wherever it appears (docs/semantics.md §1): the
    /// same UUID under `node1` and `node1.cluster.local` is put under one
    /// spelling (the shortest non-empty one, then the first in byte order, so
    /// the order of the inputs does not matter), with a warning naming them.
    fn unify_uuid_hosts(&mut self) -> Result<()> {
        if self.df.height() == 0 {
            return Ok(());
        }
        let host = self.df.column(col::HOST)?.str()?.clone();
        let gpu = self.df.column(col::GPU)?.str()?.clone();
        let mut hosts: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (h, g) in host.iter().zip(gpu.iter()) {
            if let (Some(h), Some(g)) = (h, g)
                && uuid_like(g)
            {
                hosts.entry(g).or_default().insert(h);
            }
        }
        let spelled: BTreeMap<&str, Vec<&str>> = hosts
            .into_iter()
            .filter(|(_, hs)| hs.len() > 1)
            .map(|(g, hs)| {
                let mut v: Vec<&str> = hs.into_iter().collect();
                v.sort_by_key(|h| (h.is_empty(), h.len(), *h));
                (g, v)
            })
            .collect();
        let Some((example, spellings)) = spelled.iter().next() else {
            return Ok(());
        };
        let warning = Warning::UuidUnderHosts {
            gpus: spelled.len(),
            example_gpu: example.to_string(),
            hosts: spellings.iter().map(|h| h.to_string()).collect(),
        };
        let unified: StringChunked = host
            .iter()
            .zip(gpu.iter())
            .map(|(h, g)| match g.and_then(|g| spelled.get(g)) {
                Some(v) => v.first().copied(),
                None => h,
            })
            .collect();
        let unified = unified.with_name(col::HOST.into()).into_series();
        self.df.with_column(unified.into_column())?;
        self.quality.warnings.push(warning);
        Ok(())
    }

    /// A MIG parent exported beside its instances (`GPU-a`, `GPU-a/1/0`,
    /// `GPU-a/2/0`, as dcgm-exporter does) is one card billed once: the
    /// parent's samples at the instants one of its instances (same host)
    /// reports are dropped, with a warning counting them; the instances carry
    /// the card there, and the parent where no instance reports.
    fn drop_mig_parents(&mut self) -> Result<()> {
        if self.df.height() == 0 {
            return Ok(());
        }
        let host = self.df.column(col::HOST)?.str()?.clone();
        let gpu = self.df.column(col::GPU)?.str()?.clone();
        let time = self.df.column(col::TIME)?.cast(&DataType::Int64)?;
        let time = time.i64()?;
        let mut covered: BTreeSet<(&str, &str, i64)> = BTreeSet::new();
        for ((h, g), t) in host.iter().zip(gpu.iter()).zip(time.iter()) {
            if let (Some(h), Some(p), Some(t)) = (h, g.and_then(mig_parent), t) {
                covered.insert((h, p, t));
            }
        }
        if covered.is_empty() {
            return Ok(());
        }
        let mut parents = BTreeSet::new();
        let keep: Vec<bool> = host
            .iter()
            .zip(gpu.iter())
            .zip(time.iter())
            .map(|((h, g), t)| match (h, g, t) {
                (Some(h), Some(g), Some(t)) if covered.contains(&(h, g, t)) => {
                    parents.insert((h, g));
                    false
                }
                _ => true,
            })
            .collect();
        let dropped = keep.iter().filter(|k| !**k).count() as u64;
        if dropped == 0 {
            return Ok(());
        }
        let warning = Warning::MigParentDropped {
            parents: parents.len(),
            samples: dropped,
        };
        self.df = self
            .df
            .filter(&BooleanChunked::from_slice("keep".into(), &keep))?;
        self.quality.warnings.push(warning);
        Ok(())
    }

    /// A handful of samples far outside the bulk of the data (one row from 1970
    /// in a 2026 dump) would stretch the window and turn every monthly
    /// run-rate into dust. The bulk is the samples within 7 days, or 10x the
    /// interquartile span, of the middle half; at most max(1%, 5) samples
    /// outside it are left out, counted and named. More than that is data,
    /// not a stray row, and stays.
    fn drop_time_outliers(&mut self) -> Result<()> {
        let n = self.df.height();
        if n < 4 {
            return Ok(());
        }
        let t = self.df.column(col::TIME)?.cast(&DataType::Int64)?;
        let times: Vec<Option<i64>> = t.i64()?.iter().collect();
        let mut sorted: Vec<i64> = times.iter().flatten().copied().collect();
        sorted.sort_unstable();
        if sorted.len() < 4 {
            return Ok(());
        }
        let (r1, r3) = quartile_ranks(sorted.len() as u64);
        let (lo, hi) = time_fences(sorted[r1 as usize], sorted[r3 as usize]);
        let outside = |t: i64| t < lo || t > hi;
        let count = sorted.iter().filter(|t| outside(**t)).count();
        if count == 0 || count > outlier_limit(n) {
            return Ok(());
        }
        let (first, last) = (
            sorted.iter().copied().find(|t| outside(*t)).unwrap_or(lo),
            sorted
                .iter()
                .rev()
                .copied()
                .find(|t| outside(*t))
                .unwrap_or(hi),
        );
        let (bulk_start, bulk_end) = (
            sorted.iter().copied().find(|t| !outside(*t)).unwrap_or(lo),
            sorted
                .iter()
                .rev()
                .copied()
                .find(|t| !outside(*t))
                .unwrap_or(hi),
        );
        let keep: Vec<bool> = times.iter().map(|t| !t.is_some_and(outside)).collect();
        self.df = self
            .df
            .filter(&BooleanChunked::from_slice("keep".into(), &keep))?;
        self.quality.rows_dropped += count as u64;
        self.quality.warnings.push(Warning::FarOutsideTimes {
            count: count as u64,
            first_us: first,
            last_us: last,
            bulk: TimeBulk::Samples {
                start_us: bulk_start,
                end_us: bulk_end,
            },
        });
        Ok(())
    }

    /// A metric column without one usable value (all `[N/A]`, all out of range)
    /// measured nothing: it is dropped, exactly as if absent, so its layers and
    /// ratios are null ("not measured"), never 0.
    fn forget_unmeasured(&mut self) -> Result<()> {
        if self.df.height() == 0 {
            return Ok(());
        }
        for (name, kind) in COLUMNS {
            if !matches!(kind, Kind::Fraction | Kind::Bytes | Kind::Watts)
                || !self.present.contains(name)
            {
                continue;
            }
            let Ok(c) = self.df.column(name) else {
                continue;
            };
            if c.null_count() < c.len() {
                continue;
            }
            let invalid = self.quality.invalid.get(*name).copied().unwrap_or(0);
            self.quality.warnings.push(Warning::Unmeasured {
                column: name.to_string(),
                invalid,
            });
            self.present.remove(name);
            self.df = self.df.drop(name)?;
        }
        Ok(())
    }
}

/// The units of the whole input, decided once ([`decide_whole`]): a table
/// whose own data decided otherwise is converted again from what it read.
/// With two or more tables, their own unit notes give way to the whole's
/// (returned, to be said once); with one, its notes are the whole's already.
fn decide_units_of_whole(tables: &mut [SampleTable]) -> Result<Option<Quality>> {
    let mut evidence: BTreeMap<&'static str, UnitEvidence> = BTreeMap::new();
    let mut holders = 0;
    for t in tables.iter() {
        holders += usize::from(!t.quality.unit_evidence.is_empty());
        merge_evidence(&mut evidence, t.quality.unit_evidence.clone());
    }
    let (units, said) = decide_whole(&evidence)?;
    for t in tables.iter_mut() {
        for d in std::mem::take(&mut t.decided) {
            let whole = units.get(d.canonical).copied().unwrap_or(Unit::AsIs);
            if whole != d.applied {
                t.convert_again(&d, whole)?;
            }
        }
    }
    if holders < 2 {
        return Ok(None);
    }
    for t in tables.iter_mut() {
        t.quality
            .notes
            .retain(|n| !matches!(n, Note::ReadAsPercent { .. }));
        t.quality
            .warnings
            .retain(|w| !matches!(w, Warning::BytesImplausible { .. }));
    }
    Ok(Some(said))
}

impl SampleTable {
    /// One fraction column converted again from the values read, in `unit`.
    fn convert_again(&mut self, d: &DecidedColumn, unit: Unit) -> Result<()> {
        let (values, bad) = to_numbers(&d.raw, unit, Kind::Fraction)?;
        let mut column = Series::new(d.canonical.into(), values);
        if let Some(keep) = &d.keep {
            column = column.filter(keep)?;
        }
        self.df.with_column(column.into_column())?;
        let invalid = self
            .quality
            .invalid
            .entry(d.canonical.to_string())
            .or_default();
        *invalid = (*invalid + bad).saturating_sub(d.bad);
        if *invalid == 0 {
            self.quality.invalid.remove(d.canonical);
        }
        Ok(())
    }
}

fn empty_frame(present: &BTreeSet<&'static str>) -> Result<DataFrame> {
    let cols: Vec<Column> = COLUMNS
        .iter()
        .filter(|(n, _)| present.contains(n))
        .map(|(n, k)| Column::full_null((*n).into(), 0, &dtype_of(*k)))
        .collect();
    Ok(DataFrame::new_infer_height(cols)?)
}

/// Reorder to canonical order, adding null columns for those in `present` that `df` lacks.
fn with_columns(df: DataFrame, present: &BTreeSet<&'static str>) -> Result<DataFrame> {
    let height = df.height();
    let mut cols = Vec::new();
    for (name, kind) in COLUMNS {
        if !present.contains(name) {
            continue;
        }
        match df.column(name) {
            Ok(c) => cols.push(c.clone()),
            Err(_) => cols.push(Column::full_null((*name).into(), height, &dtype_of(*kind))),
        }
    }
    Ok(DataFrame::new(height, cols)?)
}

/// Build the canonical table from a source frame (already projected to the
/// columns `resolved` names). `origin` names the file in errors.
pub fn normalize(
    raw: &DataFrame,
    resolved: &[Resolved],
    origin: &str,
) -> Result<(DataFrame, Quality)> {
    normalize_deciding(raw, resolved, origin).map(|(df, q, _)| (df, q))
}

/// The canonical time column of `src`: shared when already canonical, one
/// vectorised cast from milliseconds, otherwise parsed value by value (naive
/// times taken as UTC, noted).
fn time_column(
    src: Series,
    name: &str,
    r: &Resolved,
    origin: &str,
    quality: &mut Quality,
) -> Result<Column> {
    let what = || {
        format!(
            "{origin}: column '{}' ({name}): expected timestamps",
            r.source
        )
    };
    let canonical = src.dtype() == &dtype_of(Kind::Time);
    let millis = matches!(src.dtype(), DataType::Datetime(TimeUnit::Milliseconds, _));
    let whole = (canonical || millis) && src.null_count() == 0 && datetimes_in_range(&src);
    if whole && canonical {
        return Ok(src.with_name(name.into()).into_column());
    }
    // a millisecond datetime scales up exactly, in one vectorised cast
    if whole {
        return Ok(src
            .cast(&DataType::Datetime(TimeUnit::Microseconds, None))
            .and_then(|s| s.cast(&DataType::Int64))
            .and_then(|s| s.cast(&dtype_of(Kind::Time)))
            .map_err(anyhow::Error::from)
            .with_context(what)?
            .with_name(name.into())
            .into_column());
    }
    let (us, naive) = to_time_us(&src, origin, &r.source)?;
    if naive > 0 {
        quality.notes.push(Note::NaiveTimesAsUtc {
            column: column_name(r),
            count: naive,
        });
    }
    Ok(Series::new(name.into(), us)
        .cast(&dtype_of(Kind::Time))
        .map_err(anyhow::Error::from)
        .with_context(what)?
        .into_column())
}

/// A canonical label column of `src` (host: never null); a row whose GPU id
/// is blank is marked in `keep` to be dropped.
fn label_column(src: &Series, name: &str, keep: &mut [bool]) -> Result<Column> {
    if src.dtype() == &DataType::String && (name != col::HOST || src.null_count() == 0) {
        if name == col::GPU {
            for (i, v) in src.str()?.iter().enumerate() {
                if v.is_none_or(is_blank) {
                    keep[i] = false;
                }
            }
        }
        return Ok(src.clone().with_name(name.into()).into_column());
    }
    let values = to_labels(src)?;
    Ok(if name == col::HOST {
        let v: Vec<String> = values.into_iter().map(|v| v.unwrap_or_default()).collect();
        Column::new(name.into(), v)
    } else {
        if name == col::GPU {
            for (i, v) in values.iter().enumerate() {
                if v.as_deref().is_none_or(is_blank) {
                    keep[i] = false;
                }
            }
        }
        Column::new(name.into(), values)
    })
}

/// Empty or whitespace only. A first byte that is a visible ASCII character
/// answers at once (every GPU id of a real export): `trim` on each of a
/// slice's million ids twice per report was 1% of its CPU.
fn is_blank(v: &str) -> bool {
    match v.as_bytes().first() {
        Some(b) if b.is_ascii_graphic() => false,
        _ => v.trim().is_empty(),
    }
}

/// A canonical number column: bytes as whole numbers, the rest as read.
fn number_column(name: &str, kind: Kind, values: Vec<Option<f64>>) -> Column {
    if kind == Kind::Bytes {
        let v: Vec<Option<u64>> = values
            .into_iter()
            .map(|v| v.map(|b| b.round() as u64))
            .collect();
        Column::new(name.into(), v)
    } else {
        Column::new(name.into(), values)
    }
}

/// [`normalize`], keeping the fraction columns whose unit this frame's data
/// decided as read (the whole input may decide otherwise: [`SampleTable::concat`]).
pub fn normalize_deciding(
    raw: &DataFrame,
    resolved: &[Resolved],
    origin: &str,
) -> Result<(DataFrame, Quality, Vec<DecidedColumn>)> {
    let mut quality = Quality::default();
    let mut decided = Vec::new();
    let height = raw.height();
    let by_canonical: BTreeMap<&str, &Resolved> =
        resolved.iter().map(|r| (r.canonical, r)).collect();

    for needed in [col::TIME, col::GPU] {
        by_canonical
            .get(needed)
            .with_context(|| format!("{origin}: {}", missing_column(needed, None)))?;
    }

    let units = decide_units(raw, resolved, origin, &mut quality)?;
    let mut columns: Vec<Column> = Vec::new();
    let mut keep: Vec<bool> = vec![true; height];
    for (name, kind) in COLUMNS {
        let Some(r) = by_canonical.get(name) else {
            if *name == col::HOST {
                columns.push(Column::new(col::HOST.into(), vec![""; height]));
            }
            continue;
        };
        let src = raw
            .column(&r.source)
            .map_err(anyhow::Error::from)
            .with_context(|| format!("{origin}: column '{}' vanished while reading", r.source))?
            .as_materialized_series()
            .clone();
        let unit = units.get(name).copied().unwrap_or(r.unit);
        let what = |expected: &str| {
            format!(
                "{origin}: column '{}' ({name}): expected {expected}",
                r.source
            )
        };
        let column = match kind {
            // Fast paths (here and in time_column, label_column): a column already
            // in canonical form is shared, not copied (this is what keeps a
            // 100M-row parquet scan cheap).
            Kind::Time => time_column(src, name, r, origin, &mut quality)?,
            Kind::Label => {
                label_column(&src, name, &mut keep).with_context(|| what("text labels"))?
            }
            Kind::Fraction | Kind::Watts
                if src.dtype() == &DataType::Float64
                    && unit.is_identity()
                    && all_valid_f64(&src, *kind)? =>
            {
                decided.extend(DecidedColumn::of(r, *kind, unit, &src, 0));
                src.with_name((*name).into()).into_column()
            }
            Kind::Bytes if src.dtype() == &DataType::UInt64 && unit.is_identity() => {
                src.with_name((*name).into()).into_column()
            }
            Kind::Held => {
                let (values, bad) = to_held(&src);
                quality.count_invalid(name, bad);
                Column::new((*name).into(), values)
            }
            Kind::Fraction | Kind::Watts | Kind::Bytes => {
                let (values, bad) =
                    to_numbers(&src, unit, *kind).with_context(|| what("numbers"))?;
                quality.count_invalid(name, bad);
                decided.extend(DecidedColumn::of(r, *kind, unit, &src, bad));
                number_column(name, *kind, values)
            }
        };
        columns.push(column);
    }
    let mut df = DataFrame::new(height, columns)?;
    let dropped = keep.iter().filter(|k| !**k).count() as u64;
    if dropped > 0 {
        quality.rows_dropped += dropped;
        quality.count_invalid(col::GPU, dropped);
        let mask = BooleanChunked::from_slice("keep".into(), &keep);
        df = df.filter(&mask)?;
        for d in &mut decided {
            d.keep = Some(mask.clone());
        }
    }
    Ok((df, quality, decided))
}

/// The unit of each column whose unit no name and no `--map` states, decided
/// from its values (crate::units::decide); notes and warnings say what was decided.
/// Streaming readers decide once per file and pass the unit stated, so every
/// slice of a file is read alike.
fn decide_units(
    raw: &DataFrame,
    resolved: &[Resolved],
    origin: &str,
    quality: &mut Quality,
) -> Result<BTreeMap<&'static str, Unit>> {
    let mut out = BTreeMap::new();
    for r in resolved {
        let Some(kind) = kind_of(r.canonical) else {
            continue;
        };
        if !matches!(kind, Kind::Fraction | Kind::Bytes) || r.unit != Unit::AsIs {
            continue;
        }
        let Ok(src) = raw.column(&r.source) else {
            continue;
        };
        let Some(stats) = crate::units::stats(src.as_materialized_series()) else {
            continue;
        };
        merge_evidence(
            &mut quality.unit_evidence,
            BTreeMap::from([(
                r.canonical,
                UnitEvidence {
                    column: r.clone(),
                    origin: origin.to_string(),
                    stats,
                },
            )]),
        );
        match crate::units::decide(kind, r.unit, &stats) {
            // the whole input may tell (another file holding 40): decided there
            crate::units::Decision::Ambiguous => {}
            d => match_decision(d, r, origin, quality, &mut out)?,
        }
    }
    Ok(out)
}

/// The column a note or warning names: canonical, and the input's own name.
pub fn column_name(r: &Resolved) -> ColumnName {
    ColumnName {
        canonical: r.canonical.to_string(),
        source: r.source.clone(),
    }
}

/// Apply one unit decision: the unit it sets, the note or warning it adds, or
/// the refusal when the data cannot tell.
pub fn match_decision(
    decision: crate::units::Decision,
    r: &Resolved,
    origin: &str,
    quality: &mut Quality,
    units: &mut BTreeMap<&'static str, Unit>,
) -> Result<()> {
    use crate::units::Decision;
    match decision {
        Decision::Keep => {}
        Decision::Percent { max } => {
            quality.notes.push(Note::ReadAsPercent {
                column: column_name(r),
                max,
            });
            units.insert(r.canonical, Unit::Percent);
        }
        Decision::Implausible { max_bytes } => quality.warnings.push(Warning::BytesImplausible {
            column: column_name(r),
            max_bytes,
        }),
        Decision::Ambiguous => bail!(
            "{origin}: column '{}' ({}) holds only the integers 0 and 1: fractions (0 or 100% busy) or percent (0% or 1%)? Say which: --map {}={}:fraction or --map {}={}:percent",
            r.source,
            r.canonical,
            r.source,
            r.canonical,
            r.source,
            r.canonical
        ),
    }
    Ok(())
}

/// Whether every non-null value is usable as is (no NaN, in range).
fn all_valid_f64(src: &Series, kind: Kind) -> Result<bool> {
    let (lo, hi) = usable_range(kind);
    // chunk by chunk, over the values slice where nothing is null (no Option per value)
    Ok(src.f64()?.downcast_iter().all(|arr| {
        if arr.null_count() == 0 {
            all_in_blocks(arr.values(), kind)
        } else {
            arr.iter().flatten().all(|&x| x >= lo && x <= hi)
        }
    }))
}

/// The values of `kind` usable as is: a fraction in 0..=1, any other
/// quantity finite and non-negative (0..=f64::MAX); NaN is in neither.
fn usable_range(kind: Kind) -> (f64, f64) {
    match kind {
        Kind::Fraction => (0.0, 1.0),
        _ => (0.0, f64::MAX),
    }
}

/// [`all_valid_f64`] over values without nulls: 64 values at a time with
/// `&` and no early exit inside a block, which the compiler vectorizes
/// (`all` stops at each value, which kept it scalar).
#[allow(clippy::manual_range_contains)]
fn all_in_blocks(v: &[f64], kind: Kind) -> bool {
    let (lo, hi) = usable_range(kind);
    let blocks = v.chunks_exact(64);
    let rest = blocks.remainder();
    for b in blocks {
        if !b.iter().fold(true, |ok, &x| ok & (x >= lo) & (x <= hi)) {
            return false;
        }
    }
    rest.iter().all(|&x| x >= lo && x <= hi)
}

/// Timestamps of any shape into epoch µs, and how many text values carried no
/// UTC offset. A value that does not parse is an error naming the row: a
/// sample without a time cannot be placed.
/// The instants a canonical time may hold: years 1 to 9999, what RFC 3339 can
/// write. An epoch number of 1e300 (or a datetime of i64::MAX) is no time at
/// all, and left in it would overflow every step and weight computed from it.
pub const TIME_RANGE_US: std::ops::RangeInclusive<i64> =
    -62_135_596_800_000_000..=253_402_300_799_999_999;

fn to_time_us(src: &Series, origin: &str, name: &str) -> Result<(Vec<i64>, u64)> {
    let mut naive = 0u64;
    let us = to_time_us_counting(src, origin, name, &mut naive)?;
    if let Some(i) = us.iter().position(|v| !TIME_RANGE_US.contains(v)) {
        // polars cannot print a datetime past its range (it panics): the raw value
        let written = match src.dtype() {
            DataType::Datetime(unit, _) => src
                .cast(&DataType::Int64)
                .ok()
                .and_then(|p| p.i64().ok().and_then(|c| c.get(i)))
                .map(|v| format!("datetime {v} ({unit} since 1970)"))
                .unwrap_or_default(),
            _ => src.get(i).map(|v| v.to_string()).unwrap_or_default(),
        };
        bail!(
            "{origin}: column '{name}' row {}: {written} lies outside the years 1 to 9999 (not a timestamp)",
            i + 1
        );
    }
    Ok((us, naive))
}

/// Whether a datetime column lies within [`TIME_RANGE_US`] (min and max, no copy).
fn datetimes_in_range(src: &Series) -> bool {
    let DataType::Datetime(unit, _) = src.dtype() else {
        return false;
    };
    let Ok(phys) = src.cast(&DataType::Int64) else {
        return false;
    };
    let Ok(ca) = phys.i64() else { return false };
    match (ca.min(), ca.max()) {
        (Some(lo), Some(hi)) => {
            TIME_RANGE_US.contains(&datetime_to_us(*unit, lo))
                && TIME_RANGE_US.contains(&datetime_to_us(*unit, hi))
        }
        _ => true,
    }
}

/// A datetime's physical value in µs, exactly: ms scale up (saturating: out
/// of range is refused after), ns truncate to the microsecond.
fn datetime_to_us(unit: TimeUnit, v: i64) -> i64 {
    match unit {
        TimeUnit::Milliseconds => v.saturating_mul(1_000),
        TimeUnit::Microseconds => v,
        TimeUnit::Nanoseconds => v.div_euclid(1_000),
    }
}

fn to_time_us_counting(
    src: &Series,
    origin: &str,
    name: &str,
    naive: &mut u64,
) -> Result<Vec<i64>> {
    let bad_row = |i: usize, v: &str| {
        anyhow::anyhow!(
            "{origin}: column '{name}' row {}: '{v}' is not a timestamp (expected RFC 3339, 'YYYY-MM-DD HH:MM:SS', 'YYYY/MM/DD HH:MM:SS.fff' or epoch seconds/ms)",
            i + 1
        )
    };
    match src.dtype() {
        DataType::Datetime(unit, _) => {
            let phys = src.cast(&DataType::Int64)?;
            let ca = phys.i64()?;
            ca.iter()
                .enumerate()
                .map(|(i, v)| {
                    v.map(|v| datetime_to_us(*unit, v))
                        .ok_or_else(|| bad_row(i, "null"))
                })
                .collect()
        }
        DataType::Date => {
            let phys = src.cast(&DataType::Int32)?;
            phys.i32()?
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.map(|d| d as i64 * US_PER_DAY)
                        .ok_or_else(|| bad_row(i, "null"))
                })
                .collect()
        }
        DataType::String => {
            let ca = src.str()?;
            ca.iter()
                .enumerate()
                .map(|(i, v)| {
                    let v = v.unwrap_or("");
                    parse_timestamp_zoned(v)
                        .map(|(us, no_offset)| {
                            *naive += u64::from(no_offset);
                            us
                        })
                        .or_else(|| epoch_text_to_us(v))
                        .ok_or_else(|| bad_row(i, v))
                })
                .collect()
        }
        dt if dt.is_integer() && dt != &DataType::UInt64 => {
            let ints = src.cast(&DataType::Int64)?;
            ints.i64()?
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.and_then(epoch_integer_to_us).ok_or_else(|| {
                        bad_row(
                            i,
                            &v.map(|x| x.to_string()).unwrap_or_else(|| "null".into()),
                        )
                    })
                })
                .collect()
        }
        dt if dt.is_primitive_numeric() => {
            let f = src.cast(&DataType::Float64)?;
            f.f64()?
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.and_then(epoch_number_to_us).ok_or_else(|| {
                        bad_row(
                            i,
                            &v.map(|x| x.to_string()).unwrap_or_else(|| "null".into()),
                        )
                    })
                })
                .collect()
        }
        other => bail!(
            "{origin}: column '{name}' has type {other}, expected timestamps (datetime, text or epoch numbers)"
        ),
    }
}

/// An epoch number written as text: an integer exactly, else a float.
fn epoch_text_to_us(v: &str) -> Option<i64> {
    let v = v.trim();
    match v.parse::<i64>() {
        Ok(n) => epoch_integer_to_us(n),
        Err(_) => v.parse::<f64>().ok().and_then(epoch_number_to_us),
    }
}

fn to_labels(src: &Series) -> Result<Vec<Option<String>>> {
    let s = if src.dtype() == &DataType::String {
        src.clone()
    } else {
        src.cast(&DataType::String)?
    };
    Ok(s.str()?
        .iter()
        .map(|v| v.map(|x| x.trim().to_string()))
        .collect())
}

fn to_held(src: &Series) -> (Vec<Option<bool>>, u64) {
    let mut bad = 0;
    let values = match src.dtype() {
        DataType::Boolean => src.bool().map(|ca| ca.iter().collect()).unwrap_or_default(),
        DataType::String => src
            .str()
            .map(|ca| {
                ca.iter()
                    .map(|v| match v.map(|s| s.trim().to_ascii_lowercase()) {
                        None => None,
                        Some(s) if s.is_empty() => None,
                        Some(s) if crate::audit::held::HELD_TRUE.contains(&s.as_str()) => {
                            Some(true)
                        }
                        Some(s) if crate::audit::held::HELD_FALSE.contains(&s.as_str()) => {
                            Some(false)
                        }
                        Some(_) => {
                            bad += 1;
                            None
                        }
                    })
                    .collect()
            })
            .unwrap_or_default(),
        dt if dt.is_primitive_numeric() => match src.cast(&DataType::Float64) {
            Ok(f) => f
                .f64()
                .map(|ca| {
                    ca.iter()
                        .map(|v| match v {
                            None => None,
                            Some(0.0) => Some(false),
                            Some(1.0) => Some(true),
                            Some(_) => {
                                bad += 1;
                                None
                            }
                        })
                        .collect()
                })
                .unwrap_or_default(),
            Err(_) => vec![None; src.len()],
        },
        _ => {
            bad = src.len() as u64;
            vec![None; src.len()]
        }
    };
    (values, bad)
}

/// Text values that mean "not measured" rather than "bad value".
pub fn is_missing_marker(text: &str) -> bool {
    let t = text.trim();
    t.is_empty()
        || t == "-"
        || t.eq_ignore_ascii_case("nan")
        || t.eq_ignore_ascii_case("null")
        || t.eq_ignore_ascii_case("n/a")
        || t.eq_ignore_ascii_case("[n/a]")
        || t.eq_ignore_ascii_case("[not supported]")
        || t.eq_ignore_ascii_case("not supported")
        || t.eq_ignore_ascii_case("[unknown error]")
        || t.eq_ignore_ascii_case("[insufficient permissions]")
}

/// A number as nvidia-smi writes it: `45`, `45 %`, `80 MiB`, `250.3 W`, with
/// the unit the caller already knows from the header. `None` = not a number,
/// or a unit nvidia-smi does not print.
pub fn parse_number_text(text: &str) -> Option<f64> {
    let (value, unit) = crate::units::split_number(text)?;
    matches!(unit.as_str(), "" | "%" | "mib" | "w" | "mhz" | "c").then_some(value)
}

/// How many values of a column `unit` leaves usable, and how many it counts
/// invalid (for a streamed pass that decides units before it reads values).
/// A column of text without one number reads as nothing usable, all invalid.
pub fn usable_count(src: &Series, unit: Unit, kind: Kind) -> (u64, u64) {
    match to_numbers(src, unit, kind) {
        Ok((values, bad)) => (values.iter().flatten().count() as u64, bad),
        Err(_) => (0, (src.len() - src.null_count()) as u64),
    }
}

/// Numbers converted to the canonical unit; out-of-range or unparseable values
/// become null and are counted (never clamped).
fn to_numbers(src: &Series, unit: Unit, kind: Kind) -> Result<(Vec<Option<f64>>, u64)> {
    let bad = std::cell::Cell::new(0u64);
    let factor = unit.factor();
    let check_scaled = |v: f64, factor: f64| -> Option<f64> {
        if v.is_nan() {
            return None; // NaN is how Prometheus says "no value": missing, not invalid
        }
        let x = v * factor;
        let ok = x.is_finite()
            && match kind {
                Kind::Fraction => (0.0..=1.0).contains(&x),
                _ => x >= 0.0,
            };
        if ok {
            Some(x)
        } else {
            bad.set(bad.get() + 1);
            None
        }
    };
    let check = |v: f64| check_scaled(v, factor);
    let values: Vec<Option<f64>> = match src.dtype() {
        DataType::String => {
            let mut present = 0u64;
            let mut unparsed = 0u64;
            let mut example: Option<String> = None;
            let values = src
                .str()?
                .iter()
                .map(|v| match v {
                    None => None,
                    Some(t) if is_missing_marker(t) => None,
                    Some(t) => {
                        present += 1;
                        // a value that names its unit is converted by it, never stripped
                        let parsed = crate::units::split_number(t).and_then(|(x, u)| {
                            if u.is_empty() {
                                Some((x, factor))
                            } else {
                                crate::units::suffix_factor(&u, kind).map(|f| (x, f))
                            }
                        });
                        match parsed {
                            Some((x, f)) => check_scaled(x, f),
                            None => {
                                unparsed += 1;
                                example.get_or_insert_with(|| t.to_string());
                                bad.set(bad.get() + 1);
                                None
                            }
                        }
                    }
                })
                .collect();
            // Not one value is a number: the column is of the wrong type, not noisy.
            if present > 0 && unparsed == present {
                bail!("found text such as '{}'", example.unwrap_or_default());
            }
            values
        }
        DataType::Boolean => bail!("booleans are not numbers"),
        dt if dt.is_primitive_numeric() || dt.is_null() => {
            let f = src.cast(&DataType::Float64)?;
            f.f64()?.iter().map(|v| v.and_then(check)).collect()
        }
        other => bail!("numbers, found {other}"),
    };
    Ok((values, bad.get()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_check_answers_as_the_value_by_value_rule() {
        let scalar = |v: &[f64], kind: Kind| {
            v.iter().all(|x| match kind {
                Kind::Fraction => (0.0..=1.0).contains(x),
                _ => x.is_finite() && *x >= 0.0,
            })
        };
        let odd = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            -1e-300,
            1.0,
            1.0000000000000002,
            100.0,
            f64::MAX,
        ];
        for len in [0usize, 1, 63, 64, 65, 200] {
            for at in [0usize, 31, 63, 64, 130, 199] {
                for &x in &odd {
                    let mut v: Vec<f64> = (0..len).map(|i| (i % 7) as f64 / 7.0).collect();
                    if at < len {
                        v[at] = x;
                    }
                    for kind in [Kind::Fraction, Kind::Watts] {
                        assert_eq!(
                            all_in_blocks(&v, kind),
                            scalar(&v, kind),
                            "len {len}, {x} at {at}, {kind:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_blank_id_is_what_trim_leaves_empty() {
        let cases = [
            "", " ", "\t", "\u{b}", "\u{a0}", "\u{3000}", " x", "x", "\u{b}x", "é", "0", "\u{a0}1",
        ];
        for v in cases {
            assert_eq!(is_blank(v), v.trim().is_empty(), "{v:?}");
        }
    }

    #[test]
    fn missing_column_messages_list_the_alias_table() {
        assert_eq!(
            missing_column(col::GPU, Some("[a, b]")),
            "no GPU id column (expected one of: uuid, gpu_uuid, gpu, gpu_id, index; found [a, b]; or --map YOURS=gpu)"
        );
        assert_eq!(
            missing_column(col::TIME, None),
            "no time column (expected one of: time, timestamp, ts, @timestamp; or --map YOURS=time)"
        );
        assert_eq!(
            spellings(col::JOB, usize::MAX),
            "job, job_id, exported_pod, pod, hpc_job"
        );
        // a metric's spellings come from the registry, cut where asked
        assert_eq!(
            spellings(col::MEM_USED_BYTES, 3),
            "mem_used_bytes, DCGM_FI_DEV_FB_USED, memory.used [MiB], …"
        );
        // every spelling listed is one the reader resolves
        for (alias, _) in aliases_of(col::GPU) {
            let r = resolve_columns(&[alias.to_string()], &[]);
            assert_eq!(r.first().map(|r| r.canonical), Some(col::GPU), "{alias}");
        }
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// ms and ns datetime columns become canonical µs exactly (ns truncated);
    /// integer epochs of every unit too.
    #[test]
    fn every_time_unit_converts_to_microseconds() -> Result<()> {
        const T: i64 = 1_780_000_000_000_000; // µs
        let times = |unit: TimeUnit, v: Vec<i64>| -> Result<Vec<Option<i64>>> {
            let col = Series::new(col::TIME.into(), v)
                .cast(&DataType::Datetime(unit, None))?
                .into_column();
            let df = DataFrame::new_infer_height(vec![col, Column::new("gpu".into(), ["g", "g"])])?;
            let t = crate::source::from_frame("t", df, &[], Quality::default())?;
            let c = t.df.column(col::TIME)?.cast(&DataType::Int64)?;
            Ok(c.i64()?.iter().collect())
        };
        let want = vec![Some(T), Some(T + 1_500)];
        assert_eq!(
            times(TimeUnit::Milliseconds, vec![T / 1_000, T / 1_000 + 1])?,
            vec![Some(T), Some(T + 1_000)]
        );
        assert_eq!(times(TimeUnit::Microseconds, vec![T, T + 1_500])?, want);
        assert_eq!(
            times(
                TimeUnit::Nanoseconds,
                vec![T * 1_000 + 999, (T + 1_500) * 1_000 + 1]
            )?,
            want
        );
        let ints = |v: Vec<i64>| -> Result<Vec<Option<i64>>> {
            let df = DataFrame::new_infer_height(vec![
                Column::new(col::TIME.into(), v),
                Column::new("gpu".into(), ["g", "g"]),
            ])?;
            let t = crate::source::from_frame("t", df, &[], Quality::default())?;
            let c = t.df.column(col::TIME)?.cast(&DataType::Int64)?;
            Ok(c.i64()?.iter().collect())
        };
        assert_eq!(ints(vec![T, T + 1_500])?, want);
        assert_eq!(ints(vec![T * 1_000 + 999, (T + 1_500) * 1_000 + 1])?, want);
        // a millisecond datetime beyond the year 9999 is refused, not wrapped
        let e = times(TimeUnit::Milliseconds, vec![i64::MAX / 2, 0]).map(|_| ());
        let e = format!(
            "{:#}",
            e.err().unwrap_or_else(|| anyhow::anyhow!("accepted"))
        );
        assert!(e.contains("row 1: datetime 4611686018427387903 (ms"), "{e}");
        assert!(e.contains("outside the years 1 to 9999"), "{e}");
        Ok(())
    }

    #[test]
    fn dcgm_names_resolve_without_a_map() {
        let cols = names(&[
            "Hostname",
            "gpu",
            "UUID",
            "modelName",
            "DCGM_FI_DEV_GPU_UTIL",
            "DCGM_FI_PROF_SM_ACTIVE",
            "pod",
            "timestamp",
        ]);
        let r = resolve_columns(&cols, &[]);
        let get = |c: &str| {
            r.iter()
                .find(|x| x.canonical == c)
                .map(|x| (x.source.clone(), x.unit))
        };
        assert_eq!(get(col::GPU), Some(("UUID".into(), Unit::AsIs)));
        assert_eq!(get(col::HOST), Some(("Hostname".into(), Unit::AsIs)));
        assert_eq!(
            get(col::DEVICE_UTIL),
            Some(("DCGM_FI_DEV_GPU_UTIL".into(), Unit::Percent))
        );
        assert_eq!(get(col::JOB), Some(("pod".into(), Unit::AsIs)));
        assert_eq!(get(col::TIME), Some(("timestamp".into(), Unit::AsIs)));
    }

    #[test]
    fn user_map_wins_and_parses_units() -> Result<()> {
        let m = UserMap::parse("busy=device_util:percent")?;
        assert_eq!(m.unit, Unit::Percent);
        let cols = names(&["time", "gpu", "busy", "device_util"]);
        let r = resolve_columns(&cols, &[m]);
        assert!(
            r.iter()
                .any(|x| x.canonical == col::DEVICE_UTIL && x.source == "busy")
        );
        assert!(UserMap::parse("busy=nonsense").is_err());
        assert!(UserMap::parse("busy=device_util:furlongs").is_err());
        Ok(())
    }

    #[test]
    fn percent_text_and_out_of_range_values_are_counted_not_clamped() -> Result<()> {
        let s = Series::new("u".into(), &["45 %", "[N/A]", "150 %", "abc", "0 %"]);
        let (v, bad) = to_numbers(&s, Unit::Percent, Kind::Fraction)?;
        assert_eq!(v, vec![Some(0.45), None, None, None, Some(0.0)]);
        assert_eq!(bad, 2);
        let s = Series::new("m".into(), &[80.0f64, -1.0]);
        let (v, bad) = to_numbers(&s, Unit::Mib, Kind::Bytes)?;
        assert_eq!(v, vec![Some(80.0 * 1_048_576.0), None]);
        assert_eq!(bad, 1);
        Ok(())
    }
}
