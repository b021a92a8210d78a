//! The job findings of docs/semantics.md §11: `parked`, `gang_member_idle`
//! and `oversized`, each with the job, the GPU-hours at stake and their dollars.
//! The rules live here and only here; `jobs.rs` measures what they read.
use crate::catalog::{Gpu, MigProfile};
use serde::{Deserialize, Serialize};

/// parked: a job of shape idle holding at least this many GPU-hours.
pub const PARKED_MIN_GPU_HOURS: f64 = 24.0;
/// gang_member_idle: a GPU idle in at least this share of the progressing buckets.
pub const GANG_MEMBER_IDLE_SHARE: f64 = 0.20;
/// oversized: a MIG profile needs this much headroom over the peak memory used.
pub const OVERSIZED_MEMORY_HEADROOM: f64 = 1.1;
/// oversized: the job's p95 device_util must be below this.
pub const OVERSIZED_DEVICE_UTIL_BELOW: f64 = 0.50;
/// Compute slices of a whole card.
const SLICES: u8 = 7;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    #[default]
    Parked,
    GangMemberIdle,
    Oversized,
}

impl FindingKind {
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::Parked => "parked",
            FindingKind::GangMemberIdle => "gang_member_idle",
            FindingKind::Oversized => "oversized",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Finding {
    pub kind: FindingKind,
    pub job: String,
    /// the GPU-hours the finding is about (held, idle or saveable; see `detail`)
    pub gpu_hours: f64,
    /// their dollars; None when the job's GPUs have no price
    pub usd: Option<f64>,
    pub detail: FindingDetail,
}

/// What a finding measured, as figures. render/diagnosis/jobs.rs words it
/// (`finding_detail`), in every output: JSON's `detail` string is its
/// `Serialize` impl, kept there beside the words.
#[derive(Debug, Clone, PartialEq)]
pub enum FindingDetail {
    /// the job's held GPU-hours and the share of them it sat idle
    Parked {
        held_gpu_hours: f64,
        idle_share: f64,
    },
    /// each flagged GPU with its idle progressing buckets, out of `progressing_buckets`
    GangMemberIdle {
        idle: Vec<(String, usize)>,
        progressing_buckets: usize,
    },
    /// the smallest MIG profile that fits the job, on which card; the peak
    /// memory used; the compute slices its p95 sm_active fits (None: not measured)
    Oversized {
        profile: &'static str,
        gpu: &'static str,
        peak_mem_gib: f64,
        sm_slices: Option<u8>,
    },
    /// as a report read back (a `check` baseline) words it
    Written(String),
}

impl<'de> Deserialize<'de> for FindingDetail {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(FindingDetail::Written)
    }
}

impl Default for FindingDetail {
    fn default() -> Self {
        FindingDetail::Parked {
            held_gpu_hours: 0.0,
            idle_share: 0.0,
        }
    }
}

/// parked: a job whose inferred shape is idle and that held ≥ 24 GPU-hours.
/// The GPU-hours are all its held hours, the dollars all its held dollars.
pub fn parked(
    job: &str,
    idle_share: f64,
    held_gpu_hours: f64,
    usd: Option<f64>,
) -> Option<Finding> {
    (held_gpu_hours >= PARKED_MIN_GPU_HOURS).then(|| Finding {
        kind: FindingKind::Parked,
        job: job.to_string(),
        gpu_hours: held_gpu_hours,
        usd,
        detail: FindingDetail::Parked {
            held_gpu_hours,
            idle_share,
        },
    })
}

/// One GPU of a training job, over the job's progressing buckets.
#[derive(Debug, Clone, PartialEq)]
pub struct GangMember {
    pub gpu: String,
    /// progressing buckets in which this GPU was held and mostly idle
    pub idle_buckets: usize,
    /// its idle held GPU-hours in those buckets, and their dollars
    pub idle_gpu_hours: f64,
    pub idle_usd: Option<f64>,
}

