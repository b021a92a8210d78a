//! Source adapters: every input format becomes the canonical sample table
//! through [`crate::samples::normalize`], one path for all of them.
use crate::samples::{Quality, SampleTable, UserMap, resolve_columns};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use polars::prelude::DataFrame;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod decode;
pub mod files;
mod filetime;
pub(crate) mod jobs;
pub mod live;
pub mod nvidia_smi;
pub(crate) mod partials;
pub mod prometheus;
pub mod queue;
pub mod stream;
pub mod wide;
pub mod write;

/// The formats gpuaudit reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    Parquet,
    Csv,
    Ndjson,
    /// Prometheus text exposition / OpenMetrics (a dcgm-exporter scrape)
    PromText,
    /// Prometheus HTTP API response (/api/v1/query, /api/v1/query_range)
    PromJson,
    /// nvidia-smi --query-gpu / --query-compute-apps CSV log
    NvidiaSmiCsv,
    /// nvidia-smi dmon log
    NvidiaSmiDmon,
    /// nvidia-smi -q -x snapshots
    NvidiaSmiXml,
}

impl InputFormat {
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Parquet => "parquet",
            InputFormat::Csv => "csv",
            InputFormat::Ndjson => "ndjson",
            InputFormat::PromText => "prometheus text",
            InputFormat::PromJson => "prometheus api json",
            InputFormat::NvidiaSmiCsv => "nvidia-smi csv",
            InputFormat::NvidiaSmiDmon => "nvidia-smi dmon",
            InputFormat::NvidiaSmiXml => "nvidia-smi xml",
        }
    }

    /// By extension; `None` when the extension does not say.
    pub fn from_extension(path: &Path) -> Option<InputFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "parquet" | "pq" => Some(InputFormat::Parquet),
            "csv" | "tsv" => Some(InputFormat::Csv),
            "ndjson" | "jsonl" => Some(InputFormat::Ndjson),
            "prom" | "metrics" | "om" => Some(InputFormat::PromText),
            "xml" => Some(InputFormat::NvidiaSmiXml),
            _ => None,
        }
    }

    /// By content, from the first bytes of the file.
    pub fn sniff(head: &[u8]) -> Option<InputFormat> {
        if head.starts_with(b"PAR1") {
            return Some(InputFormat::Parquet);
        }
        let text = String::from_utf8_lossy(head);
        if nvidia_smi::xml::looks_like_xml(&text) {
            return Some(InputFormat::NvidiaSmiXml);
        }
        if prometheus::json::looks_like_response(&text) {
            return Some(InputFormat::PromJson);
        }
        let first = text.lines().find(|l| !l.trim().is_empty())?.trim_start();
        if nvidia_smi::looks_like_dmon(first) {
            return Some(InputFormat::NvidiaSmiDmon);
        }
        if prometheus::text::looks_like_exposition(first) {
            return Some(InputFormat::PromText);
        }
        if nvidia_smi::looks_like_query_csv(first) {
            return Some(InputFormat::NvidiaSmiCsv);
        }
        if first.starts_with('{') || first.starts_with('[') {
            return Some(InputFormat::Ndjson);
        }
        if first.contains(',') {
            return Some(InputFormat::Csv);
        }
        None
    }
}

/// Plain options for reading (no clap inside).
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    pub format: Option<InputFormat>,
    pub maps: Vec<UserMap>,
    pub quiet: bool,
    /// time for scrape samples and snapshots without timestamps (else the file's mtime)
    pub at: Option<i64>,
    /// label naming the job in scrapes and API responses (default: the workload's pod, else hpc_job)
    pub job_label: Option<String>,
    /// label naming the team (default: the workload's namespace)
    pub team_label: Option<String>,
    /// how far apart samples of different metrics of one GPU may be stamped and still form one row
    pub align_us: Option<i64>,
    /// column names of a noheader nvidia-smi log
    pub columns: Option<Vec<String>>,
    /// --held-mem: sources that list processes hold a GPU with none visible
    /// above this (None: the audit's default)
    pub held_mem_bytes: Option<u64>,
}

