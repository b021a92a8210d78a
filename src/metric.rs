//! The ONE metric registry (docs/semantics.md, "Adding a metric"): every
//! canonical metric column once, with what it measures, where it goes in the
//! report, and how each source spells it. The column aliases, the check
//! metrics, the Prometheus metric list, the pushdown plan, the NVML reading
//! list and the engine's per-sample activity array are read from here, so a
//! new ratio metric is one entry below (plus its GPM id or DCGM names).
//!
//! The spellings of AMD, Intel Gaudi, Intel Data Center GPU and
//! OpenTelemetry sources are data for their adapters: this module reads none of them.
use crate::samples::{Kind, Unit};

/// What part of the accelerator a metric watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// the whole device: any kernel running
    Device,
    /// the compute units (SMs, CUs, EUs)
    Chip,
    /// the matrix units (tensor cores, MFMA, MME)
    Tensor,
    /// device memory: traffic or capacity
    Memory,
    Power,
}

impl Layer {
    pub fn name(self) -> &'static str {
        match self {
            Layer::Device => "device",
            Layer::Chip => "chip",
            Layer::Tensor => "tensor",
            Layer::Memory => "memory",
            Layer::Power => "power",
        }
    }
}

/// How one kind of source spells a metric: its names, most current first, and
/// the unit they carry (the canonical unit is `MetricDef::kind`'s).
#[derive(Debug, Clone, Copy)]
pub struct Spelling {
    pub names: &'static [&'static str],
    pub unit: Unit,
}

const NONE: Spelling = Spelling {
    names: &[],
    unit: Unit::AsIs,
};

const fn fraction(names: &'static [&'static str]) -> Spelling {
    Spelling {
        names,
        unit: Unit::AsIs,
    }
}

const fn percent(names: &'static [&'static str]) -> Spelling {
    Spelling {
        names,
        unit: Unit::Percent,
    }
}

/// Every source's spelling of one metric.
#[derive(Debug, Clone, Copy)]
pub struct Sources {
    /// DCGM field id
    pub dcgm_field: Option<u16>,
    /// the series dcgm-exporter publishes: its name, then the DCGM 4.6 name
    pub dcgm_exporter: Spelling,
    /// further spellings of the DCGM field met in files (never queried from Prometheus)
    pub dcgm_files: &'static [&'static str],
    /// further column names that feed this metric (vendor tools and exporters
    /// read as columns), each with its unit; after the DCGM and nvidia-smi names
    pub columns: &'static [(&'static str, Unit)],
    /// `nvidia-smi --query-gpu` columns, with and without the unit suffix
    pub nvidia_smi: Spelling,
    /// the NVML call, or the GPM metric (`nvmlGpmMetricId_t`)
    pub nvml: Option<&'static str>,
    pub gpm_id: Option<u32>,
    /// AMD Device Metrics Exporter series (lower case, without a configured prefix)
    pub amd_exporter: &'static [&'static str],
    /// `amd-smi metric --json` keys, `rocm-smi --json`/CSV columns
    pub amd_smi: &'static [&'static str],
    pub rocm_smi: &'static [&'static str],
    /// `hl-smi -Q` fields and Gaudi Prometheus exporter series
    pub gaudi: &'static [&'static str],
    /// `xpu-smi dump` columns and xpumanager series
    pub intel: &'static [&'static str],
    /// OpenTelemetry hardware semantic conventions (`hw.gpu.*`)
    pub otel: &'static [&'static str],
}

const SOURCES: Sources = Sources {
    dcgm_field: None,
    dcgm_exporter: NONE,
    dcgm_files: &[],
    columns: &[],
    nvidia_smi: NONE,
    nvml: None,
    gpm_id: None,
    amd_exporter: &[],
    amd_smi: &[],
    rocm_smi: &[],
    gaudi: &[],
    intel: &[],
    otel: &[],
};

/// One canonical metric column.
#[derive(Debug, Clone, Copy)]
pub struct MetricDef {
    /// the canonical column (and `--map` target)
    pub name: &'static str,
    pub kind: Kind,
    /// the canonical unit, in words
    pub unit: &'static str,
    pub layer: Layer,
    /// carried by the engine on every sample (the activity array): a fraction
    /// the audit sums or classifies by
    pub audited: bool,
    /// a waterfall layer of its own (`layers.<x>_gpu_hours`)
    pub has_layer: bool,
    /// its time-weighted mean over the held hours that measured it is a
    /// ratio of the report: the field under `ratios` (also the check metric)
    pub ratio: Option<&'static str>,
    /// held dollars not busy at this layer are priced (`cost.<x>`)
    pub idle_usd: Option<&'static str>,
    /// its partial sums in the SQL plan (`plan::SUMS`): held hours x value and
    /// measured held hours, as the partials table names them (None: not summed)
    pub sums: Option<(&'static str, &'static str)>,
    pub sources: Sources,
}

