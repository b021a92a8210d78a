//! The one place that chooses how a report is computed and runs source →
//! audit → Report: a parquet dataset streamed in bounded memory, other files
//! (or unsorted parquet) in memory, a live Prometheus pulled or summed inside
//! it (`--pushdown`), or a table sampled live through NVML (`scan`). Its
//! options are plain structs; `cmd/` turns clap arguments into them once.
pub(crate) mod progress;
pub mod scan;

use crate::audit::mfu::DeclaredJobs;
use crate::audit::model::Report;
use crate::audit::{AuditConfig, GroupBy};
use crate::catalog::prices::PriceBook;
use crate::samples::SampleTable;
use crate::source::prometheus::http::{Auth, Client, ClientOptions};
use crate::source::prometheus::live::{self as prometheus_live, LiveQuery};
use crate::source::prometheus::pushdown as prometheus_pushdown;
use crate::source::{Input, InputFormat, ReadOptions};
use crate::timeparse::{is_relative, parse_cli_time, parse_duration_us, parse_size_bytes};
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
}

/// A live Prometheus and how to query it, as given.
#[derive(Debug, Clone)]
pub struct PrometheusOptions {
    pub url: String,
    /// the evaluation step (a duration)
    pub step: String,
    pub selector: Option<String>,
    pub hosts_per_query: usize,
    /// requests in flight at once (a whole number, as given)
    pub concurrency: String,
    /// sum inside Prometheus instead of pulling every sample
    pub pushdown: bool,
    /// read pending pods from kube-state-metrics on the server (`--prom-queue`)
    pub queue: bool,
    pub token: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    /// per-request timeout (a duration)
    pub timeout: String,
    pub retries: u32,
    /// gzip or plain answers
    pub compression: crate::source::prometheus::http::Compression,
}

/// The audit's options as given on the command line (durations, sizes and
/// times still text): they become an [`AuditConfig`] once the data's end is
/// known, since a relative --since/--until counts back from it.
#[derive(Debug, Clone, Default)]
pub struct AuditOptions {
    pub since: Option<String>,
    pub until: Option<String>,
    pub max_gap: Option<String>,
    pub interval: Option<String>,
    pub idle_below: String,
    pub min_idle: String,
    pub held_mem: String,
    pub assume_held: bool,
    pub price: Option<f64>,
    pub prices: Option<PathBuf>,
    pub no_builtin_prices: bool,
    pub by: Option<GroupBy>,
    pub top: Option<usize>,
    pub bucket: Option<String>,
    pub leak_thresholds: Option<PathBuf>,
    pub want: Option<u32>,
    /// `--queue` files: scheduler queues whose waiting requests are demand
    pub queue: Vec<PathBuf>,
    /// the zone of sacct times printed without one (`--queue-tz`; None: UTC)
    pub queue_tz: Option<String>,
    /// `--min-window` (a duration; empty: 24 h)
    pub min_window: String,
    /// `--own-cost` as given
    pub own_cost: Option<String>,
    /// a jobs file declaring each job's work (MFU, kinds)
    pub jobs: Option<PathBuf>,
    /// audit workers (None: every core)
    pub threads: Option<usize>,
}

