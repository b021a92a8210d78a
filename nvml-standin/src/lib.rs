//! A stand-in `libnvidia-ml.so`: exports the NVML symbols `gpuaudit scan` calls through
//! nvml-wrapper and answers from a JSON scenario named by `NVML_STANDIN_SCENARIO`.
//!
//! It uses nvml-wrapper-sys's own struct definitions, so layouts match by construction,
//! and checks the version words the versioned calls carry. It exists to test gpuaudit's
//! NVML path without a GPU; it does not replace a real one.
#![allow(non_snake_case, non_upper_case_globals)]

mod scenario;

use nvml_wrapper_sys::bindings::*;
use scenario::{Scenario, UnitSpec, at};
use std::ffi::c_char;
use std::os::raw::{c_uint, c_ulonglong};
use std::sync::Mutex;

type Ret = nvmlReturn_t;
const OK: Ret = nvmlReturn_enum_NVML_SUCCESS;
const INVALID: Ret = nvmlReturn_enum_NVML_ERROR_INVALID_ARGUMENT;
const NOT_SUPPORTED: Ret = nvmlReturn_enum_NVML_ERROR_NOT_SUPPORTED;
const NOT_FOUND: Ret = nvmlReturn_enum_NVML_ERROR_NOT_FOUND;
const INSUFFICIENT: Ret = nvmlReturn_enum_NVML_ERROR_INSUFFICIENT_SIZE;
const LOST: Ret = nvmlReturn_enum_NVML_ERROR_GPU_IS_LOST;
const UNINIT: Ret = nvmlReturn_enum_NVML_ERROR_UNINITIALIZED;
const UNKNOWN: Ret = nvmlReturn_enum_NVML_ERROR_UNKNOWN;
const VERSION_MISMATCH: Ret = nvmlReturn_enum_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
/// NVML's "not a MIG process" instance id
const NO_INSTANCE: c_uint = 0xFFFF_FFFF;

struct Unit {
    spec: UnitSpec,
    /// memory-info reads so far: the unit's tick is reads - 1
    reads: u64,
}

struct Gpu {
    unit: Unit,
    migs: Vec<Unit>,
}

struct State {
    driver: String,
    gpus: Vec<Gpu>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// Which unit a handle names: a GPU index and optionally a MIG slot.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Key {
    gpu: usize,
    mig: Option<usize>,
}

/// Handles are small integers cast to pointers: GPU i -> (i+1) << 8, MIG j -> | (j+1).
fn handle_of(key: Key) -> nvmlDevice_t {
    let v = ((key.gpu + 1) << 8) | key.mig.map_or(0, |m| m + 1);
    v as nvmlDevice_t
}

fn key_of(device: nvmlDevice_t) -> Option<Key> {
    let v = device as usize;
    let gpu = (v >> 8).checked_sub(1)?;
    let mig = (v & 0xff).checked_sub(1);
    Some(Key { gpu, mig })
}

/// Run `f` on the unit a handle names, after the fault checks for `call`.
fn with_unit(device: nvmlDevice_t, call: &str, f: impl FnOnce(&mut Gpu, Key) -> Ret) -> Ret {
    let Ok(mut guard) = STATE.lock() else {
        return UNKNOWN;
    };
    let Some(state) = guard.as_mut() else {
        return UNINIT;
    };
    let Some(key) = key_of(device) else {
        return INVALID;
    };
    let Some(gpu) = state.gpus.get_mut(key.gpu) else {
        return INVALID;
    };
    if let Some(m) = key.mig
        && m >= gpu.migs.len()
    {
        return INVALID;
    }
    if call == "memory" {
        unit_mut(gpu, key).reads += 1;
    }
    let hang = {
        let u = unit_ref(gpu, key);
        u.spec.faults.hang_at_tick.as_ref().is_some_and(|e| {
            e.call == call && u.reads > e.tick && u.reads.saturating_sub(1) == e.tick
        })
    };
    if hang {
        // Outside the lock: a wedged call on one GPU, not a wedged library.
        drop(guard);
        std::thread::sleep(std::time::Duration::from_secs(30));
        return UNKNOWN;
    }
    // A lost parent takes its MIG instances with it.
    let mut units = vec![&gpu.unit];
    if let Some(m) = key.mig {
        units.push(&gpu.migs[m]);
    }
    // The named unit's reads are the clock for its parent's faults too.
    let reads = unit_ref(gpu, key).reads;
    let tick = reads.saturating_sub(1);
    for u in units {
        if let Some(k) = u.spec.faults.gpu_lost_at_tick
            && reads > k
        {
            return LOST;
        }
        if let Some(k) = u.spec.faults.gone_at_tick
            && reads > k
        {
            return INVALID;
        }
        if u.spec.faults.not_supported.iter().any(|c| c == call) {
            return NOT_SUPPORTED;
        }
        if u.spec.faults.no_permission.iter().any(|c| c == call) {
            return nvmlReturn_enum_NVML_ERROR_NO_PERMISSION;
        }
        if let Some(e) = &u.spec.faults.error_at_tick
            && e.call == call
            && reads > e.tick
            && tick == e.tick
        {
            return UNKNOWN;
        }
    }
    f(gpu, key)
}

