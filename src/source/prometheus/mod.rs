//! What scrapes and Prometheus API responses have in common: labelled
//! samples of one metric each, pivoted from long to wide on (host, gpu, time)
//! with the workload's labels (never the scrape target's) as job and team.
use super::filetime::fallback_time;
use super::{InputFormat, ReadOptions, from_frame};
use crate::audit::model::{Note, OwnerSource, UntimedRows, Warning};
use crate::samples::{Quality, SampleTable, col};
use anyhow::{Context, Result, anyhow, bail};
use polars::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

pub mod http;
pub mod json;
pub mod live;
pub mod pushdown;
pub mod text;

/// One sample of one metric as an exporter or Prometheus gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct PromSample {
    pub metric: String,
    /// labels without `__name__`
    pub labels: BTreeMap<String, String>,
    /// NaN = no value (Prometheus' missing and stale markers)
    pub value: f64,
    pub time_us: Option<i64>,
}

/// One series: its metric and labels once, its points (epoch µs, value; NaN
/// = no value) in the order given. The live path pivots these directly, so a
/// series' labels are read once, not once per point.
#[derive(Debug, Clone, PartialEq)]
pub struct PromSeries {
    pub metric: String,
    /// labels without `__name__`
    pub labels: BTreeMap<String, String>,
    pub points: Vec<(i64, f64)>,
}

/// Timed samples as series: neighbours with the same metric and labels join
/// one series (a file lists a series' points together).
pub fn series_of(samples: Vec<PromSample>) -> Vec<PromSeries> {
    let mut out: Vec<PromSeries> = Vec::new();
    for s in samples {
        let t = s.time_us.unwrap_or_default();
        match out.last_mut() {
            Some(last) if last.metric == s.metric && last.labels == s.labels => {
                last.points.push((t, s.value));
            }
            _ => out.push(PromSeries {
                metric: s.metric,
                labels: s.labels,
                points: vec![(t, s.value)],
            }),
        }
    }
    out
}

/// How labels become owners and how far apart metrics may be stamped.
#[derive(Debug, Clone, Default)]
pub struct LabelOptions {
    /// label that names the job (default: the workload's pod, else hpc_job)
    pub job_label: Option<String>,
    /// label that names the team (default: the workload's namespace)
    pub team_label: Option<String>,
    /// samples of different metrics of one GPU this close form one row
    pub align_us: Option<i64>,
}

const DEFAULT_ALIGN_US: i64 = 5 * crate::timeparse::US_PER_SECOND;
pub const HOST_LABELS: &[&str] = &[
    "Hostname",
    "hostname",
    "host",
    "node",
    "kubernetes_node",
    "host_name", // format: otel (hw.gpu.* through the Prometheus exporter)
    "instance",
];
// format: gaudi exporter (UUID), xpum exporter (uuid), otel (hw_id)
pub const GPU_LABELS: &[&str] = &["UUID", "uuid", "gpu_uuid", "gpu", "hw_id"];
// format: xpum exporter (dev_name), otel (hw_model, hw_gpu_model)
pub const MODEL_LABELS: &[&str] = &["modelName", "model", "dev_name", "hw_gpu_model", "hw_model"];
/// The workload's (pod, namespace) labels other exporters write: the Gaudi
/// exporter, the xpum exporter and OpenTelemetry's k8s attributes.
const POD_LABELS: &[(&str, &str)] = &[
    ("pod_name", "pod_namespace"),          // format: gaudi exporter
    ("kube_pod", "kube_namespace"),         // format: xpum exporter
    ("k8s_pod_name", "k8s_namespace_name"), // format: otel
];

fn first<'a>(labels: &'a BTreeMap<String, String>, names: &[&str]) -> Option<&'a str> {
    names
        .iter()
        .find_map(|n| labels.get(*n).map(|v| v.trim()).filter(|v| !v.is_empty()))
}

/// Prometheus adds `job`/`instance` for the scrape target: such a series went through a scrape.
fn target_of(labels: &BTreeMap<String, String>) -> Option<(String, String)> {
    let job = labels.get("job");
    let instance = labels.get("instance");
    if job.is_none() && instance.is_none() {
        return None;
    }
    Some((
        job.cloned().unwrap_or_default(),
        instance.cloned().unwrap_or_default(),
    ))
}

