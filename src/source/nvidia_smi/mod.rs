//! nvidia-smi logs: `--query-gpu=... --format=csv[,noheader][,nounits]`,
//! `--query-compute-apps=... --format=csv` (which GPUs a process holds) and
//! `nvidia-smi dmon` output (and `pmon`'s, in pmon.rs).
use super::filetime::fallback_time;
use super::{InputFormat, ReadOptions, from_frame};
use crate::audit::held::{held_by_device, held_without_visible_process};
use crate::audit::model::{Note, UntimedRows, Warning};
use crate::samples::{
    Quality, SampleTable, col, is_missing_marker, parse_number_text, resolve_columns,
};
use crate::timeparse::{EpochUs, parse_timestamp_str};
use anyhow::{Context, Result, anyhow, bail};
use chrono::{NaiveDateTime, TimeZone, Utc};
use polars::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub mod pmon;
pub mod xml;

const DEFAULT_ALIGN_US: i64 = 5 * crate::timeparse::US_PER_SECOND;
const MIB: f64 = 1_048_576.0;

/// A CSV log split into header and rows (1-based line numbers kept for errors).
struct CsvLog {
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
}

impl CsvLog {
    fn index(&self, names: &[&str]) -> Option<usize> {
        names.iter().find_map(|n| {
            self.header
                .iter()
                .position(|h| bare(h).eq_ignore_ascii_case(n))
        })
    }
    fn is_compute_apps(&self) -> bool {
        self.index(&["pid"]).is_some()
    }
}

/// A header name without its unit: `utilization.gpu [%]` -> `utilization.gpu`.
fn bare(h: &str) -> &str {
    h.split(" [").next().unwrap_or(h).trim()
}

fn split_fields(line: &str) -> Vec<String> {
    line.split(',').map(|f| f.trim().to_string()).collect()
}

/// A first line that is data, not a header: nvidia-smi's timestamp, or values with units.
fn looks_like_data(fields: &[String]) -> bool {
    fields.iter().any(|f| {
        parse_timestamp_str(f).is_some()
            || f.ends_with(" %")
            || f.ends_with(" MiB")
            || f.ends_with(" W")
    })
}

fn parse_csv(name: &str, text: &str, columns: Option<&[String]>) -> Result<CsvLog> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((first_no, first)) = lines.next() else {
        bail!("{name}: empty file (expected an nvidia-smi --query-gpu CSV log)");
    };
    let first_fields = split_fields(first);
    let mut rows = Vec::new();
    let header = match columns {
        Some(cols) => {
            let same = first_fields.len() == cols.len()
                && first_fields
                    .iter()
                    .zip(cols)
                    .all(|(a, b)| bare(a).eq_ignore_ascii_case(bare(b)));
            if !same {
                rows.push((first_no, first_fields));
            }
            cols.to_vec()
        }
        None => {
            if looks_like_data(&first_fields) {
                bail!(
                    "{name}:{first_no}: no header row (a noheader log): name its columns with --columns, e.g. --columns timestamp,index,uuid,utilization.gpu,memory.used"
                );
            }
            first_fields
        }
    };
    for (no, line) in lines {
        let fields = split_fields(line);
        // Logs appended run after run repeat the header.
        if fields.len() == header.len()
            && fields
                .iter()
                .zip(&header)
                .all(|(a, b)| a.eq_ignore_ascii_case(b))
        {
            continue;
        }
        if fields.len() != header.len() {
            bail!(
                "{name}:{no}: {} fields, expected {} as in the header ({}) (truncated line?)",
                fields.len(),
                header.len(),
                header
                    .iter()
                    .take(4)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
                    + if header.len() > 4 { ", …" } else { "" }
            );
        }
        rows.push((no, fields));
    }
    Ok(CsvLog { header, rows })
}

fn parse_time(name: &str, line: usize, text: &str) -> Result<EpochUs> {
    parse_timestamp_str(text).ok_or_else(|| {
        anyhow!("{name}:{line}: '{text}' is not a timestamp (expected nvidia-smi's 2026/07/14 08:12:53.353)")
    })
}

