//! kube-state-metrics (docs/semantics.md §10, Demand): a pod waits while
//! `kube_pod_status_phase{phase="Pending"}` is 1, for the GPUs its containers
//! request (`kube_pod_container_resource_requests{resource="nvidia_com_gpu"}`),
//! read from a text exposition (one scrape, or timestamped samples) or a
//! Prometheus API response (instant vector or matrix), through the parsers
//! of `source::prometheus`. Owner: the namespace.
use super::Queue;
use crate::audit::diagnosis::demand::PendingRequest;
use crate::audit::model::{Note, UntimedRows};
use crate::audit::weights::{median_step, weigh_gap};
use crate::source::prometheus::{PromSample, json, text};
use anyhow::{Result, bail};
use std::collections::BTreeMap;
use std::path::Path;

pub const PHASE: &str = "kube_pod_status_phase";
pub const REQUESTS: &str = "kube_pod_container_resource_requests";
pub const GPU_RESOURCE: &str = "nvidia_com_gpu";

/// What a pod weighs when the data has one instant only (as a snapshot, §2).
const SNAPSHOT_US: i64 = crate::audit::DEFAULT_SNAPSHOT_US;

/// (namespace, pod)
type PodKey = (String, String);

pub fn read(name: &str, path: &Path, body: &str) -> Result<Queue> {
    let mut notes = Vec::new();
    let samples = samples_of(name, path, body, &mut notes)?;
    let mut queue = from_samples(name, samples, None)?;
    notes.append(&mut queue.notes);
    queue.notes = notes;
    Ok(queue)
}

/// The requests of kube-state-metrics samples; a pod with one sample weighs
/// `pod_step`, else the median step over every distinct time of the samples.
fn from_samples(name: &str, samples: Vec<PromSample>, pod_step: Option<i64>) -> Result<Queue> {
    let mut notes = Vec::new();
    let (phases, gpus) = split_series(name, samples)?;
    if phases.is_empty() && pod_step.is_none() {
        bail!(
            "{name}: no {PHASE}{{phase=\"Pending\"}} series with namespace and pod labels (expected kube-state-metrics series)"
        );
    }
    let file_step = pod_step.or_else(|| median_step(&distinct_times(&phases)));
    let mut requests = Vec::new();
    let mut without_gpus = 0;
    for (key, points) in &phases {
        let before = requests.len();
        let asked = pod_requests(key, points, gpus.get(key), file_step, &mut requests);
        if asked && requests.len() == before {
            without_gpus += 1;
        }
    }
    notes.push(Note::QueueRead {
        file: name.to_string(),
        family: "kube-state-metrics".to_string(),
        requests: requests.len(),
        without_gpus,
        naive_times: 0,
        zone: "UTC".to_string(),
    });
    Ok(Queue { requests, notes })
}

/// The samples of the file; untimed ones (a plain scrape) at the file's
/// modification time, with the note that says so.
fn samples_of(
    name: &str,
    path: &Path,
    body: &str,
    notes: &mut Vec<Note>,
) -> Result<Vec<PromSample>> {
    let head = body.trim_start();
    let mut samples = if json::looks_like_response(head.get(..4096.min(head.len())).unwrap_or(head))
    {
        let response = json::parse_response(body).map_err(|e| anyhow::anyhow!("{name}:{e}"))?;
        json::to_samples(response, "").0
    } else {
        text::parse_exposition(body, name)?
    };
    let untimed = samples.iter().filter(|s| s.time_us.is_none()).count();
    if untimed > 0 {
        let rows = UntimedRows::Samples {
            count: Some(untimed),
        };
        let (at, note) = crate::source::filetime::fallback_time(name, path, None, rows)?;
        for s in samples.iter_mut().filter(|s| s.time_us.is_none()) {
            s.time_us = Some(at);
        }
        notes.push(note);
    }
    Ok(samples)
}

