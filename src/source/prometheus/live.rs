//! Pulled mode: fetch the DCGM series from a live Prometheus through
//! `/api/v1/query_range`, in chunks of hosts and of time so memory stays
//! bounded, and pivot them with the scrape reader's label rules into the
//! canonical sample table the file audit runs on.
use super::http::Client;
use super::json::named_series;
use super::{HOST_LABELS, LabelOptions, PromSeries, pivot_series};
use crate::audit::model::{Note, PromQuery, Warning};
use crate::samples::{Quality, SampleTable};
use crate::source::{ReadOptions, from_frame};
use crate::timeparse::format_time;
use anyhow::{Result, bail};
use indicatif::ProgressBar;
use std::collections::BTreeSet;

/// The series the audit queries: the metric registry's DCGM series (and their
/// DCGM 4.6 names), then the AMD Device Metrics Exporter's default names
/// (source/amd/exporter.rs maps them).
pub fn metrics() -> Vec<&'static str> {
    let mut all = crate::metric::dcgm_series();
    all.extend(crate::metric::amd_exporter_series());
    all
}

/// Prometheus refuses a range query of more than 11,000 points per series.
pub const MAX_POINTS_PER_SERIES: i64 = 10_000;
/// Points of one metric fetched per request (GPUs x steps): bounds memory per chunk.
const POINTS_PER_REQUEST: i64 = 40_000;
/// GPUs per host assumed when sizing time chunks.
const GPUS_PER_HOST: i64 = 8;

/// The labels the pivot reads; every other label is dropped on arrival to save memory.
const KEEP_LABELS: &[&str] = &[
    "UUID",
    "uuid",
    "gpu_uuid",
    "gpu",
    "GPU_I_ID",
    // AMD exporter: card, partition, XCC, model, Slurm job
    "serial_number",
    "gpu_id",
    "gpu_partition_id",
    "gpu_compute_partition_type",
    "xcc_index",
    "card_series",
    "card_model",
    "job_id",
    "modelName",
    "model",
    "job",
    "instance",
    "exported_pod",
    "exported_namespace",
    "exported_container",
    "pod",
    "namespace",
    "container",
    "hpc_job",
];

/// Ticks (µs) as a PromQL duration in milliseconds, the finest unit PromQL
/// has (a step is a whole number of ms, and `until` is floored to one).
pub fn promql_millis(us: i64) -> i64 {
    us.div_euclid(1_000)
}

/// What to fetch: the server, the window [since, until) and how finely.
#[derive(Debug, Clone)]
pub struct LiveQuery {
    pub since_us: i64,
    pub until_us: i64,
    pub step_us: i64,
    /// label matchers without braces (`cluster="a"`), may be empty
    pub matchers: String,
    pub hosts_per_query: usize,
    /// requests in flight at once (`--prom-concurrency`)
    pub concurrency: usize,
}

impl LiveQuery {
    /// Evaluation times are multiples of the step from the epoch (as Grafana
    /// aligns them), so two runs over the same window see the same points.
    pub fn new(
        since_us: i64,
        until_us: i64,
        step_us: i64,
        selector: Option<&str>,
        hosts_per_query: usize,
    ) -> Result<Self> {
        if step_us <= 0 {
            bail!("--step must be positive");
        }
        if step_us % 1_000 != 0 {
            bail!("--step must be a whole number of milliseconds (PromQL's finest unit)");
        }
        let until_us = until_us - until_us.rem_euclid(1_000);
        let since_us = since_us.div_euclid(step_us) * step_us
            + if since_us.rem_euclid(step_us) > 0 {
                step_us
            } else {
                0
            };
        if since_us >= until_us {
            bail!("--since must be before --until (at least one --step apart)");
        }
        let matchers = parse_selector(selector.unwrap_or(""))?;
        Ok(LiveQuery {
            since_us,
            until_us,
            step_us,
            matchers,
            hosts_per_query: hosts_per_query.max(1),
            concurrency: 1,
        })
    }

    /// The last evaluation time: the last step multiple before `until`.
    pub fn last_point_us(&self) -> i64 {
        self.since_us + (self.until_us - 1 - self.since_us).div_euclid(self.step_us) * self.step_us
    }

    pub fn points(&self) -> i64 {
        (self.last_point_us() - self.since_us) / self.step_us + 1
    }

