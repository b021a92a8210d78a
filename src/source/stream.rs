//! Parquet datasets read slice by slice, for the two-pass streaming audit:
//! memory stays bounded by the slice size and the number of GPUs, whatever
//! the number of rows. Only parquet streams: its row groups can be read at
//! any offset without reading what comes before.
use super::Input;
use super::column_stats::ColumnStats;
use crate::audit::ChunkSource;
use crate::audit::model::{TimeBulk, Warning};
use crate::samples::{Kind, Quality, Resolved, UserMap, col, normalize, resolve_columns};
use anyhow::{Context, Result, anyhow};
use polars::prelude::*;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Rows per slice: ~100 bytes a row after projection keeps a slice near 100 MB.
pub const SLICE_ROWS: usize = 1_000_000;

/// The largest slice read ahead by default: 2^20 rows, pyarrow's default row
/// group, so files from the most common writer are read ahead (a slice is whole
/// row groups); 2M-row groups read ahead peaked at 1.3 GB against 0.76 GB.
pub const READ_AHEAD_MAX_SLICE_ROWS: usize = 1 << 20;

struct Part {
    name: String,
    path: PathBuf,
    resolved: Vec<Resolved>,
    rows: usize,
    /// (offset, rows) of each slice the passes read: whole row groups where
    /// the file says where they are (see [`slices_of`])
    slices: Vec<(usize, usize)>,
}

impl Part {
    /// The columns a pass reads: pass 1 only the time and GPU keys.
    fn columns_read(&self, keys_only: bool) -> Vec<Resolved> {
        if !keys_only {
            return self.resolved.clone();
        }
        self.resolved
            .iter()
            .filter(|r| [col::TIME, col::HOST, col::GPU].contains(&r.canonical))
            .cloned()
            .collect()
    }
}

/// A row group above this many target slices is read in target-sized pieces
/// (memory stays bounded); below it, whole.
const ROW_GROUP_SPLIT_FACTOR: usize = 4;

/// The slices (offset, rows) to read `rows` rows of `path` in, each about
/// `target` rows. A single parquet file's slices end on row-group edges: a
/// slice that cuts a row group makes the reader decompress and decode that
/// row group twice (measured: a fifth of the CPU time on 2M-row groups read in
/// 1M-row slices). Directories, and files whose footer cannot be read here
/// (the scan then reports why), are cut every `target` rows.
fn slices_of(path: &std::path::Path, rows: usize, target: usize) -> Vec<(usize, usize)> {
    let groups = row_group_rows(path).filter(|g| g.iter().sum::<usize>() == rows);
    cut(groups.as_deref(), rows, target)
}

/// [`slices_of`] on the row groups' sizes (None: not known).
fn cut(groups: Option<&[usize]>, rows: usize, target: usize) -> Vec<(usize, usize)> {
    let target = target.max(1);
    let mut slices = Vec::new();
    let Some(groups) = groups else {
        let mut offset = 0;
        while offset < rows {
            let len = target.min(rows - offset);
            slices.push((offset, len));
            offset += len;
        }
        return slices;
    };
    let (mut start, mut len) = (0usize, 0usize);
    for &g in groups {
        if g > ROW_GROUP_SPLIT_FACTOR * target {
            if len > 0 {
                slices.push((start, len));
            }
            start += len;
            let mut done = 0;
            while done < g {
                let piece = target.min(g - done);
                slices.push((start + done, piece));
                done += piece;
            }
            start += g;
            len = 0;
            continue;
        }
        if len > 0 && len + g > target {
            slices.push((start, len));
            start += len;
            len = 0;
        }
        len += g;
    }
    if len > 0 {
        slices.push((start, len));
    }
    slices
}

/// The rows of each row group of a parquet file, from its footer.
fn row_group_rows(path: &std::path::Path) -> Option<Vec<usize>> {
    if !path.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut reader = ParquetReader::new(file);
    let meta = reader.get_metadata().ok()?;
    Some(meta.row_groups.iter().map(|g| g.num_rows()).collect())
}

pub struct ParquetStream {
    parts: Vec<Part>,
    present: BTreeSet<&'static str>,
    /// decode the next slice on a thread of its own while this one is audited
    read_ahead: bool,
    /// what deciding units and dropping unmeasured columns found, once per file
    quality: Quality,
    /// the bulk of the data in time (epoch µs) when a handful of stray samples lie outside it
    time_bounds: Option<(i64, i64)>,
}

