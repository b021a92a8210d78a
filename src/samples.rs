//! The ONE canonical sample table every source becomes (report-semantics.md §1).
//!
//! A source adapter produces a polars `DataFrame` whose columns carry source
//! names (or canonical names); [`normalize`] maps them onto the canonical
//! columns, converts units, and counts values it cannot use. Only columns the
//! source had are present: an absent metric stays absent (null layers), never 0.
use crate::timeparse::{epoch_number_to_ms, parse_timestamp_str};
use anyhow::{Context, Result, bail};
use polars::prelude::*;
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

/// The canonical columns in output order.
pub const COLUMNS: &[(&str, Kind)] = &[
    (col::TIME, Kind::Time),
    (col::HOST, Kind::Label),
    (col::GPU, Kind::Label),
    (col::MODEL, Kind::Label),
    (col::HELD, Kind::Held),
    (col::JOB, Kind::Label),
    (col::USER, Kind::Label),
    (col::TEAM, Kind::Label),
    (col::DEVICE_UTIL, Kind::Fraction),
    (col::GR_ENGINE_ACTIVE, Kind::Fraction),
    (col::SM_ACTIVE, Kind::Fraction),
    (col::SM_OCCUPANCY, Kind::Fraction),
    (col::TENSOR_ACTIVE, Kind::Fraction),
    (col::DRAM_ACTIVE, Kind::Fraction),
    (col::MEM_USED_BYTES, Kind::Bytes),
    (col::MEM_TOTAL_BYTES, Kind::Bytes),
    (col::POWER_W, Kind::Watts),
];

pub fn kind_of(canonical: &str) -> Option<Kind> {
    COLUMNS
        .iter()
        .find(|(name, _)| *name == canonical)
        .map(|(_, k)| *k)
}

