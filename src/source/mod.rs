//! Source adapters: every input format becomes the canonical sample table
//! through [`crate::samples::normalize`], one path for all of them.
use crate::samples::{Quality, SampleTable, UserMap, resolve_columns};
use anyhow::{Context, Result, bail};
use indicatif::ProgressBar;
use polars::prelude::DataFrame;
use std::path::PathBuf;
use std::time::Duration;

pub mod amd;
mod column_stats;
mod decode;
pub mod files;
mod filetime;
pub mod format;
pub mod gaudi;
pub mod intel;
pub(crate) mod jobs;
pub mod live;
pub mod nvidia_smi;
pub mod otel;
pub(crate) mod partials;
pub mod prometheus;
pub mod queue;
pub mod spool;
pub mod sqlhttp;
pub mod stream;
pub mod wide;
pub mod write;

pub use format::{Format, InputFormat, format_of};

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
    /// CSV/NDJSON above this many bytes in all are streamed in blocks, not
    /// read whole (None: [`DEFAULT_STREAM_TEXT_ABOVE`])
    pub stream_text_above: Option<u64>,
    /// decode the next parquet slice while one is audited (None: chosen by
    /// the slices' size)
    pub read_ahead: Option<bool>,
    /// rows per parquet slice (None: [`stream::SLICE_ROWS`])
    pub slice_rows: Option<usize>,
    /// bytes of text parsed at once when spooled (None: the spool's block)
    pub text_block_bytes: Option<usize>,
}

/// The memory bound for text inputs: a CSV read whole takes about three
/// times its size in memory, so above 128 MiB it is streamed instead.
pub const DEFAULT_STREAM_TEXT_ABOVE: u64 = 128 << 20;

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
    /// standard input already read whole (it fit the memory bound)
    Bytes(std::sync::Arc<Vec<u8>>),
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

fn progress(quiet: bool, bytes: u64) -> ProgressBar {
    // bytes of the files, and the rows read so far in the message
    let bar = crate::progress::bar(
        quiet,
        Some(bytes),
        "{spinner} reading {bar:30} {bytes}/{total_bytes} {wide_msg} [{elapsed}]",
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// Read every input into one canonical sample table.
#[allow(dead_code)] // the readers' own tests name their files
pub fn load(specs: &[String], opts: &ReadOptions) -> Result<SampleTable> {
    load_inputs(&resolve_inputs(specs)?, opts)
}

/// [`load`] on inputs already resolved (standard input perhaps read already).
pub fn load_inputs(inputs: &[(String, Input)], opts: &ReadOptions) -> Result<SampleTable> {
    let size = |i: &Input| match i {
        Input::File(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
        _ => 0,
    };
    let bar = progress(opts.quiet, inputs.iter().map(|(_, i)| size(i)).sum());
    let mut rows = 0usize;
    let mut tables = Vec::with_capacity(inputs.len());
    // Formats that share a batch key are read together: scrapes and API
    // responses join across files (one metric per file), and compute-apps logs
    // join the query-gpu log they belong to.
    let mut batches: Vec<(&'static str, &'static dyn Format, Vec<format::InputFile>)> = Vec::new();
    for (name, input) in inputs {
        bar.set_message(format!("{name} ({rows} rows so far)"));
        let before = tables.len();
        if let Input::File(path) = input
            && opts.format.is_none()
            && files::is_compressed(path)?
        {
            tables.push(files::read_compressed(name, path, &opts.maps)?);
        } else if let Input::File(path) = input {
            let format = format_of(path, opts.format)?;
            let def = registered(format)?;
            let file = (name.clone(), path.clone(), format);
            match def.batch() {
                Some(key) => match batches.iter_mut().find(|b| b.0 == key) {
                    Some(b) => b.2.push(file),
                    None => batches.push((key, def, vec![file])),
                },
                None => tables.extend(def.read(&[file], opts)?),
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
    for (_, def, batch) in &batches {
        tables.extend(def.read(batch, opts)?);
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
        Input::Bytes(bytes) => files::read_stdin_bytes(name, bytes.to_vec(), &opts.maps),
        Input::ParquetDir(dir) => files::read_tabular(name, dir, InputFormat::Parquet, &opts.maps),
        Input::File(path) if opts.format.is_none() && files::is_compressed(path)? => {
            files::read_compressed(name, path, &opts.maps)
        }
        Input::File(path) => {
            let format = format_of(path, opts.format)?;
            let tables =
                registered(format)?.read(&[(name.to_string(), path.clone(), format)], opts)?;
            format::one_table(name, tables)
        }
    }
}

/// The registered format of an id (every id in use is registered).
fn registered(format: InputFormat) -> Result<&'static dyn Format> {
    format
        .def()
        .with_context(|| format!("input format '{}' is not registered", format.0))
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