/// The rule for stray samples (SampleTable::drop_time_outliers), on the
/// whole dataset in bounded memory: the quartiles of every part's times
/// together (crate::samples::quartile_ranks), the fences, then a count
/// outside them. Datetime columns are read as they are; text or epoch times
/// through normalisation, as the in-memory reader reads them.
fn stray_time_bounds(parts: &[Part], quality: &mut Quality) -> Result<Option<(i64, i64)>> {
    let times = part_times(parts)?;
    let every_time = |f: &mut dyn FnMut(i64)| -> Result<()> {
        for pt in &times {
            for_each_time(pt, &mut *f)?;
        }
        Ok(())
    };
    // A dataset spanning at most the minimum fence (a week) cannot hold a
    // stray sample, so a min/max scan settles the common case; otherwise the
    // quartiles are found in bounded memory (they once sorted the whole
    // time column: 2.4 GiB at 100M rows).
    let (first, last) = time_span(&every_time, None)?;
    if last.saturating_sub(first) <= crate::samples::MIN_TIME_FENCE_US {
        return Ok(None);
    }
    let Some((q1, q3, n)) = quartiles_of(&every_time, first, last, QUANTILE_SORT_LIMIT)? else {
        return Ok(None);
    };
    if n < 4 {
        return Ok(None); // as in memory: too few samples to have a bulk
    }
    let (lo, hi) = crate::samples::time_fences(q1, q3);
    let (count, first, last) = outside_fences(&every_time, lo, hi)?;
    if count == 0 || count as usize > crate::samples::outlier_limit(n as usize) {
        return Ok(None);
    }
    let (start_us, end_us) = time_span(&every_time, Some((lo, hi)))?;
    quality.rows_dropped += count;
    quality.warnings.push(Warning::FarOutsideTimes {
        count,
        first_us: first,
        last_us: last,
        bulk: TimeBulk::Samples { start_us, end_us },
    });
    Ok(Some((lo, hi)))
}

/// A time column as epoch µs (a ms or ns datetime converts in the cast).
fn epoch_us(name: &str) -> Expr {
    polars::prelude::col(name)
        .cast(DataType::Datetime(TimeUnit::Microseconds, None))
        .cast(DataType::Int64)
}

/// A part's time column, and its GPU column (a row without a GPU is no sample).
struct PartTime<'p> {
    part: &'p Part,
    time: Resolved,
    gpu: Resolved,
    /// stored as a datetime: read by a cast, not through normalisation
    datetime: bool,
}

/// Each part's time column (every part has one: checked when it opened).
fn part_times(parts: &[Part]) -> Result<Vec<PartTime<'_>>> {
    let mut out = Vec::new();
    for p in parts {
        let find = |c: &str| p.resolved.iter().find(|r| r.canonical == c).cloned();
        let (Some(time), Some(gpu)) = (find(col::TIME), find(col::GPU)) else {
            continue;
        };
        let mut lf = scan(&p.path).map_err(|e| anyhow!("{}: {e}", p.name))?;
        let schema = lf
            .collect_schema()
            .map_err(|e| anyhow!("{}: {e}", p.name))?;
        let datetime = matches!(
            schema.get(time.source.as_str()),
            Some(DataType::Datetime(_, _))
        );
        out.push(PartTime {
            part: p,
            time,
            gpu,
            datetime,
        });
    }
    Ok(out)
}

/// The earliest and latest time (within [lo, hi] when given).
fn time_span(values: &Times<'_>, within: Option<(i64, i64)>) -> Result<(i64, i64)> {
    let (mut first, mut last) = (i64::MAX, i64::MIN);
    values(&mut |t| {
        if within.is_none_or(|(lo, hi)| (lo..=hi).contains(&t)) {
            first = first.min(t);
            last = last.max(t);
        }
    })?;
    Ok((first, last))
}

/// A part's time column as epoch µs (nulls left out), one slice at a time:
/// only this column is decoded (and, for text times, the GPU column, whose
/// empty rows normalisation leaves out, as in memory).
fn for_each_time(pt: &PartTime<'_>, f: &mut dyn FnMut(i64)) -> Result<()> {
    let p = pt.part;
    let lf = scan(&p.path).map_err(|e| anyhow!("{}: {e}", p.name))?;
    for &(offset, len) in &p.slices {
        let slice = lf.clone().slice(offset as i64, len as IdxSize);
        let column = if pt.datetime {
            let df = slice
                .select([epoch_us(&pt.time.source).alias("t")])
                .collect()
                .map_err(|e| anyhow!("{}: {e}", p.name))?;
            if df.height() == 0 {
                break;
            }
            df.column("t")?.i64()?.clone()
        } else {
            let frame = slice
                .select([
                    polars::prelude::col(pt.time.source.as_str()),
                    polars::prelude::col(pt.gpu.source.as_str()),
                ])
                .collect()
                .map_err(|e| anyhow!("{}: {e}", p.name))?;
            if frame.height() == 0 {
                break;
            }
            let rs = [pt.time.clone(), pt.gpu.clone()];
            let (df, _) = normalize(&frame, &rs, &p.name)?;
            df.column(col::TIME)?.cast(&DataType::Int64)?.i64()?.clone()
        };
        column.iter().flatten().for_each(&mut *f);
    }
    Ok(())
}