impl MetricDef {
    /// The check metric that names this metric's ratio (`gpuaudit check --min X=...`).
    pub fn check_metric(&self) -> Option<&'static str> {
        self.ratio
    }

    /// Where the ratio lives in the `gpuaudit.report/1` JSON.
    pub fn ratio_path(&self) -> Option<String> {
        self.ratio.map(|r| format!("ratios.{r}"))
    }

    /// The dcgm-exporter series names, current first.
    pub fn dcgm_exporter(&self) -> &'static [&'static str] {
        self.sources.dcgm_exporter.names
    }

    /// The series name PromQL reads this metric from, of those `present`
    /// (the first registry spelling Prometheus has), or None.
    pub fn promql_name(&self, present: &dyn Fn(&str) -> bool) -> Option<&'static str> {
        self.dcgm_exporter().iter().copied().find(|n| present(n))
    }

    /// Source column names (lower case) that feed this column, in priority
    /// order: the canonical name, the DCGM names, nvidia-smi's, then the vendor
    /// columns read as such.
    pub fn column_aliases(&self) -> impl Iterator<Item = (&'static str, Unit)> + '_ {
        let s = &self.sources;
        std::iter::once((self.name, Unit::AsIs))
            .chain(
                s.dcgm_exporter
                    .names
                    .iter()
                    .chain(s.dcgm_files)
                    .map(move |n| (*n, s.dcgm_exporter.unit)),
            )
            .chain(
                s.nvidia_smi
                    .names
                    .iter()
                    .map(move |n| (*n, s.nvidia_smi.unit)),
            )
            .chain(s.columns.iter().copied())
    }
}