/// gang_member_idle: a training job with GPUs idle (majority state) in ≥ 20%
/// of the job's progressing buckets while the rest of the gang worked. One
/// finding per job; its GPU-hours are the flagged GPUs' idle held hours in
/// those buckets.
pub fn gang_member_idle(
    job: &str,
    progressing_buckets: usize,
    members: &[GangMember],
) -> Option<Finding> {
    if progressing_buckets == 0 {
        return None;
    }
    let flagged: Vec<&GangMember> = members
        .iter()
        .filter(|m| m.idle_buckets as f64 >= GANG_MEMBER_IDLE_SHARE * progressing_buckets as f64)
        .filter(|m| m.idle_buckets > 0)
        .collect();
    if flagged.is_empty() {
        return None;
    }
    let gpu_hours = flagged.iter().map(|m| m.idle_gpu_hours).sum();
    let usd = flagged
        .iter()
        .filter_map(|m| m.idle_usd)
        .fold(None, |acc: Option<f64>, x| Some(acc.unwrap_or(0.0) + x));
    Some(Finding {
        kind: FindingKind::GangMemberIdle,
        job: job.to_string(),
        gpu_hours,
        usd,
        detail: FindingDetail::GangMemberIdle {
            idle: (flagged.iter())
                .map(|m| (m.gpu.clone(), m.idle_buckets))
                .collect(),
            progressing_buckets,
        },
    })
}

/// What `oversized` reads of a job's held samples, counted so the p95 tests
/// are exact without keeping the samples: p95 ≤ t (nearest rank) exactly when
/// at least ceil(0.95·n) of the n values are ≤ t. O(1) memory per job.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sizing {
    /// held samples with device_util known, and how many were below 0.50
    pub util_samples: u64,
    pub util_below: u64,
    /// held samples with sm_active known, and how many were ≤ g/7 (index g-1)
    pub sm_samples: u64,
    pub sm_within: [u64; SLICES as usize],
    /// the most memory used on one GPU in one held sample (bytes)
    pub peak_mem: Option<u64>,
}

impl Sizing {
    /// One held sample (unweighted, §12).
    pub fn add(&mut self, device_util: Option<f64>, sm_active: Option<f64>, mem_used: Option<u64>) {
        if let Some(u) = device_util {
            self.util_samples += 1;
            self.util_below += u64::from(u < OVERSIZED_DEVICE_UTIL_BELOW);
        }
        if let Some(s) = sm_active {
            self.sm_samples += 1;
            for (i, within) in self.sm_within.iter_mut().enumerate() {
                *within += u64::from(s <= (i + 1) as f64 / f64::from(SLICES));
            }
        }
        if let Some(m) = mem_used {
            self.peak_mem = Some(self.peak_mem.map_or(m, |p| p.max(m)));
        }
    }
    pub fn merge(&mut self, o: &Sizing) {
        self.util_samples += o.util_samples;
        self.util_below += o.util_below;
        self.sm_samples += o.sm_samples;
        for (a, b) in self.sm_within.iter_mut().zip(o.sm_within) {
            *a += b;
        }
        self.peak_mem = match (self.peak_mem, o.peak_mem) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }

    fn p95_rank(n: u64) -> u64 {
        super::nearest_rank_of(n, 95)
    }

    /// p95 device_util < 0.50; None when no held sample measured device_util.
    pub fn p95_util_low(&self) -> Option<bool> {
        (self.util_samples > 0).then(|| self.util_below >= Self::p95_rank(self.util_samples))
    }

    /// g/7 ≥ p95 sm_active; true when sm_active was never measured (the test is skipped).
    pub fn sm_fits(&self, slices: u8) -> bool {
        if self.sm_samples == 0 {
            return true;
        }
        let at = usize::from(slices.clamp(1, SLICES)) - 1;
        self.sm_within[at] >= Self::p95_rank(self.sm_samples)
    }
}

