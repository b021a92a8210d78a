//! Entry points for the cargo-fuzz targets in `fuzz/` and for
//! `tests/fuzz_regressions.rs`: one function per parser gpuaudit owns, taking
//! raw bytes. A parser may refuse any input (an `Err` is the exit-2 path);
//! what it must never do is panic, hang, or accept an input and return a value
//! that breaks its contract. Each entry point checks that contract and panics
//! only when it is broken, so a panic here is always a bug to fix in the parser.
//!
//! Not a public API: hidden from the docs, kept thin so the parsers stay private
//! to their modules in spirit.
use crate::samples::{COLUMNS, Kind, Quality, SampleTable, TIME_RANGE_US, UserMap, dtype_of};
use crate::source::{InputFormat, ReadOptions};
use polars::prelude::*;
use std::path::PathBuf;

/// One entry point: raw bytes in, a panic only when an invariant breaks.
pub type EntryPoint = fn(&[u8]);

/// The entry points of parsers that are not an input format.
const GENERAL: &[(&str, EntryPoint)] = &[
    ("timestamp", timestamp),
    ("duration", duration),
    ("size", size),
    ("fraction", fraction),
    ("map_spec", map_spec),
    ("rules_toml", rules_toml),
    ("prices", prices),
    ("jobs", jobs),
    ("normalize", normalize),
    ("weights", weights),
];

/// Every entry point by the name of its fuzz target (and seed/regression
/// folder): the general parsers, then each input format's, from the format
/// registry (`crate::source::format::FORMATS`).
pub fn targets() -> Vec<(&'static str, EntryPoint)> {
    GENERAL
        .iter()
        .copied()
        .chain(crate::source::format::fuzz_targets())
        .collect()
}

/// The end of the data `parse_cli_time` counts relative times back from
/// (2026-07-01T00:00:00Z), and the time untimed scrapes are stamped with.
const ANCHOR_US: i64 = 1_782_864_000_000_000;

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// A file holding `data`, one per process and extension (targets write their
/// input where the path-based readers can read it).
fn scratch_file(data: &[u8], file_name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpuaudit-fuzz-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("fuzz harness: cannot create {}: {e}", dir.display());
    }
    let path = dir.join(file_name);
    if let Err(e) = std::fs::write(&path, data) {
        panic!("fuzz harness: cannot write {}: {e}", path.display());
    }
    path
}

fn read_options() -> ReadOptions {
    ReadOptions {
        quiet: true,
        at: Some(ANCHOR_US),
        ..ReadOptions::default()
    }
}

/// A timestamp the parser accepts formats back (RFC 3339) to the same instant;
/// a relative time counts back from the anchor without overflow.
pub fn timestamp(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Some((us, _naive)) = crate::timeparse::parse_timestamp_zoned(s) {
        let formatted = crate::timeparse::format_time(us);
        let back = crate::timeparse::parse_timestamp_str(&formatted);
        // µs resolution both ways: the text holds every microsecond
        assert_eq!(
            back,
            Some(us),
            "'{s}' parsed to {us} us, formatted as '{formatted}', which parses back to {back:?}"
        );
    }
    if let Ok(us) = crate::timeparse::parse_cli_time(s, Some(ANCHOR_US))
        && crate::timeparse::is_relative(s)
    {
        assert!(
            us <= ANCHOR_US,
            "relative '{s}' lies after the anchor: {us}"
        );
    }
}

/// A duration is never negative and reads back from its own formatting.
pub fn duration(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let Ok(us) = crate::timeparse::parse_duration_us(s) else {
        return;
    };
    assert!(us >= 0, "'{s}' parsed to a negative duration {us} us");
    let formatted = crate::timeparse::format_duration_us(us);
    match crate::timeparse::parse_duration_us(&formatted) {
        Ok(back) => assert_eq!(back, us, "'{s}' -> {us} us -> '{formatted}' -> {back} us"),
        Err(e) => panic!("'{s}' -> {us} us -> '{formatted}' does not parse back: {e:#}"),
    }
}

