//! amd-smi: `metric --json` / `monitor --json` (a top-level list of GPUs, or
//! `{"gpu_data": [...]}` in newer releases; watch output appends documents)
//! and the table `amd-smi monitor` prints. `"N/A"` is no reading, never 0.
use super::{ReadOptions, Reading, bytes_of, fraction_of_percent, reading, table, watts_of};
use crate::samples::{Quality, SampleTable};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::path::Path;

/// Whether the head of a file is amd-smi JSON: a list (or `gpu_data`) of
/// objects keyed by a numeric `"gpu"` index.
pub fn looks_like_json(head: &str) -> bool {
    let h = head.trim_start();
    if !(h.starts_with('[') || h.starts_with('{')) {
        return false;
    }
    if h.contains("\"gpu_data\"") {
        return true;
    }
    let numeric_gpu = h.match_indices("\"gpu\"").any(|(i, m)| {
        let rest = h[i + m.len()..].trim_start();
        rest.strip_prefix(':')
            .is_some_and(|r| r.trim_start().starts_with(|c: char| c.is_ascii_digit()))
    });
    numeric_gpu
        && [
            "\"usage\"",
            "\"gfx\"",
            "\"power_usage\"",
            "\"vram_used\"",
            "\"mem_usage\"",
            "\"power\"",
        ]
        .iter()
        .any(|k| h.contains(k))
}

/// The GPU objects of one document, with the time their wrapper gives.
fn gpu_objects<'a>(v: &'a Value, time: Option<i64>, out: &mut Vec<(&'a Value, Option<i64>)>) {
    match v {
        Value::Array(items) => {
            for i in items {
                gpu_objects(i, time, out);
            }
        }
        Value::Object(o) => {
            let time = epoch_s(o.get("timestamp")).or(time);
            if let Some(inner) = o.get("gpu_data") {
                gpu_objects(inner, time, out);
            } else if o.contains_key("gpu") {
                out.push((v, time));
            }
        }
        _ => {}
    }
}

/// amd-smi stamps watch output with whole epoch seconds.
fn epoch_s(v: Option<&Value>) -> Option<i64> {
    let s = v?.as_f64()?;
    (s.is_finite() && s > 0.0 && s < 1e11).then_some((s * 1e6) as i64)
}

/// The first of several paths (`usage.gfx_activity`, `gfx`) that has a reading.
fn first_reading(o: &Value, paths: &[&[&str]]) -> Option<(f64, String)> {
    paths.iter().find_map(|path| {
        let v = path.iter().try_fold(o, |v, k| v.get(*k))?;
        reading(v)
    })
}

fn gpu_reading(o: &Value, time: Option<i64>) -> Option<Reading> {
    let gpu = match o.get("gpu")? {
        Value::Number(n) => n.to_string(),
        Value::String(s) if !s.trim().is_empty() => s.trim().to_string(),
        _ => return None,
    };
    Some(Reading {
        gpu,
        time,
        model: None,
        util: fraction_of_percent(first_reading(
            o,
            &[&["usage", "gfx_activity"], &["gfx"], &["gfx_util"]],
        )),
        dram: fraction_of_percent(first_reading(
            o,
            &[&["usage", "umc_activity"], &["mem"], &["mem_util"]],
        )),
        mem_used: bytes_of(
            first_reading(o, &[&["mem_usage", "used_vram"], &["vram_used"]]),
            1_048_576.0,
        ),
        mem_total: bytes_of(
            first_reading(o, &[&["mem_usage", "total_vram"], &["vram_total"]]),
            1_048_576.0,
        ),
        power: watts_of(first_reading(
            o,
            &[&["power", "socket_power"], &["power_usage"], &["power"]],
        )),
    })
}

pub fn read_json(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    let readings = parse_json(name, &text)?;
    table(name, path, readings, opts, Quality::default())
}

/// Every GPU reading of the documents in `text`.
pub(crate) fn parse_json(name: &str, text: &str) -> Result<Vec<Reading>> {
    let mut readings = Vec::new();
    for doc in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        let doc = doc.map_err(|e| anyhow::anyhow!("{name}:{}: not amd-smi JSON: {e}", e.line()))?;
        let mut objects = Vec::new();
        gpu_objects(&doc, None, &mut objects);
        readings.extend(objects.into_iter().filter_map(|(o, t)| gpu_reading(o, t)));
    }
    if readings.is_empty() {
        bail!(
            "{name}: no GPU entries (expected amd-smi metric --json or monitor --json: objects with a \"gpu\" index, in a list or under \"gpu_data\")"
        );
    }
    Ok(readings)
}

/// Whether a first line is the header of `amd-smi monitor`.
pub fn looks_like_monitor(first_line: &str) -> bool {
    let names: Vec<&str> = first_line.split_whitespace().collect();
    names.first() == Some(&"GPU")
        && !first_line.contains(',')
        && names
            .iter()
            .any(|n| ["POWER", "GFX_UTIL", "MEM_UTIL", "VRAM_USED", "GPU_TEMP"].contains(n))
}