/// One process seen on a GPU.
struct App {
    time: Option<EpochUs>,
    uuid: String,
    process: String,
}

fn read_apps(name: &str, log: &CsvLog) -> Result<Vec<App>> {
    let uuid = log.index(&["gpu_uuid", "uuid"]).with_context(|| {
        format!(
            "{name}: a compute-apps log needs the gpu_uuid column to tell which GPU a process holds"
        )
    })?;
    let time = log.index(&["timestamp"]);
    let pname = log.index(&["process_name", "name"]);
    let pid = log.index(&["pid"]);
    let mut out = Vec::new();
    for (no, f) in &log.rows {
        let t = match time {
            Some(i) => Some(parse_time(name, *no, &f[i])?),
            None => None,
        };
        let process = pname
            .map(|i| f[i].rsplit('/').next().unwrap_or(&f[i]).to_string())
            .or_else(|| pid.map(|i| format!("pid {}", f[i])))
            .unwrap_or_default();
        out.push(App {
            time: t,
            uuid: f[uuid].clone(),
            process,
        });
    }
    Ok(out)
}

/// The GPU's median step, by the audit's one median rule.
fn median_step(times: &mut [EpochUs]) -> Option<i64> {
    times.sort_unstable();
    crate::audit::weights::median_step(times)
}

/// Read query-gpu logs (joined with any compute-apps logs given alongside).
pub fn read_csv_files(
    files: &[(String, PathBuf, InputFormat)],
    opts: &ReadOptions,
) -> Result<Vec<SampleTable>> {
    let mut gpu_logs = Vec::new();
    let mut apps = Vec::new();
    let mut app_names = Vec::new();
    for (name, path, _) in files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
        let log = parse_csv(name, &text, opts.columns.as_deref())?;
        if log.is_compute_apps() {
            apps.extend(read_apps(name, &log)?);
            app_names.push(name.clone());
        } else {
            gpu_logs.push((name.clone(), path.clone(), log));
        }
    }
    if gpu_logs.is_empty() {
        bail!(
            "{}: a --query-compute-apps log holds no GPU samples; give it together with the --query-gpu log it belongs to",
            app_names.join(", ")
        );
    }
    let with_apps = (!app_names.is_empty()).then_some((apps.as_slice(), app_names.as_slice()));
    gpu_logs
        .iter()
        .map(|(name, path, log)| gpu_table(name, path, log, with_apps, opts))
        .collect()
}

/// The times of the column `source` (the one read as time), if any.
fn parsed_times(name: &str, log: &CsvLog, source: Option<&str>) -> Result<Option<Vec<EpochUs>>> {
    let Some(source) = source else {
        return Ok(None);
    };
    let i = log
        .header
        .iter()
        .position(|h| h == source)
        .context("time column vanished")?;
    Ok(Some(
        log.rows
            .iter()
            .map(|(no, f)| parse_time(name, *no, &f[i]))
            .collect::<Result<Vec<_>>>()?,
    ))
}

/// A log without a GPU id column is one GPU: refuse it when rows repeat a
/// timestamp or name different products.
fn refuse_several_gpus(name: &str, log: &CsvLog, times: Option<&[EpochUs]>) -> Result<()> {
    let mut seen = BTreeSet::new();
    let repeated = times.and_then(|t| t.iter().position(|x| !seen.insert(*x)));
    let model = log.index(&["name", "gpu_name"]);
    let models: BTreeSet<&str> = model
        .map(|i| log.rows.iter().map(|(_, f)| f[i].as_str()).collect())
        .unwrap_or_default();
    if let Some(r) = repeated {
        bail!(
            "{name}:{}: rows of several GPUs are interleaved (the timestamp repeats) but there is no GPU id column to tell them apart: add index or uuid to --query-gpu",
            log.rows[r].0
        );
    }
    if models.len() > 1 {
        bail!(
            "{name}: rows name {} different GPU products but there is no GPU id column to tell them apart: add index or uuid to --query-gpu",
            models.len()
        );
    }
    Ok(())
}