/// What names the exporter's own pod or container, in lower case (the SQL
/// plan's OpenTelemetry source tests the same words: `plan::sql`).
pub const EXPORTER_POD_MARKERS: [&str; 3] = ["dcgm-exporter", "dcgm_exporter", "metrics-exporter"];

/// The dcgm-exporter's own pod (on Kubernetes the target's pod labels sit on
/// every series unless the workload's won or were renamed `exported_*`).
fn is_exporter_pod(pod: &str, container: Option<&str>) -> bool {
    // dcgm-exporter, and AMD's device-metrics-exporter (`<name>-metrics-exporter-<id>`):
    // the one test the SQL and PromQL plans write too (`plan::rules`)
    let looks = crate::plan::rules::names_exporter;
    looks(pod) || container.is_some_and(looks)
}

struct Owner {
    job: Option<String>,
    team: Option<String>,
    source: Option<OwnerSource>,
}

/// The owner of a series: `--job-label` / `--team-label` when given, else
/// the workload's pod and namespace (else hpc_job).
fn owner(
    labels: &BTreeMap<String, String>,
    opts: &LabelOptions,
    renamed_targets: &BTreeSet<(String, String)>,
) -> Owner {
    let get = |n: &str| {
        labels
            .get(n)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let mut who = workload(labels, renamed_targets);
    if let Some(l) = opts.job_label.as_deref() {
        who.job =
            get(l).filter(|v| !(matches!(l, "pod" | "exported_pod") && is_exporter_pod(v, None)));
        who.source = who.job.as_ref().map(|_| OwnerSource::Label);
    }
    if let Some(l) = opts.team_label.as_deref() {
        who.team = get(l);
    }
    who
}

fn workload(
    labels: &BTreeMap<String, String>,
    renamed_targets: &BTreeSet<(String, String)>,
) -> Owner {
    let get = |n: &str| {
        labels
            .get(n)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    if let Some(p) = get("exported_pod")
        && !is_exporter_pod(&p, get("exported_container").as_deref())
    {
        return Owner {
            job: Some(p),
            team: get("exported_namespace"),
            source: Some(OwnerSource::ExportedPod),
        };
    }
    let mut ignored = false;
    if let Some(p) = get("pod") {
        let target = target_of(labels);
        let renamed = target.as_ref().is_some_and(|t| renamed_targets.contains(t));
        if renamed || is_exporter_pod(&p, get("container").as_deref()) {
            ignored = true;
        } else {
            return Owner {
                job: Some(p),
                team: get("namespace"),
                source: Some(OwnerSource::Pod),
            };
        }
    }
    if let Some((p, ns)) = POD_LABELS
        .iter()
        .find_map(|(p, ns)| get(p).map(|pod| (pod, get(ns))))
    {
        return Owner {
            job: Some(p),
            team: ns,
            source: Some(OwnerSource::Pod),
        };
    }
    if let Some(j) = get("hpc_job") {
        return Owner {
            job: Some(j),
            team: None,
            source: Some(OwnerSource::HpcJob),
        };
    }
    Owner {
        job: None,
        team: None,
        source: ignored.then_some(OwnerSource::ExporterPodIgnored),
    }
}

/// One GPU's samples waiting to be grouped into rows.
#[derive(Clone, Copy)]
struct Pending {
    time: i64,
    metric: usize,
    value: Option<f64>,
    /// the series' (model, job, team), an index into [`ByGpu::owners`]
    owner: u32,
}

/// One wide row being filled: per metric, Some(value or None for NaN) once
/// seen; model, job and team from the first point (an owner index) that has one.
struct Row {
    start: i64,
    last: i64,
    values: Vec<Option<Option<f64>>>,
    model: Option<u32>,
    job: Option<u32>,
    team: Option<u32>,
}

/// The typical spacing of a series, the smallest over all series.
fn smallest_step(series: &[PromSeries]) -> Option<i64> {
    let mut by_series: BTreeMap<(&str, &BTreeMap<String, String>), Vec<i64>> = BTreeMap::new();
    for s in series {
        by_series
            .entry((s.metric.as_str(), &s.labels))
            .or_default()
            .extend(s.points.iter().map(|p| p.0));
    }
    let mut best: Option<i64> = None;
    for times in by_series.values_mut() {
        times.sort_unstable();
        // the series' median step, by the audit's one median rule
        if let Some(median) = crate::audit::weights::median_step(times) {
            best = Some(best.map_or(median, |b| b.min(median)));
        }
    }
    best
}

/// Pivot long samples (every one timed) into a wide frame: time, host, gpu,
/// model, job, team (only when some series names a workload) and one column
/// per metric, named as the metric so the canonical aliases and `--map` apply.
pub fn pivot(samples: Vec<PromSample>, opts: &LabelOptions) -> Result<(DataFrame, Quality)> {
    pivot_series(series_of(samples), opts)
}

/// [`pivot`] on series.
pub fn pivot_series(series: Vec<PromSeries>, opts: &LabelOptions) -> Result<(DataFrame, Quality)> {
    let mut quality = Quality::default();
    // AMD exporter fields onto canonical metrics (partitions as units)
    let series = crate::source::amd::exporter::translate(series, &mut quality);
    let align = match opts.align_us {
        Some(a) => a,
        None => smallest_step(&series).map_or(DEFAULT_ALIGN_US, |s| (s / 2).max(1)),
    };
    let by = group_by_gpu(series, opts, &mut quality);
    let metrics = by.metrics.clone();
    let wide = aligned(by, align);
    if wide.widest_merge > 0 {
        quality.notes.push(Note::MetricsAligned {
            widest_us: wide.widest_merge,
            align_us: align,
        });
    }
    Ok((frame_of(&metrics, wide)?, quality))
}

/// A series' (model, job, team).
type OwnerLabels = (Option<String>, Option<String>, Option<String>);

/// Samples by (host, gpu), with the metrics in first-seen order.
struct ByGpu {
    metrics: Vec<String>,
    gpus: BTreeMap<(String, String), Vec<Pending>>,
    /// the distinct (model, job, team) of the series, once each
    owners: Vec<OwnerLabels>,
}

/// The scrape targets whose series carry `exported_*` labels: there the
/// exporter's own pod was renamed away and the workload's pod is the owner.
fn renamed_targets(series: &[PromSeries]) -> BTreeSet<(String, String)> {
    series
        .iter()
        .filter(|s| {
            ["exported_pod", "exported_namespace", "exported_container"]
                .iter()
                .any(|l| s.labels.contains_key(*l))
        })
        .filter_map(|s| target_of(&s.labels))
        .collect()
}

/// A MIG instance is its own device: <gpu>/<gpu instance id>; so is an
/// Intel tile (xpum's `sub_dev`).
fn device_id(gpu_base: &str, labels: &BTreeMap<String, String>) -> String {
    match first(labels, &["GPU_I_ID", "sub_dev"]) {
        Some(gi) => format!("{gpu_base}/{gi}"),
        None => gpu_base.to_string(),
    }
}

/// GPUs whose series come per tile (xpum's `sub_dev`): their device-level
/// series would count the card beside its tiles.
fn tiled_gpus(series: &[PromSeries]) -> BTreeSet<String> {
    series
        .iter()
        .filter(|s| s.labels.contains_key("sub_dev"))
        .filter_map(|s| first(&s.labels, GPU_LABELS).map(str::to_string))
        .collect()
}

/// The node each Gaudi exporter runs on, by scrape target (None: a file
/// scraped by hand), from its `habanalabs_kube_info{node, hostname}`: the
/// device series name no host of their own.
fn exporter_nodes(series: &[PromSeries]) -> BTreeMap<Option<(String, String)>, String> {
    series
        .iter()
        .filter(|s| s.metric == "habanalabs_kube_info")
        .filter_map(|s| {
            let node = first(&s.labels, &["node", "hostname"])?;
            Some((target_of(&s.labels), node.to_string()))
        })
        .collect()
}

/// A series' host: a host label, else its exporter's node, else the scrape target.
fn host_of(
    labels: &BTreeMap<String, String>,
    exporter_nodes: &BTreeMap<Option<(String, String)>, String>,
) -> String {
    let named: Vec<&str> = HOST_LABELS
        .iter()
        .copied()
        .filter(|l| *l != "instance")
        .collect();
    first(labels, &named)
        .or_else(|| exporter_nodes.get(&target_of(labels)).map(String::as_str))
        .or_else(|| first(labels, &["instance"]))
        .unwrap_or("")
        .to_string()
}

/// Series read as samples: not a tiled GPU's device-level series, not
/// encoder/decoder time (OpenTelemetry's hw_gpu_task), not the Gaudi
/// exporter's own-pod info series (it names no device; its node is the host).
fn read_series(s: &PromSeries, tiled: &BTreeSet<String>) -> bool {
    let device_level_of_tiled = !s.labels.contains_key("sub_dev")
        && first(&s.labels, GPU_LABELS).is_some_and(|g| tiled.contains(g));
    let other_task = s
        .labels
        .get("hw_gpu_task")
        .is_some_and(|t| !t.eq_ignore_ascii_case("general"));
    !(device_level_of_tiled || other_task || s.metric == "habanalabs_kube_info")
}

/// Samples of series with no GPU label, counted by metric: one warning.
fn warn_without_gpu(without_gpu: &BTreeMap<String, u64>, quality: &mut Quality) {
    if without_gpu.is_empty() {
        return;
    }
    quality.warnings.push(Warning::NoGpuLabel {
        samples: without_gpu.values().sum(),
        examples: without_gpu.keys().take(5).cloned().collect(),
        count: without_gpu.len(),
    });
}

/// Group the series by GPU (a MIG instance is its own), reading each one's
/// owner once; series without a GPU label are counted (by sample) and skipped.
fn group_by_gpu(series: Vec<PromSeries>, opts: &LabelOptions, quality: &mut Quality) -> ByGpu {
    let renamed_targets = renamed_targets(&series);

    let mut metrics: Vec<String> = Vec::new();
    let mut metric_index: BTreeMap<String, usize> = BTreeMap::new();
    let mut gpus: BTreeMap<(String, String), Vec<Pending>> = BTreeMap::new();
    let mut owners: Vec<OwnerLabels> = Vec::new();
    let mut owner_index: BTreeMap<OwnerLabels, u32> = BTreeMap::new();
    let mut without_gpu: BTreeMap<String, u64> = BTreeMap::new();
    let mut owner_sources: BTreeMap<OwnerSource, BTreeSet<String>> = BTreeMap::new();
    let reserved = [
        col::TIME,
        col::HOST,
        col::GPU,
        col::MODEL,
        col::JOB,
        col::TEAM,
    ];
    let tiled = tiled_gpus(&series);
    let exporter_nodes = exporter_nodes(&series);
    for s in series {
        if s.points.is_empty() || !read_series(&s, &tiled) {
            continue;
        }
        let Some(gpu_base) = first(&s.labels, GPU_LABELS) else {
            *without_gpu.entry(s.metric).or_default() += s.points.len() as u64;
            continue;
        };
        if reserved.iter().any(|r| r.eq_ignore_ascii_case(&s.metric)) {
            continue;
        }
        let gpu = device_id(gpu_base, &s.labels);
        let host = host_of(&s.labels, &exporter_nodes);
        let who = owner(&s.labels, opts, &renamed_targets);
        if let Some(src) = who.source {
            let shown = match src {
                OwnerSource::ExporterPodIgnored => s.labels.get("pod").cloned().unwrap_or_default(),
                _ => who.job.clone().unwrap_or_default(),
            };
            owner_sources.entry(src).or_default().insert(shown);
        }
        let idx = *metric_index.entry(s.metric.clone()).or_insert_with(|| {
            metrics.push(s.metric.clone());
            metrics.len() - 1
        });
        let labels = (
            first(&s.labels, MODEL_LABELS).map(str::to_string),
            who.job,
            who.team,
        );
        let owner = *owner_index.entry(labels.clone()).or_insert_with(|| {
            owners.push(labels);
            (owners.len() - 1) as u32
        });
        let pending = gpus.entry((host, gpu)).or_default();
        pending.extend(s.points.iter().map(|&(time, v)| Pending {
            time,
            metric: idx,
            value: (!v.is_nan()).then_some(v),
            owner,
        }));
    }
    warn_without_gpu(&without_gpu, quality);
    owner_notes(&owner_sources, opts, quality);

    ByGpu {
        metrics,
        gpus,
        owners,
    }
}

/// The wide table being built: one row per aligned sample.
#[derive(Default)]
struct Wide {
    times: Vec<i64>,
    hosts: Vec<String>,
    gpu_ids: Vec<String>,
    models: Vec<Option<String>>,
    jobs: Vec<Option<String>>,
    teams: Vec<Option<String>>,
    values: Vec<Vec<Option<f64>>>,
    /// the widest spread of stamps merged into one row
    widest_merge: i64,
}

impl Wide {
    fn push(&mut self, host: &str, gpu: &str, r: Row, owners: &[OwnerLabels]) {
        self.widest_merge = self.widest_merge.max(r.last - r.start);
        self.times.push(r.start);
        self.hosts.push(host.to_string());
        self.gpu_ids.push(gpu.to_string());
        let of = |o: Option<u32>| owners.get(o? as usize);
        self.models.push(of(r.model).and_then(|o| o.0.clone()));
        self.jobs.push(of(r.job).and_then(|o| o.1.clone()));
        self.teams.push(of(r.team).and_then(|o| o.2.clone()));
        for (i, v) in r.values.into_iter().enumerate() {
            self.values[i].push(v.flatten());
        }
    }
}

/// Each GPU's samples in time order, merged into rows: stamps within `align`
/// of a row's first join it, unless the row already has that metric.
fn aligned(by: ByGpu, align: i64) -> Wide {
    let mut wide = Wide {
        values: vec![Vec::new(); by.metrics.len()],
        ..Wide::default()
    };
    let owners = &by.owners;
    for ((host, gpu), mut pending) in by.gpus {
        pending.sort_by_key(|p| p.time);
        let mut row: Option<Row> = None;
        let mut flush = |r: Row| wide.push(&host, &gpu, r, owners);
        for p in pending {
            // A metric seen twice, or a stamp past the tolerance, starts the next sample.
            let joins = row
                .as_ref()
                .is_some_and(|r| p.time - r.start <= align && r.values[p.metric].is_none());
            if !joins {
                if let Some(r) = row.take() {
                    flush(r);
                }
                row = Some(Row {
                    start: p.time,
                    last: p.time,
                    values: vec![None; by.metrics.len()],
                    model: None,
                    job: None,
                    team: None,
                });
            }
            if let Some(r) = row.as_mut() {
                r.last = p.time;
                r.values[p.metric] = Some(p.value);
                let o = &owners[p.owner as usize];
                r.model = r.model.or(o.0.is_some().then_some(p.owner));
                r.job = r.job.or(o.1.is_some().then_some(p.owner));
                r.team = r.team.or(o.2.is_some().then_some(p.owner));
            }
        }
        if let Some(r) = row.take() {
            flush(r);
        }
    }
    wide
}

/// The frame of the wide rows; label columns only when some row has one.
fn frame_of(metrics: &[String], w: Wide) -> Result<DataFrame> {
    let mut cols: Vec<Column> = vec![
        Column::new(col::TIME.into(), w.times),
        Column::new(col::HOST.into(), w.hosts),
        Column::new(col::GPU.into(), w.gpu_ids),
    ];
    if w.models.iter().any(Option::is_some) {
        cols.push(Column::new(col::MODEL.into(), w.models));
    }
    // No workload labels at all: leave job out so the memory rule decides held.
    if w.jobs.iter().any(Option::is_some) {
        cols.push(Column::new(col::JOB.into(), w.jobs));
    }
    if w.teams.iter().any(Option::is_some) {
        cols.push(Column::new(col::TEAM.into(), w.teams));
    }
    let mut values = w.values;
    if let Some(total) = fb_total(metrics, &values) {
        match metrics.iter().position(|m| m == col::MEM_TOTAL_BYTES) {
            // AMD cards name their total; DCGM ones beside them take used + free
            Some(i) => fill_nulls(&mut values[i], &total, 1.0),
            None => cols.push(Column::new(col::MEM_TOTAL_BYTES.into(), total)),
        }
    }
    let merged = merge_spellings(metrics, &mut values);
    for ((name, vals), merged) in metrics.iter().zip(values).zip(merged) {
        if !merged {
            cols.push(Column::new(name.as_str().into(), vals));
        }
    }
    Ok(DataFrame::new_infer_height(cols)?)
}

fn fill_nulls(into: &mut [Option<f64>], from: &[Option<f64>], factor: f64) {
    for (a, b) in into.iter_mut().zip(from) {
        if a.is_none() {
            *a = b.map(|v| v * factor);
        }
    }
}

/// One fleet of two vendors in one pivot: AMD series arrive under canonical
/// names (source/amd/exporter.rs), DCGM ones under their own. A metric named
/// as a canonical column takes, where it has no value, the value of each
/// source spelling of that column (converted by the spelling's unit), and the
/// spelling's column goes: the one-source-per-column rule would otherwise
/// leave one vendor's samples out. Returns which metrics were merged.
fn merge_spellings(metrics: &[String], values: &mut [Vec<Option<f64>>]) -> Vec<bool> {
    let mut merged = vec![false; metrics.len()];
    for (i, m) in metrics.iter().enumerate() {
        let Some(r) = crate::samples::resolve_columns(std::slice::from_ref(m), &[])
            .into_iter()
            .next()
        else {
            continue;
        };
        let Some(target) = metrics.iter().position(|n| n == r.canonical) else {
            continue;
        };
        if target == i {
            continue;
        }
        let factor = match r.unit {
            crate::samples::Unit::Percent => 0.01,
            crate::samples::Unit::Mib => 1_048_576.0,
            _ => 1.0,
        };
        let from = values[i].clone();
        fill_nulls(&mut values[target], &from, factor);
        merged[i] = true;
    }
    merged
}

/// dcgm-exporter has no total-memory field: total = used + free (+ reserved), MiB -> bytes.
fn fb_total(metrics: &[String], values: &[Vec<Option<f64>>]) -> Option<Vec<Option<f64>>> {
    let find = |n: &str| metrics.iter().position(|m| m.eq_ignore_ascii_case(n));
    // a total the source names itself (not as AMD series arrive, exactly `mem_total_bytes`)
    if metrics
        .iter()
        .any(|m| m.eq_ignore_ascii_case(col::MEM_TOTAL_BYTES) && m.as_str() != col::MEM_TOTAL_BYTES)
    {
        return None;
    }
    let (used, free) = (find("DCGM_FI_DEV_FB_USED")?, find("DCGM_FI_DEV_FB_FREE")?);
    let reserved = find("DCGM_FI_DEV_FB_RESERVED");
    let rows = values[used].len();
    Some(
        (0..rows)
            .map(|r| {
                let extra = reserved.map_or(Some(0.0), |i| values[i][r]);
                Some((values[used][r]? + values[free][r]? + extra?) * 1_048_576.0)
            })
            .collect(),
    )
}

fn owner_notes(
    sources: &BTreeMap<OwnerSource, BTreeSet<String>>,
    opts: &LabelOptions,
    quality: &mut Quality,
) {
    // the first three names of each kind stand for all of them
    for (from, names) in sources {
        quality.notes.push(Note::OwnerFrom {
            from: *from,
            label: (*from == OwnerSource::Label)
                .then(|| opts.job_label.clone().unwrap_or_default()),
            examples: names.iter().take(3).cloned().collect(),
            count: names.len(),
        });
    }
}

/// Read scrapes and API responses together: series of one GPU from several
/// files (one metric per file, or one scrape per file) join into rows.
pub fn read_files(
    files: &[(String, PathBuf, InputFormat)],
    opts: &ReadOptions,
) -> Result<SampleTable> {
    let mut all = Vec::new();
    let mut notes = Vec::new();
    for (name, path, format) in files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{name}: cannot read as UTF-8 text"))?;
        match *format {
            InputFormat::PromJson => {
                let response = json::parse_response(&text)
                    .map_err(|e| anyhow!("{name}:{}: {}", e.line, e.message))?;
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_else(|| name.clone());
                let (samples, unnamed) = json::to_samples(response, &stem);
                if unnamed > 0 {
                    notes.push(Note::UnnamedSeries {
                        file: name.clone(),
                        count: unnamed,
                        named: stem,
                    });
                }
                all.extend(samples);
            }
            _ => {
                let mut samples = text::parse_exposition(&text, name)?;
                let untimed = samples.iter().filter(|s| s.time_us.is_none()).count();
                if untimed > 0 {
                    let (t, note) = fallback_time(
                        name,
                        path,
                        opts.at,
                        UntimedRows::Samples {
                            count: Some(untimed),
                        },
                    )?;
                    for s in samples.iter_mut().filter(|s| s.time_us.is_none()) {
                        s.time_us = Some(t);
                    }
                    notes.push(note);
                }
                all.extend(samples);
            }
        }
    }
    let label_opts = LabelOptions {
        job_label: opts.job_label.clone(),
        team_label: opts.team_label.clone(),
        align_us: opts.align_us,
    };
    let (frame, mut quality) = pivot(all, &label_opts)?;
    let names: Vec<String> = files.iter().map(|(n, _, _)| n.clone()).collect();
    if frame.height() == 0 {
        bail!(
            "{}: no GPU samples (expected series with a UUID or gpu label, e.g. DCGM_FI_DEV_GPU_UTIL)",
            names.join(", ")
        );
    }
    notes.append(&mut quality.notes);
    quality.notes = notes;
    if frame
        .get_column_names()
        .iter()
        .any(|c| c.as_str() == "xpum_eu_active_ratio")
    {
        quality.notes.push(Note::ApproximateLayer {
            file: names.join(", "),
            layer: "SM active".to_string(),
            source: "xpum_eu_active_ratio (Intel EU array active)".to_string(),
        });
    }
    let mut table = from_frame(&names.join(", "), frame, &opts.maps, quality)?;
    table.sources = names;
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(metric: &str, labels: &[(&str, &str)], value: f64, t: i64) -> PromSample {
        PromSample {
            metric: metric.into(),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            value,
            time_us: Some(t),
        }
    }

    #[test]
    fn instant_queries_a_second_apart_form_one_row() -> Result<()> {
        let l = [("UUID", "GPU-1"), ("Hostname", "h")];
        let s = vec![
            sample("A", &l, 1.0, 1000),
            sample("B", &l, 2.0, 1900),
            sample("A", &l, 3.0, 60_000),
        ];
        let (df, q) = pivot(s, &LabelOptions::default())?;
        assert_eq!(df.height(), 2);
        assert_eq!(df.column("B")?.f64()?.get(0), Some(2.0));
        assert_eq!(df.column("B")?.f64()?.get(1), None);
        assert!(
            q.notes
                .iter()
                .any(|n| crate::render::notes::note_text(n).contains("aligned"))
        );
        Ok(())
    }

    #[test]
    fn the_exporters_own_pod_is_not_a_workload() -> Result<()> {
        let exporter = [
            ("gpu", "0"),
            ("pod", "nvidia-dcgm-exporter-x"),
            ("container", "nvidia-dcgm-exporter"),
            ("job", "j"),
        ];
        let renamed = [
            ("gpu", "1"),
            ("pod", "p"),
            ("exported_pod", "vllm"),
            ("exported_namespace", "ml"),
            ("job", "j"),
        ];
        let plain_pod_same_target = [("gpu", "2"), ("pod", "p"), ("job", "j")];
        let s = vec![
            sample("A", &exporter, 0.0, 0),
            sample("A", &renamed, 0.0, 0),
            sample("A", &plain_pod_same_target, 0.0, 0),
        ];
        let (df, _) = pivot(s, &LabelOptions::default())?;
        let jobs: Vec<Option<&str>> = df.column("job")?.str()?.iter().collect();
        assert_eq!(jobs, vec![None, Some("vllm"), None]);
        let teams: Vec<Option<&str>> = df.column("team")?.str()?.iter().collect();
        assert_eq!(teams, vec![None, Some("ml"), None]);
        Ok(())
    }

    #[test]
    fn no_workload_labels_means_no_job_column() -> Result<()> {
        let s = vec![sample(
            "DCGM_FI_DEV_FB_USED",
            &[("gpu", "0"), ("instance", "x:9400")],
            5.0,
            0,
        )];
        let (df, _) = pivot(s, &LabelOptions::default())?;
        assert!(df.column("job").is_err());
        Ok(())
    }
}