/// A size is a whole number of bytes that reads back as itself.
pub fn size(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let Ok(bytes) = crate::timeparse::parse_size_bytes(s) else {
        return;
    };
    // below 2^53 every integer is exact in the f64 the parser works in
    if bytes < (1u64 << 53) {
        match crate::timeparse::parse_size_bytes(&bytes.to_string()) {
            Ok(back) => assert_eq!(back, bytes, "'{s}' -> {bytes} B -> {back} B"),
            Err(e) => panic!("'{s}' -> {bytes} B does not parse back: {e:#}"),
        }
    }
}

/// A fraction is finite and in 0..1, or refused.
pub fn fraction(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(v) = crate::timeparse::parse_fraction(s) {
        assert!(
            v.is_finite() && (0.0..=1.0).contains(&v),
            "'{s}' parsed to fraction {v}"
        );
    }
    // the unit-aware split every number column goes through
    if let Some((v, unit)) = crate::units::split_number(s) {
        // digits, signs, points and exponents only: never NaN (a huge one is inf, refused later)
        assert!(!v.is_nan(), "'{s}' split to NaN");
        assert_eq!(unit, unit.trim(), "'{s}': unit '{unit}' keeps whitespace");
    }
}

/// A `--map` names a non-empty trimmed source and a canonical column, and its
/// own canonical spelling parses to the same map.
pub fn map_spec(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let Ok(m) = UserMap::parse(s) else { return };
    assert!(!m.source.is_empty(), "'{s}': empty source");
    assert_eq!(m.source, m.source.trim(), "'{s}': untrimmed source");
    assert!(
        COLUMNS.iter().any(|(name, _)| *name == m.canonical),
        "'{s}': '{}' is not canonical",
        m.canonical
    );
    // a source containing '=' cannot be re-spelled unambiguously
    if !m.source.contains('=') {
        let again = format!("{}={}", m.source, m.canonical);
        match UserMap::parse(&again) {
            Ok(back) => {
                assert_eq!((back.source, back.canonical), (m.source, m.canonical));
            }
            Err(e) => panic!("'{s}' re-spelled as '{again}' is refused: {e:#}"),
        }
    }
}

/// Every rule of a rules file has a finite limit; bounds on ratios lie in 0..1,
/// allowed changes are not negative.
pub fn rules_toml(data: &[u8]) {
    use crate::audit::check::{Amount, MetricKind};
    let Some(s) = text(data) else { return };
    let Ok(rules) = crate::audit::rules_file::rules_from_toml(s) else {
        return;
    };
    for rule in &rules {
        let v = match rule.amount {
            Amount::Value(v) | Amount::Points(v) | Amount::Percent(v) => v,
        };
        assert!(v.is_finite(), "'{}': limit {v} is not finite", rule.label());
        if rule.kind.needs_baseline() {
            assert!(v >= 0.0, "'{}': negative allowed change {v}", rule.label());
        } else if rule.metric.kind == MetricKind::Ratio {
            assert!(
                (0.0..=1.0).contains(&v),
                "'{}': ratio bound {v}",
                rule.label()
            );
        }
    }
}

/// Prices are finite, not negative, and each row knows its line. The
/// first byte picks the format (odd: TOML, even: CSV).
pub fn prices(data: &[u8]) {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let name = if first % 2 == 1 {
        "prices.toml"
    } else {
        "prices.csv"
    };
    let path = scratch_file(body, name);
    let Ok(book) = crate::catalog::prices::load_price_file(&path) else {
        return;
    };
    for row in &book.rows {
        let price = row.usd_per_gpu_hour;
        assert!(
            price.is_finite() && price >= 0.0,
            "{}: price {price}",
            row.name
        );
        assert!(row.line >= 1, "{}: no line", row.name);
    }
}

