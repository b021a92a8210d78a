//! Dense peak TFLOP/s per chip, keyed by the exact product name NVML (or
//! rocm-smi, or the TPU docs) reports and the dtype, each with its source.
//!
//! Names match tolerant of case, spacing, '-' and '_' and of a leading vendor
//! word ("NVIDIA", "Tesla", "AMD", "Google"), never by substring: "L4" is not
//! "L40S". An unknown name is an error, never another GPU's numbers.
use anyhow::{Result, bail};
use serde::Serialize;
use std::fmt;

/// The number formats a peak is given for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    Fp64,
    Fp32,
    Tf32,
    Bf16,
    Fp16,
    Fp8,
    Int8,
}

impl Dtype {
    pub const ALL: [Dtype; 7] = [
        Dtype::Fp64,
        Dtype::Fp32,
        Dtype::Tf32,
        Dtype::Bf16,
        Dtype::Fp16,
        Dtype::Fp8,
        Dtype::Int8,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Dtype::Fp64 => "fp64",
            Dtype::Fp32 => "fp32",
            Dtype::Tf32 => "tf32",
            Dtype::Bf16 => "bf16",
            Dtype::Fp16 => "fp16",
            Dtype::Fp8 => "fp8",
            Dtype::Int8 => "int8",
        }
    }

    /// Parse a dtype as written in a jobs file ("bf16", "BF16", "bfloat16", "float16", ...).
    pub fn parse(text: &str) -> Option<Dtype> {
        let t = text.trim().to_ascii_lowercase();
        Some(match t.as_str() {
            "fp64" | "float64" | "f64" => Dtype::Fp64,
            "fp32" | "float32" | "f32" => Dtype::Fp32,
            "tf32" | "tensorfloat32" => Dtype::Tf32,
            "bf16" | "bfloat16" => Dtype::Bf16,
            "fp16" | "float16" | "f16" | "half" => Dtype::Fp16,
            "fp8" | "float8" | "e4m3" | "e5m2" => Dtype::Fp8,
            "int8" | "i8" => Dtype::Int8,
            _ => return None,
        })
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One chip: its exact reported name, dense peaks per dtype and where they come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chip {
    pub name: &'static str,
    /// dense (no sparsity) TFLOP/s (TOP/s for int8) per chip; a dtype not listed is undefined
    pub peaks: &'static [(Dtype, f64)],
    pub source: &'static str,
}

impl Chip {
    pub fn peak(&self, dtype: Dtype) -> Option<f64> {
        self.peaks
            .iter()
            .find(|(d, _)| *d == dtype)
            .map(|(_, v)| *v)
    }
    pub fn dtypes(&self) -> Vec<Dtype> {
        self.peaks.iter().map(|(d, _)| *d).collect()
    }
}

use Dtype::*;

const V100_SXM: &[(Dtype, f64)] = &[(Fp16, 125.0), (Fp32, 15.7), (Fp64, 7.8)];
const V100_PCIE: &[(Dtype, f64)] = &[(Fp16, 112.0), (Fp32, 14.0), (Fp64, 7.0)];
const A100: &[(Dtype, f64)] = &[
    (Bf16, 312.0),
    (Fp16, 312.0),
    (Tf32, 156.0),
    (Fp32, 19.5),
    (Fp64, 19.5),
    (Int8, 624.0),
];
const H100_SXM: &[(Dtype, f64)] = &[
    (Bf16, 989.4),
    (Fp16, 989.4),
    (Tf32, 494.7),
    (Fp8, 1978.9),
    (Int8, 1978.9),
    (Fp32, 66.9),
    (Fp64, 66.9),
];
const MI300X: &[(Dtype, f64)] = &[
    (Bf16, 1307.4),
    (Fp16, 1307.4),
    (Tf32, 653.7),
    (Fp8, 2614.9),
    (Int8, 2614.9),
    (Fp32, 163.4),
    (Fp64, 163.4),
];

/// The table. FP64 is the tensor-core rate where the chip has one.
pub const CHIPS: &[Chip] = &[
    Chip {
        name: "Tesla V100-SXM2-16GB",
        peaks: V100_SXM,
        source: "NVIDIA V100 datasheet (fp16 tensor; no bf16/tf32)",
    },
    Chip {
        name: "Tesla V100-SXM2-32GB",
        peaks: V100_SXM,
        source: "NVIDIA V100 datasheet (fp16 tensor; no bf16/tf32)",
    },
    Chip {
        name: "Tesla V100-PCIE-16GB",
        peaks: V100_PCIE,
        source: "NVIDIA V100 datasheet (fp16 tensor; no bf16/tf32)",
    },
    Chip {
        name: "Tesla V100-PCIE-32GB",
        peaks: V100_PCIE,
        source: "NVIDIA V100 datasheet (fp16 tensor; no bf16/tf32)",
    },
    Chip {
        name: "NVIDIA A100-SXM4-40GB",
        peaks: A100,
        source: "NVIDIA A100 datasheet (dense)",
    },
    Chip {
        name: "NVIDIA A100-SXM4-80GB",
        peaks: A100,
        source: "NVIDIA A100 datasheet (dense)",
    },
    Chip {
        name: "NVIDIA A100-PCIE-40GB",
        peaks: A100,
        source: "NVIDIA A100 datasheet (dense)",
    },
    Chip {
        name: "NVIDIA A100 80GB PCIe",
        peaks: A100,
        source: "NVIDIA A100 datasheet (dense)",
    },
    Chip {
        name: "NVIDIA A10",
        peaks: &[
            (Bf16, 125.0),
            (Fp16, 125.0),
            (Tf32, 62.5),
            (Fp32, 31.2),
            (Int8, 250.0),
        ],
        source: "NVIDIA A10 datasheet (dense); not the A10G",
    },
    Chip {
        name: "NVIDIA L4",
        peaks: &[
            (Bf16, 121.0),
            (Fp16, 121.0),
            (Tf32, 60.0),
            (Fp8, 242.0),
            (Int8, 242.0),
            (Fp32, 30.3),
        ],
        source: "NVIDIA L4 datasheet (dense = half the sparse figure)",
    },
    Chip {
        name: "NVIDIA L40",
        peaks: &[
            (Bf16, 181.0),
            (Fp16, 181.0),
            (Tf32, 90.5),
            (Fp8, 362.0),
            (Int8, 362.0),
            (Fp32, 90.5),
        ],
        source: "NVIDIA L40 datasheet (dense)",
    },
    Chip {
        name: "NVIDIA L40S",
        peaks: &[
            (Bf16, 362.0),
            (Fp16, 362.0),
            (Tf32, 183.0),
            (Fp8, 733.0),
            (Int8, 733.0),
            (Fp32, 91.6),
        ],
        source: "NVIDIA L40S datasheet (dense = half the sparse figure)",
    },
    Chip {
        name: "NVIDIA H100 80GB HBM3",
        peaks: H100_SXM,
        source: "NVIDIA H100 SXM5 datasheet (dense); torchtitan 989.4",
    },
    Chip {
        name: "NVIDIA H100 PCIe",
        peaks: &[
            (Bf16, 756.0),
            (Fp16, 756.0),
            (Tf32, 378.0),
            (Fp8, 1513.0),
            (Int8, 1513.0),
            (Fp32, 51.2),
            (Fp64, 51.2),
        ],
        source: "NVIDIA H100 PCIe datasheet (dense)",
    },
    Chip {
        name: "NVIDIA H100 NVL",
        peaks: &[
            (Bf16, 835.0),
            (Fp16, 835.0),
            (Tf32, 418.0),
            (Fp8, 1671.0),
            (Int8, 1671.0),
            (Fp32, 60.0),
            (Fp64, 60.0),
        ],
        source: "NVIDIA H100 NVL datasheet, per card (Lightning's 'h100 nvl' is the two-card figure)",
    },
    Chip {
        name: "NVIDIA H200",
        peaks: H100_SXM,
        source: "NVIDIA H200 SXM datasheet (dense; same compute as H100 SXM)",
    },
    Chip {
        name: "NVIDIA B200",
        peaks: &[
            (Bf16, 2250.0),
            (Fp16, 2250.0),
            (Tf32, 1125.0),
            (Fp8, 4500.0),
            (Int8, 4500.0),
            (Fp32, 75.0),
            (Fp64, 37.0),
        ],
        source: "NVIDIA HGX B200 datasheet, per GPU (dense)",
    },
    Chip {
        name: "NVIDIA GB200",
        peaks: &[
            (Bf16, 2500.0),
            (Fp16, 2500.0),
            (Tf32, 1250.0),
            (Fp8, 5000.0),
            (Int8, 5000.0),
            (Fp32, 80.0),
            (Fp64, 40.0),
        ],
        source: "NVIDIA GB200 NVL72 datasheet, per GPU (dense)",
    },
    Chip {
        name: "NVIDIA GeForce RTX 4090",
        peaks: &[
            (Bf16, 165.2),
            (Fp16, 165.2),
            (Tf32, 82.6),
            (Fp8, 330.3),
            (Fp32, 82.6),
        ],
        source: "NVIDIA Ada whitepaper, tensor with FP32 accumulate (Lightning's bf16 figure is the non-tensor rate)",
    },
    Chip {
        name: "AMD Instinct MI300X",
        peaks: MI300X,
        source: "AMD Instinct MI300X datasheet (dense)",
    },
    Chip {
        name: "AMD Instinct MI325X",
        peaks: MI300X,
        source: "AMD Instinct MI325X datasheet (dense)",
    },
    Chip {
        name: "AMD Instinct MI250X",
        peaks: &[(Bf16, 191.5), (Fp16, 191.5), (Fp32, 23.9), (Fp64, 47.9)],
        source: "AMD Instinct MI250X datasheet, per GCD (it enumerates as two devices)",
    },
    Chip {
        name: "Google TPU v4",
        peaks: &[(Bf16, 275.0)],
        source: "Google Cloud TPU v4 docs, per chip",
    },
    Chip {
        name: "Google TPU v5e",
        peaks: &[(Bf16, 197.0)],
        source: "Google Cloud TPU v5e docs, per chip",
    },
    Chip {
        name: "Google TPU v5p",
        peaks: &[(Bf16, 459.0)],
        source: "Google Cloud TPU v5p docs, per chip",
    },
];

/// Names people meet that are deliberately absent, with the reason.
const KNOWN_UNKNOWN: &[(&str, &str)] = &[
    (
        "NVIDIA A10G",
        "its tensor rate is lower than the A10's and unpublished: it is not an A10",
    ),
    (
        "NVIDIA RTX 6000 Ada Generation",
        "no datasheet figure is cited yet",
    ),
    ("Tesla T4", "no datasheet figure is cited yet"),
];

/// The form names compare in: lower case, only letters and digits.
fn squash(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

const VENDOR_WORDS: &[&str] = &["nvidia", "tesla", "amd", "google"];

/// The squashed name and, when it starts with a vendor word, the name without it.
fn keys(name: &str) -> Vec<String> {
    let full = squash(name);
    let first = name
        .split([' ', '-', '_'])
        .next()
        .map(squash)
        .unwrap_or_default();
    let mut out = vec![full.clone()];
    if VENDOR_WORDS.contains(&first.as_str()) && full.len() > first.len() {
        out.push(full[first.len()..].to_string());
    }
    out
}

/// The chip with exactly this name (up to case, spacing and a leading vendor word).
pub fn lookup(name: &str) -> Option<&'static Chip> {
    let wanted = keys(name);
    CHIPS
        .iter()
        .find(|c| keys(c.name).iter().any(|k| wanted.contains(k)))
}

/// Edit distance between two squashed names.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known names closest to `name`, best first.
pub fn closest(name: &str, n: usize) -> Vec<&'static str> {
    let wanted = keys(name);
    let mut scored: Vec<(bool, usize, &'static str)> = CHIPS
        .iter()
        .map(|c| {
            let ks = keys(c.name);
            // a name that one of ours extends (or that extends ours) is suggested first
            let related = ks.iter().any(|k| {
                wanted
                    .iter()
                    .any(|w| k.starts_with(w.as_str()) || w.starts_with(k.as_str()))
            });
            let d = ks
                .iter()
                .flat_map(|k| wanted.iter().map(move |w| distance(w, k)))
                .min()
                .unwrap_or(usize::MAX);
            (!related, d, c.name)
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(n)
        .map(|(_, _, name)| name)
        .collect()
}

/// The chip, or an error that names the closest known chips and `--peak-tflops`.
pub fn find(name: &str) -> Result<&'static Chip> {
    if let Some(c) = lookup(name) {
        return Ok(c);
    }
    let why = KNOWN_UNKNOWN
        .iter()
        .find(|(n, _)| keys(n).iter().any(|k| keys(name).contains(k)))
        .map(|(_, why)| format!(" ({why})"))
        .unwrap_or_default();
    bail!(
        "no dense peak known for GPU '{name}'{why}; closest known names: {}; give the peak yourself with --peak-tflops (see `gpuaudit peaks`)",
        closest(name, 3).join(", ")
    )
}

/// The dense peak of `name` for `dtype`, in TFLOP/s per chip.
pub fn peak_tflops(name: &str, dtype: Dtype) -> Result<f64> {
    let chip = find(name)?;
    match chip.peak(dtype) {
        Some(p) => Ok(p),
        None => bail!(
            "{} has no dense {dtype} peak in the table (it has {}); pick one of those with --dtype or give --peak-tflops",
            chip.name,
            chip.dtypes()
                .iter()
                .map(|d| d.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_names_and_tolerant_spelling() -> Result<()> {
        assert_eq!(peak_tflops("NVIDIA H100 80GB HBM3", Dtype::Bf16)?, 989.4);
        assert_eq!(peak_tflops("nvidia  h100 80gb hbm3", Dtype::Bf16)?, 989.4);
        assert_eq!(peak_tflops("H100-80GB-HBM3", Dtype::Fp8)?, 1978.9);
        assert_eq!(peak_tflops("NVIDIA A100-SXM4-80GB", Dtype::Tf32)?, 156.0);
        assert_eq!(peak_tflops("a100 sxm4 80gb", Dtype::Bf16)?, 312.0);
        assert_eq!(peak_tflops("Google TPU v4", Dtype::Bf16)?, 275.0);
        assert_eq!(peak_tflops("tpu v4", Dtype::Bf16)?, 275.0);
        Ok(())
    }

    #[test]
    fn l4_is_never_l40s() -> Result<()> {
        assert_eq!(peak_tflops("NVIDIA L4", Dtype::Bf16)?, 121.0);
        assert_eq!(peak_tflops("NVIDIA L40S", Dtype::Bf16)?, 362.0);
        assert_eq!(peak_tflops("NVIDIA L40", Dtype::Bf16)?, 181.0);
        assert_eq!(peak_tflops("l4", Dtype::Bf16)?, 121.0);
        // a prefix or a substring is not a match
        assert!(lookup("NVIDIA L").is_none());
        assert!(lookup("NVIDIA H100").is_none());
        assert!(lookup("NVIDIA L40S-48GB").is_none());
        Ok(())
    }

    #[test]
    fn traps_of_public_tables() -> Result<()> {
        // A10G is not an A10
        let err = find("NVIDIA A10G")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("NVIDIA A10,")
                || err.contains("NVIDIA A10;")
                || err.contains("NVIDIA A10 "),
            "{err}"
        );
        assert!(err.contains("--peak-tflops"), "{err}");
        assert!(err.contains("not an A10"), "{err}");
        // H100 NVL is one card, not two
        assert_eq!(peak_tflops("NVIDIA H100 NVL", Dtype::Bf16)?, 835.0);
        // RTX 4090 bf16 is the tensor rate, not the non-tensor 82.6
        assert_eq!(peak_tflops("NVIDIA GeForce RTX 4090", Dtype::Bf16)?, 165.2);
        // V100 has no bf16
        let err = peak_tflops("Tesla V100-SXM2-16GB", Dtype::Bf16)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("fp16"), "{err}");
        Ok(())
    }

    #[test]
    fn closest_names_come_first() {
        assert_eq!(
            closest("NVIDIA H100 80GB HBM2e", 1),
            vec!["NVIDIA H100 80GB HBM3"]
        );
        assert_eq!(closest("NVIDIA L4S", 2).len(), 2);
        assert_eq!(
            closest("NVIDIA L4S", 3),
            vec!["NVIDIA L4", "NVIDIA L40", "NVIDIA L40S"]
        );
        assert!(
            closest("NVIDIA H100", 3)
                .iter()
                .all(|n| n.starts_with("NVIDIA H100 "))
        );
        assert_eq!(closest("NVIDIA A10G", 1), vec!["NVIDIA A10"]);
    }

    #[test]
    fn every_entry_is_findable_and_distinct() {
        for c in CHIPS {
            assert_eq!(lookup(c.name).map(|x| x.name), Some(c.name));
            for (_, v) in c.peaks {
                assert!(*v > 0.0 && v.is_finite());
            }
        }
    }

    #[test]
    fn dtype_names() {
        assert_eq!(Dtype::parse("BF16"), Some(Dtype::Bf16));
        assert_eq!(Dtype::parse("bfloat16"), Some(Dtype::Bf16));
        assert_eq!(Dtype::parse("fp4"), None);
    }
}
