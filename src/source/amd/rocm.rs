//! rocm-smi `--json` (`{"card0": {"GPU use (%)": "5", …}}`, appended
//! documents for repeated runs) and `--csv` (`device,GPU use (%),…`).
//!
//! `GFX Activity` is an accumulated counter, not a percent: it is never read.
//! Device activity comes from `GPU use (%)`; a card without it has none (n/a),
//! with a note. (rocm-smi stamps no time, so the counter cannot be turned
//! into a rate between samples either.)
use super::{
    ReadOptions, Reading, bytes_of, counter_only_note, fraction_of_percent, number_with_unit,
    table, watts_of,
};
use crate::samples::{Quality, SampleTable};
use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::path::Path;

/// The keys rocm-smi writes, and what each feeds.
const USE: &[&str] = &["GPU use (%)"];
const MEMORY_ACTIVITY: &[&str] = &["GPU Memory Read/Write Activity (%)", "GPU memory use (%)"];
const MEM_USED: &[&str] = &["VRAM Total Used Memory (B)"];
const MEM_TOTAL: &[&str] = &["VRAM Total Memory (B)"];
const POWER: &[&str] = &[
    "Current Socket Graphics Package Power (W)",
    "Average Graphics Package Power (W)",
];
const MODEL: &[&str] = &["Card Series", "Card series", "Device Name"];
const COUNTER: &str = "GFX Activity";

pub fn looks_like_json(head: &str) -> bool {
    let h = head.trim_start();
    h.starts_with('{')
        && h.contains("\"card")
        && (h.contains("\"GPU use (%)\"") || h.contains("\"GFX Activity\""))
}

pub fn looks_like_csv(first_line: &str) -> bool {
    let l = first_line.trim_start();
    l.starts_with("device,") && (l.contains("GPU use (%)") || l.contains(COUNTER))
}

/// One card's fields (name, text) as a reading; `None` when it is no card.
fn card_reading(card: &str, get: &dyn Fn(&[&str]) -> Option<String>) -> Option<(Reading, bool)> {
    if !card.starts_with("card") {
        return None;
    }
    let num = |keys: &[&str]| get(keys).and_then(|v| number_with_unit(&v));
    let util = fraction_of_percent(num(USE));
    let counter_only = util.is_none() && get(&[COUNTER]).is_some();
    Some((
        Reading {
            gpu: card.to_string(),
            time: None,
            model: get(MODEL).filter(|m| !m.trim().is_empty() && m != "N/A"),
            util,
            dram: fraction_of_percent(num(MEMORY_ACTIVITY)),
            mem_used: bytes_of(num(MEM_USED), 1.0),
            mem_total: bytes_of(num(MEM_TOTAL), 1.0),
            power: watts_of(num(POWER)),
        },
        counter_only,
    ))
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub(crate) fn parse_json(name: &str, text: &str) -> Result<(Vec<Reading>, usize)> {
    let mut readings = Vec::new();
    let mut counter_only = std::collections::BTreeSet::new();
    for doc in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        let doc =
            doc.map_err(|e| anyhow::anyhow!("{name}:{}: not rocm-smi JSON: {e}", e.line()))?;
        let Value::Object(cards) = doc else {
            bail!(
                "{name}: not rocm-smi JSON (expected an object keyed by card: {{\"card0\": {{…}}}})"
            );
        };
        for (card, fields) in &cards {
            let Value::Object(fields) = fields else {
                continue;
            };
            let get = |keys: &[&str]| keys.iter().find_map(|k| fields.get(*k).and_then(text_of));
            if let Some((r, only)) = card_reading(card, &get) {
                if only {
                    counter_only.insert(r.gpu.clone());
                }
                readings.push(r);
            }
        }
    }
    if readings.is_empty() {
        bail!(
            "{name}: no cards (expected rocm-smi --json output: {{\"card0\": {{\"GPU use (%)\": …}}}})"
        );
    }
    Ok((readings, counter_only.len()))
}

pub(crate) fn parse_csv(name: &str, text: &str) -> Result<(Vec<Reading>, usize)> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        bail!("{name}: empty (expected rocm-smi --csv output)");
    };
    let names: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut readings = Vec::new();
    let mut counter_only = std::collections::BTreeSet::new();
    for (n, line) in lines {
        if looks_like_csv(line) {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != names.len() {
            bail!(
                "{name}:{}: {} fields under {} columns (expected one per column of the rocm-smi header)",
                n + 1,
                fields.len(),
                names.len()
            );
        }
        let get = |keys: &[&str]| {
            keys.iter().find_map(|k| {
                names
                    .iter()
                    .position(|c| c == k)
                    .map(|i| fields[i].to_string())
            })
        };
        match card_reading(fields[0], &get) {
            Some((r, only)) => {
                if only {
                    counter_only.insert(r.gpu.clone());
                }
                readings.push(r);
            }
            None => bail!(
                "{name}:{}: '{}' is no card (expected card0, card1, … in the device column)",
                n + 1,
                fields[0]
            ),
        }
    }
    if readings.is_empty() {
        bail!(
            "{name}: no cards (expected rocm-smi --csv output: a device,… header and a row per card)"
        );
    }
    Ok((readings, counter_only.len()))
}

fn finish(
    name: &str,
    path: &Path,
    (readings, counter_only): (Vec<Reading>, usize),
    opts: &ReadOptions,
) -> Result<SampleTable> {
    let mut quality = Quality::default();
    if counter_only > 0 {
        quality.notes.push(counter_only_note(name, counter_only));
    }
    table(name, path, readings, opts, quality)
}

pub fn read_json(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    finish(name, path, parse_json(name, &text)?, opts)
}

pub fn read_csv(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    finish(name, path, parse_csv(name, &text)?, opts)
}
