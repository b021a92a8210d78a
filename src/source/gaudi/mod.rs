//! Intel Gaudi `hl-smi -Q FIELDS -f csv[,noheader][,nounits]` logs: one row
//! per device and poll, values with their unit inside the cell (`0 %`,
//! `131072 MiB`, `226 W`). Device activity (`utilization.aip`), memory and
//! power only: hl-smi measures no deeper layer, so those stay n/a.
use super::filetime::fallback_time;
use super::{ReadOptions, from_frame};
use crate::audit::model::UntimedRows;
use crate::samples::{Quality, SampleTable, col, is_missing_marker};
use anyhow::{Context, Result, bail};
use polars::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// hl-smi field -> the column the frame gives it (the canonical aliases and
/// `--map` take it from there: `utilization.aip` is percent, memory MiB).
const FIELDS: &[(&str, &str)] = &[
    ("timestamp", col::TIME),
    ("name", col::MODEL),
    ("utilization.aip", "utilization.aip"),
    ("memory.used", "memory.used"),
    ("memory.total", "memory.total"),
    ("power.draw", "power.draw"),
];

/// The device id, best first: the uuid and serial name one card anywhere,
/// the bus id one card on its host, the index one card in one run.
const DEVICE_IDS: &[&str] = &["uuid", "serial", "bus_id", "index"];

/// A header name without its unit: `utilization.aip [%]` -> `utilization.aip`.
fn bare(h: &str) -> String {
    h.split(" [")
        .next()
        .unwrap_or(h)
        .trim()
        .to_ascii_lowercase()
}

fn split_fields(line: &str) -> Vec<String> {
    line.split(',').map(|f| f.trim().to_string()).collect()
}

/// A Gaudi device name: `HL-225`, `HL-325L`, `HL-338`.
fn is_device_name(f: &str) -> bool {
    let b = f.as_bytes();
    b.len() >= 6 && f.starts_with("HL-") && b[3..6].iter().all(u8::is_ascii_digit)
}

/// Whether a first line is an hl-smi log: a header naming an AIP field, or a
/// noheader row naming a Gaudi device.
pub fn looks_like_hlsmi(first_line: &str) -> bool {
    let fields = split_fields(first_line);
    fields.iter().any(|f| bare(f).ends_with(".aip")) || fields.iter().any(|f| is_device_name(f))
}

/// The header and the data rows (with 1-based line numbers).
type Parsed = (Vec<String>, Vec<(usize, Vec<String>)>);

fn parse(name: &str, text: &str, columns: Option<&[String]>) -> Result<Parsed> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((first_no, first)) = lines.next() else {
        bail!("{name}: empty file (expected an hl-smi -Q ... -f csv log)");
    };
    let first_fields = split_fields(first);
    let mut rows = Vec::new();
    let header: Vec<String> = match columns {
        Some(cols) => {
            let same = first_fields.len() == cols.len()
                && first_fields
                    .iter()
                    .zip(cols)
                    .all(|(a, b)| bare(a) == bare(b));
            if !same {
                rows.push((first_no, first_fields));
            }
            cols.iter().map(|c| bare(c)).collect()
        }
        None if first_fields.iter().any(|f| is_device_name(f)) => bail!(
            "{name}:{first_no}: no header row (hl-smi -f csv,noheader): name its columns with --columns, e.g. --columns index,uuid,name,memory.used,memory.total,power.draw,utilization.aip"
        ),
        None => first_fields.iter().map(|f| bare(f)).collect(),
    };
    for (no, line) in lines {
        let fields = split_fields(line);
        // logs appended poll after poll may repeat the header
        if fields.len() == header.len() && fields.iter().zip(&header).all(|(a, b)| bare(a) == *b) {
            continue;
        }
        if fields.len() != header.len() {
            bail!(
                "{name}:{no}: {} fields, expected {} as in the header ({}) (truncated line?)",
                fields.len(),
                header.len(),
                header.join(", ")
            );
        }
        rows.push((no, fields));
    }
    if rows.is_empty() {
        bail!("{name}: no rows under the header (expected hl-smi device samples)");
    }
    Ok((header, rows))
}