/// Every time value, once per call (each call is one pass over the column).
type Times<'a> = dyn Fn(&mut dyn FnMut(i64)) -> Result<()> + 'a;

/// Bins of the grid a quantile pass counts into.
const QUANTILE_BINS: usize = 1 << 16;
/// A bin with at most this many values is sorted (8 MiB of times).
const QUANTILE_SORT_LIMIT: u64 = 1 << 20;

/// An equal-width grid over [lo, hi] (inclusive) of at most QUANTILE_BINS bins.
#[derive(Clone, Copy)]
struct Grid {
    lo: i64,
    hi: i64,
    width: i128,
}

impl Grid {
    fn new(lo: i64, hi: i64) -> Self {
        let width = (i128::from(hi) - i128::from(lo)) / QUANTILE_BINS as i128 + 1;
        Grid { lo, hi, width }
    }
    fn bin(&self, v: i64) -> Option<usize> {
        (self.lo..=self.hi)
            .contains(&v)
            .then(|| ((i128::from(v) - i128::from(self.lo)) / self.width) as usize)
    }
    /// The values of bin `b` lie in [lo, hi].
    fn range(&self, b: usize) -> (i64, i64) {
        let lo = i128::from(self.lo) + b as i128 * self.width;
        let hi = (lo + self.width - 1).min(i128::from(self.hi));
        (lo as i64, hi as i64)
    }
    fn count(&self, values: &Times<'_>) -> Result<Vec<u64>> {
        let mut counts = vec![0u64; QUANTILE_BINS];
        values(&mut |v| {
            if let Some(c) = self.bin(v).and_then(|b| counts.get_mut(b)) {
                *c += 1;
            }
        })?;
        Ok(counts)
    }
}

/// Exact time quartiles as polars' `QuantileMethod::Lower` gives them (the
/// value at rank floor((n - 1) q) of the sorted times) without holding the
/// column: a histogram pass over a fixed grid finds the bin of each rank,
/// narrower grids refine a crowded bin, and a bin of at most `sort_limit`
/// values is sorted. Memory: the grid and one such bin, whatever the rows.
fn quartiles_of(
    values: &Times<'_>,
    first: i64,
    last: i64,
    sort_limit: u64,
) -> Result<Option<(i64, i64, u64)>> {
    let grid = Grid::new(first, last);
    let counts = grid.count(values)?;
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return Ok(None);
    }
    let (r1, r3) = crate::samples::quartile_ranks(n);
    let q1 = value_at_rank(values, grid, counts.clone(), r1, sort_limit)?;
    let q3 = value_at_rank(values, grid, counts, r3, sort_limit)?;
    Ok(Some((q1, q3, n)))
}

/// The value of `rank` (0-based, among the values inside `grid`, whose bin
/// counts are `counts`).
fn value_at_rank(
    values: &Times<'_>,
    mut grid: Grid,
    mut counts: Vec<u64>,
    mut rank: u64,
    sort_limit: u64,
) -> Result<i64> {
    loop {
        let mut before = 0u64;
        let b = counts
            .iter()
            .position(|&c| {
                let holds = rank < before + c;
                if !holds {
                    before += c;
                }
                holds
            })
            .ok_or_else(|| anyhow!("internal: time rank {rank} beyond the values counted"))?;
        rank -= before;
        let (lo, hi) = grid.range(b);
        if lo == hi {
            return Ok(lo);
        }
        if counts[b] <= sort_limit {
            let mut bin = Vec::new();
            values(&mut |v| {
                if (lo..=hi).contains(&v) {
                    bin.push(v);
                }
            })?;
            bin.sort_unstable();
            return bin
                .get(rank as usize)
                .copied()
                .ok_or_else(|| anyhow!("internal: the time column changed between passes"));
        }
        grid = Grid::new(lo, hi);
        counts = grid.count(values)?;
    }
}

/// How many samples lie outside [lo, hi], and the earliest and latest of them.
fn outside_fences(values: &Times<'_>, lo: i64, hi: i64) -> Result<(u64, i64, i64)> {
    let mut count = 0u64;
    let (mut first, mut last) = (i64::MAX, i64::MIN);
    values(&mut |t| {
        if t < lo || t > hi {
            count += 1;
            first = first.min(t);
            last = last.max(t);
        }
    })?;
    Ok((count, first, last))
}

