//! The NVML sampler: the local GPUs through nvml-wrapper, initialised once.
//! GPUs in MIG mode are sampled per MIG instance; GPM (Hopper and newer) gives
//! chip activity from consecutive samples.
use super::scan::{Gpm, MigParent, ProcSample, Reading, Sampler, UnitInfo};
use anyhow::{Result, anyhow, bail};
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::enums::gpm::GpmMetricId;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{Device, GpmSample, Nvml};
use std::collections::BTreeMap;
use std::path::Path;

pub const NVML_NOT_FOUND: &str = "NVML not found: is the NVIDIA driver installed? (gpuaudit report works on exported metrics without it)";
pub const NO_GPM: &str = "SM/tensor activity needs a Hopper+ GPU (GPM) or DCGM";
const MIG_NO_DEVICE_UTIL: &str =
    "device activity is n/a on a MIG instance (NVML); see gr_engine_active (GPM) instead";
const MIG_NO_POWER: &str = "power is reported for the physical GPU, not per MIG instance";

/// Load and initialise NVML: `lib` when given, else the driver's libnvidia-ml.so.1.
pub fn open(lib: Option<&Path>) -> Result<Nvml> {
    let mut builder = Nvml::builder();
    if let Some(p) = lib {
        builder.lib_path(p.as_os_str());
    }
    let shown = lib
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "libnvidia-ml.so.1".to_string());
    match builder.init() {
        Ok(nvml) => Ok(nvml),
        Err(NvmlError::LibloadingError(e)) => Err(anyhow!("{NVML_NOT_FOUND} [{shown}: {e}]")),
        Err(NvmlError::DriverNotLoaded) => {
            bail!(
                "NVML is installed but the NVIDIA kernel driver is not loaded ({shown}); is this a GPU node?"
            )
        }
        Err(NvmlError::NoPermission) => {
            bail!("NVML ({shown}): no permission to talk to the NVIDIA driver")
        }
        Err(e) => bail!("NVML ({shown}) failed to initialise: {e}"),
    }
}

/// What one unit needs between ticks.
struct Unit<'n> {
    device: Device<'n>,
    /// MIG: the parent (GPM MIG samples are taken on it) and the GPU instance id
    mig: Option<(Device<'n>, u32)>,
    /// the previous GPM sample; None when GPM is not available
    gpm_prev: Option<GpmSample<'n>>,
    gpm_reason: Option<String>,
    last_seen_us: u64,
}

pub struct NvmlSampler<'n> {
    nvml: &'n Nvml,
    units: Vec<Unit<'n>>,
    parents: Vec<MigParent>,
}

impl<'n> NvmlSampler<'n> {
    pub fn new(nvml: &'n Nvml) -> Self {
        NvmlSampler {
            nvml,
            units: Vec::new(),
            parents: Vec::new(),
        }
    }
}

/// An error that ends a unit's scan, in words.
fn fault(what: &str, e: NvmlError) -> anyhow::Error {
    match e {
        NvmlError::GpuLost => anyhow!("GPU is lost (fell off the bus) reading {what}"),
        other => anyhow!("reading {what}: {other}"),
    }
}

/// The GPU instance and compute instance of a MIG device handle (not wrapped by
/// nvml-wrapper's high-level API; called through its loaded symbol table).
fn mig_ids(nvml: &Nvml, device: &Device<'_>) -> Result<(u32, u32), NvmlError> {
    let lib = nvml.lib();
    let gi_sym = lib
        .nvmlDeviceGetGpuInstanceId
        .as_ref()
        .map_err(|e| NvmlError::FailedToLoadSymbol(e.to_string()))?;
    let ci_sym = lib
        .nvmlDeviceGetComputeInstanceId
        .as_ref()
        .map_err(|e| NvmlError::FailedToLoadSymbol(e.to_string()))?;
    let (mut gi, mut ci) = (0u32, 0u32);
    // SAFETY: a valid handle from nvml-wrapper and pointers to live locals.
    unsafe {
        let h = device.handle();
        let r = gi_sym(h, &mut gi);
        if r != 0 {
            return Err(NvmlError::from(r));
        }
        let r = ci_sym(h, &mut ci);
        if r != 0 {
            return Err(NvmlError::from(r));
        }
    }
    Ok((gi, ci))
}