/// The report for a request: the one choice of how it is computed.
pub fn report(req: &ReportRequest) -> Result<Report> {
    match &req.origin {
        Origin::Prometheus(p) => prometheus_report(p, req),
        Origin::Partials(path) => partials_report(path, &req.audit),
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
/// weights, held and idle; a flag that would change them here is refused.
fn partials_report(path: &Path, opts: &AuditOptions) -> Result<Report> {
    let given = [
        ("--since", opts.since.is_some()),
        ("--until", opts.until.is_some()),
        ("--max-gap", opts.max_gap.is_some()),
        ("--interval", opts.interval.is_some()),
        ("--assume-held", opts.assume_held),
        ("--jobs", opts.jobs.is_some()),
        ("--bucket", opts.bucket.is_some()),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, on)| *on) {
        bail!(
            "{flag} cannot change partial sums: give it to `gpuaudit sql`, which computed {}",
            path.display()
        );
    }
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
        cfg.interval_us = Some(ms);
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
    let Some(stream) =
        crate::source::stream::ParquetStream::open(inputs, &read.maps, forced_other)?
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
    // so peak memory stays under 1 GiB. GPUAUDIT_READ_AHEAD=0/1 overrides the
    // choice (tuning and benchmarks).
    let read_ahead = match std::env::var("GPUAUDIT_READ_AHEAD").as_deref() {
        Ok("0") => false,
        Ok("1") => true,
        _ => {
            cfg.threads > 1
                && stream.largest_slice() <= crate::source::stream::READ_AHEAD_MAX_SLICE_ROWS
        }
    };
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
    let Some(stream) =
        crate::source::stream::ParquetStream::open(&inputs, &read.maps, forced_other)?
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

/// The default window of a live query: the last 7 days.
const DEFAULT_SINCE: &str = "7d";

/// A live --since/--until: RFC 3339, a date, `now`, or a span back from NOW
/// (unlike files, where a span counts back from the end of the data).
fn live_time(text: &str, now_us: i64) -> Result<i64> {
    if text.trim().eq_ignore_ascii_case("now") {
        return Ok(now_us);
    }
    parse_cli_time(text, Some(now_us))
}

fn client(p: &PrometheusOptions) -> Result<Client> {
    let auth = match (&p.token, &p.user) {
        (Some(_), Some(_)) => {
            bail!("give either a bearer token (--prom-token) or basic auth (--prom-user), not both")
        }
        (Some(t), None) => Auth::Bearer(t.trim().to_string()),
        (None, Some(u)) => Auth::Basic {
            user: u.clone(),
            password: p.password.clone().unwrap_or_default(),
        },
        (None, None) => Auth::None,
    };
    let timeout = parse_duration_us(&p.timeout).context("--prom-timeout")?;
    if timeout <= 0 {
        bail!("--prom-timeout must be positive");
    }
    let opts = ClientOptions {
        timeout: Duration::from_micros(timeout as u64),
        retries: p.retries,
        auth,
        compression: p.compression,
    };
    Client::new(&p.url, &opts)
}

/// A live Prometheus: the window from now, then the pulled audit or the pushdown.
fn prometheus_report(p: &PrometheusOptions, req: &ReportRequest) -> Result<Report> {
    let now = chrono::Utc::now().timestamp_micros();
    let until = live_time(req.audit.until.as_deref().unwrap_or("now"), now).context("--until")?;
    let since =
        live_time(req.audit.since.as_deref().unwrap_or(DEFAULT_SINCE), now).context("--since")?;
    let step = parse_duration_us(&p.step).context("--step")?;
    let mut q = LiveQuery::new(since, until, step, p.selector.as_deref(), p.hosts_per_query)?;
    q.concurrency = parse_count("--prom-concurrency", &p.concurrency, 64)?;
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
        if req.audit.jobs.is_some() {
            bail!("--jobs needs each job's samples: it cannot be combined with --pushdown");
        }
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
        let queue = cfg.queue.get_or_insert_with(Default::default);
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
        label: format!("--jobs {}", path.display()),
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
    let prices = PriceBook::new(opts.price, opts.prices.as_deref(), !opts.no_builtin_prices)?;
    let mut cfg = AuditConfig::new(prices);
    cfg.max_gap_us = positive_duration(opts.max_gap.as_deref(), "--max-gap")?;
    cfg.interval_us = positive_duration(opts.interval.as_deref(), "--interval")?;
    cfg.idle_below = crate::units::parse_share("--idle-below", &opts.idle_below)?;
    cfg.min_idle_us = parse_duration_us(&opts.min_idle).context("--min-idle")?;
    cfg.held_mem_bytes = parse_size_bytes(&opts.held_mem).context("--held-mem")?;
    cfg.assume_held = opts.assume_held;
    cfg.by = opts.by;
    cfg.top = opts.top;
    cfg.bucket_us = positive_duration(opts.bucket.as_deref(), "--bucket")?;
    if let Some(path) = &opts.leak_thresholds {
        cfg.leak_thresholds = crate::audit::diagnosis::LeakThresholds::from_file(path)
            .context("--leak-thresholds")?;
    }
    cfg.want = opts.want;
    let zone = crate::source::queue::parse_zone(opts.queue_tz.as_deref().unwrap_or("UTC"))?;
    cfg.queue = crate::source::queue::read_queues(&opts.queue, zone)?;
    if !opts.min_window.is_empty() {
        let us = positive_duration(Some(&opts.min_window), "--min-window")?.unwrap_or(0);
        cfg.min_window_hours = us as f64 / crate::audit::interval::TICKS_PER_HOUR;
    }
    cfg.own_cost = opts
        .own_cost
        .as_deref()
        .map(crate::catalog::own_cost::OwnCost::parse)
        .transpose()?;
    cfg.threads = opts.threads.unwrap_or_else(default_threads);
    // spans count back from the window's end, which the weights set (max gap, interval)
    let needs_anchor = opts.since.as_deref().is_some_and(is_relative)
        || opts.until.as_deref().is_some_and(is_relative);
    let anchor = if needs_anchor { data_end(&cfg)? } else { None };
    if let Some(s) = &opts.since {
        cfg.since = Some(parse_cli_time(s, anchor).context("--since")?);
    }
    if let Some(u) = &opts.until {
        cfg.until = Some(parse_cli_time(u, anchor).context("--until")?);
    }
    if let (Some(s), Some(u)) = (cfg.since, cfg.until)
        && s >= u
    {
        bail!("--since must be before --until");
    }
    Ok(cfg)
}

/// Every core the process may run on (1 when that cannot be told).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A `--threads` value: a whole number from 1 to 1024.
pub fn parse_threads(text: &str) -> Result<usize> {
    parse_count("--threads", text, 1024)
}

/// A count flag's value: a whole number from 1 to `max`.
fn parse_count(flag: &str, text: &str, max: i64) -> Result<usize> {
    match text.trim().parse::<i64>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n as usize),
        _ => bail!("{flag} must be a whole number from 1 to {max}, got {text:?}"),
    }
}

/// Sizes polars' own thread pool (the parquet decoder's) before anything
/// uses it: with `--threads 1` the whole run is one thread.
pub fn limit_threads(threads: usize) {
    // SAFETY: called once from the command's entry, before any thread of
    // this process starts (nothing else reads or writes the environment then).
    unsafe { std::env::set_var("POLARS_MAX_THREADS", threads.to_string()) };
}

/// A duration flag that must be positive, when given.
fn positive_duration(text: Option<&str>, flag: &str) -> Result<Option<i64>> {
    let Some(t) = text else { return Ok(None) };
    let ms = parse_duration_us(t).with_context(|| flag.to_string())?;
    if ms <= 0 {
        bail!("{flag} must be positive");
    }
    Ok(Some(ms))
}