/// The statistics of each metric column a unit decision and the "never
/// measured" rule need (in the order given), read slice by slice on `readers`
/// threads (polars decodes one slice on about one core); None when there is
/// no metric column.
fn metric_stats(
    lf: &LazyFrame,
    slices: &[(usize, usize)],
    metrics: &[&Resolved],
    name: &str,
    readers: usize,
) -> Result<Option<Vec<ColumnStats>>> {
    if metrics.is_empty() {
        return Ok(None);
    }
    let projection: Vec<Expr> = metrics
        .iter()
        .map(|r| polars::prelude::col(r.source.as_str()))
        .collect();
    // one pass even for an empty file, so an unreadable column still errors
    let empty = [(0usize, SLICE_ROWS)];
    let slices = if slices.is_empty() {
        &empty[..]
    } else {
        slices
    };
    // the statistics of the slices `first, first + step, ...`; Err names the first that failed
    let read_every = |first: usize,
                      step: usize|
     -> std::result::Result<Vec<ColumnStats>, (usize, anyhow::Error)> {
        let mut stats = vec![ColumnStats::default(); metrics.len()];
        for (k, &(offset, len)) in slices.iter().enumerate().skip(first).step_by(step) {
            let frame = lf
                .clone()
                .slice(offset as i64, len as IdxSize)
                .select(projection.clone())
                .collect()
                .map_err(|e| (k, anyhow!("{name}: not a readable parquet file: {e}")))?;
            for (r, total) in metrics.iter().zip(stats.iter_mut()) {
                let slice = frame
                    .column(&r.source)
                    .map_err(anyhow::Error::from)
                    .and_then(|c| ColumnStats::of(c.as_materialized_series()))
                    .map_err(|e| {
                        (
                            k,
                            e.context(format!("{name}: column '{}': expected numbers", r.source)),
                        )
                    })?;
                total.merge(&slice);
            }
        }
        Ok(stats)
    };
    let readers = readers.clamp(1, slices.len());
    let parts: Vec<_> = if readers == 1 {
        vec![read_every(0, 1)]
    } else {
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..readers)
                .map(|w| scope.spawn(move || read_every(w, readers)))
                .collect();
            workers
                .into_iter()
                .map(|h| {
                    h.join()
                        .map_err(|_| (0, anyhow!("{name}: a reader thread panicked")))
                        .and_then(|r| r)
                })
                .collect()
        })
    };
    let mut stats = vec![ColumnStats::default(); metrics.len()];
    // the earliest failing slice wins, whatever the number of readers
    let mut failed: Option<(usize, anyhow::Error)> = None;
    for part in parts {
        match part {
            Ok(p) => stats.iter_mut().zip(&p).for_each(|(t, s)| t.merge(s)),
            Err((k, e)) => {
                if failed.as_ref().is_none_or(|(f, _)| k < *f) {
                    failed = Some((k, e));
                }
            }
        }
    }
    match failed {
        Some((_, e)) => Err(e),
        None => Ok(Some(stats)),
    }
}

/// What one metric column holds over the whole dataset: the evidence its unit
/// is decided from, and how many values each unit would leave usable.
#[derive(Debug, Clone, Default)]
struct ColumnTally {
    evidence: Option<crate::samples::UnitEvidence>,
    /// values neither null nor NaN
    values: u64,
    /// usable values of the files whose unit is stated (by name or --map)
    usable_stated: u64,
    /// values in 0..1 and in 0..100 of the files whose unit the data decides
    in_fraction: u64,
    in_percent: u64,
}

