//! The one matcher from a reported GPU name to a catalog entry.
//!
//! A name compares as its words: lower case, letters and digits only, "80 GB"
//! as "80gb", without leading vendor words ("NVIDIA", "Tesla", "AMD",
//! "Instinct", "Google", "GeForce") and without the "-SHARED" suffix GPU
//! feature discovery adds under time-slicing. So NVML's "NVIDIA H100 80GB HBM3",
//! the GFD label "NVIDIA-H100-80GB-HBM3", DCGM's `modelName` and "h100 80gb hbm3"
//! are one key. Keys compare whole, never as a prefix or substring: "L4" is not
//! "L40S". A MIG instance ("NVIDIA H100 80GB HBM3 MIG 3g.40gb", GFD's
//! "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb") resolves to its card and profile.
//!
//! A family name that several entries' spellings contain ("NVIDIA H100": PCIe,
//! SXM or NVL?) is ambiguous and resolves to none of them.
use super::{GPUS, Gpu, MigProfile};
use crate::text::edit_distance;
use std::sync::OnceLock;

const VENDOR_WORDS: &[&str] = &[
    "nvidia",
    "tesla",
    "amd",
    "instinct",
    "google",
    "geforce",
    "intel",
    "habana",
    "habanalabs",
    "labs",
];

/// AMD compute partition modes and memory (NPS) modes: a name carrying one
/// ("AMD Instinct MI300X CPX", "MI300X cpx nps4") is a partition of its card.
const PARTITION_WORDS: &[&str] = &["spx", "dpx", "qpx", "cpx", "nps1", "nps2", "nps4"];

/// Lower case, letters and digits only.
pub fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The words a name compares by (see the module docs).
fn words(name: &str) -> Vec<String> {
    // "Intel(R) Data Center GPU Max 1550": the trademark signs are no words
    let name = name
        .replace("(R)", " ")
        .replace("(r)", " ")
        .replace("(TM)", " ")
        .replace("(tm)", " ")
        .replace(['®', '™'], " ");
    let mut out: Vec<String> = Vec::new();
    for raw in name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = raw.to_ascii_lowercase();
        match out.last_mut() {
            // "80 GB" is "80gb"
            Some(prev) if w == "gb" && prev.chars().all(|c| c.is_ascii_digit()) => {
                prev.push_str("gb")
            }
            _ => out.push(w),
        }
    }
    while out.len() > 1 && VENDOR_WORDS.contains(&out[0].as_str()) {
        out.remove(0);
    }
    if out.len() > 1 && out.last().is_some_and(|w| w == "shared") {
        out.pop();
    }
    out
}

/// The key a name compares by: its words joined ("NVIDIA H100" and "h100" are one).
pub fn key(name: &str) -> String {
    words(name).concat()
}

