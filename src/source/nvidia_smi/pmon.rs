//! `nvidia-smi pmon` logs: one row per process per GPU per tick (a `-` row
//! for a GPU with none). Read as what they are (docs/semantics.md §3): each
//! tick, a GPU is held when a compute process is listed on it, by those
//! processes' commands; per-process `sm`/`mem` are shares of the GPU, not its
//! device activity, so device activity is not measured (n/a).
use crate::audit::model::{Note, UntimedRows};
use crate::samples::{Quality, SampleTable, col};
use crate::source::filetime::fallback_time;
use crate::source::{ReadOptions, from_frame};
use crate::timeparse::{EpochUs, US_PER_SECOND};
use anyhow::{Context, Result, anyhow, bail};
use chrono::{NaiveDateTime, TimeZone, Utc};
use polars::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Whether a `# ...` header line is pmon's (`# gpu pid type sm mem ... command`).
pub fn is_pmon_header(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with('#') && {
        let names: Vec<String> = l
            .trim_start_matches('#')
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        names.iter().any(|n| n == "gpu") && names.iter().any(|n| n == "pid")
    }
}

/// One process row: line number, tick time (if the log has `-o DT`), GPU,
/// pid (`-`: no process), type (C, G, C+G) and command.
struct ProcRow {
    line: usize,
    time: Option<EpochUs>,
    gpu: String,
    pid: String,
    kind: String,
    command: String,
}

/// The header names and the process rows.
fn pmon_rows(name: &str, text: &str) -> Result<Vec<ProcRow>> {
    let mut header: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('#') {
            if is_pmon_header(line) {
                let names = line
                    .trim_start_matches('#')
                    .split_whitespace()
                    .map(str::to_ascii_lowercase)
                    .collect();
                header = Some(names); // the units line (# Idx # C/G ...) has no "pid"
            }
            continue;
        }
        let Some(h) = header.as_ref() else {
            bail!(
                "{name}:{}: data before the '# gpu pid ...' header line (expected nvidia-smi pmon output)",
                i + 1
            );
        };
        rows.push(proc_row(name, i + 1, h, line)?);
    }
    if rows.is_empty() {
        bail!("{name}: no rows under the pmon header");
    }
    Ok(rows)
}

/// One data line under `h`; a command with spaces takes the fields left over.
fn proc_row(name: &str, line: usize, h: &[String], text: &str) -> Result<ProcRow> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let last_is_command = h.last().is_some_and(|c| c == "command");
    if fields.len() < h.len() || (fields.len() > h.len() && !last_is_command) {
        bail!(
            "{name}:{line}: {} fields, expected {} as in the header '# {}' (truncated line?)",
            fields.len(),
            h.len(),
            h.join(" ")
        );
    }
    let at = |n: &str| h.iter().position(|x| x == n).map(|i| fields[i]);
    let time = match (at("date"), at("time")) {
        (Some(d), Some(t)) => {
            let text = format!("{d} {t}");
            let ndt = NaiveDateTime::parse_from_str(&text, "%Y%m%d %H:%M:%S").map_err(|_| {
                anyhow!("{name}:{line}: '{text}' is not a pmon date and time (expected YYYYMMDD HH:MM:SS)")
            })?;
            Some(Utc.from_utc_datetime(&ndt).timestamp_micros())
        }
        _ => None,
    };
    let command = if last_is_command {
        fields[h.len() - 1..].join(" ")
    } else {
        "-".to_string()
    };
    Ok(ProcRow {
        line,
        time,
        gpu: at("gpu").context("pmon header without gpu")?.to_string(),
        pid: at("pid").unwrap_or("-").to_string(),
        kind: at("type").unwrap_or("-").to_string(),
        command,
    })
}

/// Each row's tick: a new tick starts at a new `-o DT` time, or (without it)
/// when a GPU index goes back or a GPU's process repeats within the tick.
fn ticks(rows: &[ProcRow]) -> Vec<usize> {
    let mut out = Vec::with_capacity(rows.len());
    let mut tick = 0usize;
    let mut seen: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut prev: Option<&ProcRow> = None;
    for r in rows {
        let new_tick = match prev {
            None => false,
            Some(p) if r.time.is_some() => r.time != p.time,
            Some(p) => {
                let back = match (r.gpu.parse::<u64>(), p.gpu.parse::<u64>()) {
                    (Ok(a), Ok(b)) => a < b,
                    _ => r.gpu < p.gpu,
                };
                back || seen.contains(&(r.gpu.as_str(), r.pid.as_str()))
            }
        };
        if new_tick {
            tick += 1;
            seen.clear();
        }
        seen.insert((r.gpu.as_str(), r.pid.as_str()));
        out.push(tick);
        prev = Some(r);
    }
    out
}