/// Adds one file's statistics of its numeric metric columns to `tally`.
fn tally_file(
    lf: &LazyFrame,
    schema: &Schema,
    resolved: &[Resolved],
    name: &str,
    slices: &[(usize, usize)],
    readers: usize,
    tally: &mut std::collections::BTreeMap<&'static str, ColumnTally>,
) -> Result<()> {
    use crate::samples::{Unit, kind_of};
    let metric = |r: &Resolved| {
        matches!(
            kind_of(r.canonical),
            Some(Kind::Fraction | Kind::Bytes | Kind::Watts)
        ) && schema
            .get(r.source.as_str())
            .is_some_and(|dt| dt.is_primitive_numeric())
    };
    let metrics: Vec<&Resolved> = resolved.iter().filter(|r| metric(r)).collect();
    let Some(stats) = metric_stats(lf, slices, &metrics, name, readers)? else {
        return Ok(());
    };
    for (r, s) in metrics.iter().zip(&stats) {
        let t = tally.entry(r.canonical).or_default();
        t.values += s.values;
        match (kind_of(r.canonical), r.unit) {
            (Some(Kind::Fraction), Unit::AsIs) => {
                t.in_fraction += s.in_fraction;
                t.in_percent += s.in_percent;
            }
            (Some(Kind::Fraction), Unit::Percent) => t.usable_stated += s.in_percent,
            (Some(Kind::Fraction), _) => t.usable_stated += s.in_fraction,
            _ => t.usable_stated += s.in_nonneg,
        }
        let decided_here = r.unit == Unit::AsIs
            && matches!(kind_of(r.canonical), Some(Kind::Fraction | Kind::Bytes));
        let Some((min, max)) = s.min_max() else {
            continue;
        };
        if !decided_here || !min.is_finite() || !max.is_finite() {
            continue;
        }
        let stats = crate::units::Stats {
            min,
            max,
            integer_written: schema
                .get(r.source.as_str())
                .is_some_and(|dt| dt.is_integer()),
            percent_evidence: s.percent_evidence,
            max_in_percent_range: s.max_in_percent(),
        };
        let one = crate::samples::UnitEvidence {
            column: (*r).clone(),
            origin: name.to_string(),
            stats,
        };
        t.evidence = Some(match t.evidence.take() {
            Some(e) => crate::samples::UnitEvidence {
                stats: e.stats.merge(one.stats),
                ..e
            },
            None => one,
        });
    }
    Ok(())
}

/// Adds one file's metric columns held as text to `tally`, slice by slice:
/// the evidence their unit is decided from and the values each unit leaves
/// usable, parsed as the in-memory reader parses them (a CSV column read as
/// text: `45 %`, `[N/A]`, or empty throughout).
fn tally_text(
    lf: &LazyFrame,
    resolved: &[Resolved],
    text: &BTreeSet<&'static str>,
    name: &str,
    slices: &[(usize, usize)],
    tally: &mut std::collections::BTreeMap<&'static str, ColumnTally>,
) -> Result<()> {
    use crate::samples::{Unit, kind_of};
    let columns: Vec<&Resolved> = resolved
        .iter()
        .filter(|r| text.contains(r.canonical))
        .collect();
    if columns.is_empty() {
        return Ok(());
    }
    let projection: Vec<Expr> = columns
        .iter()
        .map(|r| polars::prelude::col(r.source.as_str()))
        .collect();
    for &(offset, len) in slices {
        let frame = lf
            .clone()
            .slice(offset as i64, len as IdxSize)
            .select(projection.clone())
            .collect()
            .map_err(|e| anyhow!("{name}: not a readable parquet file: {e}"))?;
        for r in &columns {
            let src = frame.column(&r.source)?.as_materialized_series();
            let Some(kind) = kind_of(r.canonical) else {
                continue;
            };
            let t = tally.entry(r.canonical).or_default();
            let usable = |unit| crate::samples::usable_count(src, unit, kind);
            let (_, bad) = usable(Unit::Fraction);
            t.values += bad;
            match (kind, r.unit) {
                (Kind::Fraction, Unit::AsIs) => {
                    t.in_fraction += usable(Unit::Fraction).0;
                    t.in_percent += usable(Unit::Percent).0;
                }
                (Kind::Bytes, Unit::AsIs) => t.usable_stated += usable(Unit::Bytes).0,
                (_, u) => t.usable_stated += usable(u).0,
            }
            let decided_here = r.unit == Unit::AsIs && matches!(kind, Kind::Fraction | Kind::Bytes);
            let Some(stats) = crate::units::stats(src).filter(|_| decided_here) else {
                continue;
            };
            t.evidence = Some(match t.evidence.take() {
                Some(e) => crate::samples::UnitEvidence {
                    stats: e.stats.merge(stats),
                    ..e
                },
                None => crate::samples::UnitEvidence {
                    column: (*r).clone(),
                    origin: name.to_string(),
                    stats,
                },
            });
        }
    }
    Ok(())
}

/// The metric columns a file stores as other than numbers (text): their
/// values are parsed as the in-memory reader parses them.
fn text_metrics(schema: &Schema, resolved: &[Resolved]) -> BTreeSet<&'static str> {
    resolved
        .iter()
        .filter(|r| {
            matches!(
                crate::samples::kind_of(r.canonical),
                Some(Kind::Fraction | Kind::Bytes | Kind::Watts)
            ) && !schema
                .get(r.source.as_str())
                .is_some_and(|dt| dt.is_primitive_numeric())
        })
        .map(|r| r.canonical)
        .collect()
}