/// A jobs file declares at least one job, each with a name and a finite,
/// positive amount of work and peak. The first byte picks the extension.
pub fn jobs(data: &[u8]) {
    use crate::audit::mfu::Work;
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    // parquet bytes would fuzz polars' parquet decoder, not gpuaudit
    if body.starts_with(b"PAR1") {
        return;
    }
    let name = if first % 2 == 1 {
        "jobs.json"
    } else {
        "jobs.csv"
    };
    let path = scratch_file(body, name);
    let Ok(declared) = crate::source::jobs::read_jobs_file(&path) else {
        return;
    };
    assert!(!declared.is_empty(), "a jobs file accepted with no jobs");
    for d in &declared {
        assert!(!d.job.trim().is_empty(), "a job without a name");
        let (Work::Rate(w) | Work::Total(w)) = d.work;
        assert!(w.is_finite() && w > 0.0, "job '{}': work {w}", d.job);
        if let Some(p) = d.peak_tflops {
            assert!(p.is_finite() && p > 0.0, "job '{}': peak {p}", d.job);
        }
    }
}

/// An exposition yields at most one sample per sample line, each with a valid
/// metric name; an accepted body reads (or is refused) as a whole file too.
pub fn prom_text(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let Ok(samples) = crate::source::prometheus::text::parse_exposition(s, "fuzz") else {
        return;
    };
    let sample_lines = s
        .lines()
        .map(|l| l.trim_end_matches('\r').trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .count();
    assert_eq!(samples.len(), sample_lines, "one sample per sample line");
    for sample in &samples {
        let ok_name = sample.metric.chars().enumerate().all(|(i, c)| {
            c.is_ascii_alphabetic() || c == '_' || c == ':' || (i > 0 && c.is_ascii_digit())
        });
        assert!(
            !sample.metric.is_empty() && ok_name,
            "metric name '{}'",
            sample.metric
        );
        assert!(
            !sample.labels.contains_key("__name__"),
            "__name__ kept as a label"
        );
    }
    read_prometheus_file(data, "scrape.prom", InputFormat::PromText);
}

/// An API response's samples are exactly its points; an accepted body reads
/// (or is refused) as a whole file too.
pub fn prom_json(data: &[u8]) {
    use crate::source::prometheus::json::{parse_response, to_samples};
    let Some(s) = text(data) else { return };
    let Ok(response) = parse_response(s) else {
        return;
    };
    let series = response.series.len() as u64;
    let points: usize = response.series.iter().map(|x| x.points.len()).sum();
    let (samples, unnamed) = to_samples(response, "fallback");
    assert_eq!(samples.len(), points, "one sample per point");
    assert!(unnamed <= series, "{unnamed} unnamed of {series} series");
    assert!(
        samples.iter().all(|x| x.time_us.is_some()),
        "a point without a time"
    );
    read_prometheus_file(data, "query.json", InputFormat::PromJson);
}

fn read_prometheus_file(data: &[u8], file_name: &str, format: InputFormat) {
    let path = scratch_file(data, file_name);
    let files = [("fuzz".to_string(), path, format)];
    if let Ok(table) = crate::source::prometheus::read_files(&files, &read_options()) {
        check_table(&table);
    }
}

/// nvidia-smi `--query-gpu` CSV logs: an accepted log is a valid canonical table.
pub fn smi_csv(data: &[u8]) {
    let path = scratch_file(data, "query.csv");
    let files = [("fuzz".to_string(), path, InputFormat::NvidiaSmiCsv)];
    if let Ok(tables) = crate::source::nvidia_smi::read_csv_files(&files, &read_options()) {
        tables.iter().for_each(check_table);
    }
}

/// nvidia-smi dmon logs: an accepted log is a valid canonical table.
pub fn smi_dmon(data: &[u8]) {
    let path = scratch_file(data, "dmon.log");
    if let Ok(table) = crate::source::nvidia_smi::read_dmon("fuzz", &path, &read_options()) {
        check_table(&table);
    }
}

/// nvidia-smi `-q -x` snapshots: an accepted snapshot is a valid canonical table.
pub fn smi_xml(data: &[u8]) {
    let path = scratch_file(data, "snapshot.xml");
    if let Ok(table) = crate::source::nvidia_smi::xml::read_xml("fuzz", &path, &read_options()) {
        check_table(&table);
    }
}

/// hl-smi CSV logs (Intel Gaudi): an accepted log is a valid canonical table.
pub fn gaudi_hlsmi(data: &[u8]) {
    let path = scratch_file(data, "hlsmi.csv");
    if let Ok(table) = crate::source::gaudi::read_hlsmi("fuzz", &path, &read_options()) {
        check_table(&table);
    }
}

/// xpu-smi dump CSV (Intel Data Center GPU): an accepted dump is a valid canonical table.
pub fn intel_xpusmi(data: &[u8]) {
    let path = scratch_file(data, "xpusmi.csv");
    if let Ok(table) = crate::source::intel::read_xpusmi_dump("fuzz", &path, &read_options()) {
        check_table(&table);
    }
}

/// OpenTelemetry OTLP JSON metrics: an accepted file is a valid canonical table.
pub fn otel_otlp(data: &[u8]) {
    let path = scratch_file(data, "otlp.jsonl");
    if let Ok(table) = crate::source::otel::read_otlp("fuzz", &path, &read_options()) {
        check_table(&table);
    }
}

/// amd-smi JSON (`metric --json`, `monitor --json`): an accepted file is a valid canonical table.
pub fn amd_smi_json(data: &[u8]) {
    let path = scratch_file(data, "amd-smi.json");
    if let Ok(table) = crate::source::amd::read_amd_smi_json("fuzz", &path, &read_options()) {
        check_table(&table);
    }
}

/// The `amd-smi monitor` table: an accepted table is a valid canonical table.
pub fn amd_smi_monitor(data: &[u8]) {
    let path = scratch_file(data, "amd-smi-monitor.txt");
    if let Ok(table) = crate::source::amd::read_amd_smi_monitor("fuzz", &path, &read_options()) {
        check_table(&table);
    }
}

/// `amd-smi metric` text: an accepted file is a valid canonical table.
pub fn amd_smi_text(data: &[u8]) {
    let path = scratch_file(data, "amd-smi-metric.txt");
    if let Ok(table) = crate::source::amd::read_amd_smi_text("fuzz", &path, &read_options()) {
        check_table(&table);
    }
}

/// rocm-smi JSON and CSV: an accepted file is a valid canonical table, and
/// without a `GPU use (%)` field it has no device activity (the `GFX
/// Activity` counter is never read as a percent).
pub fn rocm_smi(data: &[u8]) {
    let has_use = text(data).is_some_and(|s| s.contains("GPU use (%)"));
    for (file, read) in [
        (
            "rocm-smi.json",
            crate::source::amd::read_rocm_smi_json as ReadFile,
        ),
        ("rocm-smi.csv", crate::source::amd::read_rocm_smi_csv),
    ] {
        let path = scratch_file(data, file);
        if let Ok(table) = read("fuzz", &path, &read_options()) {
            check_table(&table);
            let util = table
                .df
                .column(crate::samples::col::DEVICE_UTIL)
                .map(|c| c.len() - c.null_count())
                .unwrap_or(0);
            assert!(
                has_use || util == 0,
                "{file}: device activity without a 'GPU use (%)' field"
            );
        }
    }
}

type ReadFile = fn(&str, &std::path::Path, &ReadOptions) -> anyhow::Result<SampleTable>;

/// Canonical normalisation (column resolution, value/unit detection, unit
/// conversion, invalid counts) of a small frame built from the bytes: lines
/// `map:SPEC` are `--map` entries; the first other line is the header
/// (comma-separated); the rest are rows, an empty cell is null. A header name
/// starting with `#` makes its column Float64 when every cell parses as one.
pub fn normalize(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let mut maps = Vec::new();
    let mut lines = Vec::new();
    for line in s.lines() {
        match line.strip_prefix("map:") {
            Some(spec) => match UserMap::parse(spec) {
                Ok(m) => maps.push(m),
                Err(_) => return,
            },
            None => lines.push(line),
        }
    }
    let Some((header, rows)) = lines.split_first() else {
        return;
    };
    // a few rows and columns are enough to reach every decision, and keep it fast
    let rows: Vec<Vec<&str>> = rows
        .iter()
        .take(64)
        .map(|r| r.split(',').collect())
        .collect();
    let mut columns: Vec<Column> = Vec::new();
    for (i, name) in header.split(',').take(24).enumerate() {
        let cells: Vec<Option<&str>> = rows
            .iter()
            .map(|r| r.get(i).copied().filter(|c| !c.is_empty()))
            .collect();
        let (name, numeric) = match name.strip_prefix('#') {
            Some(n) => (n, true),
            None => (name, false),
        };
        let floats: Option<Vec<Option<f64>>> = numeric
            .then(|| {
                cells
                    .iter()
                    .map(|c| match c {
                        None => Some(None),
                        Some(t) => t.trim().parse::<f64>().ok().map(Some),
                    })
                    .collect()
            })
            .flatten();
        columns.push(match floats {
            Some(f) => Column::new(name.into(), f),
            None => Column::new(name.into(), cells),
        });
    }
    let Ok(frame) = DataFrame::new(rows.len(), columns) else {
        return; // duplicate or empty names: no source frame has them
    };
    let rows_in = frame.height() as u64;
    if let Ok(table) = crate::source::from_frame("fuzz", frame, &maps, Quality::default()) {
        check_table(&table);
        assert_eq!(
            table.df.height() as u64 + table.quality.rows_dropped,
            rows_in,
            "rows kept + rows dropped = rows read"
        );
    }
}

/// Sample weights: never negative, at most max_gap once a step is known, never
/// past `until`, and (without until) the weights and the unobserved time tile
/// the span exactly. Bytes: a flags byte, max_gap (u32 ticks, 0 = none), until
/// offset (u32), then i64 times.
pub fn weights(data: &[u8]) {
    use crate::audit::weights::{median_step, weights};
    if data.len() < 9 {
        return;
    }
    let flags = data[0];
    let word = |at: usize| u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let max_gap = Some(i64::from(word(1))).filter(|g| *g > 0);
    // times as every source delivers them: within the canonical range (normalisation
    // refuses others), so the weights' arithmetic must hold over all of it
    let (lo, hi) = (*TIME_RANGE_US.start(), *TIME_RANGE_US.end());
    let mut times: Vec<i64> = data[9..]
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            lo + i64::from_le_bytes(b).rem_euclid(hi - lo + 1)
        })
        .collect();
    times.sort_unstable();
    times.dedup();
    let Some(&first) = times.first() else { return };
    let until = (flags & 1 == 1).then(|| first.saturating_add(i64::from(word(5))));
    let snapshot_us = 3_600 * crate::timeparse::US_PER_SECOND;
    let w = weights(&times, max_gap, until, snapshot_us);
    assert_eq!(w.weight_us.len(), times.len());
    assert_eq!(w.gap_after.len(), times.len());
    assert_eq!(w.step_us, median_step(&times));
    assert!(w.unobserved_us >= 0, "unobserved {}", w.unobserved_us);
    for (t, wt) in times.iter().zip(&w.weight_us) {
        assert!(*wt >= 0, "negative weight {wt} at {t}");
        if w.step_us.is_some()
            && let Some(g) = w.max_gap_us
        {
            assert!(*wt <= g, "weight {wt} at {t} above max_gap {g}");
        }
        if let Some(u) = until {
            assert!(
                *wt == 0 || t.saturating_add(*wt) <= u,
                "weight {wt} at {t} past until {u}"
            );
        }
    }
    if until.is_none()
        && w.step_us.is_some()
        && let Some(&last) = times.last()
    {
        let inner: i128 = w.weight_us[..times.len() - 1]
            .iter()
            .map(|x| i128::from(*x))
            .sum();
        assert_eq!(
            inner + i128::from(w.unobserved_us),
            i128::from(last) - i128::from(first),
            "weights + unobserved = span"
        );
    }
}