impl ReadOptions {
    /// --held-mem in bytes, or the audit's default.
    pub fn held_mem(&self) -> u64 {
        self.held_mem_bytes
            .unwrap_or(crate::audit::held::DEFAULT_HELD_MEM_BYTES)
    }
}

/// One input as the user named it, resolved to what will be read.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Stdin,
    File(PathBuf),
    /// a directory of parquet files, hive partitions allowed: one dataset
    ParquetDir(PathBuf),
}

/// Expand the user's paths and globs; a glob that matches nothing is an error.
pub fn resolve_inputs(specs: &[String]) -> Result<Vec<(String, Input)>> {
    let mut out = Vec::new();
    for spec in specs {
        if spec == "-" {
            out.push((spec.clone(), Input::Stdin));
            continue;
        }
        let path = PathBuf::from(spec);
        if path.is_dir() {
            files::check_dir(spec, &path)?;
            out.push((spec.clone(), Input::ParquetDir(path)));
            continue;
        }
        // a link to nowhere (or to itself) says so, not "no such file"
        if std::fs::symlink_metadata(&path).is_ok()
            && let Err(e) = std::fs::metadata(&path)
        {
            bail!("{spec}: a symbolic link that cannot be followed: {e}");
        }
        if path.exists() {
            out.push((spec.clone(), Input::File(path)));
            continue;
        }
        if spec.contains(['*', '?', '[']) {
            let mut matched = 0;
            for entry in
                glob::glob(spec).with_context(|| format!("{spec}: not a valid glob pattern"))?
            {
                let p = entry.with_context(|| format!("{spec}: cannot read a match"))?;
                matched += 1;
                let input = if p.is_dir() {
                    Input::ParquetDir(p.clone())
                } else {
                    Input::File(p.clone())
                };
                out.push((p.display().to_string(), input));
            }
            if matched == 0 {
                bail!("{spec}: the pattern matches no file");
            }
            continue;
        }
        bail!("{spec}: no such file or directory");
    }
    Ok(out)
}

/// Decide the format of one file: the override, else the extension, else its content.
pub fn format_of(path: &Path, forced: Option<InputFormat>) -> Result<InputFormat> {
    if let Some(f) = forced {
        return Ok(f);
    }
    if let Some(f) = InputFormat::from_extension(path) {
        // nvidia-smi logs are .csv too: their header (or timestamp) tells.
        if f == InputFormat::Csv {
            let head = files::read_head(path, 4096)?;
            if InputFormat::sniff(&head) == Some(InputFormat::NvidiaSmiCsv) {
                return Ok(InputFormat::NvidiaSmiCsv);
            }
        }
        return Ok(f);
    }
    let head = files::read_head(path, 4096)?;
    InputFormat::sniff(&head).with_context(|| {
        format!(
            "{}: cannot tell the format from the extension or the content (expected parquet, csv, ndjson, a Prometheus scrape or API response, or an nvidia-smi log; use --input-format)",
            path.display()
        )
    })
}