/// The registry, in the canonical table's column order.
pub const METRICS: &[MetricDef] = &[
    MetricDef {
        name: "device_util",
        kind: Kind::Fraction,
        unit: "fraction of time a kernel ran",
        layer: Layer::Device,
        audited: true,
        has_layer: true,
        ratio: Some("active"),
        idle_usd: Some("not_busy_usd"),
        sums: Some(("active_h", "active_known_h")),
        sources: Sources {
            // format: gaudi-hlsmi, gaudi exporter, xpum exporter, OpenTelemetry hw.gpu.*
            columns: &[
                ("utilization.aip", Unit::Percent),
                ("habanalabs_utilization", Unit::Percent),
                ("xpum_engine_ratio", Unit::Fraction),
                ("hw_gpu_utilization", Unit::Fraction),
                ("hw_gpu_utilization_ratio", Unit::Fraction),
            ],
            dcgm_field: Some(203),
            dcgm_exporter: percent(&["DCGM_FI_DEV_GPU_UTIL"]),
            nvidia_smi: percent(&["utilization.gpu [%]", "utilization.gpu"]),
            nvml: Some("nvmlDeviceGetUtilizationRates().gpu"),
            amd_exporter: &["gpu_gfx_activity", "gpu_gfx_busy_instantaneous"],
            amd_smi: &["gfx_activity"],
            rocm_smi: &["GPU use (%)"],
            gaudi: &["utilization.aip [%]", "habanalabs_utilization"],
            intel: &["GPU Utilization (%)"],
            otel: &["hw.gpu.utilization"],
            ..SOURCES
        },
    },
    MetricDef {
        name: "gr_engine_active",
        kind: Kind::Fraction,
        unit: "fraction of time the graphics/compute engine was active",
        layer: Layer::Device,
        audited: false,
        has_layer: false,
        ratio: None,
        idle_usd: None,
        sums: None,
        sources: Sources {
            dcgm_field: Some(1001),
            dcgm_exporter: fraction(&[
                "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO",
            ]),
            dcgm_files: &["DCGM_FI_PROF_GR_ENGINE_ACTIVE_UTIL_RATIO"],
            nvml: Some("GPM GRAPHICS_UTIL"),
            gpm_id: Some(1),
            ..SOURCES
        },
    },
    MetricDef {
        name: "sm_active",
        kind: Kind::Fraction,
        unit: "fraction of time a warp was resident, averaged over SMs",
        layer: Layer::Chip,
        audited: true,
        has_layer: true,
        ratio: Some("sm_active"),
        idle_usd: Some("sm_idle_usd"),
        sums: Some(("sm_h", "sm_known_h")),
        sources: Sources {
            // format: xpum exporter (EU array active: approximate, docs/semantics.md)
            columns: &[("xpum_eu_active_ratio", Unit::Fraction)],
            dcgm_field: Some(1002),
            dcgm_exporter: fraction(&["DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_PROF_SM_UTIL_RATIO"]),
            dcgm_files: &["DCGM_FI_PROF_SM_ACTIVE_UTIL_RATIO"],
            nvml: Some("GPM SM_UTIL"),
            gpm_id: Some(2),
            // vector-ALU busy: approximate, never silently NVIDIA's SM active
            amd_exporter: &["gpu_prof_sm_active"],
            intel: &["EU Array Active (%)"],
            ..SOURCES
        },
    },
    MetricDef {
        name: "sm_occupancy",
        kind: Kind::Fraction,
        unit: "resident warps / maximum warps, averaged over SMs",
        layer: Layer::Chip,
        audited: true,
        has_layer: false,
        ratio: Some("sm_occupancy"),
        idle_usd: None,
        sums: Some(("occ_h", "occ_known_h")),
        sources: Sources {
            dcgm_field: Some(1003),
            dcgm_exporter: fraction(&[
                "DCGM_FI_PROF_SM_OCCUPANCY",
                "DCGM_FI_PROF_SM_OCCUPANCY_UTIL_RATIO",
            ]),
            nvml: Some("GPM SM_OCCUPANCY"),
            gpm_id: Some(3),
            amd_exporter: &["gpu_prof_occupancy_percent"],
            ..SOURCES
        },
    },
    MetricDef {
        name: "tensor_active",
        kind: Kind::Fraction,
        unit: "fraction of cycles the tensor pipe was active",
        layer: Layer::Tensor,
        audited: true,
        has_layer: true,
        ratio: Some("tensor_active"),
        idle_usd: Some("tensor_idle_usd"),
        sums: Some(("tensor_h", "tensor_known_h")),
        sources: Sources {
            dcgm_field: Some(1004),
            dcgm_exporter: fraction(&[
                "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                "DCGM_FI_PROF_PIPE_TENSOR_UTIL_RATIO",
            ]),
            dcgm_files: &["DCGM_FI_PROF_PIPE_TENSOR_ACTIVE_UTIL_RATIO"],
            nvml: Some("GPM ANY_TENSOR_UTIL"),
            gpm_id: Some(5),
            amd_exporter: &["gpu_prof_tensor_active_percent"],
            ..SOURCES
        },
    },
    MetricDef {
        name: "dram_active",
        kind: Kind::Fraction,
        unit: "fraction of cycles device memory was sending or receiving",
        layer: Layer::Memory,
        audited: true,
        has_layer: false,
        ratio: None,
        idle_usd: None,
        sums: None,
        sources: Sources {
            dcgm_field: Some(1005),
            dcgm_exporter: fraction(&["DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_DRAM_UTIL_RATIO"]),
            dcgm_files: &["DCGM_FI_PROF_DRAM_ACTIVE_UTIL_RATIO"],
            nvml: Some("GPM DRAM_BW_UTIL"),
            gpm_id: Some(10),
            amd_exporter: &["gpu_umc_activity"],
            amd_smi: &["umc_activity"],
            ..SOURCES
        },
    },
    MetricDef {
        name: "mem_used_bytes",
        kind: Kind::Bytes,
        unit: "bytes",
        layer: Layer::Memory,
        audited: false,
        has_layer: false,
        ratio: None,
        idle_usd: None,
        sums: None,
        sources: Sources {
            // format: gaudi exporter, xpum exporter, OpenTelemetry hw.gpu.memory.*
            columns: &[
                ("habanalabs_memory_used_bytes", Unit::Bytes),
                ("xpum_memory_used_bytes", Unit::Bytes),
                ("hw_gpu_memory_usage", Unit::Bytes),
                ("hw_gpu_memory_usage_bytes", Unit::Bytes),
            ],
            dcgm_field: Some(252),
            dcgm_exporter: Spelling {
                names: &["DCGM_FI_DEV_FB_USED"],
                unit: Unit::Mib,
            },
            nvidia_smi: Spelling {
                names: &["memory.used [MiB]", "memory.used"],
                unit: Unit::Mib,
            },
            nvml: Some("nvmlDeviceGetMemoryInfo().used"),
            amd_exporter: &["gpu_used_vram"],
            amd_smi: &["used_vram"],
            rocm_smi: &["VRAM Total Used Memory (B)"],
            gaudi: &["memory.used [MiB]", "habanalabs_memory_used_bytes"],
            intel: &["GPU Memory Used (MiB)"],
            otel: &["hw.gpu.memory.usage"],
            ..SOURCES
        },
    },
    MetricDef {
        name: "mem_total_bytes",
        kind: Kind::Bytes,
        unit: "bytes",
        layer: Layer::Memory,
        audited: false,
        has_layer: false,
        ratio: None,
        idle_usd: None,
        sums: None,
        sources: Sources {
            columns: &[
                ("habanalabs_memory_total_bytes", Unit::Bytes),
                ("hw_gpu_memory_limit", Unit::Bytes),
                ("hw_gpu_memory_limit_bytes", Unit::Bytes),
            ],
            nvidia_smi: Spelling {
                names: &["memory.total [MiB]", "memory.total"],
                unit: Unit::Mib,
            },
            nvml: Some("nvmlDeviceGetMemoryInfo().total"),
            amd_exporter: &["gpu_total_vram"],
            amd_smi: &["total_vram"],
            rocm_smi: &["VRAM Total Memory (B)"],
            gaudi: &["memory.total [MiB]", "habanalabs_memory_total_bytes"],
            otel: &["hw.gpu.memory.limit"],
            ..SOURCES
        },
    },
    MetricDef {
        name: "power_w",
        kind: Kind::Watts,
        unit: "watts",
        layer: Layer::Power,
        audited: false,
        has_layer: false,
        ratio: None,
        idle_usd: None,
        sums: None,
        sources: Sources {
            // format: gaudi exporter (milliwatts), xpum exporter, OpenTelemetry hw.gpu.power
            columns: &[
                ("habanalabs_power_mw", Unit::Milli),
                ("xpum_power_watts", Unit::AsIs),
                ("hw_gpu_power", Unit::AsIs),
                ("hw_gpu_power_watts", Unit::AsIs),
            ],
            dcgm_field: Some(155),
            dcgm_exporter: Spelling {
                names: &["DCGM_FI_DEV_POWER_USAGE"],
                unit: Unit::AsIs,
            },
            nvidia_smi: Spelling {
                names: &["power.draw [W]", "power.draw"],
                unit: Unit::AsIs,
            },
            nvml: Some("nvmlDeviceGetPowerUsage() / 1000"),
            amd_exporter: &["gpu_package_power", "gpu_power_usage"],
            amd_smi: &["socket_power"],
            rocm_smi: &["Current Socket Graphics Package Power (W)"],
            gaudi: &["power.draw [W]", "habanalabs_power_mW"],
            intel: &["GPU Power (W)"],
            otel: &["hw.power"],
            ..SOURCES
        },
    },
];