fn unit_mut(gpu: &mut Gpu, key: Key) -> &mut Unit {
    match key.mig {
        Some(m) => &mut gpu.migs[m],
        None => &mut gpu.unit,
    }
}

fn unit_ref(gpu: &Gpu, key: Key) -> &Unit {
    match key.mig {
        Some(m) => &gpu.migs[m],
        None => &gpu.unit,
    }
}

fn tick_of(u: &Unit) -> u64 {
    u.reads.saturating_sub(1)
}

/// Copy a string into a caller's buffer of `len` bytes, NUL-terminated.
unsafe fn write_str(text: &str, out: *mut c_char, len: c_uint) -> Ret {
    if out.is_null() {
        return INVALID;
    }
    let bytes = text.as_bytes();
    if bytes.len() + 1 > len as usize {
        return INSUFFICIENT;
    }
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, out, bytes.len());
        *out.add(bytes.len()) = 0;
    }
    OK
}

fn load() -> Result<Scenario, String> {
    let path = std::env::var("NVML_STANDIN_SCENARIO")
        .map_err(|_| "NVML_STANDIN_SCENARIO is not set".to_string())?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}

/// The environment variable that counts nvmlInit calls (scenario `init_fails`).
const INIT_CALLS: &str = "NVML_STANDIN_INIT_CALLS";

#[unsafe(no_mangle)]
pub extern "C" fn nvmlInit_v2() -> Ret {
    let scenario = match load() {
        Ok(s) => s,
        Err(e) => {
            // A test tool: say why, or a broken scenario reads as a driver problem.
            eprintln!("nvml-standin: {e}");
            return UNKNOWN;
        }
    };
    if scenario.init_hang {
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    // Counted in the environment: it outlives a dlclose between tries.
    if scenario.init_fails > 0 {
        let calls: u32 = std::env::var(INIT_CALLS)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        // SAFETY: nvmlInit runs before the caller starts threads that read the environment.
        unsafe { std::env::set_var(INIT_CALLS, (calls + 1).to_string()) };
        if calls < scenario.init_fails {
            return nvmlReturn_enum_NVML_ERROR_DRIVER_NOT_LOADED;
        }
    }
    match scenario.init_error.as_deref() {
        Some("driver_not_loaded") => return nvmlReturn_enum_NVML_ERROR_DRIVER_NOT_LOADED,
        Some("no_permission") => return nvmlReturn_enum_NVML_ERROR_NO_PERMISSION,
        _ => {}
    }
    let gpus = scenario
        .devices
        .into_iter()
        .map(|mut spec| {
            let migs = std::mem::take(&mut spec.mig)
                .into_iter()
                .map(|s| Unit { spec: s, reads: 0 })
                .collect();
            Gpu {
                unit: Unit { spec, reads: 0 },
                migs,
            }
        })
        .collect();
    let Ok(mut guard) = STATE.lock() else {
        return UNKNOWN;
    };
    *guard = Some(State {
        driver: scenario.driver_version,
        gpus,
    });
    OK
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlInitWithFlags(_flags: c_uint) -> Ret {
    nvmlInit_v2()
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlShutdown() -> Ret {
    let Ok(mut guard) = STATE.lock() else {
        return UNKNOWN;
    };
    match guard.take() {
        Some(_) => OK,
        None => UNINIT,
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn nvmlErrorString(_result: Ret) -> *const c_char {
    c"nvml-standin error".as_ptr()
}

/// # Safety
/// `version` must point to `length` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlSystemGetDriverVersion(version: *mut c_char, length: c_uint) -> Ret {
    let Ok(guard) = STATE.lock() else {
        return UNKNOWN;
    };
    let Some(state) = guard.as_ref() else {
        return UNINIT;
    };
    unsafe { write_str(&state.driver, version, length) }
}

/// # Safety
/// `count` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetCount_v2(count: *mut c_uint) -> Ret {
    let Ok(guard) = STATE.lock() else {
        return UNKNOWN;
    };
    let Some(state) = guard.as_ref() else {
        return UNINIT;
    };
    if count.is_null() {
        return INVALID;
    }
    unsafe { *count = state.gpus.len() as c_uint };
    OK
}

/// # Safety
/// `device` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetHandleByIndex_v2(
    index: c_uint,
    device: *mut nvmlDevice_t,
) -> Ret {
    let Ok(guard) = STATE.lock() else {
        return UNKNOWN;
    };
    let Some(state) = guard.as_ref() else {
        return UNINIT;
    };
    if device.is_null() || index as usize >= state.gpus.len() {
        return INVALID;
    }
    unsafe {
        *device = handle_of(Key {
            gpu: index as usize,
            mig: None,
        })
    };
    OK
}

/// # Safety
/// `name` must point to `length` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetName(
    device: nvmlDevice_t,
    name: *mut c_char,
    length: c_uint,
) -> Ret {
    with_unit(device, "name", |g, k| unsafe {
        write_str(&unit_ref(g, k).spec.name, name, length)
    })
}

/// # Safety
/// `uuid` must point to `length` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetUUID(
    device: nvmlDevice_t,
    uuid: *mut c_char,
    length: c_uint,
) -> Ret {
    with_unit(device, "uuid", |g, k| unsafe {
        write_str(&unit_ref(g, k).spec.uuid, uuid, length)
    })
}