/// Every spelling of every entry as words: (entry, words).
fn spellings() -> &'static [(&'static Gpu, Vec<String>)] {
    static SPELLINGS: OnceLock<Vec<(&'static Gpu, Vec<String>)>> = OnceLock::new();
    SPELLINGS.get_or_init(|| {
        GPUS.iter()
            .flat_map(|g| {
                std::iter::once(g.name)
                    .chain(g.also.iter().copied())
                    .map(move |s| (g, words(s)))
            })
            .collect()
    })
}

/// What a reported name is.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    /// a whole card
    Card(&'static Gpu),
    /// a MIG instance of a card
    Mig(&'static Gpu, &'static MigProfile),
    /// a MIG instance whose profile the card does not have
    UnknownMig(&'static Gpu, String),
    /// a family name several entries share, best known first
    Ambiguous(Vec<&'static Gpu>),
    Unknown,
}

impl Resolved {
    /// The card, when the name means exactly one (a whole card or a MIG slice of it).
    #[cfg(test)]
    pub fn card(&self) -> Option<&'static Gpu> {
        match self {
            Resolved::Card(g) | Resolved::Mig(g, _) => Some(g),
            _ => None,
        }
    }
}

/// Resolve a whole-card name (no MIG part).
fn resolve_card(w: &[String]) -> Resolved {
    if w.is_empty() {
        return Resolved::Unknown;
    }
    let key = w.concat();
    if let Some((g, _)) = spellings().iter().find(|(_, s)| s.concat() == key) {
        return Resolved::Card(g);
    }
    // every entry one of whose spellings has all the words given
    let mut candidates: Vec<&'static Gpu> = Vec::new();
    for (g, s) in spellings() {
        if w.iter().all(|x| s.contains(x)) && !candidates.iter().any(|c| c.name == g.name) {
            candidates.push(g);
        }
    }
    if candidates.len() >= 2 {
        Resolved::Ambiguous(candidates)
    } else {
        Resolved::Unknown
    }
}

/// What `name` is in the catalog.
pub fn resolve(name: &str) -> Resolved {
    let w = words(name);
    if let Some(at) = w.iter().position(|x| PARTITION_WORDS.contains(&x.as_str()))
        && at > 0
    {
        return resolve_partition(&w[..at], &w[at..]);
    }
    let Some(at) = w.iter().position(|x| x == "mig") else {
        return resolve_card(&w);
    };
    let profile = w[at + 1..].concat();
    match resolve_card(&w[..at]) {
        Resolved::Card(g) => match g.mig_profile(&profile) {
            Some(p) => Resolved::Mig(g, p),
            None => Resolved::UnknownMig(g, profile),
        },
        other => other,
    }
}

/// An AMD compute partition: the card, then its mode words ("cpx", "cpx nps4").
/// SPX is the whole card; a memory mode alone ("nps4") does not split compute.
fn resolve_partition(card: &[String], mode: &[String]) -> Resolved {
    match resolve_card(card) {
        Resolved::Card(g) => {
            let compute = mode.iter().any(|m| !m.starts_with("nps"));
            let whole = |p: &MigProfile| p.is_whole_card();
            match g.mig_profile(&mode.concat()) {
                Some(p) if !whole(p) => Resolved::Mig(g, p),
                Some(_) => Resolved::Card(g),
                None if !compute && g.memory_modes.contains(&mode.concat().as_str()) => {
                    Resolved::Card(g)
                }
                None => Resolved::UnknownMig(g, mode.join(" ")),
            }
        }
        other => other,
    }
}

/// The entries (of those `keep` accepts) closest to `name`, best first, by NVML name.
pub fn closest(name: &str, n: usize, keep: &dyn Fn(&Gpu) -> bool) -> Vec<&'static str> {
    let wanted = words(name).concat();
    let mut best: Vec<(bool, usize, usize, &'static str)> = Vec::new();
    for (order, g) in GPUS.iter().enumerate().filter(|(_, g)| keep(g)) {
        let keys: Vec<String> = spellings()
            .iter()
            .filter(|(e, _)| e.name == g.name)
            .map(|(_, s)| s.concat())
            .collect();
        // a name that one of ours extends (or that extends ours) is suggested first
        let related = keys
            .iter()
            .any(|k| k.starts_with(wanted.as_str()) || wanted.starts_with(k.as_str()));
        let d = keys
            .iter()
            .map(|k| edit_distance(&wanted, k))
            .min()
            .unwrap_or(usize::MAX);
        best.push((!related, d, order, g.name));
    }
    best.sort();
    best.into_iter().take(n).map(|(.., name)| name).collect()
}

/// Of `names`, the `n` closest to `name` by key (edit distance), closest first.
pub fn closest_of(name: &str, names: &[&str], n: usize) -> Vec<String> {
    let wanted = key(name);
    let mut by: Vec<(usize, &str)> = names
        .iter()
        .map(|m| (edit_distance(&wanted, &key(m)), *m))
        .collect();
    by.sort();
    by.into_iter().take(n).map(|(_, m)| m.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(name: &str) -> Option<&'static str> {
        resolve(name).card().map(|g| g.name)
    }

    #[test]
    fn spellings_fleets_export() {
        for name in [
            "NVIDIA H100 80GB HBM3",
            "NVIDIA-H100-80GB-HBM3",
            "nvidia  h100 80gb hbm3",
            "H100-80GB-HBM3",
            "NVIDIA H100 SXM",
            "h100 sxm5 80 GB",
        ] {
            assert_eq!(card(name), Some("NVIDIA H100 80GB HBM3"), "{name}");
        }
        assert_eq!(card("Tesla-T4"), Some("Tesla T4"));
        assert_eq!(card("NVIDIA T4"), Some("Tesla T4"));
        assert_eq!(card("NVIDIA-A10G"), Some("NVIDIA A10G"));
        assert_eq!(card("NVIDIA-A100-SXM4-80GB"), Some("NVIDIA A100-SXM4-80GB"));
        assert_eq!(
            card("NVIDIA-A100-SXM4-80GB-SHARED"),
            Some("NVIDIA A100-SXM4-80GB")
        );
        assert_eq!(card("Tesla V100-SXM2-32GB"), Some("Tesla V100-SXM2-32GB"));
        assert_eq!(card("AMD Instinct MI300X"), Some("AMD Instinct MI300X"));
        assert_eq!(card("MI300X"), Some("AMD Instinct MI300X"));
        assert_eq!(card("RTX 4090"), Some("NVIDIA GeForce RTX 4090"));
        assert_eq!(card("tpu v4"), Some("Google TPU v4"));
    }

    #[test]
    fn amd_intel_and_gaudi_spellings() {
        for (name, want) in [
            ("AMD Instinct MI300X", "AMD Instinct MI300X"),
            ("MI300X", "AMD Instinct MI300X"),
            ("AMD Instinct MI300X OAM", "AMD Instinct MI300X"),
            ("MI300X-O", "AMD Instinct MI300X"),
            ("102-G30211-0C", "AMD Instinct MI300X"),
            ("amd instinct mi325x", "AMD Instinct MI325X"),
            ("AMD Instinct MI350X", "AMD Instinct MI350X"),
            ("MI355X", "AMD Instinct MI355X"),
            ("AMD Instinct MI250X", "AMD Instinct MI250X"),
            ("HL-225", "Intel Gaudi 2"),
            ("Gaudi2", "Intel Gaudi 2"),
            ("Intel Gaudi 2", "Intel Gaudi 2"),
            ("HL-325L", "Intel Gaudi 3"),
            ("HL-328", "Intel Gaudi 3"),
            ("HL-338", "Intel Gaudi 3"),
            ("Habana Labs Gaudi 3", "Intel Gaudi 3"),
            (
                "Intel(R) Data Center GPU Max 1550",
                "Intel(R) Data Center GPU Max 1550",
            ),
            (
                "Intel Data Center GPU Max 1550",
                "Intel(R) Data Center GPU Max 1550",
            ),
            (
                "Intel® Data Center GPU Max 1550",
                "Intel(R) Data Center GPU Max 1550",
            ),
        ] {
            assert_eq!(card(name), Some(want), "{name}");
        }
        // a family name is refused, never guessed
        assert!(matches!(resolve("Gaudi"), Resolved::Ambiguous(_)));
        assert_eq!(resolve("HL-325"), Resolved::Unknown);
        assert_eq!(resolve("MI300"), Resolved::Unknown);
        assert_eq!(resolve("AMD Instinct MI250X / MI250"), Resolved::Unknown);
        assert_eq!(resolve("Intel Data Center GPU Max 1100"), Resolved::Unknown);
    }

    #[test]
    fn amd_partitions_are_shares_of_their_card() {
        let Resolved::Mig(g, p) = resolve("AMD Instinct MI300X CPX") else {
            panic!("not a partition")
        };
        assert_eq!(
            (g.name, p.name, p.slices, p.of),
            ("AMD Instinct MI300X", "cpx", 1, 8)
        );
        assert_eq!(p.share(), 0.125);
        let Resolved::Mig(_, p) = resolve("mi300x cpx nps4") else {
            panic!("not a partition")
        };
        assert_eq!((p.name, p.max_instances), ("cpx", 8));
        let Resolved::Mig(_, p) = resolve("AMD Instinct MI325X QPX") else {
            panic!("not a partition")
        };
        assert_eq!(p.share(), 0.25);
        // the AMD exporter's labels joined: card_series, then the compute and
        // memory partition types
        let Resolved::Mig(g, p) = resolve("AMD Instinct MI300X OAM CPX NPS4") else {
            panic!("not a partition")
        };
        assert_eq!((g.name, p.name), ("AMD Instinct MI300X", "cpx"));
        assert!(matches!(
            resolve("AMD Instinct MI300X OAM SPX NPS1"),
            Resolved::Card(_)
        ));
        // SPX, or a memory mode alone, is the whole card
        assert_eq!(card("AMD Instinct MI300X SPX"), Some("AMD Instinct MI300X"));
        assert!(matches!(
            resolve("AMD Instinct MI300X SPX"),
            Resolved::Card(_)
        ));
        assert!(matches!(resolve("MI300X NPS1"), Resolved::Card(_)));
        // a mode the card does not take is no guess
        assert!(matches!(
            resolve("AMD Instinct MI355X CPX NPS4"),
            Resolved::UnknownMig(_, _)
        ));
        assert!(matches!(
            resolve("AMD Instinct MI250X CPX"),
            Resolved::UnknownMig(_, _)
        ));
    }

    #[test]
    fn whole_keys_only() {
        assert_eq!(card("NVIDIA L4"), Some("NVIDIA L4"));
        assert_eq!(card("NVIDIA L40"), Some("NVIDIA L40"));
        assert_eq!(card("NVIDIA L40S"), Some("NVIDIA L40S"));
        assert_eq!(card("NVIDIA A10"), Some("NVIDIA A10"));
        assert_eq!(resolve("NVIDIA L"), Resolved::Unknown);
        assert_eq!(resolve("NVIDIA L40S-48GB"), Resolved::Unknown);
        assert_eq!(resolve("NVIDIA"), Resolved::Unknown);
        assert_eq!(resolve(""), Resolved::Unknown);
        assert_eq!(resolve("GRID A100-40C"), Resolved::Unknown);
    }

    #[test]
    fn family_names_are_ambiguous() {
        let names = |r: Resolved| match r {
            Resolved::Ambiguous(c) => c.iter().map(|g| g.name).collect::<Vec<_>>(),
            other => panic!("not ambiguous: {other:?}"),
        };
        assert_eq!(
            names(resolve("NVIDIA H100")),
            vec![
                "NVIDIA H100 80GB HBM3",
                "NVIDIA H100 PCIe",
                "NVIDIA H100 NVL"
            ]
        );
        assert_eq!(
            names(resolve("NVIDIA-H100")),
            vec![
                "NVIDIA H100 80GB HBM3",
                "NVIDIA H100 PCIe",
                "NVIDIA H100 NVL"
            ]
        );
        assert_eq!(
            names(resolve("H100 80GB")),
            vec!["NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe"]
        );
        assert_eq!(
            names(resolve("A100 80GB")),
            vec!["NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe"]
        );
        assert_eq!(names(resolve("Tesla V100")).len(), 4);
        assert_eq!(
            names(resolve("V100 32GB")),
            vec!["Tesla V100-SXM2-32GB", "Tesla V100-PCIE-32GB"]
        );
        assert_eq!(names(resolve("NVIDIA H100 MIG 1g.10gb")).len(), 3);
    }

    #[test]
    fn mig_instances_resolve_to_card_and_profile() {
        let Resolved::Mig(g, p) = resolve("NVIDIA H100 80GB HBM3 MIG 3g.40gb") else {
            panic!("not MIG")
        };
        assert_eq!(
            (g.name, p.name, p.slices),
            ("NVIDIA H100 80GB HBM3", "3g.40gb", 3)
        );
        let Resolved::Mig(g, p) = resolve("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb") else {
            panic!("not MIG")
        };
        assert_eq!((g.name, p.name), ("NVIDIA A100-SXM4-40GB", "1g.5gb"));
        let Resolved::Mig(_, p) = resolve("NVIDIA A100-SXM4-80GB MIG 1g.10gb+me") else {
            panic!("not MIG")
        };
        assert_eq!(p.name, "1g.10gb");
        assert!(matches!(
            resolve("NVIDIA H100 80GB HBM3 MIG 1g.5gb"),
            Resolved::UnknownMig(_, _)
        ));
    }

    #[test]
    fn every_spelling_is_one_entry() {
        for (g, s) in spellings() {
            let key = s.concat();
            let owners: Vec<&str> = spellings()
                .iter()
                .filter(|(_, t)| t.concat() == key)
                .map(|(e, _)| e.name)
                .collect();
            assert!(owners.iter().all(|o| *o == g.name), "{key}: {owners:?}");
            assert_eq!(card(g.name), Some(g.name));
        }
    }

    #[test]
    fn closest_names_come_first() {
        let all = |_: &Gpu| true;
        assert_eq!(
            closest("NVIDIA H100 80GB HBM2e", 1, &all),
            vec!["NVIDIA H100 80GB HBM3"]
        );
        assert_eq!(
            closest("NVIDIA L4S", 3, &all),
            vec!["NVIDIA L4", "NVIDIA L40", "NVIDIA L40S"]
        );
        assert!(
            closest("NVIDIA H100", 3, &all)
                .iter()
                .all(|n| n.starts_with("NVIDIA H100 "))
        );
        assert_eq!(
            closest("NVIDIA A10G", 1, &|g: &Gpu| !g.peaks.is_empty()),
            vec!["NVIDIA A10"]
        );
    }
}