/// The Pending series per pod (time, value) and the GPU requests per pod
/// (container → its points), each sorted by time.
#[allow(clippy::type_complexity)]
fn split_series(
    name: &str,
    samples: Vec<PromSample>,
) -> Result<(
    BTreeMap<PodKey, Vec<(i64, f64)>>,
    BTreeMap<PodKey, BTreeMap<String, Vec<(i64, f64)>>>,
)> {
    let mut phases: BTreeMap<PodKey, Vec<(i64, f64)>> = BTreeMap::new();
    let mut gpus: BTreeMap<PodKey, BTreeMap<String, Vec<(i64, f64)>>> = BTreeMap::new();
    for s in samples {
        let label = |k: &str| s.labels.get(k).cloned().unwrap_or_default();
        let is_phase = s.metric == PHASE && label("phase") == "Pending";
        let is_gpu = s.metric == REQUESTS && label("resource") == GPU_RESOURCE;
        if !is_phase && !is_gpu {
            continue;
        }
        let (Some(ns), Some(pod)) = (s.labels.get("namespace"), s.labels.get("pod")) else {
            bail!(
                "{name}: a {} series without namespace and pod labels",
                s.metric
            );
        };
        let key = (ns.clone(), pod.clone());
        let point = (s.time_us.unwrap_or(0), s.value);
        if is_phase {
            phases.entry(key).or_default().push(point);
        } else {
            let container = label("container");
            gpus.entry(key)
                .or_default()
                .entry(container)
                .or_default()
                .push(point);
        }
    }
    for points in phases.values_mut() {
        points.sort_by_key(|p| p.0);
        points.dedup_by_key(|p| p.0); // a repeated time keeps the first
    }
    for points in gpus.values_mut().flat_map(|c| c.values_mut()) {
        points.sort_by_key(|p| p.0);
    }
    Ok((phases, gpus))
}

fn distinct_times(phases: &BTreeMap<PodKey, Vec<(i64, f64)>>) -> Vec<i64> {
    let mut times: Vec<i64> = phases.values().flatten().map(|p| p.0).collect();
    times.sort_unstable();
    times.dedup();
    times
}

/// GPUs the pod's containers request at `t`: each container's latest value
/// at or before t, else its first.
fn gpus_at(containers: Option<&BTreeMap<String, Vec<(i64, f64)>>>, t: i64) -> f64 {
    let Some(containers) = containers else {
        return 0.0;
    };
    containers
        .values()
        .filter_map(|points| {
            let before = points.partition_point(|p| p.0 <= t);
            let v = match before {
                0 => points.first(),
                n => points.get(n - 1),
            }?;
            v.1.is_finite().then_some(v.1.max(0.0))
        })
        .sum()
}

/// Push the pod's waits: maximal runs of Pending samples with the same GPU
/// request whose weights (§2: to the next sample, at most 3 × step; the last
/// one step) abut. Returns whether the pod was ever pending.
fn pod_requests(
    key: &PodKey,
    points: &[(i64, f64)],
    containers: Option<&BTreeMap<String, Vec<(i64, f64)>>>,
    file_step: Option<i64>,
    out: &mut Vec<PendingRequest>,
) -> bool {
    let times: Vec<i64> = points.iter().map(|p| p.0).collect();
    let step = median_step(&times).or(file_step).unwrap_or(SNAPSHOT_US);
    let max_gap = 3 * step;
    let mut ever_pending = false;
    // the open run: (submit, end, gpus)
    let mut run: Option<(i64, i64, f64)> = None;
    for (i, &(t, v)) in points.iter().enumerate() {
        let weight = match points.get(i + 1) {
            Some(next) => weigh_gap(next.0 - t, max_gap).0,
            None => step.min(max_gap),
        };
        let pending = v == 1.0;
        ever_pending |= pending;
        let gpus = if pending { gpus_at(containers, t) } else { 0.0 };
        match run {
            Some((from, end, g)) if pending && gpus > 0.0 && end == t && g == gpus => {
                run = Some((from, t + weight, g));
            }
            _ => {
                close(key, run.take(), out);
                if pending && gpus > 0.0 {
                    run = Some((t, t + weight, gpus));
                }
            }
        }
    }
    close(key, run, out);
    ever_pending
}

