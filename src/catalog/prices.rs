//! Prices in USD per GPU-hour: one flat price, a file per model, or the
//! built-in dated profile (each catalog entry's price, src/catalog/table.rs).
//! An unpriced model is never priced at 0; an ambiguous name ("NVIDIA H100")
//! is never priced as one of its candidates.
use crate::catalog::{self, Resolved};
use anyhow::{Context, Result, bail};
use std::collections::BTreeMap;
use std::path::Path;

/// The built-in profile's date and name, printed with every report that uses it.
pub const PROFILE_NAME: &str = "on-demand, specialist cloud, observed 2026 (built-in; not a quote)";
pub const PROFILE_DATE: &str = "2026-06";

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
    /// the file's names as written (normalized)
    by_model: BTreeMap<String, f64>,
    /// the file's names that mean one catalog card, by its NVML name
    by_card: BTreeMap<&'static str, f64>,
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
                by_card: BTreeMap::new(),
                builtin: false,
                source: PriceSource::Flat(p),
            });
        }
        let mut by_model = BTreeMap::new();
        let mut by_card = BTreeMap::new();
        if let Some(path) = file {
            by_model = load_price_file(path)?;
            by_card = price_cards(path, &by_model)?;
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
            by_card,
            builtin,
            source,
        })
    }

    /// USD per GPU-hour for a model, or None when nobody priced it. A name the
    /// file does not spell exactly is priced by the catalog card it means; a
    /// MIG instance at its compute share (slices of 7) of its card's price.
    pub fn price_of(&self, model: Option<&str>) -> Option<f64> {
        if let Some(p) = self.flat {
            return Some(p);
        }
        let model = model?;
        if let Some(p) = self.by_model.get(&normalize_model(model)) {
            return Some(*p);
        }
        let (card, share) = match catalog::resolve(model) {
            Resolved::Card(g) => (g, 1.0),
            Resolved::Mig(g, p) => (g, f64::from(p.slices) / 7.0),
            _ => return None,
        };
        let whole = self
            .by_card
            .get(card.name)
            .copied()
            .or(self.builtin.then_some(card.price.usd_per_gpu_hour))?;
        Some(whole * share)
    }
}

/// The price file's names that mean one catalog card; two spellings of one
/// card with different prices are an error, not a silent choice.
fn price_cards(
    path: &Path,
    by_model: &BTreeMap<String, f64>,
) -> Result<BTreeMap<&'static str, f64>> {
    let mut out: BTreeMap<&'static str, (f64, &str)> = BTreeMap::new();
    for (model, price) in by_model {
        let Resolved::Card(g) = catalog::resolve(model) else {
            continue;
        };
        if let Some((other, first)) = out.get(g.name)
            && other != price
        {
            bail!(
                "--prices {}: '{first}' ({other}) and '{model}' ({price}) are both {}: give one price",
                path.display(),
                g.name
            );
        }
        out.insert(g.name, (*price, model));
    }
    Ok(out.into_iter().map(|(k, (p, _))| (k, p)).collect())
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
    fn builtin_profile_prices_the_card_a_name_means() -> Result<()> {
        let book = PriceBook::new(None, None, true)?;
        assert_eq!(book.price_of(Some("NVIDIA H100 80GB HBM3")), Some(3.0));
        assert_eq!(book.price_of(Some("NVIDIA-H100-80GB-HBM3")), Some(3.0));
        assert_eq!(book.price_of(Some("nvidia  l40s")), Some(2.0));
        assert_eq!(book.price_of(Some("NVIDIA L4")), Some(0.70));
        assert_eq!(book.price_of(Some("Tesla-T4")), Some(0.35));
        // a family name is none of its members
        assert_eq!(book.price_of(Some("NVIDIA H100")), None);
        assert_eq!(book.price_of(Some("Mystery GPU")), None);
        assert_eq!(book.price_of(None), None);
        // a MIG slice at its compute share
        let mig = book
            .price_of(Some("NVIDIA H100 80GB HBM3 MIG 3g.40gb"))
            .unwrap_or_default();
        assert!((mig - 3.0 * 3.0 / 7.0).abs() < 1e-12, "{mig}");
        Ok(())
    }

    #[test]
    fn a_file_price_covers_every_spelling_of_its_card() -> Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("prices.csv");
        std::fs::write(
            &path,
            "model,usd_per_gpu_hour\nH100 SXM,2.5\nNVIDIA H100,9\n",
        )?;
        let book = PriceBook::new(None, Some(&path), false)?;
        assert_eq!(book.price_of(Some("NVIDIA H100 80GB HBM3")), Some(2.5));
        assert_eq!(book.price_of(Some("NVIDIA-H100-80GB-HBM3")), Some(2.5));
        // named exactly in the file: the user chose that price for it
        assert_eq!(book.price_of(Some("NVIDIA H100")), Some(9.0));
        assert_eq!(book.price_of(Some("NVIDIA L4")), None);
        std::fs::write(&path, "H100 SXM,2.5\nNVIDIA H100 80GB HBM3,3\n")?;
        let err = PriceBook::new(None, Some(&path), false)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("'h100 sxm' (2.5) and 'nvidia h100 80gb hbm3' (3)"),
            "{err}"
        );
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