/// A monitor row's values: a number or N/A, each with the unit token after it.
fn monitor_values(line: &str) -> Vec<Option<(f64, String)>> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let is_value =
        |t: &str| t == "N/A" || super::number_with_unit(t).is_some_and(|v| v.1.is_empty());
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let v = super::number_with_unit(tokens[i]);
        let unit = tokens.get(i + 1).filter(|t| !is_value(t));
        out.push(match (v, unit) {
            (Some((x, _)), Some(u)) => Some((x, u.to_ascii_lowercase())),
            (v, _) => v,
        });
        i += if unit.is_some() { 2 } else { 1 };
    }
    out
}

pub fn read_monitor(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    let readings = parse_monitor(name, &text)?;
    table(name, path, readings, opts, Quality::default())
}

/// The GPU rows of a monitor table (a watch repeats the header); the process
/// table under `PROCESS INFO:` is not a GPU row.
pub(crate) fn parse_monitor(name: &str, text: &str) -> Result<Vec<Reading>> {
    let mut header: Option<Vec<String>> = None;
    let mut readings = Vec::new();
    let mut in_processes = false;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if looks_like_monitor(t) {
            header = Some(t.split_whitespace().map(str::to_string).collect());
            in_processes = false;
            continue;
        }
        if t.starts_with("PROCESS INFO") {
            in_processes = true;
        }
        if in_processes {
            continue;
        }
        let Some(names) = header.as_ref() else {
            bail!(
                "{name}:{}: a row before the amd-smi monitor header (expected 'GPU  POWER …')",
                n + 1
            );
        };
        let values = monitor_values(t);
        if values.len() != names.len() {
            bail!(
                "{name}:{}: {} values under {} columns (expected one per column of the amd-smi monitor header)",
                n + 1,
                values.len(),
                names.len()
            );
        }
        readings.push(monitor_reading(name, n + 1, names, values)?);
    }
    if readings.is_empty() {
        bail!(
            "{name}: no GPU rows (expected an amd-smi monitor table: a 'GPU  POWER …' header and a row per GPU)"
        );
    }
    Ok(readings)
}

fn monitor_reading(
    name: &str,
    line: usize,
    names: &[String],
    values: Vec<Option<(f64, String)>>,
) -> Result<Reading> {
    let mut r = Reading::default();
    let mut gpu = None;
    for (col, v) in names.iter().zip(values) {
        match col.as_str() {
            "GPU" => gpu = v.filter(|(x, u)| u.is_empty() && *x >= 0.0).map(|(x, _)| x),
            "POWER" => r.power = watts_of(v),
            "GFX_UTIL" | "GFX%" => r.util = fraction_of_percent(v),
            "MEM_UTIL" | "MEM%" => r.dram = fraction_of_percent(v),
            "VRAM_USED" => r.mem_used = bytes_of(v, 1_048_576.0),
            "VRAM_TOTAL" => r.mem_total = bytes_of(v, 1_048_576.0),
            _ => {}
        }
    }
    let gpu = gpu.with_context(|| format!("{name}:{line}: no GPU index in the first column"))?;
    r.gpu = format!("{gpu}");
    Ok(r)
}

/// Keys of the `amd-smi metric` text output the audit reads.
const TEXT_KEYS: &[&str] = &[
    "GFX_ACTIVITY:",
    "UMC_ACTIVITY:",
    "SOCKET_POWER:",
    "USED_VRAM:",
    "TOTAL_VRAM:",
];

/// Whether a head is `amd-smi metric` text: `GPU: 0` blocks of `KEY: value`.
pub fn looks_like_metric_text(head: &str, first_line: &str) -> bool {
    first_line
        .strip_prefix("GPU:")
        .is_some_and(|n| n.trim().parse::<u32>().is_ok())
        && TEXT_KEYS.iter().any(|k| head.contains(k))
}

pub fn read_metric_text(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    let readings = parse_metric_text(name, &text)?;
    table(name, path, readings, opts, Quality::default())
}

/// The GPU blocks of `amd-smi metric` text (`GPU: 0`, then indented
/// `GFX_ACTIVITY: 45 %`…); list values (per-XCP busy) are not read: which XCP
/// is which logical GPU the text does not say.
pub(crate) fn parse_metric_text(name: &str, text: &str) -> Result<Vec<Reading>> {
    let mut readings: Vec<Reading> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if let Some(id) = line.strip_prefix("GPU:") {
            let id = id.trim();
            if id.parse::<u32>().is_err() {
                bail!("{name}:{}: 'GPU: {id}' (expected a GPU index)", n + 1);
            }
            readings.push(Reading {
                gpu: id.to_string(),
                ..Reading::default()
            });
            continue;
        }
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        let Some(r) = readings.last_mut() else {
            if line.trim().is_empty() {
                continue;
            }
            bail!(
                "{name}:{}: a line before the first 'GPU: N' (expected amd-smi metric output)",
                n + 1
            );
        };
        let v = super::number_with_unit(value);
        match key {
            "GFX_ACTIVITY" => r.util = fraction_of_percent(v),
            "UMC_ACTIVITY" => r.dram = fraction_of_percent(v),
            "SOCKET_POWER" => r.power = watts_of(v),
            "USED_VRAM" => r.mem_used = bytes_of(v, 1_048_576.0),
            "TOTAL_VRAM" => r.mem_total = bytes_of(v, 1_048_576.0),
            _ => {}
        }
    }
    if readings.is_empty() {
        bail!("{name}: no 'GPU: N' blocks (expected amd-smi metric output)");
    }
    Ok(readings)
}