/// What each pod asked for while Pending, per evaluation time (0: not
/// Pending), from a live Prometheus (`--prom-queue`). Not narrowed by
/// `--selector`, which is for the DCGM series.
pub const LIVE_QUERY: &str = "sum by (namespace, pod) (kube_pod_container_resource_requests{resource=\"nvidia_com_gpu\"}) * on (namespace, pod) group_left() max by (namespace, pod) (kube_pod_status_phase{phase=\"Pending\"})";

/// The requests of a live Prometheus over [since, until), evaluated every
/// `step` (at most 10,000 points a request, as the DCGM pull).
pub fn from_prometheus(
    client: &mut crate::source::prometheus::http::Client,
    since_us: i64,
    until_us: i64,
    step_us: i64,
) -> Result<Queue> {
    let name = format!("--prom-queue {}", client.base());
    let per_request = crate::source::prometheus::live::MAX_POINTS_PER_SERIES;
    let mut series = Vec::new();
    let mut t = since_us;
    while t < until_us {
        let end = (t + (per_request - 1) * step_us).min(until_us - 1);
        let response = client.query_range(LIVE_QUERY, t, end, step_us)?;
        series.extend(json::named_series(response, "").0);
        t = end + step_us;
    }
    from_series(&name, series, step_us)
}

/// The answers of [`LIVE_QUERY`] as the two kube-state-metrics series they
/// stand for: Pending = 1 where the value is > 0, with that many GPUs.
fn from_series(
    name: &str,
    series: Vec<crate::source::prometheus::PromSeries>,
    step_us: i64,
) -> Result<Queue> {
    let mut samples = Vec::new();
    for s in series {
        let mut labels = s.labels.clone();
        labels.insert("phase".to_string(), "Pending".to_string());
        let mut asked = s.labels;
        asked.insert("resource".to_string(), GPU_RESOURCE.to_string());
        for (t, v) in s.points {
            let pending = if v > 0.0 { 1.0 } else { 0.0 };
            samples.push(sample(PHASE, &labels, pending, t));
            samples.push(sample(REQUESTS, &asked, v, t));
        }
    }
    from_samples(name, samples, Some(step_us))
}

fn sample(metric: &str, labels: &BTreeMap<String, String>, value: f64, t: i64) -> PromSample {
    PromSample {
        metric: metric.to_string(),
        labels: labels.clone(),
        value,
        time_us: Some(t),
    }
}

fn close(key: &PodKey, run: Option<(i64, i64, f64)>, out: &mut Vec<PendingRequest>) {
    if let Some((from, end, gpus)) = run {
        out.push(PendingRequest {
            owner: Some(key.0.clone()),
            gpus,
            submit_us: from,
            start_us: Some(end),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::prometheus::PromSeries;
    const MIN: i64 = crate::audit::interval::TICKS_PER_MINUTE;

    fn pod(ns: &str, name: &str, points: &[(i64, f64)]) -> PromSeries {
        let labels = [("namespace", ns), ("pod", name)]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        PromSeries {
            metric: String::new(),
            labels,
            points: points.iter().map(|(m, v)| (m * MIN, *v)).collect(),
        }
    }

    #[test]
    fn live_answers_become_waits_of_abutting_pending_points() -> Result<()> {
        // 1 min step: a waits 0-3 min with 2 GPUs, runs at 3, waits again at
        // 5-6 (its last point weighs one step); b asks 4 at 1 min only; c is
        // in the answer with 0 only (not pending)
        let series = vec![
            pod(
                "ns-a",
                "a",
                &[(0, 2.0), (1, 2.0), (2, 2.0), (3, 0.0), (5, 2.0)],
            ),
            pod("ns-b", "b", &[(1, 4.0)]),
            pod("ns-c", "c", &[(0, 0.0), (1, 0.0)]),
        ];
        let q = from_series("live", series, MIN)?;
        let got: Vec<(Option<&str>, f64, i64, Option<i64>)> = q
            .requests
            .iter()
            .map(|r| (r.owner.as_deref(), r.gpus, r.submit_us, r.start_us))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("ns-a"), 2.0, 0, Some(3 * MIN)),
                (Some("ns-a"), 2.0, 5 * MIN, Some(6 * MIN)),
                (Some("ns-b"), 4.0, MIN, Some(2 * MIN)),
            ]
        );
        Ok(())
    }
}
