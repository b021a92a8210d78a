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
pub mod vendor;

pub(crate) use dtype::Dtype;
pub(crate) use names::{Resolved, closest, resolve};
pub use table::GPUS;
pub use vendor::Family;

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

/// One way to split a card into held units: an NVIDIA MIG GPU-instance
/// profile (MIG user guide, "Supported MIG Profiles") or an AMD Instinct
/// compute partition (SPX/DPX/QPX/CPX: XCDs per partition), modelled alike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MigProfile {
    /// as `nvidia-smi mig -lgip` prints it, without "MIG ": "3g.40gb";
    /// an AMD compute partition mode as amd-smi prints it, lower case: "cpx"
    pub name: &'static str,
    /// compute slices (MIG: of 7; AMD: XCDs, of the card's XCDs)
    pub slices: u8,
    /// the slices of the whole card: 7 for MIG, the XCD count for AMD
    pub of: u8,
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
    /// MIG profiles, or AMD compute partitions (see [`MigProfile`])
    pub mig: &'static [MigProfile],
    /// AMD memory partition modes the card takes ("nps1", "nps4"): a name may
    /// carry one after its compute partition; it does not change the compute share
    pub memory_modes: &'static [&'static str],
    pub price: Price,
    /// the vendor line and the metrics its layers come from
    pub family: Family,
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

    /// The MIG profile with this name ("3g.40gb", "MIG 3g.40gb", "3g.40gb+me"),
    /// or the AMD compute partition ("cpx", "cpx nps4" where the card takes NPS4).
    pub fn mig_profile(&self, name: &str) -> Option<&'static MigProfile> {
        let want = names::squash(name);
        if self.family == Family::AmdInstinct {
            return self.partition(&want);
        }
        let want = want.strip_prefix("mig").unwrap_or(&want);
        // a "+me" profile (media extensions) is the same slice
        let want = want.strip_suffix("me").unwrap_or(want);
        self.mig.iter().find(|p| names::squash(p.name) == want)
    }

    /// What the card's splits are called: "MIG profile" or "compute partition".
    pub fn split_word(&self) -> &'static str {
        if self.family == Family::AmdInstinct {
            "compute partition"
        } else {
            "MIG profile"
        }
    }

    /// An AMD compute partition, with or without a memory mode the card takes.
    fn partition(&self, squashed: &str) -> Option<&'static MigProfile> {
        self.mig.iter().find(|p| {
            squashed == p.name
                || self
                    .memory_modes
                    .iter()
                    .any(|m| squashed == format!("{}{m}", p.name))
        })
    }
}

impl MigProfile {
    /// The share of the card's compute one instance is (MIG g/7, AMD XCDs/8).
    pub fn share(&self) -> f64 {
        f64::from(self.slices) / f64::from(self.of)
    }

    /// The whole card (AMD SPX: one partition of every XCD).
    pub fn is_whole_card(&self) -> bool {
        self.slices == self.of
    }
}

/// The card with exactly this NVML name (no other spelling).
pub fn by_name(name: &str) -> Option<&'static Gpu> {
    GPUS.iter().find(|g| g.name == name)
}