/// The time of a log without a timestamp column (one row per GPU at most).
fn fallback_log_time(
    name: &str,
    path: &Path,
    opts: &ReadOptions,
    gpus: impl Iterator<Item = String>,
    quality: &mut Quality,
) -> Result<EpochUs> {
    let per_gpu: BTreeMap<String, usize> = gpus.fold(BTreeMap::new(), |mut m, g| {
        *m.entry(g).or_default() += 1;
        m
    });
    if per_gpu.values().any(|c| *c > 1) {
        bail!(
            "{name}: several rows per GPU but no timestamp column: add timestamp to --query-gpu (a log without one cannot be placed in time)"
        );
    }
    let (t, note) = fallback_time(name, path, opts.at, UntimedRows::Samples { count: None })?;
    quality.notes.push(note);
    Ok(t)
}

fn gpu_table(
    name: &str,
    path: &Path,
    log: &CsvLog,
    apps: Option<(&[App], &[String])>,
    opts: &ReadOptions,
) -> Result<SampleTable> {
    let mut quality = Quality::default();
    let n = log.rows.len();
    if n == 0 {
        bail!("{name}: no rows under the header (expected nvidia-smi --query-gpu samples)");
    }
    // Every cell as text, missing markers as null; the canonical aliases
    // (`utilization.gpu [%]`, `memory.used [MiB]`, `uuid`, `name`, ...) do the rest.
    let mut cols: Vec<Column> = log
        .header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let v: Vec<Option<&str>> = log
                .rows
                .iter()
                .map(|(_, f)| Some(f[i].as_str()).filter(|s| !is_missing_marker(s)))
                .collect();
            Column::new(h.as_str().into(), v)
        })
        .collect();
    let resolved = resolve_columns(&log.header, &opts.maps);
    let has = |c: &str| resolved.iter().any(|r| r.canonical == c);

    let time_source = resolved
        .iter()
        .find(|r| r.canonical == col::TIME)
        .map(|r| r.source.as_str());
    let times = parsed_times(name, log, time_source)?;
    let gpu_index = if has(col::GPU) {
        resolved
            .iter()
            .find(|r| r.canonical == col::GPU)
            .and_then(|r| log.header.iter().position(|h| *h == r.source))
    } else {
        log.index(&["pci.bus_id"])
    };
    let gpu_of =
        |row: usize| gpu_index.map_or_else(|| "0".to_string(), |i| log.rows[row].1[i].clone());
    if gpu_index.is_none() {
        refuse_several_gpus(name, log, times.as_deref())?;
        quality.notes.push(Note::NoGpuColumn {
            file: name.to_string(),
        });
        cols.push(Column::new(col::GPU.into(), vec!["0"; n]));
    } else if !has(col::GPU) {
        cols.push(Column::new(
            col::GPU.into(),
            (0..n).map(gpu_of).collect::<Vec<_>>(),
        ));
    }
    let times = match times {
        Some(t) => t,
        None => {
            let t = fallback_log_time(name, path, opts, (0..n).map(gpu_of), &mut quality)?;
            cols.push(Column::new(col::TIME.into(), vec![t; n]));
            vec![t; n]
        }
    };
    if let Some((apps, app_names)) = apps {
        let joined = join_apps(name, log, &times, apps, opts)?;
        describe_apps(name, app_names, &joined, opts, &mut quality);
        cols.retain(|c| !matches!(c.name().as_str(), "held" | "job"));
        cols.push(Column::new(col::HELD.into(), joined.held));
        cols.push(Column::new(col::JOB.into(), joined.jobs));
    }
    let frame = DataFrame::new_infer_height(cols)?;
    from_frame(name, frame, &opts.maps, quality)
}