/// Units and "never measured" decided once for the whole dataset from every
/// file's statistics (crate::samples::decide_whole, the rule the in-memory
/// table follows), so every file and slice reads alike: the unit decided is
/// passed on as stated, and a metric column without one usable value in the
/// whole dataset is dropped, exactly as if absent (its layers are null, never 0).
fn decide_units(
    parts: &mut [Part],
    tally: &std::collections::BTreeMap<&'static str, ColumnTally>,
    quality: &mut Quality,
) -> Result<()> {
    use crate::samples::{Unit, kind_of};
    let evidence = tally
        .iter()
        .filter_map(|(k, t)| Some((*k, t.evidence.clone()?)))
        .collect();
    let (units, said) = crate::samples::decide_whole(&evidence)?;
    quality.merge(said);
    let unit_of = |canonical: &'static str, stated: Unit| match (stated, kind_of(canonical)) {
        (Unit::AsIs, Some(Kind::Fraction)) => *units.get(canonical).unwrap_or(&Unit::Fraction),
        (Unit::AsIs, Some(Kind::Bytes)) => Unit::Bytes,
        (u, _) => u,
    };
    let mut unmeasured = Vec::new();
    for (canonical, t) in tally {
        let usable = t.usable_stated
            + match units.get(canonical) {
                Some(Unit::Percent) => t.in_percent,
                _ => t.in_fraction,
            };
        if usable == 0 {
            unmeasured.push(*canonical);
            quality.count_invalid(canonical, t.values);
            quality.warnings.push(Warning::Unmeasured {
                column: canonical.to_string(),
                invalid: quality.invalid.get(*canonical).copied().unwrap_or(0),
            });
        }
    }
    for p in parts.iter_mut() {
        p.resolved.retain(|r| !unmeasured.contains(&r.canonical));
        for r in p.resolved.iter_mut() {
            r.unit = unit_of(r.canonical, r.unit);
        }
    }
    Ok(())
}

/// The number of rows of a parquet file (from its metadata).
fn row_count(lf: &LazyFrame, name: &str) -> Result<usize> {
    let rows = lf
        .clone()
        .select([len().alias("rows")])
        .collect()
        .map_err(|e| anyhow!("{name}: not a readable parquet file: {e}"))?;
    Ok(rows
        .column("rows")?
        .cast(&DataType::UInt64)?
        .u64()?
        .get(0)
        .unwrap_or(0) as usize)
}

fn scan(path: &std::path::Path) -> PolarsResult<LazyFrame> {
    let args = ScanArgsParquet {
        hive_options: HiveOptions::new_enabled(),
        ..Default::default()
    };
    LazyFrame::scan_parquet(PlRefPath::new(path.to_string_lossy().as_ref()), args)
}

impl ParquetStream {
    /// A stream over the inputs when every one is parquet (a file or a
    /// directory of them), None otherwise; `slice_rows` rows per slice (None: [`SLICE_ROWS`];
    /// smaller in tests, slice edges inside a GPU's run, or for less memory);
    /// `readers` threads read the metric columns' statistics (`--threads`).
    pub fn open_sliced(
        inputs: &[(String, Input)],
        maps: &[UserMap],
        forced_other: bool,
        slice_rows: Option<usize>,
        readers: usize,
    ) -> Result<Option<Self>> {
        if forced_other || inputs.is_empty() {
            return Ok(None);
        }
        let mut parts = Vec::new();
        let mut present = BTreeSet::new();
        let mut quality = Quality::default();
        let mut maps_seen = BTreeSet::new();
        let mut tally = std::collections::BTreeMap::new();
        present.insert(col::HOST);
        let slice_rows = slice_rows.unwrap_or(SLICE_ROWS);
        for (name, input) in inputs {
            let path = match input {
                Input::ParquetDir(p) => p.clone(),
                Input::File(p)
                    if super::InputFormat::from_extension(p)
                        == Some(super::InputFormat::Parquet) =>
                {
                    p.clone()
                }
                _ => return Ok(None),
            };
            let not_parquet = |e: PolarsError| {
                let hint = super::decode::not_parquet_hint(&path);
                anyhow!("{name}: not a parquet file (or a directory of them){hint}: {e}")
            };
            let mut lf = scan(&path).map_err(not_parquet)?;
            let schema = lf.collect_schema().map_err(not_parquet)?;
            let columns: Vec<String> = schema.iter_names().map(|s| s.to_string()).collect();
            maps_seen.extend(crate::samples::maps_found(&columns, maps));
            let resolved = resolve_columns(&columns, maps);
            let rows = row_count(&lf, name)?;
            let slices = slices_of(&path, rows, slice_rows);
            tally_file(&lf, &schema, &resolved, name, &slices, readers, &mut tally)?;
            let text_metrics = text_metrics(&schema, &resolved);
            tally_text(&lf, &resolved, &text_metrics, name, &slices, &mut tally)?;
            super::files::require_time_and_gpu(name, &columns, &resolved)?;
            parts.push(Part {
                name: name.clone(),
                path,
                resolved,
                rows,
                slices,
            });
        }
        decide_units(&mut parts, &tally, &mut quality)?;
        for p in &parts {
            present.extend(p.resolved.iter().map(|r| r.canonical));
        }
        let time_bounds = stray_time_bounds(&parts, &mut quality)?;
        let names: Vec<String> = parts.iter().map(|p| p.name.clone()).collect();
        crate::samples::check_maps(&maps_seen, maps, &names)?;
        Ok(Some(ParquetStream {
            parts,
            present,
            read_ahead: true,
            quality,
            time_bounds,
        }))
    }