/// # Safety
/// `index` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetIndex(device: nvmlDevice_t, index: *mut c_uint) -> Ret {
    with_unit(device, "index", |_, k| {
        if index.is_null() || k.mig.is_some() {
            return INVALID;
        }
        unsafe { *index = k.gpu as c_uint };
        OK
    })
}

/// # Safety
/// `memory` must point to an nvmlMemory_v2_t with its version word set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo_v2(
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_v2_t,
) -> Ret {
    if memory.is_null() {
        return INVALID;
    }
    let expected = (std::mem::size_of::<nvmlMemory_v2_t>() | (2 << 24)) as c_uint;
    if unsafe { (*memory).version } != expected {
        return VERSION_MISMATCH;
    }
    with_unit(device, "memory", |g, k| {
        let u = unit_ref(g, k);
        const MIB: u64 = 1 << 20;
        let total = u.spec.memory_total_mib * MIB;
        let used = at(&u.spec.memory_used_mib, tick_of(u)).unwrap_or(0) * MIB;
        unsafe {
            (*memory).total = total;
            (*memory).used = used;
            (*memory).reserved = 0;
            (*memory).free = total.saturating_sub(used);
        }
        OK
    })
}

/// # Safety
/// `utilization` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetUtilizationRates(
    device: nvmlDevice_t,
    utilization: *mut nvmlUtilization_t,
) -> Ret {
    with_unit(device, "utilization", |g, k| {
        // NVML has no device activity for a MIG instance, nor for a parent in MIG mode.
        if k.mig.is_some() || !g.migs.is_empty() {
            return NOT_SUPPORTED;
        }
        let u = unit_ref(g, k);
        let Some(v) = at(&u.spec.utilization, tick_of(u)) else {
            return NOT_SUPPORTED;
        };
        if utilization.is_null() {
            return INVALID;
        }
        unsafe {
            (*utilization).gpu = v;
            (*utilization).memory = 0;
        }
        OK
    })
}

/// # Safety
/// `power` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetPowerUsage(device: nvmlDevice_t, power: *mut c_uint) -> Ret {
    with_unit(device, "power", |g, k| {
        if k.mig.is_some() {
            return NOT_SUPPORTED; // power is per physical GPU
        }
        let u = unit_ref(g, k);
        let Some(v) = at(&u.spec.power_mw, tick_of(u)) else {
            return NOT_SUPPORTED;
        };
        if power.is_null() {
            return INVALID;
        }
        unsafe { *power = v };
        OK
    })
}

