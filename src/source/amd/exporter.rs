//! AMD Device Metrics Exporter series (a scrape, an API response, a live
//! Prometheus) onto the canonical metrics, before the Prometheus pivot.
//!
//! - `gpu_gfx_activity` is device activity of the whole GPU (percent); in
//!   CPX/DPX/QPX modes it is valid on partition 0 only, so a partitioned GPU
//!   takes each partition's device activity from `gpu_gfx_busy_instantaneous`
//!   (per XCC of the partition, averaged) and each partition is its own held
//!   unit (`<serial>/<partition>`, as a MIG instance is `<gpu>/<gi>`).
//! - `gpu_umc_activity` is memory-controller activity (the DRAM layer);
//!   `gpu_prof_sm_active` is vector-ALU busy, read onto the SM layer as an
//!   approximation (a note says so); `gpu_prof_occupancy_percent` onto SM
//!   occupancy; `gpu_prof_tensor_active_percent` (MFMA busy) onto tensor active.
//! - An exporter before 1.4 exports 0 for a field the card does not support:
//!   a field that is 0 on every sample of a card whose device activity is not
//!   is read as not measured (absent), with a note.
use super::super::prometheus::PromSeries;
use crate::audit::model::Note;
use crate::samples::{Quality, col};
use std::collections::{BTreeMap, BTreeSet};

/// How one exporter field becomes a canonical metric.
#[derive(Clone, Copy, PartialEq)]
enum Scale {
    /// 0..100 -> 0..1 (values above 100 are the exporter's "not applicable")
    Percent,
    /// MB (MiB, as amdsmi divides by 1024²) -> bytes
    Mib,
    Watts,
}

/// The exporter fields the audit reads (names without a configured prefix),
/// the canonical column each feeds, and its scale. Earlier entries win over
/// later ones feeding the same column (package power before power usage).
const FIELDS: &[(&str, &str, Scale)] = &[
    ("gpu_gfx_activity", col::DEVICE_UTIL, Scale::Percent),
    // exporter before 1.0 (tools/metricutil/metrics_mini.txt)
    ("gpu_usage", col::DEVICE_UTIL, Scale::Percent),
    ("gpu_umc_activity", col::DRAM_ACTIVE, Scale::Percent),
    ("gpu_prof_sm_active", col::SM_ACTIVE, Scale::Percent),
    (
        "gpu_prof_occupancy_percent",
        col::SM_OCCUPANCY,
        Scale::Percent,
    ),
    (
        "gpu_prof_tensor_active_percent",
        col::TENSOR_ACTIVE,
        Scale::Percent,
    ),
    ("gpu_used_vram", col::MEM_USED_BYTES, Scale::Mib),
    ("gpu_total_vram", col::MEM_TOTAL_BYTES, Scale::Mib),
    ("gpu_total_memory", col::MEM_TOTAL_BYTES, Scale::Mib),
    ("gpu_package_power", col::POWER_W, Scale::Watts),
    ("gpu_power_usage", col::POWER_W, Scale::Watts),
    ("gpu_average_package_power", col::POWER_W, Scale::Watts),
];

/// Per-XCC busy of a partition: its device activity when partitioned.
const BUSY_PER_XCC: &str = "gpu_gfx_busy_instantaneous";

/// Fields that only an AMD exporter exports: one of them marks its prefix.
const MARKERS: &[&str] = &[
    "gpu_gfx_activity",
    "gpu_umc_activity",
    BUSY_PER_XCC,
    "gpu_total_vram",
    "gpu_used_vram",
    "gpu_package_power",
    "gpu_prof_sm_active",
    // exporter before 1.0, with upper-case GPU_UUID / SERIAL_NUMBER labels
    "gpu_usage",
    "gpu_total_memory",
    "gpu_power_usage",
];

/// Whole-GPU readings valid on partition 0 only (others read 0): not a
/// partition's own, so absent on the partitions of a partitioned GPU.
const WHOLE_GPU_ONLY: &[&str] = &[col::DRAM_ACTIVE, col::POWER_W];

/// Fields read as not measured when 0 on every sample of an active card.
const ZERO_MEANS_UNSUPPORTED: &[&str] = &[
    col::SM_ACTIVE,
    col::SM_OCCUPANCY,
    col::TENSOR_ACTIVE,
    col::DRAM_ACTIVE,
    col::POWER_W,
];

/// The prefixes under which AMD exporter fields appear ("" when none is configured).
fn prefixes(series: &[PromSeries]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in series {
        for m in MARKERS {
            if let Some(p) = s.metric.strip_suffix(m)
                && amd_labels(&s.labels)
            {
                out.insert(p.to_string());
            }
        }
    }
    out
}