/// What the apps say of each row: held, its processes, and the GPUs held
/// with no process listed (by activity or memory: docs/semantics.md §3).
struct AppsJoined {
    held: Vec<bool>,
    jobs: Vec<Option<String>>,
    hidden_gpus: BTreeSet<String>,
    hidden_samples: u64,
}

/// What joining the apps leaves to say: where held came from, and the GPUs
/// held with no process listed.
fn describe_apps(
    name: &str,
    app_names: &[String],
    joined: &AppsJoined,
    opts: &ReadOptions,
    quality: &mut Quality,
) {
    quality.notes.push(Note::HeldFromApps {
        file: name.to_string(),
        apps: app_names.to_vec(),
    });
    if joined.hidden_samples > 0 {
        quality.warnings.push(Warning::HeldWithoutVisibleProcess {
            source: name.to_string(),
            gpus: joined.hidden_gpus.len(),
            samples: joined.hidden_samples,
            mib: opts.held_mem() / (1024 * 1024),
        });
    }
}

/// One row's device activity (fraction) and memory used (bytes), where the
/// log has them; `65 %`, `9184 MiB` or bare numbers (nounits).
fn row_device(log: &CsvLog, f: &[String]) -> (Option<f64>, Option<u64>) {
    let value = |names: &[&str]| {
        log.index(names)
            .and_then(|i| parse_number_text(&f[i]))
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    (
        value(&["utilization.gpu"]).map(|u| u / 100.0),
        value(&["memory.used"]).map(|m| (m * MIB) as u64),
    )
}

/// Held when a compute process was on the GPU (same uuid) at the sample's
/// time; with none listed, when it is busy or uses memory above --held-mem.
fn join_apps(
    name: &str,
    log: &CsvLog,
    times: &[EpochUs],
    apps: &[App],
    opts: &ReadOptions,
) -> Result<AppsJoined> {
    let uuid = log.index(&["uuid", "gpu_uuid"]).with_context(|| {
        format!("{name}: compute-apps logs name GPUs by uuid: add uuid to --query-gpu")
    })?;
    let mut by_gpu: BTreeMap<&str, Vec<EpochUs>> = BTreeMap::new();
    for (r, (_, f)) in log.rows.iter().enumerate() {
        by_gpu.entry(f[uuid].as_str()).or_default().push(times[r]);
    }
    let step = by_gpu.values_mut().filter_map(|t| median_step(t)).min();
    let tolerance = opts
        .align_us
        .unwrap_or_else(|| step.map_or(DEFAULT_ALIGN_US, |s| (s / 2).max(1)));
    let mut out = AppsJoined {
        held: Vec::with_capacity(times.len()),
        jobs: Vec::with_capacity(times.len()),
        hidden_gpus: BTreeSet::new(),
        hidden_samples: 0,
    };
    for (r, (_, f)) in log.rows.iter().enumerate() {
        let procs: BTreeSet<&str> = apps
            .iter()
            .filter(|a| {
                a.uuid == f[uuid] && a.time.is_none_or(|t| (t - times[r]).abs() <= tolerance)
            })
            .map(|a| a.process.as_str())
            .collect();
        let (busy, mem) = row_device(log, f);
        let listed = Some(!procs.is_empty());
        if held_without_visible_process(listed, busy, mem, opts.held_mem()) {
            out.hidden_gpus.insert(f[uuid].clone());
            out.hidden_samples += 1;
        }
        out.held
            .push(held_by_device(listed, busy, mem, opts.held_mem()) == Some(true));
        out.jobs
            .push((!procs.is_empty()).then(|| procs.into_iter().collect::<Vec<_>>().join("+")));
    }
    Ok(out)
}

/// A dmon data row: its line number and fields.
type DmonRow = (usize, Vec<String>);

/// The header names and the data rows of a dmon log.
fn dmon_rows(name: &str, text: &str) -> Result<(Vec<String>, Vec<DmonRow>)> {
    let mut header: Option<Vec<String>> = None;
    let mut rows: Vec<DmonRow> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(h) = line.strip_prefix('#') {
            let names: Vec<String> = h
                .split_whitespace()
                .map(|s| s.to_ascii_lowercase())
                .collect();
            if names.iter().any(|n| n == "gpu") {
                // dmon repeats its header; one with other columns under samples
                // read by the first would misplace every field after it
                if let Some(first) = header.as_ref()
                    && *first != names
                    && !rows.is_empty()
                {
                    bail!(
                        "{name}:{}: a header with other columns ('# {}') after samples under '# {}'; give each dmon run its own file",
                        i + 1,
                        names.join(" "),
                        first.join(" ")
                    );
                }
                header = Some(names); // the units line (# Idx W C ...) has no "gpu"
            }
            continue;
        }
        let Some(h) = header.as_ref() else {
            bail!(
                "{name}:{}: data before the '# gpu ...' header line (expected nvidia-smi dmon output)",
                i + 1
            );
        };
        let fields: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        if fields.len() != h.len() {
            bail!(
                "{name}:{}: {} fields, expected {} as in the header '# {}' (truncated line?)",
                i + 1,
                fields.len(),
                h.len(),
                h.join(" ")
            );
        }
        rows.push((i + 1, fields));
    }
    let Some(h) = header else {
        bail!("{name}: no '# gpu ...' header line (expected nvidia-smi dmon output)");
    };
    if rows.is_empty() {
        bail!("{name}: no samples under the dmon header");
    }
    Ok((h, rows))
}