/// The processes of a unit of `kind`; a MIG parent lists its instances' processes.
fn processes_of(g: &Gpu, k: Key, graphics: bool) -> Vec<nvmlProcessInfo_t> {
    let wanted = |kind: &str| kind == "both" || (kind == "graphics") == graphics;
    let mut units: Vec<&Unit> = Vec::new();
    match k.mig {
        Some(m) => units.push(&g.migs[m]),
        None => {
            units.push(&g.unit);
            units.extend(g.migs.iter());
        }
    }
    let mut out = Vec::new();
    for u in units {
        let is_mig = !std::ptr::eq(u, &g.unit);
        for p in u.spec.processes.iter().filter(|p| wanted(&p.kind)) {
            out.push(nvmlProcessInfo_t {
                pid: p.pid.resolve(),
                usedGpuMemory: p.used_mib << 20,
                gpuInstanceId: if is_mig { u.spec.gi } else { NO_INSTANCE },
                computeInstanceId: if is_mig { u.spec.ci } else { NO_INSTANCE },
            });
        }
    }
    out
}

/// The NVML count protocol: `*count` is the caller's capacity in, the real count out.
unsafe fn answer_list<T: Copy>(items: &[T], count: *mut c_uint, out: *mut T) -> Ret {
    if count.is_null() {
        return INVALID;
    }
    let capacity = unsafe { *count } as usize;
    unsafe { *count = items.len() as c_uint };
    if items.is_empty() {
        return OK;
    }
    if out.is_null() || capacity < items.len() {
        return INSUFFICIENT;
    }
    unsafe { std::ptr::copy_nonoverlapping(items.as_ptr(), out, items.len()) };
    OK
}

/// # Safety
/// `infoCount` must be writable; `infos` holds `*infoCount` entries when not null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetComputeRunningProcesses_v3(
    device: nvmlDevice_t,
    infoCount: *mut c_uint,
    infos: *mut nvmlProcessInfo_t,
) -> Ret {
    with_unit(device, "processes", |g, k| unsafe {
        answer_list(&processes_of(g, k, false), infoCount, infos)
    })
}

/// # Safety
/// `infoCount` must be writable; `infos` holds `*infoCount` entries when not null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGraphicsRunningProcesses_v3(
    device: nvmlDevice_t,
    infoCount: *mut c_uint,
    infos: *mut nvmlProcessInfo_t,
) -> Ret {
    with_unit(device, "processes", |g, k| unsafe {
        answer_list(&processes_of(g, k, true), infoCount, infos)
    })
}

/// # Safety
/// `processSamplesCount` must be writable; `utilization` holds that many entries when not null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetProcessUtilization(
    device: nvmlDevice_t,
    utilization: *mut nvmlProcessUtilizationSample_t,
    processSamplesCount: *mut c_uint,
    _lastSeenTimeStamp: c_ulonglong,
) -> Ret {
    with_unit(device, "process_utilization", |g, k| {
        let u = unit_ref(g, k);
        let samples: Vec<nvmlProcessUtilizationSample_t> = u
            .spec
            .processes
            .iter()
            .filter_map(|p| {
                p.sm_util.map(|sm| nvmlProcessUtilizationSample_t {
                    pid: p.pid.resolve(),
                    timeStamp: tick_of(u) + 1,
                    smUtil: sm,
                    memUtil: 0,
                    encUtil: 0,
                    decUtil: 0,
                })
            })
            .collect();
        // Real NVML answers NOT_FOUND when it has no samples.
        if samples.is_empty() {
            return NOT_FOUND;
        }
        unsafe { answer_list(&samples, processSamplesCount, utilization) }
    })
}

/// # Safety
/// Both pointers must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMigMode(
    device: nvmlDevice_t,
    current: *mut c_uint,
    pending: *mut c_uint,
) -> Ret {
    with_unit(device, "mig_mode", |g, k| {
        if k.mig.is_some() || current.is_null() || pending.is_null() {
            return INVALID;
        }
        let on = c_uint::from(!g.migs.is_empty());
        unsafe {
            *current = on;
            *pending = on;
        }
        OK
    })
}