/// An AMD exporter series carries gpu_id or serial_number (lower-case from 1.0).
fn amd_labels(labels: &BTreeMap<String, String>) -> bool {
    ["gpu_id", "serial_number", "SERIAL_NUMBER", "GPU_UUID"]
        .iter()
        .any(|l| labels.contains_key(*l))
}

fn label<'a>(labels: &'a BTreeMap<String, String>, names: &[&str]) -> Option<&'a str> {
    names.iter().find_map(|n| {
        labels
            .get(*n)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty() && !v.eq_ignore_ascii_case("na"))
    })
}

/// The physical card a series belongs to: its serial, else its UUID, else its index.
fn card_of(labels: &BTreeMap<String, String>) -> Option<String> {
    label(
        labels,
        &[
            "serial_number",
            "SERIAL_NUMBER",
            "gpu_uuid",
            "GPU_UUID",
            "gpu_id",
        ],
    )
    .map(str::to_string)
}

/// The partition of a series on a partitioned card (CPX/DPX/QPX/TPX).
fn partition_of(labels: &BTreeMap<String, String>) -> Option<String> {
    label(labels, &["gpu_partition_id"]).map(str::to_string)
}

/// What translation found, for the notes.
#[derive(Default)]
struct Found {
    sm_active: bool,
    zeroed: BTreeMap<&'static str, BTreeSet<String>>,
    partitioned: BTreeSet<String>,
}

/// The AMD field a series carries (its name less the prefix), when it is an
/// AMD exporter series.
fn field_of(prefixes: &BTreeSet<String>, s: &PromSeries) -> Option<String> {
    prefixes
        .iter()
        .find_map(|p| s.metric.strip_prefix(p.as_str()))
        .filter(|b| b.starts_with("gpu_") || b.starts_with("pcie_"))
        .filter(|_| amd_labels(&s.labels))
        .map(str::to_string)
}

/// Cards whose mode says partitioned, or with a partition other than 0.
fn partitioned_cards(series: &[PromSeries], prefixes: &BTreeSet<String>) -> BTreeSet<String> {
    let mut partitioned = BTreeSet::new();
    for s in series {
        if field_of(prefixes, s).is_none() {
            continue;
        }
        let mode = label(&s.labels, &["gpu_compute_partition_type"]).unwrap_or("spx");
        let part = partition_of(&s.labels).unwrap_or_else(|| "0".into());
        if let Some(card) = card_of(&s.labels)
            && (!mode.eq_ignore_ascii_case("spx") || part != "0")
        {
            partitioned.insert(card);
        }
    }
    partitioned
}

/// AMD series sorted by what becomes of them.
#[derive(Default)]
struct Sorted {
    /// passed on as they are (other vendors', whole-GPU readings of partitions)
    passed: Vec<PromSeries>,
    /// per partition, per stamp: the sum of its XCCs' busy percent and their count
    busy: BTreeMap<BTreeMap<String, String>, BTreeMap<i64, (f64, u32)>>,
    /// canonical series with the rank (in [`FIELDS`]) of the field they came from
    fields: Vec<(usize, PromSeries)>,
}

impl Sorted {
    fn add(&mut self, s: PromSeries, field: String, card: &str, partitioned: bool) {
        let labels = unit_labels(&s.labels, card, partitioned);
        if field == BUSY_PER_XCC {
            if partitioned {
                let points = self.busy.entry(labels).or_default();
                // summed in percent, scaled once: the mean is exact where the readings are
                for &(t, v) in &s.points {
                    if (0.0..=100.0).contains(&v) {
                        let e = points.entry(t).or_insert((0.0, 0));
                        e.0 += v;
                        e.1 += 1;
                    }
                }
            }
            return;
        }
        let Some(rank) = FIELDS.iter().position(|(f, _, _)| *f == field) else {
            return;
        };
        let (_, canonical, scale) = FIELDS[rank];
        // whole-GPU readings do not describe a partition: kept under their own
        // name (no canonical column) without values, so the partition stays a
        // unit at these stamps even when it exports nothing else
        if partitioned && (canonical == col::DEVICE_UTIL || WHOLE_GPU_ONLY.contains(&canonical)) {
            let points = s.points.iter().map(|&(t, _)| (t, f64::NAN)).collect();
            self.passed.push(PromSeries {
                metric: field,
                labels,
                points,
            });
            return;
        }
        let points = s
            .points
            .iter()
            .map(|&(t, v)| (t, scaled(v, scale)))
            .collect();
        let metric = canonical.to_string();
        self.fields.push((
            rank,
            PromSeries {
                metric,
                labels,
                points,
            },
        ));
    }