/// Each dmon row's time: from `-o DT` columns, else 1 s apart per GPU ending
/// at the fallback time.
fn dmon_times(
    name: &str,
    path: &Path,
    opts: &ReadOptions,
    rows: &[DmonRow],
    date_time: (Option<usize>, Option<usize>),
    gpu: usize,
    quality: &mut Quality,
) -> Result<Vec<EpochUs>> {
    Ok(match date_time {
        (Some(d), Some(t)) => rows
            .iter()
            .map(|(no, f)| {
                let text = format!("{} {}", f[d], f[t]);
                NaiveDateTime::parse_from_str(&text, "%Y%m%d %H:%M:%S")
                    .map(|ndt| Utc.from_utc_datetime(&ndt).timestamp_micros())
                    .map_err(|_| {
                        anyhow!("{name}:{no}: '{text}' is not a dmon date and time (expected YYYYMMDD HH:MM:SS)")
                    })
            })
            .collect::<Result<_>>()?,
        _ => {
            // No -o DT: samples 1 s apart (dmon's default delay), the last at the fallback time.
            let (end, note) = fallback_time(name, path, opts.at, UntimedRows::DmonSamples)?;
            quality.notes.push(note);
            let mut count: BTreeMap<&str, i64> = BTreeMap::new();
            for (_, f) in rows {
                *count.entry(f[gpu].as_str()).or_default() += 1;
            }
            let mut seen: BTreeMap<&str, i64> = BTreeMap::new();
            rows.iter()
                .map(|(_, f)| {
                    let k = seen.entry(f[gpu].as_str()).or_default();
                    let total = count.get(f[gpu].as_str()).copied().unwrap_or(1);
                    let t = end - (total - 1 - *k) * crate::timeparse::US_PER_SECOND;
                    *k += 1;
                    t
                })
                .collect()
        }
    })
}