impl<'n> Sampler for NvmlSampler<'n> {
    fn units(&mut self) -> Result<Vec<UnitInfo>> {
        let nvml = self.nvml;
        let count = nvml
            .device_count()
            .map_err(|e| anyhow!("NVML: cannot count GPUs: {e}"))?;
        if count == 0 {
            bail!("no NVIDIA GPU found: NVML reports 0 devices");
        }
        let mut infos = Vec::new();
        for i in 0..count {
            let device = nvml
                .device_by_index(i)
                .map_err(|e| anyhow!("GPU {i}: {e}"))?;
            let uuid = device.uuid().ok();
            let model = device.name().ok();
            let mig_on = device
                .mig_mode()
                .map(|m| m.current == 1 /* NVML_DEVICE_MIG_ENABLE */)
                .unwrap_or(false);
            if !mig_on {
                let (gpm_prev, gpm_reason) =
                    baseline(&device.gpm_support(), || device.gpm_sample());
                infos.push(UnitInfo {
                    id: uuid.clone().unwrap_or_else(|| i.to_string()),
                    label: i.to_string(),
                    uuid,
                    model,
                    mig_parent: None,
                });
                self.units.push(Unit {
                    device,
                    mig: None,
                    gpm_prev,
                    gpm_reason,
                    last_seen_us: 0,
                });
                continue;
            }
            let slots = device
                .mig_device_count()
                .map_err(|e| anyhow!("GPU {i}: MIG slots: {e}"))?;
            let gpm_support = device.gpm_support();
            let mut instances = 0;
            for slot in 0..slots {
                let mig = match device.mig_device_by_index(slot) {
                    Ok(m) => m,
                    Err(NvmlError::NotFound) => continue, // an empty slot
                    Err(e) => bail!("GPU {i}: MIG slot {slot}: {e}"),
                };
                let (gi, ci) =
                    mig_ids(nvml, &mig).map_err(|e| anyhow!("GPU {i}: MIG slot {slot}: {e}"))?;
                let parent = nvml
                    .device_by_index(i)
                    .map_err(|e| anyhow!("GPU {i}: {e}"))?;
                let (gpm_prev, gpm_reason) = baseline(&gpm_support, || parent.gpm_mig_sample(gi));
                let parent_id = uuid.clone().unwrap_or_else(|| i.to_string());
                infos.push(UnitInfo {
                    id: format!("{parent_id}/{gi}/{ci}"),
                    label: format!("{i}/{gi}/{ci}"),
                    uuid: mig.uuid().ok(),
                    model: mig.name().ok().or_else(|| model.clone()),
                    mig_parent: Some(i.to_string()),
                });
                self.units.push(Unit {
                    device: mig,
                    mig: Some((parent, gi)),
                    gpm_prev,
                    gpm_reason,
                    last_seen_us: 0,
                });
                instances += 1;
            }
            let device_util_reason = match device.utilization_rates() {
                Err(NvmlError::NotSupported) => {
                    "n/a in MIG mode (NVML reports no device activity for a MIG-enabled GPU)"
                        .to_string()
                }
                Err(e) => format!("n/a: {e}"),
                Ok(_) => "not sampled in MIG mode: its MIG instances are the units".to_string(),
            };
            self.parents.push(MigParent {
                label: i.to_string(),
                uuid,
                model,
                instances,
                power_w: device.power_usage().ok().map(|mw| mw as f64 / 1000.0),
                device_util_reason,
            });
        }
        Ok(infos)
    }

    fn mig_parents(&self) -> Vec<MigParent> {
        self.parents.clone()
    }

    fn read(&mut self, i: usize) -> Result<Reading> {
        let nvml = self.nvml;
        let u = self
            .units
            .get_mut(i)
            .ok_or_else(|| anyhow!("no unit {i}"))?;
        let mut r = Reading::default();
        let is_mig = u.mig.is_some();
        match u.device.memory_info() {
            Ok(m) => {
                r.mem_used_bytes = Some(m.used);
                r.mem_total_bytes = Some(m.total);
            }
            Err(NvmlError::NotSupported) => r
                .unsupported
                .push(("mem_used_bytes", "memory info not supported".into())),
            Err(e) => return Err(fault("memory", e)),
        }
        if is_mig {
            r.unsupported
                .push(("device_util", MIG_NO_DEVICE_UTIL.into()));
            r.unsupported.push(("power_w", MIG_NO_POWER.into()));
        } else {
            match u.device.utilization_rates() {
                Ok(v) => r.device_util = Some(v.gpu as f64 / 100.0),
                Err(NvmlError::NotSupported) => r.unsupported.push((
                    "device_util",
                    "device activity not supported by this GPU".into(),
                )),
                Err(e) => return Err(fault("utilization", e)),
            }
            match u.device.power_usage() {
                Ok(mw) => r.power_w = Some(mw as f64 / 1000.0),
                Err(NvmlError::NotSupported) => r
                    .unsupported
                    .push(("power_w", "power not supported by this GPU".into())),
                Err(e) => return Err(fault("power", e)),
            }
        }
        r.processes = processes(&u.device, &mut u.last_seen_us, &mut r.unsupported)?;
        match (&u.gpm_prev, &u.gpm_reason) {
            (Some(prev), _) => {
                let next = match &u.mig {
                    Some((parent, gi)) => parent.gpm_mig_sample(*gi),
                    None => u.device.gpm_sample(),
                };
                match next {
                    Ok(next) => {
                        r.gpm = gpm_metrics(nvml, prev, &next, &mut r.unsupported)?;
                        u.gpm_prev = Some(next);
                    }
                    Err(NvmlError::NotSupported) => {
                        r.unsupported.push(("sm_active", NO_GPM.into()))
                    }
                    Err(e) => return Err(fault("GPM sample", e)),
                }
            }
            (None, Some(reason)) => {
                for m in ["sm_active", "tensor_active"] {
                    r.unsupported.push((m, reason.clone()));
                }
            }
            (None, None) => {}
        }
        Ok(r)
    }
}