/// Every registry metric, in the canonical table's column order.
pub fn all() -> &'static [MetricDef] {
    METRICS
}

/// The metric a canonical column name (any case) names.
pub fn by_name(name: &str) -> Option<&'static MetricDef> {
    METRICS.iter().find(|m| m.name.eq_ignore_ascii_case(name))
}

/// The metric whose ratio (check metric) is `ratio`.
pub fn by_ratio(ratio: &str) -> Option<&'static MetricDef> {
    METRICS.iter().find(|m| m.ratio == Some(ratio))
}

const fn count_audited() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < METRICS.len() {
        if METRICS[i].audited {
            n += 1;
        }
        i += 1;
    }
    n
}

/// How many metrics the engine carries per sample (the activity array's length).
pub const AUDITED: usize = count_audited();

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The activity slot of an audited metric, checked when compiled.
pub const fn slot_of(name: &str) -> Slot {
    let (mut i, mut n) = (0, 0);
    while i < METRICS.len() {
        if METRICS[i].audited {
            if same(METRICS[i].name, name) {
                return Slot(n);
            }
            n += 1;
        }
        i += 1;
    }
    panic!("not an audited registry metric")
}

/// A place in the activity array: one per audited metric, in registry order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot(pub usize);

pub const DEVICE_UTIL: Slot = slot_of("device_util");
pub const SM_ACTIVE: Slot = slot_of("sm_active");
pub const TENSOR_ACTIVE: Slot = slot_of("tensor_active");
pub const DRAM_ACTIVE: Slot = slot_of("dram_active");