/// The smallest MIG profile (fewest slices, then least memory) of `gpu` that
/// holds 1.1 × the peak memory and, where sm_active is known, has g/7 ≥ p95
/// sm_active; None when it is the whole card or nothing fits. NVIDIA MIG
/// only: an AMD partition's share is XCDs of 8, not g/7.
pub fn smallest_fitting_profile(gpu: &Gpu, sizing: &Sizing) -> Option<&'static MigProfile> {
    let peak = sizing.peak_mem? as f64;
    if gpu.family != crate::catalog::Family::Nvidia {
        return None;
    }
    gpu.mig
        .iter()
        .filter(|p| p.memory_bytes as f64 >= OVERSIZED_MEMORY_HEADROOM * peak)
        .filter(|p| sizing.sm_fits(p.slices))
        .min_by_key(|p| (p.slices, p.memory_bytes))
        .filter(|p| p.slices < SLICES)
}

/// oversized: a job on a card with MIG profiles whose p95 device_util is
/// below 0.50 and that fits a profile smaller than the card. The GPU-hours
/// that could be saved are held × (1 − g/7); the dollars are the job's held
/// dollars times the same share.
pub fn oversized(
    job: &str,
    gpu: &Gpu,
    sizing: &Sizing,
    held_gpu_hours: f64,
    usd: Option<f64>,
) -> Option<Finding> {
    if sizing.p95_util_low() != Some(true) {
        return None;
    }
    let profile = smallest_fitting_profile(gpu, sizing)?;
    let saved_share = 1.0 - f64::from(profile.slices) / f64::from(SLICES);
    let peak_gib = sizing.peak_mem.unwrap_or(0) as f64 / crate::catalog::GIB as f64;
    Some(Finding {
        kind: FindingKind::Oversized,
        job: job.to_string(),
        gpu_hours: held_gpu_hours * saved_share,
        usd: usd.map(|u| u * saved_share),
        detail: FindingDetail::Oversized {
            profile: profile.name,
            gpu: gpu.name,
            peak_mem_gib: peak_gib,
            sm_slices: (sizing.sm_samples > 0).then_some(profile.slices),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{GIB, by_name};

    fn h100() -> &'static Gpu {
        by_name("NVIDIA H100 80GB HBM3").expect("the catalog has the H100")
    }

    #[test]
    fn parked_needs_a_day_of_gpu_hours() {
        assert!(parked("nb", 0.9, 23.9, Some(10.0)).is_none());
        let f = parked("nb", 0.9, 24.0, Some(72.0)).expect("parked");
        assert_eq!(
            (f.kind, f.gpu_hours, f.usd),
            (FindingKind::Parked, 24.0, Some(72.0))
        );
    }

    #[test]
    fn gang_member_idle_needs_a_fifth_of_the_progressing_buckets() {
        let m = |gpu: &str, idle_buckets, h| GangMember {
            gpu: gpu.to_string(),
            idle_buckets,
            idle_gpu_hours: h,
            idle_usd: Some(h * 2.0),
        };
        // 10 progressing buckets: 2 idle is 20% (flagged), 1 is 10% (not)
        let f = gang_member_idle(
            "train",
            10,
            &[m("g0", 2, 0.5), m("g1", 1, 0.25), m("g2", 0, 0.0)],
        )
        .expect("g0 is flagged");
        assert_eq!(f.gpu_hours, 0.5);
        assert_eq!(f.usd, Some(1.0));
        assert_eq!(
            crate::render::diagnosis::jobs::finding_detail(&f.detail),
            "g0 idle in 2 of 10 progressing buckets while the rest of the gang worked"
        );
        assert!(gang_member_idle("train", 10, &[m("g1", 1, 0.25)]).is_none());
        assert!(gang_member_idle("train", 0, &[m("g1", 1, 0.25)]).is_none());
    }

    fn sizing(utils: &[f64], sms: &[f64], peak_gib: f64) -> Sizing {
        let mut s = Sizing::default();
        for (i, u) in utils.iter().enumerate() {
            s.add(
                Some(*u),
                sms.get(i).copied(),
                Some((peak_gib * GIB as f64) as u64),
            );
        }
        s
    }

    #[test]
    fn oversized_picks_the_smallest_profile_that_fits() -> anyhow::Result<()> {
        // 20 samples at 30% util, 8 GiB peak: 1.1 × 8 = 8.8 GiB fits 1g.10gb
        let s = sizing(&[0.3; 20], &[], 8.0);
        let f = oversized("small", h100(), &s, 10.0, Some(30.0)).expect("oversized");
        let words = crate::render::diagnosis::jobs::finding_detail(&f.detail);
        assert!(
            words.starts_with("fits MIG 1g.10gb of NVIDIA H100 80GB HBM3"),
            "{words}"
        );
        // saves 6/7 of the held hours and dollars
        assert!((f.gpu_hours - 10.0 * 6.0 / 7.0).abs() < 1e-12);
        assert!((f.usd.unwrap_or(0.0) - 30.0 * 6.0 / 7.0).abs() < 1e-12);
        // 10 GiB peak needs 11 GiB: 1g.20gb (one slice, more memory)
        let s = sizing(&[0.3; 20], &[], 10.0);
        assert_eq!(
            smallest_fitting_profile(h100(), &s).map(|p| p.name),
            Some("1g.20gb")
        );
        // p95 sm_active 0.40 > 2/7 = 0.286 needs 3 slices: 3g.40gb
        let s = sizing(&[0.3; 20], &[0.4; 20], 8.0);
        assert_eq!(
            smallest_fitting_profile(h100(), &s).map(|p| p.name),
            Some("3g.40gb")
        );
        Ok(())
    }

    #[test]
    fn oversized_p95_is_by_nearest_rank_over_samples() {
        // 20 samples: rank 19. 19 below 0.5 and one at 0.9: p95 is below (oversized)
        let mut u = vec![0.1; 19];
        u.push(0.9);
        assert_eq!(sizing(&u, &[], 8.0).p95_util_low(), Some(true));
        // 18 below and two at 0.9: the 19th value is 0.9 (not oversized)
        u[0] = 0.9;
        let s = sizing(&u, &[], 8.0);
        assert_eq!(s.p95_util_low(), Some(false));
        assert!(oversized("busy", h100(), &s, 10.0, None).is_none());
    }

    #[test]
    fn oversized_skips_whole_cards_and_unmeasured_jobs() {
        // 60 GiB needs 66: only the whole card (7g.80gb) holds it
        assert!(oversized("big", h100(), &sizing(&[0.1; 5], &[], 60.0), 1.0, None).is_none());
        // no memory reading: nothing to size
        let mut s = Sizing::default();
        s.add(Some(0.1), None, None);
        assert!(oversized("nomem", h100(), &s, 1.0, None).is_none());
        // no device_util: the p95 test cannot be made
        let mut s = Sizing::default();
        s.add(None, None, Some(GIB));
        assert_eq!(s.p95_util_low(), None);
        // a card without MIG (T4) has no profile
        let t4 = by_name("Tesla T4").expect("T4");
        assert!(oversized("t4", t4, &sizing(&[0.1; 5], &[], 1.0), 1.0, None).is_none());
    }

    #[test]
    fn a_read_back_finding_keeps_its_words() -> anyhow::Result<()> {
        let f = parked("nb", 0.991, 1344.0, None).expect("parked");
        let json = serde_json::to_string(&f)?;
        assert!(
            json.contains(r#""detail":"held 1344.0 GPU-h and was idle 99.1% of it""#),
            "{json}"
        );
        let back: Finding = serde_json::from_str(&json)?;
        assert_eq!(
            back.detail,
            FindingDetail::Written("held 1344.0 GPU-h and was idle 99.1% of it".to_string())
        );
        assert_eq!(serde_json::to_string(&back)?, json);
        Ok(())
    }
}