/// # Safety
/// `count` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMaxMigDeviceCount(
    device: nvmlDevice_t,
    count: *mut c_uint,
) -> Ret {
    with_unit(device, "mig_count", |g, _| {
        if count.is_null() {
            return INVALID;
        }
        // Slots, not live instances, like NVML: one empty slot past the instances.
        unsafe {
            *count = if g.migs.is_empty() {
                0
            } else {
                g.migs.len() as c_uint + 1
            }
        };
        OK
    })
}

/// # Safety
/// `migDevice` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetMigDeviceHandleByIndex(
    device: nvmlDevice_t,
    index: c_uint,
    migDevice: *mut nvmlDevice_t,
) -> Ret {
    with_unit(device, "mig_handle", |g, k| {
        if k.mig.is_some() || migDevice.is_null() {
            return INVALID;
        }
        if index as usize >= g.migs.len() {
            return NOT_FOUND; // an empty slot
        }
        unsafe {
            *migDevice = handle_of(Key {
                gpu: k.gpu,
                mig: Some(index as usize),
            })
        };
        OK
    })
}

/// # Safety
/// `isMigDevice` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceIsMigDeviceHandle(
    device: nvmlDevice_t,
    isMigDevice: *mut c_uint,
) -> Ret {
    with_unit(device, "is_mig", |_, k| {
        if isMigDevice.is_null() {
            return INVALID;
        }
        unsafe { *isMigDevice = c_uint::from(k.mig.is_some()) };
        OK
    })
}

/// # Safety
/// `parent` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetDeviceHandleFromMigDeviceHandle(
    device: nvmlDevice_t,
    parent: *mut nvmlDevice_t,
) -> Ret {
    with_unit(device, "mig_parent", |_, k| {
        if k.mig.is_none() || parent.is_null() {
            return INVALID;
        }
        unsafe {
            *parent = handle_of(Key {
                gpu: k.gpu,
                mig: None,
            })
        };
        OK
    })
}

/// # Safety
/// `id` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetGpuInstanceId(device: nvmlDevice_t, id: *mut c_uint) -> Ret {
    with_unit(device, "gi", |g, k| {
        let Some(m) = k.mig else { return NOT_SUPPORTED };
        if id.is_null() {
            return INVALID;
        }
        unsafe { *id = g.migs[m].spec.gi };
        OK
    })
}

/// # Safety
/// `id` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlDeviceGetComputeInstanceId(
    device: nvmlDevice_t,
    id: *mut c_uint,
) -> Ret {
    with_unit(device, "ci", |g, k| {
        let Some(m) = k.mig else { return NOT_SUPPORTED };
        if id.is_null() {
            return INVALID;
        }
        unsafe { *id = g.migs[m].spec.ci };
        OK
    })
}

// ---- GPM ----

/// What a GPM sample handle points at: the unit and its tick when taken.
struct Sample {
    key: Option<Key>,
    tick: u64,
}

/// # Safety
/// `gpmSupport` must point to an nvmlGpmSupport_t with its version set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpmQueryDeviceSupport(
    device: nvmlDevice_t,
    gpmSupport: *mut nvmlGpmSupport_t,
) -> Ret {
    if gpmSupport.is_null() {
        return INVALID;
    }
    if unsafe { (*gpmSupport).version } != NVML_GPM_SUPPORT_VERSION {
        return VERSION_MISMATCH;
    }
    with_unit(device, "gpm_support", |g, k| {
        let u = unit_ref(g, k);
        let supported = u.spec.gpm.is_some()
            || (k.mig.is_none() && g.migs.iter().any(|m| m.spec.gpm.is_some()));
        unsafe { (*gpmSupport).isSupportedDevice = c_uint::from(supported) };
        OK
    })
}

/// # Safety
/// `gpmSample` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpmSampleAlloc(gpmSample: *mut nvmlGpmSample_t) -> Ret {
    if gpmSample.is_null() {
        return INVALID;
    }
    let b = Box::new(Sample { key: None, tick: 0 });
    unsafe { *gpmSample = Box::into_raw(b) as nvmlGpmSample_t };
    OK
}

/// # Safety
/// `gpmSample` must come from nvmlGpmSampleAlloc and not be freed twice.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpmSampleFree(gpmSample: nvmlGpmSample_t) -> Ret {
    if gpmSample.is_null() {
        return INVALID;
    }
    drop(unsafe { Box::from_raw(gpmSample as *mut Sample) });
    OK
}

