//! The per-GPU detail of a live scan (who holds each card, what it did), built
//! from the samples and the audit's per-GPU summary. Pure computation.
use crate::audit::model::{GpuSummary, Report};
use crate::samples::col;
use crate::source::live::process_owner::Owner;
use crate::source::live::{MigParent, ScanData};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScanDetail {
    pub host: String,
    pub ticks: usize,
    pub interval_seconds: f64,
    pub gpus: Vec<ScanGpu>,
    pub mig_parents: Vec<ScanMigParent>,
    pub warnings: Vec<String>,
    /// the node's live MFU from declared work (--achieved-tflops, --tokens-per-sec ...)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_mfu: Option<LiveMfu>,
}

/// Declared model FLOP/s over the summed dense peaks of the held GPUs.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LiveMfu {
    pub declared_tflops: f64,
    pub held_gpus: usize,
    pub dtype: crate::catalog::Dtype,
    pub mfu: f64,
}

/// A process holding a unit at its last sample.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Holder {
    #[serde(flatten)]
    pub owner: Owner,
    pub gpu_mem_bytes: Option<u64>,
    pub sm_util: Option<f64>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScanGpu {
    /// the canonical gpu id (as in the report's `gpus`)
    pub gpu: String,
    pub label: String,
    pub uuid: Option<String>,
    pub model: Option<String>,
    pub mig_parent: Option<String>,
    pub samples: usize,
    /// held at its last sample
    pub held: Option<bool>,
    pub holders: Vec<Holder>,
    /// means over the scan's samples of this unit, held or not (None: never measured)
    pub device_util: Option<f64>,
    pub gr_engine_active: Option<f64>,
    pub sm_active: Option<f64>,
    pub sm_occupancy: Option<f64>,
    pub tensor_active: Option<f64>,
    pub dram_active: Option<f64>,
    pub mem_used_bytes: Option<u64>,
    pub mem_total_bytes: Option<u64>,
    pub power_w: Option<f64>,
    /// from the audit: held and idle-held hours, the price
    pub held_gpu_hours: Option<f64>,
    pub idle_held_gpu_hours: Option<f64>,
    pub usd_per_hour: Option<f64>,
    /// the price times the share of this unit's observed time it was idle and held
    pub idle_usd_per_hour: Option<f64>,
    /// metric -> why it is n/a
    pub unavailable: BTreeMap<String, String>,
    /// the error that ended this unit's scan early
    pub failed: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ScanMigParent {
    pub label: String,
    pub uuid: Option<String>,
    pub model: Option<String>,
    pub instances: usize,
    pub power_w: Option<f64>,
    pub device_util: Option<f64>,
    pub device_util_reason: String,
}

fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let (sum, n) = values
        .flatten()
        .fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Idle burn rate of one GPU: its price x the share of its observed time it sat idle and held.
pub fn idle_usd_per_hour(g: &GpuSummary) -> Option<f64> {
    let price = g.usd_per_hour?;
    let idle = g.idle_held_gpu_hours?;
    (g.observed_gpu_hours > 0.0).then(|| price * idle / g.observed_gpu_hours)
}

/// One unit's row of the scan: its means, its last reading, who holds it,
/// and the audit's hours and price for it.
fn scan_gpu(
    data: &ScanData,
    (i, unit): (usize, &crate::source::live::UnitInfo),
    report: &Report,
    held_mem_bytes: u64,
) -> ScanGpu {
    let rows: Vec<_> = data.rows.iter().filter(|r| r.unit == i).collect();
    let summary = report
        .gpus
        .iter()
        .find(|g| g.gpu == unit.id && g.host == data.host);
    let last = rows.last();
    let m = |f: fn(&crate::source::live::Reading) -> Option<f64>| {
        mean(rows.iter().map(|r| f(&r.reading)))
    };
    let holders = last
        .map(|r| {
            let procs = r.reading.processes.as_deref().unwrap_or(&[]);
            procs
                .iter()
                .zip(&r.owners)
                .map(|(p, o)| Holder {
                    owner: o.clone(),
                    gpu_mem_bytes: p.used_mem_bytes,
                    sm_util: p.sm_util,
                })
                .collect()
        })
        .unwrap_or_default();
    let mut unavailable: BTreeMap<String, String> = data
        .unsupported
        .get(&i)
        .map(|m| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
        .unwrap_or_default();
    // A reason only matters for a metric that stayed unmeasured.
    let measured = |name: &str| match name {
        "device_util" => m(|r| r.device_util).is_some(),
        "sm_active" => m(|r| r.gpm.get(col::SM_ACTIVE)).is_some(),
        "tensor_active" => m(|r| r.gpm.get(col::TENSOR_ACTIVE)).is_some(),
        "power_w" => m(|r| r.power_w).is_some(),
        _ => false,
    };
    unavailable.retain(|k, _| !measured(k));
    ScanGpu {
        gpu: unit.id.clone(),
        label: unit.label.clone(),
        uuid: unit.uuid.clone(),
        model: unit.model.clone(),
        mig_parent: unit.mig_parent.clone(),
        samples: rows.len(),
        held: last.and_then(|r| crate::source::live::is_held(&r.reading, held_mem_bytes)),
        holders,
        device_util: m(|r| r.device_util),
        gr_engine_active: m(|r| r.gpm.get(col::GR_ENGINE_ACTIVE)),
        sm_active: m(|r| r.gpm.get(col::SM_ACTIVE)),
        sm_occupancy: m(|r| r.gpm.get(col::SM_OCCUPANCY)),
        tensor_active: m(|r| r.gpm.get(col::TENSOR_ACTIVE)),
        dram_active: m(|r| r.gpm.get(col::DRAM_ACTIVE)),
        mem_used_bytes: last.and_then(|r| r.reading.mem_used_bytes),
        mem_total_bytes: last.and_then(|r| r.reading.mem_total_bytes),
        power_w: last.and_then(|r| r.reading.power_w),
        held_gpu_hours: summary.map(|s| s.held_gpu_hours),
        idle_held_gpu_hours: summary.and_then(|s| s.idle_held_gpu_hours),
        usd_per_hour: summary.and_then(|s| s.usd_per_hour),
        idle_usd_per_hour: summary.and_then(idle_usd_per_hour),
        unavailable,
        failed: data.dropped.get(&i).map(|(_, e)| e.clone()),
    }
}

pub fn build(
    data: &ScanData,
    report: &Report,
    held_mem_bytes: u64,
    interval_seconds: f64,
    warnings: Vec<String>,
) -> ScanDetail {
    let gpus = (data.units.iter().enumerate())
        .map(|(i, unit)| scan_gpu(data, (i, unit), report, held_mem_bytes))
        .collect();
    let mig_parents = data
        .mig_parents
        .iter()
        .map(|p: &MigParent| ScanMigParent {
            label: p.label.clone(),
            uuid: p.uuid.clone(),
            model: p.model.clone(),
            instances: p.instances,
            power_w: p.power_w,
            device_util: None,
            device_util_reason: p.device_util_reason.clone(),
        })
        .collect();
    ScanDetail {
        host: data.host.clone(),
        ticks: data.ticks,
        interval_seconds,
        gpus,
        mig_parents,
        warnings,
        live_mfu: None,
    }
}
