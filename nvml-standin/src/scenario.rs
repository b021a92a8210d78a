//! The scenario a stand-in library answers from (JSON; see testdata/nvml/README.md).
//!
//! Series (`utilization`, `memory_used_mib`, ...) are indexed by the unit's tick; the
//! last value repeats. A unit's tick advances each time its memory info is read
//! (gpuaudit reads it once per unit per tick), so answers do not depend on timing.
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default = "default_driver")]
    pub driver_version: String,
    /// "driver_not_loaded" or "no_permission": nvmlInit_v2 fails with that code
    #[serde(default)]
    pub init_error: Option<String>,
    /// the first N nvmlInit calls of a process fail with DRIVER_NOT_LOADED, later
    /// ones succeed (a driver being restarted)
    #[serde(default)]
    pub init_fails: u32,
    /// nvmlInit_v2 never returns (a driver wedged in its start-up)
    #[serde(default)]
    pub init_hang: bool,
    #[serde(default)]
    pub devices: Vec<UnitSpec>,
}

fn default_driver() -> String {
    "550.54.15".to_string()
}

/// A physical GPU or, under `mig`, one MIG instance.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitSpec {
    pub name: String,
    pub uuid: String,
    /// MIG instances only: GPU instance and compute instance ids
    #[serde(default)]
    pub gi: u32,
    #[serde(default)]
    pub ci: u32,
    pub memory_total_mib: u64,
    #[serde(default)]
    pub memory_used_mib: Vec<u64>,
    /// device activity in percent per tick (nvmlDeviceGetUtilizationRates().gpu)
    #[serde(default)]
    pub utilization: Vec<u32>,
    #[serde(default)]
    pub power_mw: Vec<u32>,
    #[serde(default)]
    pub processes: Vec<ProcessSpec>,
    /// absent: GPM not supported (pre-Hopper)
    #[serde(default)]
    pub gpm: Option<GpmSpec>,
    /// MIG mode on when non-empty
    #[serde(default)]
    pub mig: Vec<UnitSpec>,
    #[serde(default)]
    pub faults: Faults,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessSpec {
    pub pid: Pid,
    #[serde(default)]
    pub used_mib: u64,
    /// "compute" (default), "graphics" or "both"
    #[serde(default = "default_kind")]
    pub kind: String,
    /// per-process SM utilization percent, as nvmlDeviceGetProcessUtilization reports it
    #[serde(default)]
    pub sm_util: Option<u32>,
}

fn default_kind() -> String {
    "compute".to_string()
}

/// A number, or "self": the process that loaded the library (so /proc lookups are real).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Pid {
    Number(u32),
    /// only "self" is meaningful
    Named(#[allow(dead_code)] String),
}

impl Pid {
    pub fn resolve(&self) -> u32 {
        match self {
            Pid::Number(n) => *n,
            Pid::Named(_) => std::process::id(),
        }
    }
}

/// GPM metric percents per tick, by metric; a metric left out is NotSupported.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpmSpec {
    #[serde(default)]
    pub graphics_util: Option<Vec<f64>>,
    #[serde(default)]
    pub sm_util: Option<Vec<f64>>,
    #[serde(default)]
    pub sm_occupancy: Option<Vec<f64>>,
    #[serde(default)]
    pub any_tensor_util: Option<Vec<f64>>,
    #[serde(default)]
    pub dram_bw_util: Option<Vec<f64>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Faults {
    /// from this tick on every call on the unit answers GPU_IS_LOST
    #[serde(default)]
    pub gpu_lost_at_tick: Option<u64>,
    /// calls that answer NOT_SUPPORTED: memory, utilization, power, processes,
    /// process_utilization, gpm
    #[serde(default)]
    pub not_supported: Vec<String>,
    /// from this tick on every call on the unit answers INVALID_ARGUMENT, as a
    /// destroyed MIG instance's handle does after a reconfiguration
    #[serde(default)]
    pub gone_at_tick: Option<u64>,
    /// calls that answer NO_PERMISSION (e.g. "processes" for an unprivileged user
    /// on a driver that hides other users' processes)
    #[serde(default)]
    pub no_permission: Vec<String>,
    /// one call that does not return (for 30 s) at one tick, as a wedged driver's
    #[serde(default)]
    pub hang_at_tick: Option<CallError>,
    /// one call that answers UNKNOWN at one tick
    #[serde(default)]
    pub error_at_tick: Option<CallError>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallError {
    pub call: String,
    pub tick: u64,
}

/// The value of a per-tick series at `tick`; the last value repeats, an empty series is None.
pub fn at<T: Copy>(series: &[T], tick: u64) -> Option<T> {
    let i = (tick as usize).min(series.len().checked_sub(1)?);
    series.get(i).copied()
}
