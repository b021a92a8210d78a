//! The one place that chooses how a report is computed and runs source →
//! audit → Report: a parquet dataset streamed in bounded memory, other files
//! (or unsorted parquet) in memory, a live Prometheus pulled or summed inside
//! it (`--pushdown`), or a table sampled live through NVML (`scan`). Its
//! options are plain structs; `cmd/` turns clap arguments into them once.
pub(crate) mod progress;
pub mod scan;

use crate::audit::AuditConfig;
use crate::audit::mfu::DeclaredJobs;
use crate::audit::model::Report;
use crate::samples::SampleTable;
use crate::source::prometheus::http::{Auth, Client, ClientOptions};
use crate::source::prometheus::live::{self as prometheus_live, LiveQuery};
use crate::source::prometheus::pushdown as prometheus_pushdown;
use crate::source::{Input, InputFormat, ReadOptions};
use crate::timeparse::TimeSpec;
use anyhow::{Context, Result, bail};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to audit, from where, and how.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    pub origin: Origin,
    pub read: ReadOptions,
    pub audit: AuditOptions,
    /// no progress bars
    pub quiet: bool,
}

/// Where the samples come from.
#[derive(Debug, Clone)]
pub enum Origin {
    /// files, directories, globs or `-`, as the user named them
    Files(Vec<String>),
    Prometheus(PrometheusOptions),
    /// an engine's partial sums (`gpuaudit sql`'s answer)
    Partials(PathBuf),
    /// `gpuaudit sql`'s query run by an engine over HTTP (ClickHouse, Trino)
    SqlEngine(crate::source::sqlhttp::EngineQuery),
}

/// A live Prometheus and how to query it, typed.
#[derive(Debug, Clone)]
pub struct PrometheusOptions {
    pub url: String,
    /// the evaluation step, microseconds (positive)
    pub step_us: i64,
    pub selector: Option<String>,
    pub hosts_per_query: usize,
    /// requests in flight at once (1..=64)
    pub concurrency: usize,
    /// sum inside Prometheus instead of pulling every sample
    pub pushdown: bool,
    /// read pending pods from kube-state-metrics on the server
    pub queue: bool,
    pub auth: Auth,
    /// per-request timeout (positive)
    pub timeout: Duration,
    pub retries: u32,
    /// gzip or plain answers
    pub compression: crate::source::prometheus::http::Compression,
    /// a file every request is appended to (tests and tuning; None: no trace)
    pub trace: Option<PathBuf>,
}

/// The audit's options, typed at the door: every setting in the audit's own
/// configuration, but --since/--until, which wait for the data's end (a
/// span counts back from it) and are resolved here, and the jobs file.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    pub(crate) config: AuditConfig,
    pub since: Option<TimeSpec>,
    pub until: Option<TimeSpec>,
    /// a jobs file declaring each job's work (MFU, kinds)
    pub jobs: Option<PathBuf>,
}

/// The report for a request: the one choice of how it is computed.
pub fn report(req: &ReportRequest) -> Result<Report> {
    match &req.origin {
        Origin::Prometheus(p) => prometheus_report(p, req),
        Origin::Partials(path) => partials_report(path, &req.audit),
        Origin::SqlEngine(q) => {
            let cfg = audit_config(&req.audit, &|_| Ok(None))?;
            let (answer, server) = crate::source::sqlhttp::fetch(q)?;
            crate::source::partials::report_frame(&answer, &server, &cfg)
        }
        Origin::Files(inputs) => {
            let jobs = declared_jobs(req.audit.jobs.as_deref())?;
            let mut inputs = crate::source::resolve_inputs(inputs)?;
            let bound = req
                .read
                .stream_text_above
                .unwrap_or(crate::source::DEFAULT_STREAM_TEXT_ABOVE);
            // a pipe is read once: whole when it fits the bound, else to a temporary file
            let _stdin = crate::source::spool::read_stdin_once(&mut inputs, bound)?;
            // CSV/NDJSON above the bound stream through a parquet spool
            let spooled = crate::source::spool::spool_inputs(&inputs, &req.read, bound)?;
            let mut read = req.read.clone();
            if let Some(s) = &spooled {
                inputs = s.inputs.clone();
                read.format = None; // the spools are parquet
            }
            let text_rows = spooled.as_ref().map(|s| s.rows);
            // Parquet datasets stream through the audit in bounded memory (a jobs file too).
            if let Some(mut report) = streamed(&inputs, req, &read, jobs.as_ref())? {
                report.sources.text_rows_streamed = text_rows;
                return Ok(report);
            }
            let table = crate::source::load_inputs(&inputs, &read)?;
            let mut cfg = audit_config_for(&req.audit, &table)?;
            cfg.align_us = req.read.align_us.unwrap_or(0);
            let mut report = crate::audit::audit_with_jobs(&table, &cfg, jobs.as_ref())?;
            report.sources.text_rows_streamed = text_rows;
            Ok(report)
        }
    }
}