    /// A selector for `metrics` plus the user's matchers and any `extra` ones.
    pub fn selector(&self, metrics: &[&str], extra: &[String]) -> String {
        let mut parts = vec![if metrics.len() == 1 {
            format!("__name__=\"{}\"", metrics[0])
        } else {
            format!("__name__=~\"{}\"", metrics.join("|"))
        }];
        if !self.matchers.is_empty() {
            parts.push(self.matchers.clone());
        }
        parts.extend(extra.iter().cloned());
        format!("{{{}}}", parts.join(", "))
    }

    /// `metric` as of each evaluation time, only from a sample taken within the
    /// last step: a series that stopped is not repeated for the lookback (5m),
    /// so gaps stay gaps and an owner change does not show two series at once.
    pub fn fresh(&self, metric: &str, extra: &[String]) -> String {
        format!(
            "last_over_time({}[{}ms])",
            self.selector(&[metric], extra),
            promql_millis(self.step_us) - 1
        )
    }

    /// The query as a note names it: server, window, step.
    pub fn query_of(&self, base: &str) -> PromQuery {
        PromQuery {
            base: base.to_string(),
            since_us: self.since_us,
            until_us: self.until_us,
            step_us: self.step_us,
        }
    }
}

/// `{cluster="a", env=~"p.*"}` or `cluster="a"` -> the matchers inside the braces.
pub fn parse_selector(text: &str) -> Result<String> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(String::new());
    }
    let inner = match (t.starts_with('{'), t.ends_with('}')) {
        (true, true) => &t[1..t.len() - 1],
        (false, false) if !t.contains(['{', '}']) => t,
        _ => bail!(
            "--selector '{text}': expected label matchers such as '{{cluster=\"a\"}}' (no metric name)"
        ),
    };
    if inner.contains(['{', '}']) || !inner.trim().is_empty() && !inner.contains(['=', '~']) {
        bail!(
            "--selector '{text}': expected label matchers such as '{{cluster=\"a\"}}' (no metric name)"
        );
    }
    Ok(inner.trim().trim_end_matches(',').trim().to_string())
}

/// A regex matching exactly these values (RE2 metacharacters escaped, then quoted for PromQL).
pub fn exact_regex(values: &[String]) -> String {
    let escaped: Vec<String> = values
        .iter()
        .map(|v| {
            let mut out = String::new();
            for c in v.chars() {
                if "\\.+*?()|[]{}^$".contains(c) {
                    out.push('\\');
                }
                out.push(c);
            }
            out
        })
        .collect();
    let re = escaped.join("|");
    // PromQL double-quoted string: escape backslashes and quotes once more.
    re.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The audit's metrics the fleet exports in the window, in [`metrics`] order.
pub fn present_metrics(client: &mut Client, q: &LiveQuery) -> Result<Vec<&'static str>> {
    let all = metrics();
    let names = client.label_values(
        "__name__",
        &q.selector(&all, &[]),
        q.since_us,
        q.last_point_us(),
    )?;
    Ok(all
        .iter()
        .copied()
        .filter(|m| names.iter().any(|n| n == m))
        .collect())
}

/// The first host label the fleet's series carry, and its values (the chunking unit).
pub fn hosts(client: &mut Client, q: &LiveQuery) -> Result<Option<(String, Vec<String>)>> {
    let all = q.selector(&metrics(), &[]);
    let names = client.label_names(&all, q.since_us, q.last_point_us())?;
    let Some(label) = HOST_LABELS.iter().find(|l| names.iter().any(|n| n == *l)) else {
        return Ok(None);
    };
    let mut values = client.label_values(label, &all, q.since_us, q.last_point_us())?;
    values.sort();
    values.dedup();
    Ok(Some((label.to_string(), values)))
}

fn progress(quiet: bool, len: u64) -> ProgressBar {
    crate::progress::bar(
        quiet,
        Some(len),
        "{spinner} querying {pos}/{len} {bar:30} {wide_msg} [{elapsed}, eta {eta}]",
    )
}

/// The extra matchers of each host batch (one empty batch without a host label).
fn host_batches(client: &mut Client, q: &LiveQuery) -> Result<Vec<Vec<String>>> {
    Ok(match hosts(client, q)? {
        Some((label, values)) => values
            .chunks(q.hosts_per_query)
            .map(|c| vec![format!("{label}=~\"{}\"", exact_regex(c))])
            .collect(),
        None => vec![Vec::new()],
    })
}

