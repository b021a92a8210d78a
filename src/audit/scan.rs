//! The per-GPU detail of a live scan (who holds each card, what it did), built
//! from the units' samples as plain numbers (the live source's readings are
//! converted at the pipeline's edge) and the audit's per-GPU summary. Pure computation.
use crate::audit::calculator::DeclaredWork;
use crate::audit::model::{GpuSummary, Report, Warning};
use crate::catalog::Dtype;
use anyhow::{Context, Result};
use serde::Serialize;
use std::collections::BTreeMap;

/// One sample of one unit: the metrics a scan reads, None where not measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitSample {
    pub device_util: Option<f64>,
    pub gr_engine_active: Option<f64>,
    pub sm_active: Option<f64>,
    pub sm_occupancy: Option<f64>,
    pub tensor_active: Option<f64>,
    pub dram_active: Option<f64>,
    pub mem_used_bytes: Option<u64>,
    pub mem_total_bytes: Option<u64>,
    pub power_w: Option<f64>,
}

/// One unit (a GPU or a MIG instance) over the scan.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnitObserved {
    /// the canonical gpu id (as in the report's `gpus`)
    pub gpu: String,
    pub label: String,
    pub uuid: Option<String>,
    pub model: Option<String>,
    pub mig_parent: Option<String>,
    /// in time order
    pub samples: Vec<UnitSample>,
    /// held at its last sample (None: unknown, or never sampled)
    pub held_at_last: Option<bool>,
    /// the processes holding it at its last sample
    pub holders: Vec<Holder>,
    /// metric -> why it could not be read
    pub unsupported: BTreeMap<String, String>,
    /// the error that ended this unit's scan early
    pub failed: Option<String>,
}

/// What a scan observed on its node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScanObserved {
    pub host: String,
    pub ticks: usize,
    pub units: Vec<UnitObserved>,
    pub mig_parents: Vec<ScanMigParent>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScanDetail {
    pub host: String,
    pub ticks: usize,
    pub interval_seconds: f64,
    pub gpus: Vec<ScanGpu>,
    pub mig_parents: Vec<ScanMigParent>,
    pub warnings: Vec<Warning>,
    /// the node's live MFU from declared work (--achieved-tflops, --tokens-per-sec ...)
    pub live_mfu: Option<LiveMfu>,
}

/// Declared model FLOP/s over the summed dense peaks of the held GPUs.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LiveMfu {
    pub declared_tflops: f64,
    pub held_gpus: usize,
    pub dtype: Dtype,
    pub mfu: f64,
}

/// A process holding a unit at its last sample.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Holder {
    pub pid: u32,
    pub user: String,
    pub command: Option<String>,
    /// Slurm job id ("4242"), or "pod/<uid>" on Kubernetes
    pub job: Option<String>,
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
fn scan_gpu(host: &str, unit: &UnitObserved, report: &Report) -> ScanGpu {
    let summary = report
        .gpus
        .iter()
        .find(|g| g.gpu == unit.gpu && g.host == host);
    let last = unit.samples.last();
    let m = |f: fn(&UnitSample) -> Option<f64>| mean(unit.samples.iter().map(f));
    // A reason only matters for a metric that stayed unmeasured.
    let measured = |name: &str| match name {
        "device_util" => m(|r| r.device_util).is_some(),
        "sm_active" => m(|r| r.sm_active).is_some(),
        "tensor_active" => m(|r| r.tensor_active).is_some(),
        "power_w" => m(|r| r.power_w).is_some(),
        _ => false,
    };
    let mut unavailable = unit.unsupported.clone();
    unavailable.retain(|k, _| !measured(k));
    ScanGpu {
        gpu: unit.gpu.clone(),
        label: unit.label.clone(),
        uuid: unit.uuid.clone(),
        model: unit.model.clone(),
        mig_parent: unit.mig_parent.clone(),
        samples: unit.samples.len(),
        held: unit.held_at_last,
        holders: unit.holders.clone(),
        device_util: m(|r| r.device_util),
        gr_engine_active: m(|r| r.gr_engine_active),
        sm_active: m(|r| r.sm_active),
        sm_occupancy: m(|r| r.sm_occupancy),
        tensor_active: m(|r| r.tensor_active),
        dram_active: m(|r| r.dram_active),
        mem_used_bytes: last.and_then(|r| r.mem_used_bytes),
        mem_total_bytes: last.and_then(|r| r.mem_total_bytes),
        power_w: last.and_then(|r| r.power_w),
        held_gpu_hours: summary.map(|s| s.held_gpu_hours),
        idle_held_gpu_hours: summary.and_then(|s| s.idle_held_gpu_hours),
        usd_per_hour: summary.and_then(|s| s.usd_per_hour),
        idle_usd_per_hour: summary.and_then(idle_usd_per_hour),
        unavailable,
        failed: unit.failed.clone(),
    }
}