    /// The canonical series: each partition's busy as its device activity
    /// (rank 0, as gpu_gfx_activity), then the fields.
    fn canonical(mut self) -> (Vec<PromSeries>, Vec<(usize, PromSeries)>) {
        for (labels, points) in std::mem::take(&mut self.busy) {
            let points = points
                .into_iter()
                .map(|(t, (sum, n))| (t, sum / f64::from(n) / 100.0))
                .collect();
            self.fields.push((
                0,
                PromSeries {
                    metric: col::DEVICE_UTIL.to_string(),
                    labels,
                    points,
                },
            ));
        }
        (self.passed, self.fields)
    }
}

/// AMD exporter series onto canonical ones; every other series passes as is.
pub fn translate(series: Vec<PromSeries>, quality: &mut Quality) -> Vec<PromSeries> {
    let prefixes = prefixes(&series);
    if prefixes.is_empty() {
        return series;
    }
    let partitioned = partitioned_cards(&series, &prefixes);
    let mut sorted = Sorted::default();
    for s in series {
        let Some(field) = field_of(&prefixes, &s) else {
            sorted.passed.push(s);
            continue;
        };
        // an AMD series naming no card is no GPU's
        if let Some(card) = card_of(&s.labels) {
            let p = partitioned.contains(&card);
            sorted.add(s, field, &card, p);
        }
    }
    let (mut out, fields) = sorted.canonical();
    let mut found = Found {
        partitioned,
        ..Found::default()
    };
    let amd = zero_fields_unmeasured(first_field_per_metric(fields), &mut found);
    found.sm_active = amd.iter().any(|s| s.metric == col::SM_ACTIVE);
    out.extend(amd);
    notes(&found, quality);
    out
}

/// The labels a unit's series keep: the card (and partition) as the GPU
/// id, its host, model and workload; the rest (xcc_index, link_index…) dropped.
fn unit_labels(
    labels: &BTreeMap<String, String>,
    card: &str,
    partitioned: bool,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    out.insert("UUID".to_string(), card.to_string());
    if partitioned {
        out.insert(
            "GPU_I_ID".to_string(),
            partition_of(labels).unwrap_or_else(|| "0".into()),
        );
    }
    if let Some(model) = label(labels, &["card_series", "card_model"]) {
        out.insert("modelName".to_string(), model.to_string());
    }
    for keep in [
        "hostname",
        "instance",
        "job",
        "pod",
        "namespace",
        "container",
    ] {
        if let Some(v) = labels.get(keep) {
            out.insert(keep.to_string(), v.clone());
        }
    }
    // a Slurm job on the exporter's job_id label
    if let Some(j) = label(labels, &["job_id"]) {
        out.insert("hpc_job".to_string(), j.to_string());
    }
    out
}

/// A percent reading as a fraction; the exporter's "not applicable" markers
/// (0xFFFF, 0xFFFFFFFF: above 100) are no value.
fn percent(v: f64) -> f64 {
    if (0.0..=100.0).contains(&v) {
        v / 100.0
    } else {
        f64::NAN
    }
}

fn scaled(v: f64, scale: Scale) -> f64 {
    match scale {
        Scale::Percent => percent(v),
        Scale::Mib => v * 1_048_576.0,
        Scale::Watts => v,
    }
}

/// One series per unit and metric: where two fields feed one metric, the
/// first in [`FIELDS`] order that the unit exports.
fn first_field_per_metric(mut amd: Vec<(usize, PromSeries)>) -> Vec<PromSeries> {
    amd.sort_by_key(|(rank, _)| *rank);
    let mut chosen: BTreeMap<(String, BTreeMap<String, String>), usize> = BTreeMap::new();
    let mut out: Vec<PromSeries> = Vec::new();
    for (rank, s) in amd {
        let key = (s.metric.clone(), s.labels.clone());
        match chosen.get(&key) {
            Some(&r) if r != rank => continue,
            _ => {
                chosen.insert(key, rank);
                out.push(s);
            }
        }
    }
    out
}

/// The GPU id a unit's series name (card, or card/partition).
fn unit_id(labels: &BTreeMap<String, String>) -> String {
    let card = labels.get("UUID").cloned().unwrap_or_default();
    match labels.get("GPU_I_ID") {
        Some(p) => format!("{card}/{p}"),
        None => card,
    }
}