/// The window's [start, end] point ranges, each small enough for one request
/// per host batch.
fn time_chunks(q: &LiveQuery) -> Vec<(i64, i64)> {
    let hosts_per_batch = q.hosts_per_query as i64;
    let steps_per_chunk =
        (POINTS_PER_REQUEST / (hosts_per_batch * GPUS_PER_HOST)).clamp(1, MAX_POINTS_PER_SERIES);
    let mut chunks = Vec::new();
    let mut t = q.since_us;
    let last = q.last_point_us();
    while t <= last {
        let end = (t + (steps_per_chunk - 1) * q.step_us).min(last);
        chunks.push((t, end));
        t = end + q.step_us;
    }
    chunks
}

/// One request's worth of the window: a host batch over a time chunk.
struct Piece<'a> {
    extra: &'a [String],
    start: i64,
    end: i64,
}

/// What one piece gave: its table (None: no points) and what pivoting it said.
struct Fetched {
    table: Option<SampleTable>,
    quality: Quality,
    points: u64,
}

/// The labels a pulled series keeps: identity, host and the owner labels asked for.
fn kept_labels(opts: &ReadOptions) -> BTreeSet<String> {
    let mut keep: BTreeSet<String> = KEEP_LABELS
        .iter()
        .chain(HOST_LABELS)
        .map(|s| s.to_string())
        .collect();
    keep.extend(opts.job_label.iter().cloned());
    keep.extend(opts.team_label.iter().cloned());
    keep
}

/// Fetch the window, chunk by chunk, into one canonical table. Up to
/// `q.concurrency` pieces are fetched and pivoted at once (each on its own
/// thread and connection); they are put together in window order, so the
/// table, its notes and the first error do not depend on the concurrency.
pub fn load(client: &mut Client, q: &LiveQuery, opts: &ReadOptions) -> Result<SampleTable> {
    let label_opts = LabelOptions {
        job_label: opts.job_label.clone(),
        team_label: opts.team_label.clone(),
        align_us: opts.align_us,
    };
    let keep = kept_labels(opts);

    let metrics = present_metrics(client, q)?;
    let batches = host_batches(client, q)?;
    let chunks = time_chunks(q);
    let pieces: Vec<Piece> = batches
        .iter()
        .flat_map(|extra| {
            chunks.iter().map(move |&(start, end)| Piece {
                extra: extra.as_slice(),
                start,
                end,
            })
        })
        .collect();

    let bar = progress(opts.quiet, pieces.len() as u64);
    bar.set_message(format!("{} host batches", batches.len()));
    let fetch = |c: &mut Client, piece: &Piece| -> Result<Fetched> {
        let mut series = Vec::new();
        let mut points = 0u64;
        for metric in &metrics {
            let response = c.query_range(
                &q.fresh(metric, piece.extra),
                piece.start,
                piece.end,
                q.step_us,
            )?;
            // last_over_time drops __name__: each answer is named after its query.
            let (mut s, _) = named_series(response, metric);
            for x in s.iter_mut() {
                x.labels.retain(|k, _| keep.contains(k));
                points += x.points.len() as u64;
            }
            series.append(&mut s);
        }
        let (table, quality) = pivot_chunk(series, &label_opts, opts)?;
        bar.inc(1);
        Ok(Fetched {
            table,
            quality,
            points,
        })
    };
    let fetched = fetch_all(client, &pieces, q.concurrency, &fetch)?;
    bar.finish_and_clear();

    let (tables, quality, points) = put_together(fetched);
    if tables.is_empty() {
        bail!(
            "Prometheus at {} has no DCGM or AMD exporter series matching {} between {} and {} (expected e.g. DCGM_FI_DEV_GPU_UTIL with a UUID or gpu label, or gpu_gfx_activity; check --selector and the time range)",
            client.base(),
            q.selector(&["DCGM_FI_DEV_GPU_UTIL"], &[]),
            format_time(q.since_us),
            format_time(q.until_us)
        );
    }
    let mut table = SampleTable::concat(tables)?;
    table.quality.notes = quality.notes;
    table.quality.warnings.extend(quality.warnings);
    table.quality.notes.push(Note::PrometheusPulled {
        points,
        requests: client.requests,
        query: q.query_of(client.base()),
    });
    for w in &client.warnings {
        table
            .quality
            .warnings
            .push(Warning::PrometheusWarned { text: w.clone() });
    }
    table.sources = vec![client.base().to_string()];
    Ok(table)
}

