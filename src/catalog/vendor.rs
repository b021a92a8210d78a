//! Which vendor a catalog card is, and which of its vendor's metrics each
//! layer of the waterfall comes from. A mixed fleet's report has a line per
//! vendor family under the waterfall (docs/semantics.md §9): its layers are
//! measured by different counters, and some only approximate NVIDIA's.

/// A vendor's product family: one set of telemetry for every card of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Nvidia,
    AmdInstinct,
    IntelGaudi,
    IntelMax,
    GoogleTpu,
}

/// The metric a layer is read from on a family's cards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerMetric {
    /// the vendor exporter's series name (other tools spell the same counter their own way)
    pub metric: &'static str,
    /// not the same measurement as NVIDIA's layer of that name
    pub approximate: Option<&'static str>,
}

const fn exact(metric: &'static str) -> Option<LayerMetric> {
    Some(LayerMetric {
        metric,
        approximate: None,
    })
}

const fn approximate(metric: &'static str, why: &'static str) -> Option<LayerMetric> {
    Some(LayerMetric {
        metric,
        approximate: Some(why),
    })
}

/// Where a family's device, chip (SM) and tensor layers come from; None: the
/// family exposes no such counter, so the layer is n/a on its cards.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Telemetry {
    pub device: Option<LayerMetric>,
    pub chip: Option<LayerMetric>,
    pub tensor: Option<LayerMetric>,
}

impl Family {
    /// The vendor, as the report names it.
    pub fn vendor(self) -> &'static str {
        match self {
            Family::Nvidia => "NVIDIA",
            Family::AmdInstinct => "AMD",
            Family::IntelGaudi | Family::IntelMax => "Intel",
            Family::GoogleTpu => "Google",
        }
    }

    /// The product family, as the report names it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Nvidia => "NVIDIA",
            Family::AmdInstinct => "AMD Instinct",
            Family::IntelGaudi => "Intel Gaudi",
            Family::IntelMax => "Intel Data Center GPU Max",
            Family::GoogleTpu => "Google TPU",
        }
    }

    /// Which counter each layer is on this family's cards.
    pub fn telemetry(self) -> Telemetry {
        match self {
            Family::Nvidia => Telemetry {
                device: exact("DCGM_FI_DEV_GPU_UTIL"),
                chip: exact("DCGM_FI_PROF_SM_ACTIVE"),
                tensor: exact("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"),
            },
            Family::AmdInstinct => Telemetry {
                device: exact("gpu_gfx_activity"),
                chip: approximate(
                    "gpu_prof_sm_active",
                    "vector-ALU (VALU) busy, not NVIDIA's SM active",
                ),
                tensor: exact("gpu_prof_tensor_active_percent"),
            },
            Family::IntelGaudi => Telemetry {
                device: exact("habanalabs_utilization"),
                chip: None,
                tensor: None,
            },
            Family::IntelMax => Telemetry {
                device: exact("xpum_engine_ratio"),
                chip: approximate(
                    "xpum_eu_active_ratio",
                    "EU array active, not NVIDIA's SM active",
                ),
                tensor: None,
            },
            Family::GoogleTpu => Telemetry {
                device: exact("duty_cycle"),
                chip: None,
                tensor: None,
            },
        }
    }
}