/// The polars type a canonical column has after normalisation.
pub fn dtype_of(kind: Kind) -> DataType {
    match kind {
        Kind::Time => DataType::Datetime(TimeUnit::Milliseconds, Some(TimeZone::UTC)),
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
}

impl Unit {
    fn factor(self) -> f64 {
        match self {
            Unit::AsIs => 1.0,
            Unit::Percent => 0.01,
            Unit::Mib => 1_048_576.0,
        }
    }
}

/// Known source names, lower-case, in priority order per canonical column
/// (the first one present wins: `UUID` beats `gpu`, which beats `index`).
const ALIASES: &[(&str, &str, Unit)] = &[
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
    ("device_util", col::DEVICE_UTIL, Unit::AsIs),
    ("dcgm_fi_dev_gpu_util", col::DEVICE_UTIL, Unit::Percent),
    ("utilization.gpu [%]", col::DEVICE_UTIL, Unit::Percent),
    ("utilization.gpu", col::DEVICE_UTIL, Unit::Percent),
    ("gr_engine_active", col::GR_ENGINE_ACTIVE, Unit::AsIs),
    (
        "dcgm_fi_prof_gr_engine_active",
        col::GR_ENGINE_ACTIVE,
        Unit::AsIs,
    ),
    (
        "dcgm_fi_prof_gr_engine_util_ratio",
        col::GR_ENGINE_ACTIVE,
        Unit::AsIs,
    ),
    (
        "dcgm_fi_prof_gr_engine_active_util_ratio",
        col::GR_ENGINE_ACTIVE,
        Unit::AsIs,
    ),
    ("sm_active", col::SM_ACTIVE, Unit::AsIs),
    ("dcgm_fi_prof_sm_active", col::SM_ACTIVE, Unit::AsIs),
    ("dcgm_fi_prof_sm_util_ratio", col::SM_ACTIVE, Unit::AsIs),
    (
        "dcgm_fi_prof_sm_active_util_ratio",
        col::SM_ACTIVE,
        Unit::AsIs,
    ),
    ("sm_occupancy", col::SM_OCCUPANCY, Unit::AsIs),
    ("dcgm_fi_prof_sm_occupancy", col::SM_OCCUPANCY, Unit::AsIs),
    (
        "dcgm_fi_prof_sm_occupancy_util_ratio",
        col::SM_OCCUPANCY,
        Unit::AsIs,
    ),
    ("tensor_active", col::TENSOR_ACTIVE, Unit::AsIs),
    (
        "dcgm_fi_prof_pipe_tensor_active",
        col::TENSOR_ACTIVE,
        Unit::AsIs,
    ),
    (
        "dcgm_fi_prof_pipe_tensor_util_ratio",
        col::TENSOR_ACTIVE,
        Unit::AsIs,
    ),
    (
        "dcgm_fi_prof_pipe_tensor_active_util_ratio",
        col::TENSOR_ACTIVE,
        Unit::AsIs,
    ),
    ("dram_active", col::DRAM_ACTIVE, Unit::AsIs),
    ("dcgm_fi_prof_dram_active", col::DRAM_ACTIVE, Unit::AsIs),
    ("dcgm_fi_prof_dram_util_ratio", col::DRAM_ACTIVE, Unit::AsIs),
    (
        "dcgm_fi_prof_dram_active_util_ratio",
        col::DRAM_ACTIVE,
        Unit::AsIs,
    ),
    ("mem_used_bytes", col::MEM_USED_BYTES, Unit::AsIs),
    ("dcgm_fi_dev_fb_used", col::MEM_USED_BYTES, Unit::Mib),
    ("memory.used [mib]", col::MEM_USED_BYTES, Unit::Mib),
    ("memory.used", col::MEM_USED_BYTES, Unit::Mib),
    ("mem_total_bytes", col::MEM_TOTAL_BYTES, Unit::AsIs),
    ("memory.total [mib]", col::MEM_TOTAL_BYTES, Unit::Mib),
    ("memory.total", col::MEM_TOTAL_BYTES, Unit::Mib),
    ("power_w", col::POWER_W, Unit::AsIs),
    ("dcgm_fi_dev_power_usage", col::POWER_W, Unit::AsIs),
    ("power.draw [w]", col::POWER_W, Unit::AsIs),
    ("power.draw", col::POWER_W, Unit::AsIs),
];

/// One user `--map SOURCE=CANONICAL[:percent|:mib]`.
#[derive(Debug, Clone, PartialEq)]
pub struct UserMap {
    pub source: String,
    pub canonical: &'static str,
    pub unit: Unit,
}

impl UserMap {
    pub fn parse(spec: &str) -> Result<Self> {
        let (source, target) = spec
            .split_once('=')
            .with_context(|| format!("--map '{spec}': expected SOURCE=CANONICAL[:percent|:mib]"))?;
        let (canonical, unit) = match target.split_once(':') {
            Some((c, u)) => (c, u),
            None => (target, ""),
        };
        let unit = match unit.trim().to_ascii_lowercase().as_str() {
            "" => Unit::AsIs,
            "percent" | "%" => Unit::Percent,
            "mib" => Unit::Mib,
            other => bail!("--map '{spec}': unknown unit '{other}' (expected percent or mib)"),
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
            .chain(
                ALIASES
                    .iter()
                    .filter(|(_, c, _)| c == canonical)
                    .map(|(s, _, u)| (*s, *u)),
            );
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

/// Counts of what could not be used, per canonical column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Quality {
    /// values that did not parse or were out of range, per canonical column
    pub invalid: BTreeMap<String, u64>,
    /// rows dropped because a required value (gpu) was missing
    pub rows_dropped: u64,
    /// human-readable notes (which source column fed what, timestamps assumed, ...)
    pub notes: Vec<String>,
    /// warnings a reader counted (e.g. lines it skipped)
    pub warnings: Vec<String>,
}

impl Quality {
    pub fn merge(&mut self, other: Quality) {
        for (k, v) in other.invalid {
            *self.invalid.entry(k).or_default() += v;
        }
        self.rows_dropped += other.rows_dropped;
        self.notes.extend(other.notes);
        self.warnings.extend(other.warnings);
    }
    fn count_invalid(&mut self, column: &str, n: u64) {
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
}

impl SampleTable {
    pub fn has(&self, column: &str) -> bool {
        self.present.contains(column)
    }

    /// Stack tables from several inputs; a column one of them lacks is null there.
    pub fn concat(tables: Vec<SampleTable>) -> Result<SampleTable> {
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
        Ok(SampleTable {
            df,
            present,
            quality,
            sources,
            rows_read,
        })
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
    let mut quality = Quality::default();
    let height = raw.height();
    let by_canonical: BTreeMap<&str, &Resolved> =
        resolved.iter().map(|r| (r.canonical, r)).collect();

    by_canonical.get(col::TIME).with_context(|| {
        format!(
            "{origin}: no time column (expected one of: time, timestamp, ts; or --map YOURS=time)"
        )
    })?;
    by_canonical.get(col::GPU).with_context(|| {
        format!("{origin}: no GPU id column (expected one of: gpu, uuid, UUID, gpu_uuid, index; or --map YOURS=gpu)")
    })?;

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
        let what = |expected: &str| {
            format!(
                "{origin}: column '{}' ({name}): expected {expected}",
                r.source
            )
        };
        let column = match kind {
            // Fast paths: a column already in canonical form is shared, not copied
            // (this is what keeps a 100M-row parquet scan cheap).
            Kind::Time if src.dtype() == &dtype_of(Kind::Time) && src.null_count() == 0 => {
                src.with_name((*name).into()).into_column()
            }
            Kind::Label
                if src.dtype() == &DataType::String
                    && (*name != col::HOST || src.null_count() == 0) =>
            {
                if *name == col::GPU {
                    for (i, v) in src.str()?.iter().enumerate() {
                        if v.map(str::trim).unwrap_or("").is_empty() {
                            keep[i] = false;
                        }
                    }
                }
                src.with_name((*name).into()).into_column()
            }
            Kind::Fraction | Kind::Watts
                if src.dtype() == &DataType::Float64
                    && r.unit == Unit::AsIs
                    && all_valid_f64(&src, *kind)? =>
            {
                src.with_name((*name).into()).into_column()
            }
            Kind::Bytes if src.dtype() == &DataType::UInt64 && r.unit == Unit::AsIs => {
                src.with_name((*name).into()).into_column()
            }
            Kind::Time => {
                let ms = to_time_ms(&src, origin, &r.source)?;
                Series::new((*name).into(), ms)
                    .cast(&dtype_of(Kind::Time))
                    .map_err(anyhow::Error::from)
                    .with_context(|| what("timestamps"))?
                    .into_column()
            }
            Kind::Label => {
                let values = to_labels(&src).with_context(|| what("text labels"))?;
                if *name == col::HOST {
                    let v: Vec<String> =
                        values.into_iter().map(|v| v.unwrap_or_default()).collect();
                    Column::new((*name).into(), v)
                } else if *name == col::GPU {
                    for (i, v) in values.iter().enumerate() {
                        if v.as_deref().map(str::trim).unwrap_or("").is_empty() {
                            keep[i] = false;
                        }
                    }
                    Column::new((*name).into(), values)
                } else {
                    Column::new((*name).into(), values)
                }
            }
            Kind::Held => {
                let (values, bad) = to_held(&src);
                quality.count_invalid(name, bad);
                Column::new((*name).into(), values)
            }
            Kind::Fraction | Kind::Watts | Kind::Bytes => {
                let (values, bad) =
                    to_numbers(&src, r.unit, *kind).with_context(|| what("numbers"))?;
                quality.count_invalid(name, bad);
                if *kind == Kind::Bytes {
                    let v: Vec<Option<u64>> = values
                        .into_iter()
                        .map(|v| v.map(|b| b.round() as u64))
                        .collect();
                    Column::new((*name).into(), v)
                } else {
                    Column::new((*name).into(), values)
                }
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
    }
    Ok((df, quality))
}

/// Whether every non-null value is usable as is (no NaN, in range).
fn all_valid_f64(src: &Series, kind: Kind) -> Result<bool> {
    let ca = src.f64()?;
    Ok(ca.iter().flatten().all(|x| match kind {
        Kind::Fraction => (0.0..=1.0).contains(&x),
        _ => x.is_finite() && x >= 0.0,
    }))
}

/// Timestamps of any shape into epoch ms. A value that does not parse is an
/// error naming the row: a sample without a time cannot be placed.
fn to_time_ms(src: &Series, origin: &str, name: &str) -> Result<Vec<i64>> {
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
            let div: i64 = match unit {
                TimeUnit::Milliseconds => 1,
                TimeUnit::Microseconds => 1_000,
                TimeUnit::Nanoseconds => 1_000_000,
            };
            ca.iter()
                .enumerate()
                .map(|(i, v)| {
                    v.map(|v| v.div_euclid(div))
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
                    v.map(|d| d as i64 * 86_400_000)
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
                    parse_timestamp_str(v)
                        .or_else(|| v.trim().parse::<f64>().ok().and_then(epoch_number_to_ms))
                        .ok_or_else(|| bad_row(i, v))
                })
                .collect()
        }
        dt if dt.is_primitive_numeric() => {
            let f = src.cast(&DataType::Float64)?;
            f.f64()?
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    v.and_then(epoch_number_to_ms).ok_or_else(|| {
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
                        Some(s) => match s.as_str() {
                            "true" | "1" | "yes" | "t" | "y" => Some(true),
                            "false" | "0" | "no" | "f" | "n" => Some(false),
                            _ => {
                                bad += 1;
                                None
                            }
                        },
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

/// A number as dumps write it: `45`, `45 %`, `80 MiB`, `250.3 W`. `None` = not a number.
pub fn parse_number_text(text: &str) -> Option<f64> {
    let t = text.trim();
    let end = t
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')
        })
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    let unit = unit.trim();
    if !unit.is_empty()
        && !matches!(
            unit.to_ascii_lowercase().as_str(),
            "%" | "mib" | "w" | "mhz" | "c"
        )
    {
        return None;
    }
    num.trim().parse::<f64>().ok()
}

/// Numbers converted to the canonical unit; out-of-range or unparseable values
/// become null and are counted (never clamped).
fn to_numbers(src: &Series, unit: Unit, kind: Kind) -> Result<(Vec<Option<f64>>, u64)> {
    let bad = std::cell::Cell::new(0u64);
    let factor = unit.factor();
    let check = |v: f64| -> Option<f64> {
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
                        match parse_number_text(t) {
                            Some(x) => check(x),
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
                bail!(
                    "numbers, found text such as '{}'",
                    example.unwrap_or_default()
                );
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

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
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