    /// With `false`, slices are decoded on the audit's own thread (`--threads 1`).
    pub fn with_read_ahead(mut self, read_ahead: bool) -> Self {
        self.read_ahead = read_ahead;
        self
    }

    /// The most rows one slice holds: a slice decoded ahead costs about
    /// this many rows of memory on top of the one being audited.
    pub fn largest_slice(&self) -> usize {
        self.parts
            .iter()
            .flat_map(|p| p.slices.iter().map(|&(_, len)| len))
            .max()
            .unwrap_or(0)
    }
}

impl ChunkSource for ParquetStream {
    fn has(&self, column: &str) -> bool {
        self.present.contains(column)
    }

    fn sources(&self) -> Vec<String> {
        self.parts.iter().map(|p| p.name.clone()).collect()
    }

    fn rows_read(&self) -> u64 {
        self.parts.iter().map(|p| p.rows as u64).sum()
    }

    fn for_each_chunk(
        &self,
        keys_only: bool,
        f: &mut dyn FnMut(&DataFrame) -> Result<()>,
    ) -> Result<Quality> {
        self.chunks(keys_only, f)
    }
}

impl ParquetStream {
    /// Every chunk to `f`, decoded ahead on a thread of its own when set.
    fn chunks(
        &self,
        keys_only: bool,
        f: &mut dyn FnMut(&DataFrame) -> Result<()>,
    ) -> Result<Quality> {
        if !self.read_ahead {
            let mut failed = None;
            return self
                .read_slices(keys_only, &mut |slice| match slice.and_then(|df| f(&df)) {
                    Ok(()) => true,
                    Err(e) => {
                        failed = Some(e);
                        false
                    }
                })
                .and_then(|quality| failed.take().map_or(Ok(quality), Err));
        }
        // Read ahead: one thread decodes and normalizes the next slice while
        // this one audits the current (the audit is sequential per GPU, the
        // decoding is not). A rendezvous channel: at most two slices are
        // alive, the one being audited and the next (decoding or handed over).
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Result<DataFrame>>(0);
            let reader =
                scope.spawn(move || self.read_slices(keys_only, &mut |s| tx.send(s).is_ok()));
            let mut audited = Ok(());
            for slice in rx.iter() {
                if let Err(e) = slice.and_then(|df| f(&df)) {
                    audited = Err(e);
                    break; // dropping the receiver stops the reader at its next send
                }
            }
            let quality = reader
                .join()
                .map_err(|_| anyhow!("the parquet reader thread panicked"))?;
            audited?;
            quality
        })
    }
}

impl ParquetStream {
    /// One slice of a part, decoded and normalized, stray times left out:
    /// (rows in the file's slice, the normalized frame, what was counted).
    fn read_slice(
        &self,
        p: &Part,
        lf: &LazyFrame,
        (start, len): (usize, usize),
        projection: &[Expr],
        resolved: &[Resolved],
    ) -> Result<(usize, DataFrame, Quality)> {
        let frame = lf
            .clone()
            .slice(start as i64, len as IdxSize)
            .select(projection)
            .collect()
            .map_err(|e| anyhow!("{}: not a readable parquet file: {e}", p.name))?;
        let (mut df, q) =
            normalize(&frame, resolved, &p.name).with_context(|| format!("reading {}", p.name))?;
        if let Some((lo, hi)) = self.time_bounds {
            // stray samples stay out of both passes alike
            let t = df.column(col::TIME)?.cast(&DataType::Int64)?;
            let keep: BooleanChunked = t
                .i64()?
                .iter()
                .map(|v| Some(v.is_some_and(|v| (lo..=hi).contains(&v))))
                .collect();
            df = df.filter(&keep)?;
        }
        Ok((frame.height(), df, q))
    }