/// What every accepted source must be: canonical columns of their canonical
/// types, fractions in 0..1, watts and bytes not negative, no GPU without an id.
fn check_table(table: &SampleTable) {
    let df = &table.df;
    for c in df.columns() {
        let name = c.name().as_str();
        let Some((_, kind)) = COLUMNS.iter().find(|(n, _)| *n == name) else {
            panic!("non-canonical column '{name}' in a canonical table");
        };
        match (kind, c.dtype()) {
            // polars built without `timezones` drops the UTC zone a cast asks for;
            // every time is UTC µs either way
            (Kind::Time, DataType::Datetime(TimeUnit::Microseconds, _)) => {}
            (_, dtype) => assert_eq!(dtype, &dtype_of(*kind), "column '{name}'"),
        }
        match kind {
            Kind::Fraction | Kind::Watts => {
                let Ok(values) = c.f64() else {
                    panic!("column '{name}' is not f64");
                };
                for v in values.iter().flatten() {
                    assert!(v.is_finite() && v >= 0.0, "{name} = {v}");
                    if *kind == Kind::Fraction {
                        assert!(v <= 1.0, "{name} = {v} above 1");
                    }
                }
            }
            Kind::Label if name == crate::samples::col::GPU => {
                let Ok(ids) = c.str() else {
                    panic!("gpu column is not text");
                };
                for id in ids.iter() {
                    assert!(
                        id.is_some_and(|i| !i.trim().is_empty()),
                        "a GPU without an id"
                    );
                }
            }
            _ => {}
        }
    }
    let Ok(times) = df
        .column(crate::samples::col::TIME)
        .and_then(|c| c.cast(&DataType::Int64))
    else {
        panic!("a canonical table without time");
    };
    let Ok(times) = times.i64() else {
        panic!("time is not i64 underneath");
    };
    for t in times.iter() {
        assert!(
            t.is_some_and(|t| TIME_RANGE_US.contains(&t)),
            "time {t:?} outside the canonical range"
        );
    }
}

