//! Dense peaks by reported name, for MFU: an unknown, ambiguous or unpeaked
//! name is an error that says why and names the closest cards with peaks;
//! never another GPU's numbers.
use super::{Dtype, Family, Gpu, Resolved, closest, resolve};
use anyhow::{Result, bail};

fn has_peaks(g: &Gpu) -> bool {
    !g.peaks.is_empty()
}

/// The whole card with this name (any spelling), or None.
pub fn lookup(name: &str) -> Option<&'static Gpu> {
    match resolve(name) {
        Resolved::Card(g) => Some(g),
        _ => None,
    }
}

/// The card, or an error naming the closest known cards and `--peak-tflops`.
pub fn find(name: &str) -> Result<&'static Gpu> {
    let hint = "give the peak yourself with --peak-tflops (see `gpuaudit peaks`)";
    match resolve(name) {
        Resolved::Card(g) if has_peaks(g) => Ok(g),
        Resolved::Card(g) => bail!(
            "no dense peak known for GPU '{name}' ({}); closest known names: {}; {hint}",
            g.no_bf16.unwrap_or(g.peak_source),
            closest(name, 3, &has_peaks).join(", ")
        ),
        Resolved::Mig(g, p) if g.family == Family::AmdInstinct => bail!(
            "'{name}' is a {} compute partition of {}: its dense peak is not in the table (about {}/{} of the card's); {hint}",
            p.name.to_uppercase(),
            g.name,
            p.slices,
            p.of
        ),
        Resolved::Mig(g, p) => bail!(
            "'{name}' is a MIG {} instance of {}: its dense peak is not in the table (a slice's share of the card's peak is not exactly {}/7); {hint}",
            p.name,
            g.name,
            p.slices
        ),
        Resolved::UnknownMig(g, profile) => bail!(
            "'{name}': {} has no {} '{profile}' (it has {}); {hint}",
            g.name,
            g.split_word(),
            g.mig.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
        ),
        Resolved::Ambiguous(c) => bail!(
            "GPU name '{name}' is ambiguous: it could be {}; name one of them (see `gpuaudit peaks`) or {hint}",
            c.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
        ),
        Resolved::Unknown => bail!(
            "no dense peak known for GPU '{name}'; closest known names: {}; {hint}",
            closest(name, 3, &has_peaks).join(", ")
        ),
    }
}

/// The dense peak of `name` for `dtype`, in TFLOP/s per chip.
pub fn peak_tflops(name: &str, dtype: Dtype) -> Result<f64> {
    let g = find(name)?;
    match g.peak(dtype) {
        Some(p) => Ok(p),
        None => bail!(
            "{} has no dense {dtype} peak in the table (it has {}{}); pick one of those with --dtype or give --peak-tflops",
            g.name,
            g.dtypes()
                .iter()
                .map(|d| d.name())
                .collect::<Vec<_>>()
                .join(", "),
            match (dtype, g.no_bf16) {
                (Dtype::Bf16, Some(why)) => format!("; {why}"),
                _ => String::new(),
            }
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
        assert!(lookup("NVIDIA L").is_none());
        assert!(lookup("NVIDIA H100").is_none());
        assert!(lookup("NVIDIA L40S-48GB").is_none());
        Ok(())
    }

    #[test]
    fn traps_of_public_tables() -> Result<()> {
        // A10G is not an A10: listed (priced, memory) but without a peak
        let err = find("NVIDIA A10G")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("closest known names: NVIDIA A10,"), "{err}");
        assert!(
            err.contains("--peak-tflops") && err.contains("not an A10"),
            "{err}"
        );
        assert_eq!(peak_tflops("NVIDIA H100 NVL", Dtype::Bf16)?, 835.0);
        assert_eq!(peak_tflops("NVIDIA GeForce RTX 4090", Dtype::Bf16)?, 165.2);
        let err = peak_tflops("Tesla V100-SXM2-16GB", Dtype::Bf16)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("fp16") && err.contains("Volta has no bf16"),
            "{err}"
        );
        assert_eq!(peak_tflops("Tesla T4", Dtype::Fp16)?, 65.0);
        Ok(())
    }

    #[test]
    fn amd_and_intel_peaks() -> Result<()> {
        assert_eq!(peak_tflops("AMD Instinct MI300X", Dtype::Bf16)?, 1307.4);
        assert_eq!(peak_tflops("MI325X", Dtype::Bf16)?, 1307.4);
        assert_eq!(peak_tflops("AMD Instinct MI350X", Dtype::Bf16)?, 2300.0);
        assert_eq!(peak_tflops("AMD Instinct MI355X", Dtype::Fp8)?, 5000.0);
        assert_eq!(peak_tflops("AMD Instinct MI250X", Dtype::Bf16)?, 191.5);
        assert_eq!(peak_tflops("HL-225", Dtype::Bf16)?, 432.0);
        assert_eq!(peak_tflops("HL-325L", Dtype::Bf16)?, 1835.0);
        assert_eq!(
            peak_tflops("Intel(R) Data Center GPU Max 1550", Dtype::Bf16)?,
            838.9
        );
        // CDNA 4 has no tf32: an error naming what it has
        let err = peak_tflops("MI355X", Dtype::Tf32)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("no dense tf32 peak"), "{err}");
        let err = find("AMD Instinct MI300X CPX")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("CPX compute partition of AMD Instinct MI300X") && err.contains("1/8"),
            "{err}"
        );
        Ok(())
    }

    #[test]
    fn ambiguous_and_mig_names_are_errors_that_say_so() {
        let err = find("NVIDIA H100")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("ambiguous")
                && err.contains("NVIDIA H100 PCIe")
                && err.contains("NVIDIA H100 NVL"),
            "{err}"
        );
        let err = find("NVIDIA H100 80GB HBM3 MIG 3g.40gb")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("MIG 3g.40gb instance of NVIDIA H100 80GB HBM3"),
            "{err}"
        );
    }
}