/// One GPU in one tick: its time and the commands of its compute processes.
type GpuTick = (EpochUs, String, BTreeSet<String>);

/// Fold process rows into one sample per GPU per tick.
fn gpu_ticks(
    name: &str,
    path: &Path,
    opts: &ReadOptions,
    rows: &[ProcRow],
    quality: &mut Quality,
) -> Result<Vec<GpuTick>> {
    let tick_of = ticks(rows);
    let count = tick_of.last().map_or(0, |t| t + 1) as i64;
    let untimed = rows.iter().any(|r| r.time.is_none());
    let end = if untimed {
        // No -o DT: ticks 1 s apart (pmon's default -d 1), the last at the fallback time.
        let (end, note) = fallback_time(name, path, opts.at, UntimedRows::PmonTicks)?;
        quality.notes.push(note);
        end
    } else {
        0
    };
    let mut by_tick: BTreeMap<(usize, &str), GpuTick> = BTreeMap::new();
    for (r, tick) in rows.iter().zip(&tick_of) {
        let time = match r.time {
            Some(t) if !untimed => t,
            _ => end - (count - 1 - *tick as i64) * US_PER_SECOND,
        };
        let entry = by_tick
            .entry((*tick, r.gpu.as_str()))
            .or_insert_with(|| (time, r.gpu.clone(), BTreeSet::new()));
        // Graphics-only processes (a desktop's Xorg) do not hold a GPU for work.
        if r.pid != "-" && r.kind.contains('C') {
            let command = if r.command == "-" {
                format!("pid {}", r.pid)
            } else {
                r.command.clone()
            };
            entry.2.insert(command);
        } else if r.pid != "-" && !r.kind.contains('G') {
            bail!(
                "{name}:{}: process type '{}' (expected C, G or C+G)",
                r.line,
                r.kind
            );
        }
    }
    Ok(by_tick.into_values().collect())
}

/// Read an `nvidia-smi pmon` log: held per GPU per tick, by the processes listed.
pub fn read_pmon(name: &str, path: &Path, text: &str, opts: &ReadOptions) -> Result<SampleTable> {
    let rows = pmon_rows(name, text)?;
    let mut quality = Quality::default();
    let samples = gpu_ticks(name, path, opts, &rows, &mut quality)?;
    quality.notes.push(Note::HeldFromPmon {
        file: name.to_string(),
    });
    let jobs: Vec<Option<String>> = samples
        .iter()
        .map(|(_, _, p)| (!p.is_empty()).then(|| p.iter().cloned().collect::<Vec<_>>().join("+")))
        .collect();
    let cols = vec![
        Column::new(
            col::TIME.into(),
            samples.iter().map(|s| s.0).collect::<Vec<_>>(),
        ),
        Column::new(
            col::GPU.into(),
            samples.iter().map(|s| s.1.clone()).collect::<Vec<_>>(),
        ),
        Column::new(
            col::HELD.into(),
            samples.iter().map(|s| !s.2.is_empty()).collect::<Vec<_>>(),
        ),
        Column::new(col::JOB.into(), jobs),
    ];
    let frame = DataFrame::new_infer_height(cols)?;
    from_frame(name, frame, &opts.maps, quality)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(gpu: &str, pid: &str) -> ProcRow {
        ProcRow {
            line: 1,
            time: None,
            gpu: gpu.into(),
            pid: pid.into(),
            kind: "C".into(),
            command: "x".into(),
        }
    }

    #[test]
    fn ticks_start_when_a_gpu_goes_back_or_a_process_repeats() {
        let rows = [
            row("0", "1"),
            row("0", "2"),
            row("1", "-"),
            row("0", "1"),
            row("0", "2"),
            row("1", "3"),
            row("1", "3"),
        ];
        assert_eq!(ticks(&rows), [0, 0, 0, 1, 1, 1, 2]);
        assert!(is_pmon_header(
            "# gpu         pid   type     sm    mem    command"
        ));
        assert!(!is_pmon_header("# gpu    pwr  gtemp  mtemp     sm    mem"));
    }
}