/// The report from an engine's partial sums: the query decided the window,
/// weights, held and idle (cmd/ refuses the options that would change them).
fn partials_report(path: &Path, opts: &AuditOptions) -> Result<Report> {
    let cfg = audit_config(opts, &|_| Ok(None))?;
    crate::source::partials::report(path, &cfg)
}

/// The report of a table sampled live (`scan`); `interval_us` overrides the
/// weight of a GPU's last sample (a scan's tick, unless --interval was given).
pub fn sampled_report(
    table: &SampleTable,
    opts: &AuditOptions,
    interval_us: Option<i64>,
) -> Result<Report> {
    let mut cfg = audit_config_for(opts, table)?;
    if let Some(ms) = interval_us {
        cfg.weights.interval_us = Some(ms);
    }
    crate::audit::audit(table, &cfg)
}

/// The streaming audit of a parquet dataset; None when the inputs are not all
/// parquet, or their samples are not in time order (then the in-memory path sorts them).
fn streamed(
    inputs: &[(String, Input)],
    req: &ReportRequest,
    read: &ReadOptions,
    jobs: Option<&DeclaredJobs>,
) -> Result<Option<Report>> {
    let forced_other = read.format.is_some_and(|f| f != InputFormat::Parquet);
    let Some(stream) = crate::source::stream::ParquetStream::open_sliced(
        inputs,
        &read.maps,
        forced_other,
        read.slice_rows,
        req.audit.config.threads,
    )?
    else {
        return Ok(None);
    };
    let mut cfg = match audit_config(&req.audit, &|cfg| {
        let streamed = crate::audit::AuditConfig {
            streamed: true,
            ..cfg.clone()
        };
        crate::audit::engine::window_end(&stream, &streamed)
    }) {
        Ok(cfg) => cfg,
        // not in time order, or GPU ids that need the whole table: read in memory
        Err(e) if needs_memory(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    cfg.align_us = read.align_us.unwrap_or(0);
    cfg.streamed = true;
    // Decoding the next slice while this one is audited keeps a second slice
    // alive: on by default only when no slice is over READ_AHEAD_MAX_SLICE_ROWS,
    // so peak memory stays under 1 GiB. `read.read_ahead` overrides the
    // choice (tuning and benchmarks).
    let read_ahead = read.read_ahead.unwrap_or_else(|| {
        cfg.threads > 1
            && stream.largest_slice() <= crate::source::stream::READ_AHEAD_MAX_SLICE_ROWS
    });
    let stream = stream.with_read_ahead(read_ahead);
    let bytes = inputs
        .iter()
        .filter_map(|(_, i)| match i {
            Input::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            _ => None,
        })
        .sum();
    // a jobs file: two passes for each job's held time, before the audit's two
    let passes = if jobs.is_some() { 4 } else { 2 };
    let progressed = progress::Progressed::new(&stream, req.quiet, bytes, passes);
    let result = crate::audit::audit_chunks_with_jobs(&progressed, &cfg, jobs);
    progressed.finish();
    match result {
        Ok(r) => Ok(Some(r)),
        Err(e) if needs_memory(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// `convert`: the canonical sample table of the inputs written to `out` as
/// parquet. Parquet, CSV and NDJSON stream (text through its spool, whatever
/// its size), their units and never-measured columns decided on the whole
/// input and stray samples left out, as the audit reads them; other inputs
/// (scrapes, nvidia-smi logs) are read whole. Returns the rows written.
pub fn convert(specs: &[String], read: &ReadOptions, out: &Path) -> Result<u64> {
    use crate::audit::ChunkSource;
    let mut inputs = crate::source::resolve_inputs(specs)?;
    let _stdin = crate::source::spool::read_stdin_once(&mut inputs, 0)?;
    let spooled = crate::source::spool::spool_inputs(&inputs, read, 0)?;
    let mut read = read.clone();
    if let Some(s) = &spooled {
        inputs = s.inputs.clone();
        read.format = None;
    }
    let forced_other = read.format.is_some_and(|f| f != InputFormat::Parquet);
    let Some(stream) = crate::source::stream::ParquetStream::open_sliced(
        &inputs,
        &read.maps,
        forced_other,
        read.slice_rows,
        default_threads(),
    )?
    else {
        let table = crate::source::load_inputs(&inputs, &read)?;
        crate::source::write::write_samples(&table.df, out)?;
        return Ok(table.df.height() as u64);
    };
    // every chunk with every column some input has, in canonical order
    let columns: Vec<(&str, polars::prelude::DataType)> = crate::samples::COLUMNS
        .iter()
        .filter(|(name, _)| stream.has(name))
        .map(|(name, kind)| (*name, crate::samples::dtype_of(*kind)))
        .collect();
    let schema: polars::prelude::Schema = columns
        .iter()
        .map(|(n, dt)| polars::prelude::Field::new((*n).into(), dt.clone()))
        .collect();
    let mut sink = crate::source::write::ParquetSink::create(out, &schema)?;
    let mut rows = 0u64;
    stream.for_each_chunk(false, &mut |chunk| {
        let height = chunk.height();
        let cols = columns
            .iter()
            .map(|(name, dt)| match chunk.column(name) {
                Ok(c) => Ok(c.cast(dt)?),
                Err(_) => Ok(polars::prelude::Column::full_null(
                    (*name).into(),
                    height,
                    dt,
                )),
            })
            .collect::<Result<Vec<_>>>()?;
        sink.write(&polars::prelude::DataFrame::new(height, cols)?)?;
        rows += height as u64;
        Ok(())
    })?;
    sink.finish()?;
    Ok(rows)
}

/// A streamed audit that must be redone in memory: samples out of time order
/// (the in-memory path sorts them) or GPU ids that need the whole table.
fn needs_memory(e: &anyhow::Error) -> bool {
    e.downcast_ref::<crate::audit::engine::OutOfOrder>()
        .is_some()
        || e.downcast_ref::<crate::samples::NeedsWholeTable>()
            .is_some()
}

/// The default start of a live query's window: 7 days back from now.
const DEFAULT_LIVE_SPAN_US: i64 = 7 * crate::timeparse::US_PER_DAY;

fn client(p: &PrometheusOptions) -> Result<Client> {
    let opts = ClientOptions {
        timeout: p.timeout,
        retries: p.retries,
        auth: p.auth.clone(),
        compression: p.compression,
        trace: p.trace.clone(),
    };
    Client::new(&p.url, &opts)
}

/// A live Prometheus: the window from now, then the pulled audit or the pushdown.
fn prometheus_report(p: &PrometheusOptions, req: &ReportRequest) -> Result<Report> {
    let now = chrono::Utc::now().timestamp_micros();
    let until = req.audit.until.unwrap_or(TimeSpec::Now).against_clock(now);
    let since = (req.audit.since)
        .unwrap_or(TimeSpec::Back(DEFAULT_LIVE_SPAN_US))
        .against_clock(now);
    let mut q = LiveQuery::new(
        since,
        until,
        p.step_us,
        p.selector.as_deref(),
        p.hosts_per_query,
    )?;
    q.concurrency = p.concurrency;
    let mut client = client(p)?;
    let live_queue = if p.queue {
        let step = q.step_us;
        let (since, until) = (q.since_us, q.until_us);
        let queue = crate::source::queue::kube::from_prometheus(&mut client, since, until, step)?;
        Some(queue)
    } else {
        None
    };
    // The window is applied by the query itself: the audit must not count back from the data.
    let audit = AuditOptions {
        since: None,
        until: None,
        ..req.audit.clone()
    };
    if p.pushdown {
        let mut cfg = audit_config_for(&audit, &SampleTable::concat(Vec::new())?)?;
        cfg.since = Some(q.since_us);
        cfg.until = Some(q.until_us);
        with_live_queue(&mut cfg, live_queue);
        return prometheus_pushdown::report(
            &mut client,
            &q,
            &cfg,
            req.read.job_label.as_deref(),
            req.read.team_label.as_deref(),
        );
    }
    let table = prometheus_live::load(&mut client, &q, &req.read)?;
    let mut cfg = audit_config_for(&audit, &table)?;
    cfg.since = Some(q.since_us);
    cfg.until = Some(q.until_us);
    with_live_queue(&mut cfg, live_queue);
    let jobs = declared_jobs(req.audit.jobs.as_deref())?;
    crate::audit::audit_with_jobs(&table, &cfg, jobs.as_ref())
}

/// The requests read live (`--prom-queue`) beside those of `--queue` files.
fn with_live_queue(cfg: &mut AuditConfig, live: Option<crate::source::queue::Queue>) {
    if let Some(live) = live {
        let queue = cfg.purchase.queue.get_or_insert_with(Default::default);
        queue.requests.extend(live.requests);
        queue.notes.extend(live.notes);
    }
}

/// `--jobs FILE`: the declarations, an input of the audit (which computes
/// each job's MFU and says in the report what it could not); None without one.
pub fn declared_jobs(file: Option<&Path>) -> Result<Option<DeclaredJobs>> {
    let Some(path) = file else { return Ok(None) };
    let file = crate::source::jobs::read_jobs(path)?;
    Ok(Some(DeclaredJobs {
        label: path.display().to_string(),
        decls: file.declarations,
        kinds: file.kinds,
    }))
}

/// The audit's configuration for a table in memory: relative --since/--until
/// count back from the end of its data, so a report on an old dump means the
/// same thing every time.
pub fn audit_config_for(opts: &AuditOptions, table: &SampleTable) -> Result<AuditConfig> {
    audit_config(opts, &|cfg| {
        crate::audit::engine::window_end(&crate::audit::TableChunks::new(table)?, cfg)
    })
}

/// The same, for a source whose window's end is found when asked (a
/// streamed dataset: one pass over its keys, docs/semantics.md §2).
pub fn audit_config(
    opts: &AuditOptions,
    data_end: &dyn Fn(&AuditConfig) -> Result<Option<i64>>,
) -> Result<AuditConfig> {
    let mut cfg = opts.config.clone();
    // spans count back from the window's end, which the weights set (max gap, interval)
    let needs_anchor = [opts.since, opts.until]
        .iter()
        .any(|t| t.is_some_and(TimeSpec::is_relative));
    let anchor = if needs_anchor { data_end(&cfg)? } else { None };
    if let Some(s) = opts.since {
        cfg.since = Some(
            s.against_data(anchor)
                .context("the window's start (since)")?,
        );
    }
    if let Some(u) = opts.until {
        cfg.until = Some(u.against_data(anchor).context("the window's end (until)")?);
    }
    if let (Some(s), Some(u)) = (cfg.since, cfg.until)
        && s >= u
    {
        bail!("the window is empty: its start (since) must be before its end (until)");
    }
    Ok(cfg)
}

/// Every core the process may run on (1 when that cannot be told).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