fn progress(quiet: bool, bytes: u64) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::with_draw_target(Some(bytes), ProgressDrawTarget::hidden())
    } else {
        // indicatif hides itself when stderr is not a terminal.
        ProgressBar::new(bytes)
    };
    // bytes of the files, and the rows read so far in the message
    let style = ProgressStyle::with_template(
        "{spinner} reading {bar:30} {bytes}/{total_bytes} {wide_msg} [{elapsed}]",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// Read every input into one canonical sample table.
pub fn load(specs: &[String], opts: &ReadOptions) -> Result<SampleTable> {
    let inputs = resolve_inputs(specs)?;
    let size = |i: &Input| match i {
        Input::File(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
        _ => 0,
    };
    let bar = progress(opts.quiet, inputs.iter().map(|(_, i)| size(i)).sum());
    let mut rows = 0usize;
    let mut tables = Vec::with_capacity(inputs.len());
    // Scrapes and API responses join across files (one metric per file), and
    // compute-apps logs join the query-gpu log they belong to: read them together.
    let mut prom = Vec::new();
    let mut smi_csv = Vec::new();
    for (name, input) in &inputs {
        bar.set_message(format!("{name} ({rows} rows so far)"));
        let before = tables.len();
        if let Input::File(path) = input
            && opts.format.is_none()
            && files::is_compressed(path)?
        {
            tables.push(files::read_compressed(name, path, &opts.maps)?);
        } else if let Input::File(path) = input {
            let format = format_of(path, opts.format)?;
            match format {
                InputFormat::PromText | InputFormat::PromJson => {
                    prom.push((name.clone(), path.clone(), format))
                }
                InputFormat::NvidiaSmiCsv => smi_csv.push((name.clone(), path.clone(), format)),
                _ => tables.push(read_input(name, input, opts)?),
            }
        } else {
            tables.push(read_input(name, input, opts)?);
        }
        rows += tables[before..]
            .iter()
            .map(|t| t.df.height())
            .sum::<usize>();
        bar.inc(size(input));
    }
    if !prom.is_empty() {
        tables.push(prometheus::read_files(&prom, opts)?);
    }
    if !smi_csv.is_empty() {
        tables.extend(nvidia_smi::read_csv_files(&smi_csv, opts)?);
    }
    bar.finish_and_clear();
    let table = SampleTable::concat(tables)?;
    crate::samples::check_maps(&table.quality.maps_found, &opts.maps, &table.sources)?;
    Ok(table)
}

/// Read one input into a canonical table.
pub fn read_input(name: &str, input: &Input, opts: &ReadOptions) -> Result<SampleTable> {
    match input {
        Input::Stdin => files::read_stdin(name, &opts.maps),
        Input::ParquetDir(dir) => files::read_tabular(name, dir, InputFormat::Parquet, &opts.maps),
        Input::File(path) if opts.format.is_none() && files::is_compressed(path)? => {
            files::read_compressed(name, path, &opts.maps)
        }
        Input::File(path) => {
            let format = format_of(path, opts.format)?;
            match format {
                InputFormat::Parquet | InputFormat::Csv | InputFormat::Ndjson => {
                    files::read_tabular(name, path, format, &opts.maps)
                }
                InputFormat::PromText | InputFormat::PromJson => {
                    prometheus::read_files(&[(name.to_string(), path.clone(), format)], opts)
                }
                InputFormat::NvidiaSmiCsv => {
                    let mut tables = nvidia_smi::read_csv_files(
                        &[(name.to_string(), path.clone(), format)],
                        opts,
                    )?;
                    tables.pop().with_context(|| format!("{name}: no samples"))
                }
                InputFormat::NvidiaSmiDmon => nvidia_smi::read_dmon(name, path, opts),
                InputFormat::NvidiaSmiXml => nvidia_smi::xml::read_xml(name, path, opts),
            }
        }
    }
}

/// Turn a whole source frame into a canonical table (for adapters that build
/// their frame in memory: stdin, scrapes, API responses, nvidia-smi logs).
pub fn from_frame(
    name: &str,
    frame: DataFrame,
    maps: &[UserMap],
    extra: Quality,
) -> Result<SampleTable> {
    let columns: Vec<String> = frame
        .get_column_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    let resolved = resolve_columns(&columns, maps);
    let rows_read = frame.height() as u64;
    let twins = crate::samples::twins(&columns, &resolved);
    crate::samples::check_twins(&frame, &resolved, &twins, name)?;
    let (df, mut quality, decided) = crate::samples::normalize_deciding(&frame, &resolved, name)?;
    quality.merge(extra);
    quality.maps_found = crate::samples::maps_found(&columns, maps);
    let present = resolved
        .iter()
        .map(|r| r.canonical)
        .chain([crate::samples::col::HOST])
        .collect();
    Ok(SampleTable {
        df,
        present,
        quality,
        sources: vec![name.to_string()],
        rows_read,
        decided,
    })
}