/// Read an `nvidia-smi dmon` log: sm -> device activity, pwr -> power, fb -> memory used.
pub fn read_dmon(name: &str, path: &Path, opts: &ReadOptions) -> Result<SampleTable> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
    // pmon shares dmon's look ('# gpu ... sm mem'), but its rows are processes.
    if text.lines().any(pmon::is_pmon_header) {
        return pmon::read_pmon(name, path, &text, opts);
    }
    let (h, rows) = dmon_rows(name, &text)?;
    let at = |n: &str| h.iter().position(|x| x == n);
    let gpu = at("gpu").context("dmon header without gpu")?;
    let number = |row: &[String], n: &str, scale: f64| -> Option<f64> {
        at(n).and_then(|i| {
            let v = &row[i];
            // Not a number: infinite, so normalisation counts it invalid.
            if is_missing_marker(v) {
                None
            } else {
                parse_number_text(v)
                    .map(|x| x * scale)
                    .or(Some(f64::INFINITY))
            }
        })
    };
    let mut quality = Quality::default();
    let times = dmon_times(
        name,
        path,
        opts,
        &rows,
        (at("date"), at("time")),
        gpu,
        &mut quality,
    )?;
    let mut cols = vec![
        Column::new(col::TIME.into(), times),
        Column::new(
            col::GPU.into(),
            rows.iter().map(|(_, f)| f[gpu].clone()).collect::<Vec<_>>(),
        ),
    ];
    for (source, canonical, scale) in [
        ("sm", col::DEVICE_UTIL, 0.01),
        ("pwr", col::POWER_W, 1.0),
        ("fb", col::MEM_USED_BYTES, MIB),
    ] {
        if at(source).is_some() {
            let v: Vec<Option<f64>> = rows.iter().map(|(_, f)| number(f, source, scale)).collect();
            cols.push(Column::new(canonical.into(), v));
        }
    }
    let frame = DataFrame::new_infer_height(cols)?;
    from_frame(name, frame, &opts.maps, quality)
}

/// Whether a first line is a dmon header.
pub fn looks_like_dmon(first_line: &str) -> bool {
    let l = first_line.trim_start();
    l.starts_with('#') && {
        let names: Vec<String> = l
            .trim_start_matches('#')
            .split_whitespace()
            .map(|s| s.to_ascii_lowercase())
            .collect();
        names.iter().any(|n| n == "gpu")
            && names.iter().any(|n| n == "sm" || n == "pwr" || n == "fb")
    }
}

/// Whether a first line is an nvidia-smi query CSV (header or noheader data).
pub fn looks_like_query_csv(first_line: &str) -> bool {
    let fields = split_fields(first_line);
    let names = [
        "utilization.gpu",
        "memory.used",
        "memory.total",
        "power.draw",
        "pci.bus_id",
        "temperature.gpu",
        "used_gpu_memory",
        "gpu_uuid",
    ];
    fields
        .iter()
        .any(|f| names.iter().any(|n| bare(f).eq_ignore_ascii_case(n)))
        || fields.first().is_some_and(|f| {
            f.len() >= 19 && f.as_bytes().get(4) == Some(&b'/') && parse_timestamp_str(f).is_some()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_units_and_row_checks() -> Result<()> {
        let log = parse_csv(
            "f.csv",
            "timestamp, index, utilization.gpu [%]\n2026/07/14 08:12:53.353, 0, 45 %\n",
            None,
        )?;
        assert_eq!(log.rows.len(), 1);
        assert_eq!(log.index(&["utilization.gpu"]), Some(2));
        let short = parse_csv(
            "f.csv",
            "timestamp, index, utilization.gpu [%]\n2026/07/14 08:12:53.353, 0\n",
            None,
        );
        assert!(
            short
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
                .starts_with("f.csv:2: 2 fields, expected 3")
        );
        let noheader = parse_csv("f.csv", "2026/07/14 08:12:53.353, 0, 45 %\n", None);
        assert!(
            noheader
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
                .contains("--columns")
        );
        let cols = vec![
            "timestamp".to_string(),
            "index".into(),
            "utilization.gpu".into(),
        ];
        let log = parse_csv("f.csv", "2026/07/14 08:12:53.353, 0, 45\n", Some(&cols))?;
        assert_eq!(log.rows.len(), 1);
        Ok(())
    }

    #[test]
    fn sniffing() {
        assert!(looks_like_dmon("# gpu    pwr  gtemp  mtemp     sm    mem"));
        assert!(looks_like_query_csv("timestamp, name, utilization.gpu [%]"));
        assert!(looks_like_query_csv(
            "2026/07/14 08:12:53.353, NVIDIA H100, 100 %"
        ));
        assert!(!looks_like_query_csv("time,gpu,device_util"));
    }
}