const fn audited_defs() -> [&'static MetricDef; AUDITED] {
    let mut out = [&METRICS[0]; AUDITED];
    let (mut i, mut n) = (0, 0);
    while i < METRICS.len() {
        if METRICS[i].audited {
            out[n] = &METRICS[i];
            n += 1;
        }
        i += 1;
    }
    out
}

/// The audited metrics, by slot.
pub const AUDITED_DEFS: [&MetricDef; AUDITED] = audited_defs();

const fn ratio_flags() -> [bool; AUDITED] {
    let mut out = [false; AUDITED];
    let mut i = 0;
    while i < AUDITED {
        out[i] = AUDITED_DEFS[i].ratio.is_some();
        i += 1;
    }
    out
}

/// Per slot: whether the tallies sum the metric into a ratio.
pub const IS_RATIO: [bool; AUDITED] = ratio_flags();

const fn idle_usd_flags() -> [bool; AUDITED] {
    let mut out = [false; AUDITED];
    let mut i = 0;
    while i < AUDITED {
        out[i] = AUDITED_DEFS[i].idle_usd.is_some();
        i += 1;
    }
    out
}

/// Per slot: whether the tallies price the metric's busy share of held dollars.
pub const HAS_IDLE_USD: [bool; AUDITED] = idle_usd_flags();

const fn rank_order() -> [Slot; AUDITED] {
    let mut out = [Slot(0); AUDITED];
    let mut n = 0;
    let mut pass = 0;
    while pass < 2 {
        let mut i = 0;
        while i < AUDITED {
            // the waterfall's layers first, then the others
            if AUDITED_DEFS[i].has_layer == (pass == 0) {
                out[n] = Slot(i);
                n += 1;
            }
            i += 1;
        }
        pass += 1;
    }
    out
}

/// The order two repeats of a sample are compared in, metric by metric
/// (docs/semantics.md §2): device, SM, tensor active, then occupancy, DRAM.
pub const RANK_ORDER: [Slot; AUDITED] = rank_order();

/// One sample's audited metrics, fractions 0..1; None where not measured.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Activity(pub [Option<f64>; AUDITED]);

impl Activity {
    pub fn get(&self, s: Slot) -> Option<f64> {
        self.0.get(s.0).copied().flatten()
    }
    /// The same activity with `s` set to `v` (tests and fixtures).
    pub fn with(mut self, s: Slot, v: Option<f64>) -> Self {
        if let Some(x) = self.0.get_mut(s.0) {
            *x = v;
        }
        self
    }
    pub fn device_util(&self) -> Option<f64> {
        self.get(DEVICE_UTIL)
    }
    pub fn sm_active(&self) -> Option<f64> {
        self.get(SM_ACTIVE)
    }
    pub fn tensor_active(&self) -> Option<f64> {
        self.get(TENSOR_ACTIVE)
    }
    pub fn dram_active(&self) -> Option<f64> {
        self.get(DRAM_ACTIVE)
    }
}

/// The DCGM series the audit reads from Prometheus: every metric's exporter
/// name, then every DCGM 4.6 name (one selector regex matches either).
pub fn dcgm_series() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = METRICS
        .iter()
        .filter_map(|m| m.dcgm_exporter().first().copied())
        .collect();
    out.extend(
        METRICS
            .iter()
            .flat_map(|m| m.dcgm_exporter().iter().skip(1)),
    );
    out
}

/// The AMD Device Metrics Exporter series of every metric, in registry order
/// (for a live Prometheus selector beside [`dcgm_series`]).
pub fn amd_exporter_series() -> Vec<&'static str> {
    METRICS
        .iter()
        .flat_map(|m| m.sources.amd_exporter.iter().copied())
        .collect()
}

const fn count_gpm() -> usize {
    let (mut i, mut n) = (0, 0);
    while i < METRICS.len() {
        if METRICS[i].sources.gpm_id.is_some() {
            n += 1;
        }
        i += 1;
    }
    n
}

/// How many registry metrics NVML GPM reads.
pub const GPM: usize = count_gpm();

/// The place of canonical column `column` among the GPM metrics (registry order).
pub fn gpm_index(column: &str) -> Option<usize> {
    gpm_readings().position(|(_, name)| name == column)
}

