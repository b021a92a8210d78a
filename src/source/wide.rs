//! Wide CSV layouts (docs/semantics.md §1): one row per host (or per time)
//! with one column per GPU, `time,machineId,gpu0_util,...,gpu7_util` as
//! Microsoft Philly's `cluster_gpu_util` and AcmeTrace's DCGM CSVs write them,
//! reshaped into one row per GPU; a trailing empty field on every row (those
//! files end each line with a comma) dropped; times with a zone abbreviation
//! (`2017-10-03 01:04:00 PDT`) read at its offset. Each with a note.
use super::{decode, from_frame};
use crate::audit::model::Note;
use crate::samples::{Quality, SampleTable, UserMap, col, is_missing_marker, resolve_columns};
use crate::timeparse::{Zone, zone_abbreviation};
use anyhow::{Context, Result, bail};
use polars::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// How many bytes of a file are looked at to decide whether it needs this reader.
const HEAD_BYTES: usize = 64 * 1024;

/// A column of one GPU: `gpu3_util` -> (3, "util"). Case-insensitive.
fn gpu_column(name: &str) -> Option<(u32, String)> {
    let lower = name.trim().to_ascii_lowercase();
    let rest = lower.strip_prefix("gpu")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let metric = rest[digits..].strip_prefix('_')?;
    if digits == 0 || metric.is_empty() {
        return None;
    }
    Some((rest[..digits].parse().ok()?, metric.to_string()))
}

/// The long file's name for a GPU column's metric: `util` is device activity.
fn metric_name(metric: &str) -> String {
    match metric {
        "util" | "utilization" | "gpu_util" => col::DEVICE_UTIL.to_string(),
        other => other.to_string(),
    }
}

/// The lines of a text, without their line ends.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().map(|l| l.trim_end_matches('\r'))
}

/// A zone abbreviation worth a note: not UTC/GMT (read as UTC, as always).
fn noted_zone(text: &str) -> Option<Zone<'_>> {
    zone_abbreviation(text).filter(|z| !matches!(z, Zone::Known { offset_s: 0, .. }))
}

/// Whether a CSV whose head is `text` reads as a plain table (in blocks,
/// when streamed): no GPU columns, no zone abbreviation, and a first data
/// row with as many fields as the header (a trailing comma on every row is
/// this reader's to drop).
pub fn plain_text(text: &str) -> bool {
    let mut rows = lines(text).filter(|l| !l.trim().is_empty());
    let Some(header) = rows.next() else {
        return true;
    };
    let wide = header.split(',').any(|h| gpu_column(h).is_some());
    let first = rows.next().unwrap_or_default();
    let zoned = first.split(',').any(|f| noted_zone(f).is_some());
    let same_fields = first.is_empty() || first.split(',').count() == header.split(',').count();
    !wide && !zoned && same_fields
}

/// Whether this CSV needs this reader: GPU columns in the header, a trailing
/// empty field on its first data row, or a zone abbreviation in it.
pub fn wanted(path: &Path) -> Result<bool> {
    let head = super::files::read_head(path, HEAD_BYTES)?;
    Ok(wanted_text(&String::from_utf8_lossy(&head)))
}

/// The same decision on the head of a text (standard input).
pub fn wanted_text(text: &str) -> bool {
    let mut rows = lines(text).filter(|l| !l.trim().is_empty());
    let Some(header) = rows.next() else {
        return false;
    };
    let wide = header.split(',').any(|h| gpu_column(h).is_some());
    let first = rows.next().unwrap_or_default();
    let zoned = first.split(',').any(|f| noted_zone(f).is_some());
    wide || zoned || first.ends_with(',')
}

