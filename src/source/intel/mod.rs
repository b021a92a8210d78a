//! Intel Data Center GPU `xpu-smi dump` CSV: `Timestamp, DeviceId[, TileId],
//! <metric (unit)>...`, one row per device (or tile) and interval. Device
//! activity is "Average % utilization of all GPU Engines" (older releases:
//! "GPU Utilization (%)"); "GPU EU Array Active (%)" is the nearest Intel
//! counter to SM active and is read as the SM layer, marked approximate.
use super::filetime::fallback_time;
use super::{ReadOptions, from_frame};
use crate::audit::model::{Note, UntimedRows};
use crate::samples::{Quality, SampleTable, col, is_missing_marker};
use crate::timeparse::{US_PER_DAY, parse_timestamp_str};
use anyhow::{Context, Result, anyhow, bail};
use chrono::{NaiveTime, Timelike};
use polars::prelude::*;
use std::path::Path;

/// xpu-smi column -> (canonical column, factor into its unit).
const METRICS: &[(&str, &str, f64)] = &[
    (
        "average % utilization of all gpu engines",
        col::DEVICE_UTIL,
        0.01,
    ),
    ("gpu utilization (%)", col::DEVICE_UTIL, 0.01),
    ("gpu eu array active (%)", col::SM_ACTIVE, 0.01),
    ("gpu memory used (mib)", col::MEM_USED_BYTES, 1_048_576.0),
    ("gpu power (w)", col::POWER_W, 1.0),
];

const EU_ACTIVE: &str = "gpu eu array active (%)";

fn split_fields(line: &str) -> Vec<String> {
    line.split(',').map(|f| f.trim().to_string()).collect()
}

/// Whether a first line is an xpu-smi dump header.
pub fn looks_like_xpusmi_dump(first_line: &str) -> bool {
    let f = split_fields(first_line);
    f.len() >= 2 && f[0].eq_ignore_ascii_case("timestamp") && f[1].eq_ignore_ascii_case("deviceid")
}

/// A dump's time: `2026-07-14T08:12:53.000` (with --date) or the time of day
/// `08:12:53.000` (µs since midnight, to be dated).
enum Stamp {
    Full,
    TimeOfDay(i64),
}

fn stamp(name: &str, no: usize, text: &str) -> Result<Stamp> {
    if parse_timestamp_str(text).is_some() {
        return Ok(Stamp::Full);
    }
    NaiveTime::parse_from_str(text, "%H:%M:%S%.f")
        .map(|t| {
            Stamp::TimeOfDay(
                i64::from(t.num_seconds_from_midnight()) * 1_000_000
                    + i64::from(t.nanosecond() / 1000),
            )
        })
        .map_err(|_| {
            anyhow!("{name}:{no}: Timestamp '{text}' is not a time (expected xpu-smi's 08:12:53.000, or 2026-07-14T08:12:53.000 with --date)")
        })
}

/// Times of day in row order, dated: a step back past midnight is the next
/// day, and the last row falls at or before `anchor`, less than a day before.
fn date_times_of_day(times_of_day: &[i64], anchor: i64) -> Vec<i64> {
    let mut day = 0i64;
    let mut prev = i64::MIN;
    let rel: Vec<i64> = times_of_day
        .iter()
        .map(|&t| {
            if t < prev {
                day += 1;
            }
            prev = t;
            day * US_PER_DAY + t
        })
        .collect();
    let last = rel.iter().copied().max().unwrap_or(0);
    let midnight = (anchor - last).div_euclid(US_PER_DAY) * US_PER_DAY;
    rel.iter().map(|r| midnight + r).collect()
}

/// The header (lower-case) and the data rows (with 1-based line numbers).
type Parsed = (Vec<String>, Vec<(usize, Vec<String>)>);

fn parse(name: &str, text: &str) -> Result<Parsed> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let header = match lines.next() {
        Some((_, l)) if looks_like_xpusmi_dump(l) => split_fields(l)
            .into_iter()
            .map(|h| h.to_ascii_lowercase())
            .collect::<Vec<_>>(),
        Some((no, _)) => {
            bail!("{name}:{no}: expected the xpu-smi dump header 'Timestamp, DeviceId, ...'")
        }
        None => bail!("{name}: empty file (expected xpu-smi dump output)"),
    };
    let mut rows = Vec::new();
    for (no, line) in lines {
        let fields = split_fields(line);
        if looks_like_xpusmi_dump(line) {
            continue; // a dump appended to another repeats the header
        }
        if fields.len() != header.len() {
            bail!(
                "{name}:{no}: {} fields, expected {} as in the header (Timestamp, DeviceId, ...) (truncated line?)",
                fields.len(),
                header.len()
            );
        }
        rows.push((no, fields));
    }
    if rows.is_empty() {
        bail!("{name}: no rows under the header (expected xpu-smi dump samples)");
    }
    Ok((header, rows))
}

