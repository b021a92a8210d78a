//! Prices in USD per GPU-hour: one flat price, a file per model, or the
//! built-in dated profile. An unpriced model is never priced at 0.
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::Path;

/// The built-in profile's date and name, printed with every report that uses it.
pub const PROFILE_NAME: &str = "on-demand, specialist cloud, observed 2026 (built-in; not a quote)";
pub const PROFILE_DATE: &str = "2026-06";

/// Exact NVML product names per family, so that no model is priced by a loose
/// substring (an "L4" is not an "L40S").
const PROFILE: &[(&[&str], f64)] = &[
    (
        &[
            "NVIDIA H100 80GB HBM3",
            "NVIDIA H100 PCIe",
            "NVIDIA H100 NVL",
            "NVIDIA H100",
        ],
        3.00,
    ),
    (&["NVIDIA H200", "NVIDIA H200 NVL"], 3.60),
    (
        &[
            "NVIDIA A100-SXM4-80GB",
            "NVIDIA A100-SXM4-40GB",
            "NVIDIA A100-PCIE-40GB",
            "NVIDIA A100 80GB PCIe",
        ],
        1.50,
    ),
    (&["NVIDIA L40S"], 2.00),
    (&["NVIDIA B200"], 6.00),
];

/// Model names compare without case and with runs of spaces folded.
pub fn normalize_model(name: &str) -> String {
    name.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_lowercase()
}

#[derive(Debug, Clone, PartialEq)]
pub enum PriceSource {
    Flat(f64),
    File(String),
    Builtin,
    FileThenBuiltin(String),
    None,
}

impl PriceSource {
    pub fn describe(&self) -> String {
        match self {
            PriceSource::Flat(p) => format!("--price {p} USD per GPU-hour for every GPU"),
            PriceSource::File(f) => format!("--prices {f}"),
            PriceSource::Builtin => {
                format!("built-in profile \"{PROFILE_NAME}\", dated {PROFILE_DATE}")
            }
            PriceSource::FileThenBuiltin(f) => {
                format!(
                    "--prices {f}, then built-in profile \"{PROFILE_NAME}\", dated {PROFILE_DATE}"
                )
            }
            PriceSource::None => "none (no dollars)".to_string(),
        }
    }
}

/// Where each model's price comes from.
#[derive(Debug, Clone)]
pub struct PriceBook {
    flat: Option<f64>,
    by_model: BTreeMap<String, f64>,
    builtin: bool,
    pub source: PriceSource,
}

impl PriceBook {
    pub fn new(flat: Option<f64>, file: Option<&Path>, builtin: bool) -> Result<Self> {
        if let Some(p) = flat {
            if !(p.is_finite() && p >= 0.0) {
                bail!("--price {p}: expected a price in USD per GPU-hour >= 0");
            }
            return Ok(PriceBook {
                flat: Some(p),
                by_model: BTreeMap::new(),
                builtin: false,
                source: PriceSource::Flat(p),
            });
        }
        let mut by_model = BTreeMap::new();
        if let Some(path) = file {
            by_model = load_price_file(path)?;
        }
        let source = match (file, builtin) {
            (Some(f), true) => PriceSource::FileThenBuiltin(f.display().to_string()),
            (Some(f), false) => PriceSource::File(f.display().to_string()),
            (None, true) => PriceSource::Builtin,
            (None, false) => PriceSource::None,
        };
        Ok(PriceBook {
            flat: None,
            by_model,
            builtin,
            source,
        })
    }

    /// USD per GPU-hour for a model, or None when nobody priced it.
    pub fn price_of(&self, model: Option<&str>) -> Option<f64> {
        if let Some(p) = self.flat {
            return Some(p);
        }
        let key = normalize_model(model?);
        if let Some(p) = self.by_model.get(&key) {
            return Some(*p);
        }
        if self.builtin {
            for (names, price) in PROFILE {
                if names.iter().any(|n| normalize_model(n) == key) {
                    return Some(*price);
                }
            }
        }
        None
    }
}

/// A price file: CSV `model,usd_per_gpu_hour` (header optional) or TOML
/// (`"NVIDIA H100 80GB HBM3" = 3.0`, top level or under `[prices]`).
pub fn load_price_file(path: &Path) -> Result<BTreeMap<String, f64>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--prices {}: cannot read", path.display()))?;
    let is_toml = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    let mut out = BTreeMap::new();
    if is_toml {
        let value: toml::Table = text
            .parse()
            .with_context(|| format!("--prices {}: not valid TOML", path.display()))?;
        let table = match value.get("prices") {
            Some(toml::Value::Table(t)) => t.clone(),
            _ => value,
        };
        for (model, v) in table {
            let price = match v {
                toml::Value::Float(f) => f,
                toml::Value::Integer(i) => i as f64,
                other => bail!(
                    "--prices {}: price of '{model}' is {other}, expected a number (USD per GPU-hour)",
                    path.display()
                ),
            };
            check_price(path, &model, price)?;
            out.insert(normalize_model(&model), price);
        }
        return Ok(out);
    }
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((model, price)) = line.rsplit_once(',') else {
            bail!(
                "--prices {} line {}: expected 'model,usd_per_gpu_hour'",
                path.display(),
                i + 1
            );
        };
        let model = model.trim().trim_matches('"');
        let price_text = price.trim().trim_matches('"');
        let Ok(price) = price_text.parse::<f64>() else {
            if i == 0 {
                continue; // a header row
            }
            bail!(
                "--prices {} line {}: '{price_text}' is not a price in USD per GPU-hour",
                path.display(),
                i + 1
            );
        };
        check_price(path, model, price)?;
        out.insert(normalize_model(model), price);
    }
    if out.is_empty() {
        bail!(
            "--prices {}: no prices found (expected lines 'model,usd_per_gpu_hour')",
            path.display()
        );
    }
    Ok(out)
}

fn check_price(path: &Path, model: &str, price: f64) -> Result<()> {
    if !(price.is_finite() && price >= 0.0) {
        bail!(
            "--prices {}: price of '{model}' is {price}, expected >= 0",
            path.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_profile_matches_exact_names_only() -> Result<()> {
        let book = PriceBook::new(None, None, true)?;
        assert_eq!(book.price_of(Some("NVIDIA H100 80GB HBM3")), Some(3.0));
        assert_eq!(book.price_of(Some("nvidia  l40s")), Some(2.0));
        assert_eq!(book.price_of(Some("NVIDIA L4")), None);
        assert_eq!(book.price_of(None), None);
        Ok(())
    }

    #[test]
    fn flat_price_covers_everything() -> Result<()> {
        let book = PriceBook::new(Some(2.5), None, true)?;
        assert_eq!(book.price_of(Some("anything")), Some(2.5));
        assert_eq!(book.price_of(None), Some(2.5));
        Ok(())
    }
}