/// The text without a trailing empty field, when every data row has one:
/// the header's too when it has one, else only when the rows have one field
/// more than the header (an always-empty last column is kept). True when dropped.
fn drop_trailing_field(text: &str) -> (String, bool) {
    let mut rows = lines(text).filter(|l| !l.trim().is_empty());
    let Some(header) = rows.next() else {
        return (text.to_string(), false);
    };
    let header_has = header.ends_with(',');
    let fields = |l: &str| l.split(',').count();
    let want = fields(header) + usize::from(!header_has);
    let mut data = rows.peekable();
    let every = data.peek().is_some() && data.all(|l| l.ends_with(',') && fields(l) == want);
    if !every {
        return (text.to_string(), false);
    }
    let mut out = String::with_capacity(text.len());
    let mut header_seen = false;
    for l in lines(text) {
        let is_header = !header_seen && !l.trim().is_empty();
        header_seen |= is_header;
        let cut = (!is_header || header_has) && l.ends_with(',');
        out.push_str(if cut { &l[..l.len() - 1] } else { l });
        out.push('\n');
    }
    (out, true)
}

/// The zone abbreviations in the time column, counted; an ambiguous one is refused.
fn zones_of(name: &str, frame: &DataFrame, time: &str) -> Result<BTreeMap<String, u64>> {
    let mut zones = BTreeMap::new();
    let Ok(series) = frame.column(time) else {
        return Ok(zones);
    };
    let Ok(values) = series.str() else {
        return Ok(zones);
    };
    for (i, v) in values.iter().enumerate() {
        match v.and_then(noted_zone) {
            Some(Zone::Known { name: z, .. }) => *zones.entry(z.to_string()).or_default() += 1,
            Some(Zone::Ambiguous { name: z, meanings }) => bail!(
                "{name}: row {}: time '{}' has the zone abbreviation '{z}', which is ambiguous ({meanings}): give times with a UTC offset (+01:00) or in UTC",
                i + 1,
                v.unwrap_or_default()
            ),
            None => {}
        }
    }
    Ok(zones)
}

/// Read a CSV that needs this reader: the trailing field dropped, wide GPU
/// columns reshaped, zone abbreviations noted.
pub fn read_csv(name: &str, path: &Path, maps: &[UserMap]) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    read_text(name, &text, maps)
}

/// As [`read_csv`], on a CSV text in memory.
pub fn read_text(name: &str, text: &str, maps: &[UserMap]) -> Result<SampleTable> {
    let (text, trailing) = drop_trailing_field(text);
    let frame = decode::parse(name, text.into_bytes(), decode::Text::Csv)?;
    let mut quality = Quality::default();
    if trailing {
        quality.notes.push(Note::TrailingEmptyField {
            file: name.to_string(),
        });
    }
    let columns: Vec<String> = frame
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let resolved = resolve_columns(&columns, maps);
    let source_of = |c: &str| {
        resolved
            .iter()
            .find(|r| r.canonical == c)
            .map(|r| r.source.clone())
    };
    if let Some(time) = source_of(col::TIME) {
        let zones = zones_of(name, &frame, &time)?;
        if !zones.is_empty() {
            quality.notes.push(Note::ZoneAbbreviations {
                file: name.to_string(),
                zones: zones.into_iter().collect(),
            });
        }
    }
    let has_gpu_columns = columns.iter().any(|c| gpu_column(c).is_some());
    let frame = if has_gpu_columns && source_of(col::GPU).is_none() {
        let host = source_of(col::HOST).or_else(|| {
            columns
                .iter()
                .find(|c| {
                    matches!(
                        c.to_ascii_lowercase().as_str(),
                        "machineid" | "machine_id" | "machine"
                    )
                })
                .cloned()
        });
        reshape(name, &frame, host.as_deref(), &mut quality)?
    } else {
        frame
    };
    from_frame(name, frame, maps, quality)
}