/// The time of a log without a timestamp field: one poll, one row per device.
fn untimed(
    name: &str,
    path: &Path,
    opts: &ReadOptions,
    ids: &[String],
    quality: &mut Quality,
) -> Result<i64> {
    let mut per: BTreeMap<&str, usize> = BTreeMap::new();
    for id in ids {
        *per.entry(id.as_str()).or_default() += 1;
    }
    if per.values().any(|c| *c > 1) {
        bail!(
            "{name}: several rows per device but no timestamp field: add timestamp to hl-smi -Q (a log without one cannot be placed in time)"
        );
    }
    let (t, note) = fallback_time(name, path, opts.at, UntimedRows::Samples { count: None })?;
    quality.notes.push(note);
    Ok(t)
}

/// Read an hl-smi CSV log into the canonical table.
pub fn read_hlsmi(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    let (header, rows) = parse(name, &text, opts.columns.as_deref())?;
    let at = |f: &str| header.iter().position(|h| h == f);
    let id = DEVICE_IDS.iter().find_map(|f| at(f)).with_context(|| {
        format!(
            "{name}: no device id field (expected one of {} in hl-smi -Q)",
            DEVICE_IDS.join(", ")
        )
    })?;
    let ids: Vec<String> = rows.iter().map(|(_, f)| f[id].clone()).collect();
    if let Some((no, _)) = rows.iter().find(|(_, f)| is_missing_marker(&f[id])) {
        bail!("{name}:{no}: the device id field '{}' is empty", header[id]);
    }
    let mut quality = Quality::default();
    let mut cols = vec![Column::new(col::GPU.into(), ids.clone())];
    if at("timestamp").is_none() {
        let t = untimed(name, path, opts, &ids, &mut quality)?;
        cols.push(Column::new(col::TIME.into(), vec![t; rows.len()]));
    }
    for (field, column) in FIELDS {
        if let Some(i) = at(field) {
            let v: Vec<Option<&str>> = rows
                .iter()
                .map(|(_, f)| Some(f[i].as_str()).filter(|s| !is_missing_marker(s)))
                .collect();
            cols.push(Column::new((*column).into(), v));
        }
    }
    let frame = DataFrame::new_infer_height(cols)?;
    from_frame(name, frame, &opts.maps, quality)
}

/// hl-smi -Q … -f csv log (Intel Gaudi)
pub struct GaudiHlSmi;
impl crate::source::format::Format for GaudiHlSmi {
    fn id(&self) -> crate::source::format::InputFormat {
        crate::source::format::InputFormat("hl-smi")
    }
    fn name(&self) -> &'static str {
        "hl-smi csv"
    }
    fn help(&self) -> &'static str {
        "hl-smi -Q ... -f csv log (Intel Gaudi)"
    }
    fn shared_extensions(&self) -> &'static [&'static str] {
        &["csv"]
    }
    fn sniff_order(&self) -> u8 {
        25
    }
    fn sniff(&self, head: &crate::source::format::Head) -> bool {
        looks_like_hlsmi(head.first_line)
    }
    fn read(
        &self,
        files: &[crate::source::format::InputFile],
        opts: &ReadOptions,
    ) -> Result<Vec<SampleTable>> {
        crate::source::format::each_file(files, opts, read_hlsmi)
    }
    #[cfg(feature = "fuzzing")]
    fn fuzz_targets(&self) -> &'static [(&'static str, crate::fuzzing::EntryPoint)] {
        &[("gaudi_hlsmi", crate::fuzzing::gaudi_hlsmi)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_headers_and_noheader_rows() {
        assert!(looks_like_hlsmi(
            "name, uuid, power.draw [W], temperature.aip [C], utilization.aip [%]"
        ));
        assert!(looks_like_hlsmi(
            "0, 01P4-HL3090A0-18-U4V193-22-07-00, HL-325L, 1.22.1-97ec1a4, 131072 MiB"
        ));
        assert!(!looks_like_hlsmi("timestamp, name, utilization.gpu [%]"));
    }

    #[test]
    fn noheader_needs_columns() -> Result<()> {
        let rows = "0, 01P4, HL-325L, 0 %\n";
        let e = parse("g.csv", rows, None).err().map(|e| e.to_string());
        assert!(e.unwrap_or_default().starts_with("g.csv:1: no header row"));
        let cols: Vec<String> = ["index", "uuid", "name", "utilization.aip"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (h, r) = parse("g.csv", rows, Some(&cols))?;
        assert_eq!(h[3], "utilization.aip");
        assert_eq!(r.len(), 1);
        Ok(())
    }
}