unsafe fn fill_sample(
    device: nvmlDevice_t,
    mig_gi: Option<c_uint>,
    gpmSample: nvmlGpmSample_t,
) -> Ret {
    if gpmSample.is_null() {
        return INVALID;
    }
    with_unit(device, "gpm", |g, k| {
        let key = match mig_gi {
            None => k,
            Some(gi) => match g.migs.iter().position(|m| m.spec.gi == gi) {
                Some(m) => Key {
                    gpu: k.gpu,
                    mig: Some(m),
                },
                None => return INVALID,
            },
        };
        let u = unit_ref(g, key);
        if u.spec.gpm.is_none() || u.spec.faults.not_supported.iter().any(|c| c == "gpm") {
            return NOT_SUPPORTED;
        }
        let s = gpmSample as *mut Sample;
        unsafe {
            (*s).key = Some(key);
            (*s).tick = tick_of(u);
        }
        OK
    })
}

/// # Safety
/// `gpmSample` must come from nvmlGpmSampleAlloc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpmSampleGet(device: nvmlDevice_t, gpmSample: nvmlGpmSample_t) -> Ret {
    unsafe { fill_sample(device, None, gpmSample) }
}

/// # Safety
/// `gpmSample` must come from nvmlGpmSampleAlloc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpmMigSampleGet(
    device: nvmlDevice_t,
    gpuInstanceId: c_uint,
    gpmSample: nvmlGpmSample_t,
) -> Ret {
    unsafe { fill_sample(device, Some(gpuInstanceId), gpmSample) }
}

/// # Safety
/// `metricsGet` must point to an nvmlGpmMetricsGet_t with version and samples set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn nvmlGpmMetricsGet(metricsGet: *mut nvmlGpmMetricsGet_t) -> Ret {
    if metricsGet.is_null() {
        return INVALID;
    }
    let req = unsafe { &mut *metricsGet };
    if req.version != NVML_GPM_METRICS_GET_VERSION || req.sample1.is_null() || req.sample2.is_null()
    {
        return if req.version != NVML_GPM_METRICS_GET_VERSION {
            VERSION_MISMATCH
        } else {
            INVALID
        };
    }
    let (s1, s2) = unsafe {
        (
            &*(req.sample1 as *const Sample),
            &*(req.sample2 as *const Sample),
        )
    };
    let (Some(k1), Some(k2)) = (s1.key, s2.key) else {
        return INVALID;
    };
    if k1 != k2 || s2.tick < s1.tick {
        return INVALID;
    }
    let Ok(guard) = STATE.lock() else {
        return UNKNOWN;
    };
    let Some(state) = guard.as_ref() else {
        return UNINIT;
    };
    let Some(gpu) = state.gpus.get(k2.gpu) else {
        return INVALID;
    };
    let Some(gpm) = &unit_ref(gpu, k2).spec.gpm else {
        return NOT_SUPPORTED;
    };
    let n = (req.numMetrics as usize).min(req.metrics.len());
    for m in req.metrics.iter_mut().take(n) {
        let series = match m.metricId {
            nvmlGpmMetricId_t_NVML_GPM_METRIC_GRAPHICS_UTIL => &gpm.graphics_util,
            nvmlGpmMetricId_t_NVML_GPM_METRIC_SM_UTIL => &gpm.sm_util,
            nvmlGpmMetricId_t_NVML_GPM_METRIC_SM_OCCUPANCY => &gpm.sm_occupancy,
            nvmlGpmMetricId_t_NVML_GPM_METRIC_ANY_TENSOR_UTIL => &gpm.any_tensor_util,
            nvmlGpmMetricId_t_NVML_GPM_METRIC_DRAM_BW_UTIL => &gpm.dram_bw_util,
            _ => &None,
        };
        match series.as_deref().and_then(|s| at(s, s2.tick)) {
            Some(v) => {
                m.value = v;
                m.nvmlReturn = OK;
            }
            None => m.nvmlReturn = NOT_SUPPORTED,
        }
        m.metricInfo = nvmlGpmMetric_t__bindgen_ty_1 {
            shortName: std::ptr::null_mut(),
            longName: std::ptr::null_mut(),
            unit: std::ptr::null_mut(),
        };
    }
    OK
}