/// One row per GPU: the other columns repeated, `gpu` = host/N (or N), each
/// GPU column under its metric's name; a GPU whose cells in a row are all
/// empty has no sample there (a host with fewer GPUs than the layout).
fn reshape(
    name: &str,
    frame: &DataFrame,
    host: Option<&str>,
    quality: &mut Quality,
) -> Result<DataFrame> {
    let mut by_gpu: BTreeMap<u32, Vec<(String, String)>> = BTreeMap::new();
    let mut others = Vec::new();
    for c in frame.get_column_names() {
        match gpu_column(c) {
            Some((n, metric)) => by_gpu
                .entry(n)
                .or_default()
                .push((c.to_string(), metric_name(&metric))),
            None => others.push(c.to_string()),
        }
    }
    let metrics: std::collections::BTreeSet<String> = by_gpu
        .values()
        .flat_map(|v| v.iter().map(|(_, m)| m.clone()))
        .collect();
    let text = |c: &str| -> Result<Column> { Ok(frame.column(c)?.cast(&DataType::String)?) };
    let hosts = host.map(text).transpose()?;
    let mut parts: Vec<DataFrame> = Vec::new();
    let mut empty_cells = 0u64;
    for (n, cols) in &by_gpu {
        let mut out: Vec<Column> = Vec::new();
        for o in &others {
            let c = frame.column(o)?.clone();
            out.push(if Some(o.as_str()) == host {
                c.cast(&DataType::String)?.with_name(col::HOST.into())
            } else {
                c
            });
        }
        let ids: Vec<String> = match &hosts {
            Some(h) => h
                .str()?
                .iter()
                .map(|v| format!("{}/{n}", v.unwrap_or_default()))
                .collect(),
            None => vec![n.to_string(); frame.height()],
        };
        out.push(Column::new(col::GPU.into(), ids));
        let mut present = vec![false; frame.height()];
        for m in &metrics {
            let values = match cols.iter().find(|(_, cm)| cm == m) {
                Some((source, _)) => text(source)?,
                None => Column::full_null(m.as_str().into(), frame.height(), &DataType::String),
            };
            for (i, v) in values.str()?.iter().enumerate() {
                present[i] |= v.is_some_and(|s| !is_missing_marker(s));
            }
            out.push(values.with_name(m.as_str().into()));
        }
        empty_cells += present.iter().filter(|p| !**p).count() as u64;
        let part = DataFrame::new_infer_height(out)?;
        let mask = BooleanChunked::new("present".into(), present);
        parts.push(part.filter(&mask)?);
    }
    let mut long = parts
        .into_iter()
        .reduce(|mut a, b| {
            let _ = a.vstack_mut(&b);
            a
        })
        .with_context(|| format!("{name}: no GPU columns"))?;
    long.rechunk_mut();
    quality.notes.push(Note::WideReshaped {
        file: name.to_string(),
        gpus: by_gpu.len(),
        host: host.map(str::to_string),
        empty_cells,
    });
    Ok(long)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_columns_and_trailing_fields() {
        assert_eq!(gpu_column("gpu0_util"), Some((0, "util".into())));
        assert_eq!(gpu_column("GPU12_mem_used"), Some((12, "mem_used".into())));
        assert_eq!(gpu_column("gpu_util"), None);
        assert_eq!(gpu_column("gpu0"), None);
        // every row ends with a comma, the header too
        let (t, cut) = drop_trailing_field("a,b,\n1,2,\n3,4,\n");
        assert_eq!((t.as_str(), cut), ("a,b\n1,2\n3,4\n", true));
        // the header without one
        let (t, cut) = drop_trailing_field("a,b,c\n1,2,3,\r\n4,5,6,\n");
        assert_eq!((t.as_str(), cut), ("a,b,c\n1,2,3\n4,5,6\n", true));
        // not every row: left as is (the ragged row is refused by the CSV check)
        let (t, cut) = drop_trailing_field("a,b\n1,2,\n3,4\n");
        assert_eq!((t.as_str(), cut), ("a,b\n1,2,\n3,4\n", false));
        // an always-empty last column is a column
        let (t, cut) = drop_trailing_field("a,b,c\n1,2,\n3,4,\n");
        assert_eq!((t.as_str(), cut), ("a,b,c\n1,2,\n3,4,\n", false));
    }
}