/// The pieces in window order: their tables, their notes (one per kind:
/// owner notes differ per chunk in their examples), their warnings once each,
/// and the points they held.
fn put_together(fetched: Vec<Fetched>) -> (Vec<SampleTable>, Quality, u64) {
    let mut tables = Vec::new();
    let mut quality = Quality::default();
    let mut points = 0u64;
    for f in fetched {
        points += f.points;
        for n in f.quality.notes {
            if !quality.notes.iter().any(|m| m.same_kind(&n)) {
                quality.notes.push(n);
            }
        }
        for w in f.quality.warnings {
            if !quality.warnings.contains(&w) {
                quality.warnings.push(w);
            }
        }
        tables.extend(f.table);
    }
    (tables, quality, points)
}

/// Run `fetch` on every piece with at most `concurrency` at once, the
/// results in piece order. On a failure the workers stop taking pieces and the
/// earliest failed piece's error is returned (the same one a sequential run
/// would have met first).
fn fetch_all<T: Send>(
    client: &mut Client,
    pieces: &[Piece],
    concurrency: usize,
    fetch: &(dyn Fn(&mut Client, &Piece) -> Result<T> + Sync),
) -> Result<Vec<T>> {
    let workers = concurrency.clamp(1, pieces.len().max(1));
    if workers == 1 {
        return pieces.iter().map(|p| fetch(client, p)).collect();
    }
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Mutex<Vec<Option<Result<T>>>> =
        Mutex::new((0..pieces.len()).map(|_| None).collect());
    let forks = (1..workers)
        .map(|_| client.fork())
        .collect::<Result<Vec<_>>>()?;
    let work = |c: &mut Client| {
        while !failed.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(piece) = pieces.get(i) else { break };
            let result = fetch(c, piece);
            if result.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            if let Ok(mut s) = slots.lock() {
                s[i] = Some(result);
            }
        }
    };
    let forks = std::thread::scope(|scope| {
        let handles: Vec<_> = forks
            .into_iter()
            .map(|mut c| {
                scope.spawn(|| {
                    work(&mut c);
                    c
                })
            })
            .collect();
        work(client);
        handles.into_iter().map(|h| h.join()).collect::<Vec<_>>()
    });
    for f in forks {
        match f {
            Ok(c) => client.absorb(c),
            Err(_) => bail!("internal: a Prometheus fetch thread panicked"),
        }
    }
    let slots = slots
        .into_inner()
        .map_err(|_| anyhow::anyhow!("internal: a Prometheus fetch thread panicked"))?;
    let mut out = Vec::with_capacity(slots.len());
    for slot in slots {
        match slot {
            Some(r) => out.push(r?),
            // skipped after an earlier failure, which the loop returned
            None => bail!("internal: a Prometheus piece was never fetched"),
        }
    }
    Ok(out)
}

/// Pivot one chunk into a table (None: no points) and what the pivot said.
fn pivot_chunk(
    series: Vec<PromSeries>,
    label_opts: &LabelOptions,
    opts: &ReadOptions,
) -> Result<(Option<SampleTable>, Quality)> {
    if series.is_empty() {
        return Ok((None, Quality::default()));
    }
    let (frame, q) = pivot_series(series, label_opts)?;
    if frame.height() == 0 {
        // an empty chunk's notes describe nothing: only its warnings count
        let quality = Quality {
            warnings: q.warnings,
            ..Quality::default()
        };
        return Ok((None, quality));
    }
    let mut t = from_frame("prometheus", frame, &opts.maps, Quality::default())?;
    t.quality.notes.clear();
    Ok((Some(t), q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() -> Result<()> {
        assert_eq!(parse_selector("{cluster=\"a\"}")?, "cluster=\"a\"");
        assert_eq!(
            parse_selector(" cluster=~\"a|b\", env!=\"dev\" ")?,
            "cluster=~\"a|b\", env!=\"dev\""
        );
        assert_eq!(parse_selector("")?, "");
        assert!(parse_selector("DCGM_FI_DEV_GPU_UTIL{cluster=\"a\"}").is_err());
        assert!(parse_selector("cluster").is_err());
        Ok(())
    }

    #[test]
    fn windows_align_to_the_step() -> Result<()> {
        let q = LiveQuery::new(61_000, 600_000, 60_000, None, 8)?;
        assert_eq!(q.since_us, 120_000);
        assert_eq!(q.last_point_us(), 540_000);
        assert_eq!(q.points(), 8);
        assert_eq!(
            q.selector(&["A", "B"], &["Hostname=~\"h1\"".into()]),
            "{__name__=~\"A|B\", Hostname=~\"h1\"}"
        );
        Ok(())
    }

    #[test]
    fn host_regex_is_exact() {
        assert_eq!(
            exact_regex(&["node-1.x".into(), "a|b".into()]),
            "node-1\\\\.x|a\\\\|b"
        );
    }
}
