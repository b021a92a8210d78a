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
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::BTreeSet;

/// The DCGM series the audit uses (and their DCGM 4.6 names).
pub const METRICS: &[&str] = &[
    "DCGM_FI_DEV_GPU_UTIL",
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    "DCGM_FI_PROF_SM_ACTIVE",
    "DCGM_FI_PROF_SM_OCCUPANCY",
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
    "DCGM_FI_PROF_DRAM_ACTIVE",
    "DCGM_FI_DEV_FB_USED",
    "DCGM_FI_DEV_POWER_USAGE",
    "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO",
    "DCGM_FI_PROF_SM_UTIL_RATIO",
    "DCGM_FI_PROF_SM_OCCUPANCY_UTIL_RATIO",
    "DCGM_FI_PROF_PIPE_TENSOR_UTIL_RATIO",
    "DCGM_FI_PROF_DRAM_UTIL_RATIO",
];

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

/// The audit's metrics the fleet exports in the window, in [`METRICS`] order.
pub fn present_metrics(client: &mut Client, q: &LiveQuery) -> Result<Vec<&'static str>> {
    let names = client.label_values(
        "__name__",
        &q.selector(METRICS, &[]),
        q.since_us,
        q.last_point_us(),
    )?;
    Ok(METRICS
        .iter()
        .copied()
        .filter(|m| names.iter().any(|n| n == m))
        .collect())
}

/// The first host label the fleet's series carry, and its values (the chunking unit).
pub fn hosts(client: &mut Client, q: &LiveQuery) -> Result<Option<(String, Vec<String>)>> {
    let all = q.selector(METRICS, &[]);
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
    let bar = if quiet {
        ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden())
    } else {
        // indicatif hides itself when stderr is not a terminal.
        ProgressBar::new(len)
    };
    let style = ProgressStyle::with_template(
        "{spinner} querying {pos}/{len} {bar:30} {wide_msg} [{elapsed}, eta {eta}]",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar
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

/// Fetch the window, chunk by chunk, into one canonical table.
pub fn load(client: &mut Client, q: &LiveQuery, opts: &ReadOptions) -> Result<SampleTable> {
    let label_opts = LabelOptions {
        job_label: opts.job_label.clone(),
        team_label: opts.team_label.clone(),
        align_us: opts.align_us,
    };
    let mut keep: BTreeSet<String> = KEEP_LABELS
        .iter()
        .chain(HOST_LABELS)
        .map(|s| s.to_string())
        .collect();
    keep.extend(opts.job_label.iter().cloned());
    keep.extend(opts.team_label.iter().cloned());

    let metrics = present_metrics(client, q)?;
    let batches = host_batches(client, q)?;
    let chunks = time_chunks(q);

    let bar = progress(opts.quiet, (batches.len() * chunks.len()) as u64);
    let mut tables = Vec::new();
    let mut notes: Vec<Note> = Vec::new();
    let mut quality = Quality::default();
    let mut points = 0u64;
    for (i, extra) in batches.iter().enumerate() {
        bar.set_message(format!("host batch {}/{}", i + 1, batches.len()));
        for (start, end) in &chunks {
            let mut series = Vec::new();
            for metric in &metrics {
                let response =
                    client.query_range(&q.fresh(metric, extra), *start, *end, q.step_us)?;
                // last_over_time drops __name__: each answer is named after its query.
                let (mut s, _) = named_series(response, metric);
                for x in s.iter_mut() {
                    x.labels.retain(|k, _| keep.contains(k));
                    points += x.points.len() as u64;
                }
                series.append(&mut s);
            }
            bar.inc(1);
            if let Some(t) = chunk_table(series, &label_opts, opts, &mut notes, &mut quality)? {
                tables.push(t);
            }
        }
    }
    bar.finish_and_clear();
    if tables.is_empty() {
        bail!(
            "Prometheus at {} has no DCGM series matching {} between {} and {} (expected e.g. DCGM_FI_DEV_GPU_UTIL with a UUID or gpu label; check --selector and the time range)",
            client.base(),
            q.selector(&["DCGM_FI_DEV_GPU_UTIL"], &[]),
            format_time(q.since_us),
            format_time(q.until_us)
        );
    }
    let mut table = SampleTable::concat(tables)?;
    table.quality.notes = notes;
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

/// Pivot one chunk; notes are kept once (chunks repeat them).
fn chunk_table(
    series: Vec<PromSeries>,
    label_opts: &LabelOptions,
    opts: &ReadOptions,
    notes: &mut Vec<Note>,
    quality: &mut Quality,
) -> Result<Option<SampleTable>> {
    if series.is_empty() {
        return Ok(None);
    }
    let (frame, mut q) = pivot_series(series, label_opts)?;
    if frame.height() == 0 {
        for w in q.warnings.drain(..) {
            if !quality.warnings.contains(&w) {
                quality.warnings.push(w);
            }
        }
        return Ok(None);
    }
    for n in q.notes.drain(..) {
        // owner notes differ per chunk in their examples: one per kind
        if !notes.iter().any(|m| m.same_kind(&n)) {
            notes.push(n);
        }
    }
    for w in q.warnings.drain(..) {
        if !quality.warnings.contains(&w) {
            quality.warnings.push(w);
        }
    }
    let mut t = from_frame("prometheus", frame, &opts.maps, Quality::default())?;
    t.quality.notes.clear();
    Ok(Some(t))
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