// ---------------------------------------------------------------- fault injection (tests/faults.rs)

/// A parquet stream whose file `change` alters after the first (keys-only)
/// pass, before the second: exactly what a writer or a cleanup job does to a
/// dataset while a long audit runs.
struct ChangedBetweenPasses<'a> {
    inner: &'a crate::source::stream::ParquetStream,
    change: std::cell::RefCell<Option<Box<dyn FnOnce() + 'a>>>,
}

impl crate::audit::ChunkSource for ChangedBetweenPasses<'_> {
    fn has(&self, column: &str) -> bool {
        self.inner.has(column)
    }
    fn sources(&self) -> Vec<String> {
        self.inner.sources()
    }
    fn rows_read(&self) -> u64 {
        self.inner.rows_read()
    }
    fn for_each_chunk(
        &self,
        keys_only: bool,
        f: &mut dyn FnMut(&polars::prelude::DataFrame) -> anyhow::Result<()>,
    ) -> anyhow::Result<crate::samples::Quality> {
        if !keys_only && let Some(change) = self.change.borrow_mut().take() {
            change();
        }
        self.inner.for_each_chunk(keys_only, f)
    }
}

/// Audit `path` as a stream, calling `change` between its two passes.
pub fn audit_changed_between_passes(
    path: &std::path::Path,
    change: impl FnOnce() + 'static,
) -> anyhow::Result<crate::audit::model::Report> {
    use crate::source::{Input, stream::ParquetStream};
    let name = path.display().to_string();
    let inputs = [(name, Input::File(path.to_path_buf()))];
    let stream = ParquetStream::open_sliced(&inputs, &[], false, None, 1)?
        .ok_or_else(|| anyhow::anyhow!("not a parquet stream"))?;
    let source = ChangedBetweenPasses {
        inner: &stream,
        change: std::cell::RefCell::new(Some(Box::new(change))),
    };
    let prices = crate::catalog::prices::PriceBook::new(None, None, true)?;
    crate::audit::audit_chunks(&source, &crate::audit::AuditConfig::new(prices))
}