/// The 0-field rule: a field that is 0 on every sample of a unit whose
/// device activity is above 0 on some sample was not measured.
fn zero_fields_unmeasured(amd: Vec<PromSeries>, found: &mut Found) -> Vec<PromSeries> {
    let active: BTreeSet<String> = amd
        .iter()
        .filter(|s| s.metric == col::DEVICE_UTIL && s.points.iter().any(|p| p.1 > 0.0))
        .map(|s| unit_id(&s.labels))
        .collect();
    let mut all_zero: BTreeMap<(String, String), bool> = BTreeMap::new();
    for s in &amd {
        if ZERO_MEANS_UNSUPPORTED.contains(&s.metric.as_str()) {
            let zero = s.points.iter().all(|p| p.1 == 0.0);
            let e = all_zero
                .entry((unit_id(&s.labels), s.metric.clone()))
                .or_insert(true);
            *e &= zero;
        }
    }
    amd.into_iter()
        .filter(|s| {
            let unit = unit_id(&s.labels);
            let drop = active.contains(&unit)
                && all_zero
                    .get(&(unit.clone(), s.metric.clone()))
                    .copied()
                    .unwrap_or(false);
            if drop
                && let Some(m) = ZERO_MEANS_UNSUPPORTED
                    .iter()
                    .find(|m| **m == s.metric.as_str())
            {
                found.zeroed.entry(m).or_default().insert(unit);
            }
            !drop
        })
        .collect()
}

fn notes(found: &Found, quality: &mut Quality) {
    if found.sm_active {
        quality.notes.push(Note::ApproximateSmActive {
            source: "AMD gpu_prof_sm_active".into(),
            means: "vector-ALU (VALU) busy".into(),
        });
    }
    for (metric, units) in &found.zeroed {
        quality.notes.push(Note::ZeroFieldUnmeasured {
            metric: (*metric).to_string(),
            gpus: units.len(),
        });
    }
    if !found.partitioned.is_empty() {
        quality.notes.push(Note::PartitionsAsUnits {
            cards: found.partitioned.len(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::prometheus::{LabelOptions, pivot_series};
    use anyhow::Result;

    fn series(metric: &str, labels: &[(&str, &str)], points: &[(i64, f64)]) -> PromSeries {
        PromSeries {
            metric: metric.into(),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            points: points.to_vec(),
        }
    }

    /// Series as a live Prometheus returns them: one DPX card (two
    /// partitions, two XCCs each) and a DCGM GPU beside it.
    #[test]
    fn live_series_of_a_dpx_card_beside_a_dcgm_gpu() -> Result<()> {
        let part = |p: &'static str, xcc: &'static str| {
            vec![
                ("serial_number", "S1"),
                ("gpu_partition_id", p),
                ("gpu_compute_partition_type", "dpx"),
                ("xcc_index", xcc),
                ("hostname", "h1"),
                ("card_series", "AMD Instinct MI300X OAM"),
            ]
        };
        let s = vec![
            series("gpu_gfx_busy_instantaneous", &part("0", "0"), &[(0, 80.0)]),
            series("gpu_gfx_busy_instantaneous", &part("0", "1"), &[(0, 40.0)]),
            series("gpu_gfx_busy_instantaneous", &part("1", "0"), &[(0, 0.0)]),
            series(
                "gpu_gfx_busy_instantaneous",
                &part("1", "1"),
                &[(0, 4_294_967_295.0)],
            ),
            series("gpu_gfx_activity", &part("0", "0"), &[(0, 30.0)]),
            series("gpu_used_vram", &part("1", "0"), &[(0, 2048.0)]),
            series(
                "DCGM_FI_DEV_GPU_UTIL",
                &[("UUID", "GPU-1"), ("Hostname", "h2")],
                &[(0, 55.0)],
            ),
        ];
        let (df, q) = pivot_series(s, &LabelOptions::default())?;
        let gpus: Vec<Option<&str>> = df.column(col::GPU)?.str()?.iter().collect();
        assert_eq!(gpus, vec![Some("S1/0"), Some("S1/1"), Some("GPU-1")]);
        let util: Vec<Option<f64>> = df.column(col::DEVICE_UTIL)?.f64()?.iter().collect();
        // XCC mean (80 + 40) / 2; the 0xFFFFFFFF marker is no value; never
        // gpu_gfx_activity's 30; the DCGM GPU's 55 % in the same column
        assert_eq!(util, vec![Some(0.6), Some(0.0), Some(0.55)]);
        assert!(df.column("DCGM_FI_DEV_GPU_UTIL").is_err());
        let used: Vec<Option<f64>> = df.column(col::MEM_USED_BYTES)?.f64()?.iter().collect();
        assert_eq!(used, vec![None, Some(2048.0 * 1_048_576.0), None]);
        assert!(q.notes.contains(&Note::PartitionsAsUnits { cards: 1 }));
        Ok(())
    }

    #[test]
    fn no_amd_series_pass_untouched() {
        let s = vec![series("DCGM_FI_DEV_GPU_UTIL", &[("gpu", "0")], &[(0, 1.0)])];
        let mut q = Quality::default();
        assert_eq!(translate(s.clone(), &mut q), s);
        assert!(q.notes.is_empty());
    }
}