/// The scan's detail: a row per unit, the MIG parents, the warnings a person
/// must see, and the node's live MFU when work was declared.
pub fn build(
    observed: &ScanObserved,
    report: &Report,
    interval_seconds: f64,
    warnings: Vec<Warning>,
    work: Option<(DeclaredWork, Dtype)>,
) -> Result<ScanDetail> {
    let gpus = (observed.units.iter())
        .map(|unit| scan_gpu(&observed.host, unit, report))
        .collect();
    Ok(ScanDetail {
        host: observed.host.clone(),
        ticks: observed.ticks,
        interval_seconds,
        gpus,
        mig_parents: observed.mig_parents.clone(),
        warnings,
        live_mfu: work
            .map(|(w, dtype)| live_mfu(report, w, dtype))
            .transpose()?
            .flatten(),
    })
}

/// The node's live MFU: declared work over the dense peaks of the GPUs held at
/// the last sample; None when none is held.
fn live_mfu(report: &Report, work: DeclaredWork, dtype: Dtype) -> Result<Option<LiveMfu>> {
    let held: Vec<&str> = report
        .gpus
        .iter()
        .filter(|g| g.last_held)
        .filter_map(|g| g.model.as_deref())
        .collect();
    if held.is_empty() {
        return Ok(None);
    }
    let flops = work.flops_per_sec();
    let mfu = super::mfu::node_mfu(flops, &held, dtype).context("live MFU")?;
    Ok(Some(LiveMfu {
        declared_tflops: flops / 1e12,
        held_gpus: held.len(),
        dtype,
        mfu,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(util: Option<f64>, power: Option<f64>) -> UnitSample {
        UnitSample {
            device_util: util,
            power_w: power,
            mem_used_bytes: Some(10),
            ..UnitSample::default()
        }
    }

    #[test]
    fn a_units_row_means_its_samples_and_keeps_reasons_only_for_the_unmeasured() -> Result<()> {
        let observed = ScanObserved {
            host: "n".to_string(),
            ticks: 3,
            units: vec![UnitObserved {
                gpu: "GPU-0".to_string(),
                label: "0".to_string(),
                samples: vec![
                    sample(Some(0.2), None),
                    sample(None, None),
                    sample(Some(0.6), Some(300.0)),
                ],
                held_at_last: Some(true),
                unsupported: [
                    ("power_w".to_string(), "flaky".to_string()),
                    ("tensor_active".to_string(), "NotSupported".to_string()),
                ]
                .into(),
                ..UnitObserved::default()
            }],
            mig_parents: Vec::new(),
        };
        let report = Report {
            gpus: vec![GpuSummary {
                host: "n".to_string(),
                gpu: "GPU-0".to_string(),
                observed_gpu_hours: 2.0,
                idle_held_gpu_hours: Some(0.5),
                usd_per_hour: Some(4.0),
                ..GpuSummary::default()
            }],
            ..Report::default()
        };
        let d = build(&observed, &report, 1.0, Vec::new(), None)?;
        let g = &d.gpus[0];
        assert_eq!(g.samples, 3);
        // the mean of the two measured samples, never a 0 for the missing one
        assert!((g.device_util.unwrap_or(0.0) - 0.4).abs() < 1e-12);
        assert_eq!(g.power_w, Some(300.0));
        assert_eq!(g.tensor_active, None);
        // power was measured once: its reason goes; tensor never was: it stays
        assert_eq!(g.unavailable.len(), 1);
        assert!(g.unavailable.contains_key("tensor_active"));
        // $4/h x 0.5 idle of 2 observed hours
        assert_eq!(g.idle_usd_per_hour, Some(1.0));
        assert_eq!(d.live_mfu, None);
        Ok(())
    }
}