    /// Hands each normalized slice to `tx`, in order; returns what
    /// normalisation counted. Stops early when `tx` says no (the audit failed).
    fn read_slices(
        &self,
        keys_only: bool,
        tx: &mut dyn FnMut(Result<DataFrame>) -> bool,
    ) -> Result<Quality> {
        let mut quality = Quality::default();
        if !keys_only {
            quality.merge(self.quality.clone());
        }
        for p in &self.parts {
            let resolved = p.columns_read(keys_only);
            let projection: Vec<Expr> = resolved
                .iter()
                .map(|r| polars::prelude::col(r.source.as_str()))
                .collect();
            let lf = scan(&p.path).map_err(|e| anyhow!("{}: {e}", p.name))?;
            let mut offset = 0usize;
            // never past the rows counted when the stream opened: a file that
            // grew since then reads alike in both passes
            for &(start, len) in &p.slices {
                if start != offset {
                    break; // a short slice before: the file changed (said below)
                }
                let slice = self.read_slice(p, &lf, (start, len), &projection, &resolved);
                match slice {
                    Ok((0, _, _)) => break,
                    Ok((height, df, q)) => {
                        quality.merge(q);
                        if !tx(Ok(df)) {
                            return Ok(quality);
                        }
                        offset += height;
                    }
                    Err(e) => {
                        // the audit reports it; nothing after it is read
                        tx(Err(e));
                        return Ok(quality);
                    }
                }
            }
            if offset < p.rows {
                // rewritten shorter since it was opened: the passes would disagree,
                // and what is left would be a silently partial report
                tx(Err(anyhow!(
                    "{}: changed while being read ({} rows when the audit began, {offset} now); audit a file no one is writing",
                    p.name,
                    p.rows
                )));
                return Ok(quality);
            }
        }
        Ok(quality)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// polars' Lower rule on a sorted copy: the reference.
    fn lower(sorted: &[i64], q: f64) -> i64 {
        sorted[((sorted.len() - 1) as f64 * q) as usize]
    }

    fn check(values: Vec<i64>, sort_limit: u64) {
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let (first, last) = (sorted[0], sorted[sorted.len() - 1]);
        let source = |f: &mut dyn FnMut(i64)| -> Result<()> {
            values.iter().copied().for_each(&mut *f);
            Ok(())
        };
        let got = quartiles_of(&source, first, last, sort_limit)
            .ok()
            .flatten();
        let n = sorted.len() as u64;
        assert_eq!(got, Some((lower(&sorted, 0.25), lower(&sorted, 0.75), n)));
    }

    #[test]
    fn quartiles_in_bounded_memory_equal_the_sorted_ones() {
        // a 2026 fleet sampled every 30 s by 8 GPUs, one row from 1970 and one far ahead
        let t0 = 1_783_296_000_000_000_i64;
        let mut v: Vec<i64> = (0..5_000).map(|i| t0 + (i / 8) * 30_000_000).collect();
        v.push(0);
        v.push(i64::MAX / 2);
        // a bin sorted at once, bins refined down to one value, and an odd count
        check(v.clone(), 1 << 20);
        check(v.clone(), 2);
        v.pop();
        check(v.clone(), 3);
        // every value distinct, in reverse order; a single value
        check((0..1_001).rev().map(|i| i * 7_919).collect(), 5);
        check(vec![42], 1);
        // the extremes of the time range
        check(vec![i64::MIN + 1, -5, 0, 5, i64::MAX - 1], 1);
    }

    #[test]
    fn slices_end_on_row_group_edges() {
        // 2M-row groups read whole, not in two 1M-row halves
        assert_eq!(
            cut(Some(&[2_000_000, 2_000_000, 500]), 4_000_500, 1_000_000),
            vec![(0, 2_000_000), (2_000_000, 2_000_000), (4_000_000, 500)]
        );
        // small groups gather up to the target
        assert_eq!(
            cut(Some(&[400, 400, 400, 100]), 1_300, 1_000),
            vec![(0, 800), (800, 500)]
        );
        // a group over 4 targets is read in target-sized pieces (bounded memory)
        assert_eq!(
            cut(Some(&[100, 4_500, 100]), 4_700, 1_000),
            vec![
                (0, 100),
                (100, 1_000),
                (1_100, 1_000),
                (2_100, 1_000),
                (3_100, 1_000),
                (4_100, 500),
                (4_600, 100)
            ]
        );
        // unknown groups: every target rows
        assert_eq!(
            cut(None, 2_500, 1_000),
            vec![(0, 1_000), (1_000, 1_000), (2_000, 500)]
        );
        assert!(cut(None, 0, 1_000).is_empty());
        assert!(cut(Some(&[]), 0, 1_000).is_empty());
    }

    #[test]
    fn no_values_no_quartiles() {
        let none = |_: &mut dyn FnMut(i64)| -> Result<()> { Ok(()) };
        assert_eq!(quartiles_of(&none, 0, 10, 4).ok().flatten(), None);
    }
}