/// One metric column: numbers scaled into the canonical unit; `N/A` and empty
/// cells missing; anything else counted invalid by normalisation (infinite).
fn metric_column(rows: &[(usize, Vec<String>)], i: usize, factor: f64) -> Vec<Option<f64>> {
    rows.iter()
        .map(|(_, f)| {
            let cell = f[i].as_str();
            if is_missing_marker(cell) {
                None
            } else {
                Some(cell.parse::<f64>().map_or(f64::INFINITY, |v| v * factor))
            }
        })
        .collect()
}

/// The time column: dated stamps as text (normalisation reads them, zone
/// rule and all); time-of-day stamps dated from --at or the file.
fn time_column(
    name: &str,
    path: &Path,
    opts: &ReadOptions,
    rows: &[(usize, Vec<String>)],
    quality: &mut Quality,
) -> Result<Column> {
    let stamps: Vec<Stamp> = rows
        .iter()
        .map(|(no, f)| stamp(name, *no, &f[0]))
        .collect::<Result<_>>()?;
    let of_day: Vec<i64> = stamps
        .iter()
        .filter_map(|s| match s {
            Stamp::TimeOfDay(t) => Some(*t),
            Stamp::Full => None,
        })
        .collect();
    if of_day.is_empty() {
        let text: Vec<&str> = rows.iter().map(|(_, f)| f[0].as_str()).collect();
        return Ok(Column::new(col::TIME.into(), text));
    }
    if of_day.len() != stamps.len() {
        bail!(
            "{name}: some Timestamps carry a date and some do not; give each xpu-smi dump run its own file"
        );
    }
    let (anchor, note) = fallback_time(name, path, opts.at, UntimedRows::TimeOfDay)?;
    quality.notes.push(note);
    Ok(Column::new(
        col::TIME.into(),
        date_times_of_day(&of_day, anchor),
    ))
}

/// Read an `xpu-smi dump` CSV into the canonical table.
pub fn read_xpusmi_dump(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    let (header, rows) = parse(name, &text)?;
    let at = |h: &str| header.iter().position(|x| x == h);
    let mut quality = Quality::default();
    let time = time_column(name, path, opts, &rows, &mut quality)?;
    let tile = at("tileid");
    let gpus: Vec<String> = rows
        .iter()
        .map(|(_, f)| match tile {
            Some(t) => format!("{}/{}", f[1], f[t]),
            None => f[1].clone(),
        })
        .collect();
    let mut cols = vec![time, Column::new(col::GPU.into(), gpus)];
    let mut taken: Vec<&str> = Vec::new();
    for (source, canonical, factor) in METRICS {
        // the first of two spellings of one metric wins
        if let Some(i) = at(source)
            && !taken.contains(canonical)
        {
            taken.push(canonical);
            cols.push(Column::new(
                (*canonical).into(),
                metric_column(&rows, i, *factor),
            ));
        }
    }
    if at(EU_ACTIVE).is_some() {
        quality.notes.push(Note::ApproximateLayer {
            file: name.to_string(),
            layer: "SM active".to_string(),
            source: "xpu-smi's GPU EU Array Active".to_string(),
        });
    }
    let frame = DataFrame::new_infer_height(cols)?;
    from_frame(name, frame, &opts.maps, quality)
}

/// xpu-smi dump CSV (Intel Data Center GPU).
pub struct IntelXpuSmi;
impl crate::source::format::Format for IntelXpuSmi {
    fn id(&self) -> crate::source::format::InputFormat {
        crate::source::format::InputFormat("xpu-smi")
    }
    fn name(&self) -> &'static str {
        "xpu-smi dump"
    }
    fn help(&self) -> &'static str {
        "xpu-smi dump CSV (Intel Data Center GPU)"
    }
    fn shared_extensions(&self) -> &'static [&'static str] {
        &["csv"]
    }
    fn sniff_order(&self) -> u8 {
        25
    }
    fn sniff(&self, head: &crate::source::format::Head) -> bool {
        looks_like_xpusmi_dump(head.first_line)
    }
    fn read(
        &self,
        files: &[crate::source::format::InputFile],
        opts: &ReadOptions,
    ) -> Result<Vec<SampleTable>> {
        crate::source::format::each_file(files, opts, read_xpusmi_dump)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, crate::fuzzing::EntryPoint)] {
        &[("intel_xpusmi", crate::fuzzing::intel_xpusmi)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_of_day_roll_past_midnight_and_end_before_the_anchor() {
        let h = 3_600_000_000i64;
        // 23:00, 23:30, 00:30 (next day); anchor 2026-07-02T01:00Z
        let anchor = 1_782_864_000_000_000 + US_PER_DAY + h;
        let t = date_times_of_day(&[23 * h, 23 * h + h / 2, h / 2], anchor);
        assert_eq!(t[2], 1_782_864_000_000_000 + US_PER_DAY + h / 2);
        assert_eq!(t[0], 1_782_864_000_000_000 + 23 * h);
    }

    #[test]
    fn sniffs_the_dump_header() {
        assert!(looks_like_xpusmi_dump(
            "Timestamp, DeviceId, GPU Utilization (%), GPU Power (W)"
        ));
        assert!(!looks_like_xpusmi_dump("timestamp, index, utilization.gpu"));
    }
}