/// The first GPM sample of a unit, or why there is none.
fn baseline<'n>(
    support: &Result<bool, NvmlError>,
    sample: impl FnOnce() -> Result<GpmSample<'n>, NvmlError>,
) -> (Option<GpmSample<'n>>, Option<String>) {
    match support {
        Ok(true) => match sample() {
            Ok(s) => (Some(s), None),
            Err(e) => (None, Some(format!("{NO_GPM} (GPM sample failed: {e})"))),
        },
        Ok(false) | Err(NvmlError::NotSupported) | Err(NvmlError::FailedToLoadSymbol(_)) => {
            (None, Some(NO_GPM.to_string()))
        }
        Err(e) => (
            None,
            Some(format!("{NO_GPM} (GPM support query failed: {e})")),
        ),
    }
}

const GPM_IDS: [GpmMetricId; 5] = [
    GpmMetricId::GraphicsUtil,
    GpmMetricId::SmUtil,
    GpmMetricId::SmOccupancy,
    GpmMetricId::AnyTensorUtil,
    GpmMetricId::DramBwUtil,
];
const GPM_COLUMNS: [&str; 5] = [
    "gr_engine_active",
    "sm_active",
    "sm_occupancy",
    "tensor_active",
    "dram_active",
];

fn gpm_metrics(
    nvml: &Nvml,
    s1: &GpmSample<'_>,
    s2: &GpmSample<'_>,
    unsupported: &mut Vec<(&'static str, String)>,
) -> Result<Gpm> {
    let results = nvml_wrapper::gpm::gpm_metrics_get(nvml, s1, s2, &GPM_IDS)
        .map_err(|e| fault("GPM metrics", e))?;
    let mut v: [Option<f64>; 5] = [None; 5];
    for (k, res) in results.into_iter().enumerate() {
        match res {
            // GPM answers percents; the canonical table holds fractions.
            Ok(m) => v[k] = Some(m.value / 100.0),
            Err(e) => unsupported.push((GPM_COLUMNS[k], format!("GPM metric not available: {e}"))),
        }
    }
    Ok(Gpm {
        gr_engine_active: v[0],
        sm_active: v[1],
        sm_occupancy: v[2],
        tensor_active: v[3],
        dram_active: v[4],
    })
}

/// Compute and graphics processes, one entry per pid, with per-process SM use where known.
fn processes(
    device: &Device<'_>,
    last_seen_us: &mut u64,
    unsupported: &mut Vec<(&'static str, String)>,
) -> Result<Option<Vec<ProcSample>>> {
    let mut by_pid: BTreeMap<u32, Option<u64>> = BTreeMap::new();
    let mut any = false;
    for (kind, list) in [
        ("compute", device.running_compute_processes()),
        ("graphics", device.running_graphics_processes()),
    ] {
        match list {
            Ok(list) => {
                any = true;
                for p in list {
                    let mem = match p.used_gpu_memory {
                        UsedGpuMemory::Used(b) => Some(b),
                        UsedGpuMemory::Unavailable => None,
                    };
                    let e = by_pid.entry(p.pid).or_insert(mem);
                    *e = (*e).max(mem);
                }
            }
            Err(NvmlError::NotSupported) => {
                unsupported.push(("processes", format!("{kind} process list not supported")))
            }
            Err(e) => return Err(fault(&format!("{kind} processes"), e)),
        }
    }
    if !any {
        return Ok(None);
    }
    let mut sm: BTreeMap<u32, f64> = BTreeMap::new();
    if !by_pid.is_empty() {
        match device.process_utilization_stats(*last_seen_us) {
            Ok(samples) => {
                let mut latest: BTreeMap<u32, u64> = BTreeMap::new();
                for s in samples {
                    *last_seen_us = (*last_seen_us).max(s.timestamp);
                    if latest.get(&s.pid).is_none_or(|t| s.timestamp >= *t) {
                        latest.insert(s.pid, s.timestamp);
                        sm.insert(s.pid, s.sm_util as f64 / 100.0);
                    }
                }
            }
            Err(NvmlError::NotFound) => {} // no samples since last time
            Err(NvmlError::NotSupported) => unsupported.push((
                "process_sm_util",
                "per-process SM utilization not supported".into(),
            )),
            Err(e) => return Err(fault("process utilization", e)),
        }
    }
    Ok(Some(
        by_pid
            .into_iter()
            .map(|(pid, mem)| ProcSample {
                pid,
                used_mem_bytes: mem,
                sm_util: sm.get(&pid).copied(),
            })
            .collect(),
    ))
}