/// The GPM metrics NVML is asked for, with the canonical column each fills.
pub fn gpm_readings() -> impl Iterator<Item = (u32, &'static str)> {
    METRICS
        .iter()
        .filter_map(|m| m.sources.gpm_id.map(|id| (id, m.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_ratios_and_spellings_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for m in METRICS {
            assert!(seen.insert(m.name.to_string()), "{} twice", m.name);
            if let Some(r) = m.ratio {
                assert!(m.audited, "{}: a ratio is summed per sample", m.name);
                assert!(seen.insert(format!("ratio:{r}")), "ratio {r} twice");
            }
            assert!(!m.has_layer || m.ratio.is_some(), "{}", m.name);
            // the plan sums only what the engine carries per sample
            assert!(
                m.sums.is_none() || m.audited,
                "{}: summed but not audited",
                m.name
            );
        }
        let mut spellings = std::collections::BTreeSet::new();
        for m in METRICS {
            for (alias, _) in m.column_aliases() {
                assert!(
                    spellings.insert(alias.to_ascii_lowercase()),
                    "{alias} spells two metrics"
                );
            }
        }
    }

    #[test]
    fn slots_follow_the_registry() {
        assert_eq!(AUDITED, 5);
        assert_eq!(AUDITED_DEFS[DEVICE_UTIL.0].name, "device_util");
        assert_eq!(AUDITED_DEFS[SM_ACTIVE.0].name, "sm_active");
        assert_eq!(AUDITED_DEFS[TENSOR_ACTIVE.0].name, "tensor_active");
        assert_eq!(AUDITED_DEFS[DRAM_ACTIVE.0].name, "dram_active");
        assert_eq!(IS_RATIO, [true, true, true, true, false]);
        let a = Activity::default().with(SM_ACTIVE, Some(0.25));
        assert_eq!((a.sm_active(), a.device_util()), (Some(0.25), None));
    }

    #[test]
    fn the_canonical_column_names_are_the_registry_names() {
        use crate::samples::col;
        for c in [
            col::DEVICE_UTIL,
            col::GR_ENGINE_ACTIVE,
            col::SM_ACTIVE,
            col::SM_OCCUPANCY,
            col::TENSOR_ACTIVE,
            col::DRAM_ACTIVE,
            col::MEM_USED_BYTES,
            col::MEM_TOTAL_BYTES,
            col::POWER_W,
        ] {
            assert_eq!(by_name(c).map(|m| m.name), Some(c));
        }
        assert_eq!(METRICS.len(), 9);
    }

    #[test]
    fn every_spelling_resolves_to_its_metric_in_its_unit() {
        for m in METRICS {
            for (alias, unit) in m.column_aliases() {
                let r = crate::samples::resolve_columns(&[alias.to_string()], &[]);
                let got: Vec<_> = r.iter().map(|r| (r.canonical, r.unit)).collect();
                assert_eq!(got, vec![(m.name, unit)], "{alias}");
            }
        }
        // percent and MiB where DCGM and nvidia-smi write them
        let unit = |n: &str| by_name(n).map(|m| m.sources.dcgm_exporter.unit);
        assert_eq!(unit("device_util"), Some(Unit::Percent));
        assert_eq!(unit("mem_used_bytes"), Some(Unit::Mib));
        assert_eq!(unit("sm_active"), Some(Unit::AsIs));
    }

    #[test]
    fn lookups_and_lists() {
        assert_eq!(
            by_name("SM_OCCUPANCY").map(|m| m.name),
            Some("sm_occupancy")
        );
        assert_eq!(by_ratio("active").map(|m| m.name), Some("device_util"));
        assert!(by_name("fan_speed").is_none());
        let tensor = by_name("tensor_active").map(|m| m.promql_name(&|n| n.ends_with("RATIO")));
        assert_eq!(tensor, Some(Some("DCGM_FI_PROF_PIPE_TENSOR_UTIL_RATIO")));
        assert_eq!(
            gpm_readings().collect::<Vec<_>>(),
            vec![
                (1, "gr_engine_active"),
                (2, "sm_active"),
                (3, "sm_occupancy"),
                (5, "tensor_active"),
                (10, "dram_active")
            ]
        );
        let amd = amd_exporter_series();
        assert_eq!(
            (amd.len(), amd[0], amd[9]),
            (10, "gpu_gfx_activity", "gpu_power_usage")
        );
        assert_eq!(
            by_name("sm_occupancy").and_then(|m| m.ratio_path()),
            Some("ratios.sm_occupancy".to_string())
        );
    }
}
