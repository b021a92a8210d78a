//! The NVML sampler: the local GPUs through nvml-wrapper, initialised once.
//! GPUs in MIG mode are sampled per MIG instance; GPM (Hopper and newer) gives
//! chip activity from consecutive samples.
use super::{Gpm, MigParent, ProcSample, Reading, Sampler, UnitInfo};
use anyhow::{Result, anyhow, bail};
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::enums::gpm::GpmMetricId;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{Device, GpmSample, Nvml};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

pub const NVML_NOT_FOUND: &str = "NVML not found: is the NVIDIA driver installed? (gpuaudit report works on exported metrics without it)";
pub const NO_GPM: &str = "SM/tensor activity needs a Hopper+ GPU (GPM) or DCGM";
const MIG_NO_DEVICE_UTIL: &str =
    "device activity is n/a on a MIG instance (NVML); see gr_engine_active (GPM) instead";
const MIG_NO_POWER: &str = "power is reported for the physical GPU, not per MIG instance";

/// Tries of nvmlInit and the wait between them (a driver restart takes about a second).
const INIT_TRIES: u32 = 3;
const INIT_RETRY_WAIT: Duration = Duration::from_millis(500);

/// Load and initialise NVML: `lib` when given, else the driver's libnvidia-ml.so.1.
/// nvmlInit runs on its own thread: a driver wedged in its start-up (a GPU
/// falling off the bus mid-probe) would otherwise hang the scan before its first
/// sample. Each try gets `call_timeout`, as every later driver call does.
/// Leaked: a reader stuck in a hung driver call may outlive the scan, so NVML
/// stays initialised until the process exits.
pub fn open(lib: Option<&Path>, call_timeout: Duration) -> Result<&'static Nvml> {
    let shown = lib
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "libnvidia-ml.so.1".to_string());
    let owned = lib.map(Path::to_path_buf);
    let (send, answer) = channel();
    std::thread::spawn(move || {
        // The receiver may have given up: nothing to tell then.
        let _ = send.send(init_with_tries(owned.as_deref()));
    });
    let patience = call_timeout * INIT_TRIES + INIT_RETRY_WAIT * (INIT_TRIES - 1);
    let result = match answer.recv_timeout(patience) {
        Ok(result) => result,
        Err(_) => bail!(
            "NVML ({shown}) did not finish initialising within {:.1} s (a hung driver; --nvml-timeout sets the wait per try)",
            patience.as_secs_f64()
        ),
    };
    match result {
        Ok(nvml) => Ok(Box::leak(Box::new(nvml))),
        Err(NvmlError::LibloadingError(e)) => match lib.map(not_a_library) {
            Some(Some(what)) => bail!(
                "--nvml-lib {shown}: not a shared library ({what}); expected the driver's libnvidia-ml.so.1 or the stand-in's libnvml_standin.so"
            ),
            _ => Err(anyhow!("{NVML_NOT_FOUND} [{shown}: {e}]")),
        },
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

/// Why a file that exists cannot be a shared library, in a few words: a
/// directory, or a file without the ELF magic bytes. None when it may be one
/// (or does not exist: then NVML is simply not found).
fn not_a_library(path: &Path) -> Option<String> {
    use std::io::Read;
    if path.is_dir() {
        return Some("a directory".to_string());
    }
    let mut head = [0u8; 4];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .ok()?;
    (head[..n] != *b"\x7fELF").then(|| match n {
        0 => "an empty file".to_string(),
        _ if head[..n].iter().all(|b| b.is_ascii()) => "a text file, no ELF header".to_string(),
        _ => "no ELF header".to_string(),
    })
}

/// nvmlInit, tried again while a restarting driver (modules reloading, the
/// persistence daemon coming up) answers DRIVER_NOT_LOADED or UNKNOWN.
fn init_with_tries(lib: Option<&Path>) -> Result<Nvml, NvmlError> {
    let mut builder = Nvml::builder();
    if let Some(p) = lib {
        builder.lib_path(p.as_os_str());
    }
    let mut result = builder.init();
    for _ in 1..INIT_TRIES {
        if !matches!(result, Err(NvmlError::DriverNotLoaded | NvmlError::Unknown)) {
            break;
        }
        std::thread::sleep(INIT_RETRY_WAIT);
        result = builder.init();
    }
    result
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

/// Each unit is read on its own thread, so a driver call that never returns
/// costs that unit (given up after the call timeout), not the scan.
pub struct NvmlSampler {
    nvml: &'static Nvml,
    workers: Vec<Worker>,
    parents: Vec<MigParent>,
    call_timeout: Duration,
}

/// One unit's reader thread: asked for a reading, answers with one.
struct Worker {
    ask: Sender<()>,
    answer: Receiver<Result<Reading>>,
}

impl NvmlSampler {
    /// `nvml` is 'static because a reader stuck in a hung call may outlive the scan.
    pub fn new(nvml: &'static Nvml, call_timeout: Duration) -> Self {
        NvmlSampler {
            nvml,
            workers: Vec::new(),
            parents: Vec::new(),
            call_timeout,
        }
    }

    fn start(&mut self, i: usize, mut unit: Unit<'static>) -> Result<()> {
        let nvml = self.nvml;
        let (ask, asked) = channel::<()>();
        let (tell, answer) = channel();
        std::thread::Builder::new()
            .name(format!("nvml-unit-{i}"))
            .spawn(move || {
                while asked.recv().is_ok() {
                    if tell.send(read_unit(nvml, &mut unit)).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| anyhow!("cannot start the reader of unit {i}: {e}"))?;
        self.workers.push(Worker { ask, answer });
        Ok(())
    }
}

/// An error that ends a unit's scan, in words.
fn fault(what: &str, e: NvmlError) -> anyhow::Error {
    match e {
        NvmlError::GpuLost => anyhow!("GPU is lost (fell off the bus) reading {what}"),
        // A handle that worked a tick ago and is now refused: the unit is gone.
        NvmlError::InvalidArg | NvmlError::NotFound => anyhow!(
            "the unit is gone reading {what} (MIG instances reconfigured or the GPU reset): {e}"
        ),
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

impl Sampler for NvmlSampler {
    fn units(&mut self) -> Result<Vec<UnitInfo>> {
        let nvml = self.nvml;
        let count = nvml
            .device_count()
            .map_err(|e| anyhow!("NVML: cannot count GPUs: {e}"))?;
        if count == 0 {
            bail!("no NVIDIA GPU found: NVML reports 0 devices");
        }
        let mut infos = Vec::new();
        let mut units = Vec::new();
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
                units.push(Unit {
                    device,
                    mig: None,
                    gpm_prev,
                    gpm_reason,
                    last_seen_us: 0,
                });
                continue;
            }
            let ids = (i, uuid.clone().unwrap_or_else(|| i.to_string()));
            let instances = mig_units(nvml, ids, &device, &model, &mut infos, &mut units)?;
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
        for (i, unit) in units.into_iter().enumerate() {
            self.start(i, unit)?;
        }
        Ok(infos)
    }

    fn mig_parents(&self) -> Vec<MigParent> {
        self.parents.clone()
    }

    fn read(&mut self, i: usize) -> Result<Reading> {
        let w = self.workers.get(i).ok_or_else(|| anyhow!("no unit {i}"))?;
        w.ask
            .send(())
            .map_err(|_| anyhow!("the reader of unit {i} stopped"))?;
        match w.answer.recv_timeout(self.call_timeout) {
            Ok(reading) => reading,
            // The scan drops the unit on this error and never asks it again; its
            // reader stays blocked in the driver until the process exits.
            Err(RecvTimeoutError::Timeout) => Err(anyhow!(
                "NVML did not answer within {:.1} s (a hung driver call; --nvml-timeout); this GPU is given up",
                self.call_timeout.as_secs_f64()
            )),
            Err(RecvTimeoutError::Disconnected) => Err(anyhow!("the reader of unit {i} stopped")),
        }
    }
}

/// One reading of one unit (on its reader thread).
fn read_unit(nvml: &Nvml, u: &mut Unit<'_>) -> Result<Reading> {
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
                Err(NvmlError::NotSupported) => r.unsupported.push(("sm_active", NO_GPM.into())),
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

/// The MIG instances of GPU `i` (`parent_id`: its UUID, else its index) as
/// units; returns how many.
fn mig_units(
    nvml: &'static Nvml,
    (i, parent_id): (u32, String),
    device: &Device<'static>,
    model: &Option<String>,
    infos: &mut Vec<UnitInfo>,
    units: &mut Vec<Unit<'static>>,
) -> Result<usize> {
    let slots = device
        .mig_device_count()
        .map_err(|e| anyhow!("GPU {i}: MIG slots: {e}"))?;
    let gpm_support = device.gpm_support();
    let mut instances = 0usize;
    for slot in 0..slots {
        let mig = match device.mig_device_by_index(slot) {
            Ok(m) => m,
            Err(NvmlError::NotFound) => continue, // an empty slot
            Err(e) => bail!("GPU {i}: MIG slot {slot}: {e}"),
        };
        let (gi, ci) = mig_ids(nvml, &mig).map_err(|e| anyhow!("GPU {i}: MIG slot {slot}: {e}"))?;
        let parent = nvml
            .device_by_index(i)
            .map_err(|e| anyhow!("GPU {i}: {e}"))?;
        let (gpm_prev, gpm_reason) = baseline(&gpm_support, || parent.gpm_mig_sample(gi));
        infos.push(UnitInfo {
            id: format!("{parent_id}/{gi}/{ci}"),
            label: format!("{i}/{gi}/{ci}"),
            uuid: mig.uuid().ok(),
            model: mig.name().ok().or_else(|| model.clone()),
            mig_parent: Some(i.to_string()),
        });
        units.push(Unit {
            device: mig,
            mig: Some((parent, gi)),
            gpm_prev,
            gpm_reason,
            last_seen_us: 0,
        });
        instances += 1;
    }
    Ok(instances)
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

/// The GPM metrics to read and the canonical column each fills: the
/// metric registry's GPM ids (an id this NVML wrapper does not know is skipped).
fn gpm_readings() -> (Vec<GpmMetricId>, Vec<&'static str>) {
    crate::metric::gpm_readings()
        .filter_map(|(id, column)| GpmMetricId::try_from(id).ok().map(|g| (g, column)))
        .unzip()
}

fn gpm_metrics(
    nvml: &Nvml,
    s1: &GpmSample<'_>,
    s2: &GpmSample<'_>,
    unsupported: &mut Vec<(&'static str, String)>,
) -> Result<Gpm> {
    let (ids, columns) = gpm_readings();
    let results = nvml_wrapper::gpm::gpm_metrics_get(nvml, s1, s2, &ids)
        .map_err(|e| fault("GPM metrics", e))?;
    let mut gpm = Gpm::default();
    for (&column, res) in columns.iter().zip(results) {
        match res {
            // GPM answers percents; the canonical table holds fractions. Counters
            // that went backwards or wrapped between the two samples (a GPU reset,
            // a driver restart) give a percent outside 0..100: n/a, never clamped in.
            Ok(m) if m.value.is_finite() && (-0.5..=100.5).contains(&m.value) => {
                gpm.set(column, (m.value / 100.0).clamp(0.0, 1.0))
            }
            Ok(m) => unsupported.push((
                column,
                format!(
                    "GPM counters went backwards or wrapped between samples (NVML computed {:.1}%); that sample is n/a",
                    m.value
                ),
            )),
            Err(e) => unsupported.push((column, format!("GPM metric not available: {e}"))),
        }
    }
    Ok(gpm)
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
            // Not a broken GPU: this user may not list processes. The GPU's other
            // fields stay measured; its holders are unknown, with the reason.
            Err(NvmlError::NoPermission) => unsupported.push((
                "processes",
                format!(
                    "{kind} process list: permission denied (run gpuaudit as root to name holders)"
                ),
            )),
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
