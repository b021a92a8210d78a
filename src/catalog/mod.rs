//! One catalog of GPU models: every name a fleet reports for a card, its
//! memory, its dense peaks per dtype, its MIG profiles and its built-in price.
//! Prices, peaks, `scan`, `mfu` and the report all resolve names here, through
//! the one matcher in [`names`], so a card never gets one table's price and
//! another table's peak.
//!
//! The table ([`table::GPUS`]) is data; `tests/catalog.rs` and the tests below
//! check that every entry is priced, has memory and a bf16 peak or a reason.
pub(crate) mod dtype;
pub(crate) mod names;
pub mod own_cost;
pub mod peaks;
pub(crate) mod prices;
pub(crate) mod report;
pub(crate) mod table;

pub(crate) use dtype::Dtype;
pub(crate) use names::{Resolved, closest, resolve};
pub use table::GPUS;

/// 1 GiB: memory is given as the datasheet's "GB", which NVML counts in MiB.
pub const GIB: u64 = 1 << 30;

/// A built-in price and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub usd_per_gpu_hour: f64,
    pub source: &'static str,
    /// true when no observed price backs it (a reasoned guess, shown as "estimate")
    pub estimate: bool,
}

/// One MIG GPU-instance profile (NVIDIA MIG user guide, "Supported MIG Profiles").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MigProfile {
    /// as `nvidia-smi mig -lgip` prints it, without "MIG ": "3g.40gb"
    pub name: &'static str,
    /// compute slices, of 7
    pub slices: u8,
    /// the memory the profile name states (the instance sees slightly less)
    pub memory_bytes: u64,
    /// how many of this profile fit on one card
    pub max_instances: u8,
}

/// One GPU model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gpu {
    /// exactly as NVML reports it (and nvidia-smi `name`, DCGM `modelName`)
    pub name: &'static str,
    /// other spellings that mean this card and no other (marketing names, MIG guide names)
    pub also: &'static [&'static str],
    /// datasheet memory
    pub memory_bytes: u64,
    /// dense (no sparsity) TFLOP/s (TOP/s for int8) per chip; a dtype not listed is undefined
    pub peaks: &'static [(Dtype, f64)],
    /// where the peaks come from, or why there are none
    pub peak_source: &'static str,
    /// why there is no bf16 peak, when there is none
    pub no_bf16: Option<&'static str>,
    pub mig: &'static [MigProfile],
    pub price: Price,
}

impl Gpu {
    pub fn peak(&self, dtype: Dtype) -> Option<f64> {
        self.peaks
            .iter()
            .find(|(d, _)| *d == dtype)
            .map(|(_, v)| *v)
    }

    pub fn dtypes(&self) -> Vec<Dtype> {
        self.peaks.iter().map(|(d, _)| *d).collect()
    }

    /// The MIG profile with this name ("3g.40gb", "MIG 3g.40gb", "3g.40gb+me").
    pub fn mig_profile(&self, name: &str) -> Option<&'static MigProfile> {
        let want = names::squash(name);
        let want = want.strip_prefix("mig").unwrap_or(&want);
        // a "+me" profile (media extensions) is the same slice
        let want = want.strip_suffix("me").unwrap_or(want);
        self.mig.iter().find(|p| names::squash(p.name) == want)
    }
}

/// The card with exactly this NVML name (no other spelling).
pub fn by_name(name: &str) -> Option<&'static Gpu> {
    GPUS.iter().find(|g| g.name == name)
}
