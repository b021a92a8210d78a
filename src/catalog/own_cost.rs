//! `--own-cost capex=USD,years=N[,power_usd_per_kwh=X][,overhead=F]`: what an
//! owned GPU costs per hour, amortized (docs/semantics.md §10, Purchase).
use anyhow::{Result, bail};

/// Hours in a year (365.25 days), the amortization's unit.
pub const HOURS_PER_YEAR: f64 = 8_766.0;
/// Facility, staff and network on top of the card and its power, when not given.
pub const DEFAULT_OVERHEAD: f64 = 0.3;

/// The parsed `--own-cost`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OwnCost {
    /// what one GPU cost to buy (its share of the server included), USD
    pub capex_usd: f64,
    /// years it is written off over
    pub years: f64,
    pub power_usd_per_kwh: Option<f64>,
    /// a share added on top of capex and power (0.3 = 30%)
    pub overhead: f64,
}

impl OwnCost {
    /// Parse `key=value` pairs separated by commas; capex and years are required.
    pub fn parse(text: &str) -> Result<OwnCost> {
        let mut capex = None;
        let mut years = None;
        let mut power = None;
        let mut overhead = None;
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = pair.split_once('=') else {
                bail!(
                    "--own-cost: '{pair}' is not key=value (keys: capex, years, power_usd_per_kwh, overhead)"
                );
            };
            let (key, value) = (key.trim(), value.trim());
            let slot = match key {
                "capex" => &mut capex,
                "years" => &mut years,
                "power_usd_per_kwh" => &mut power,
                "overhead" => &mut overhead,
                other => bail!(
                    "--own-cost: unknown key '{other}' (keys: capex, years, power_usd_per_kwh, overhead)"
                ),
            };
            *slot = Some(number(key, value)?);
        }
        let (Some(capex_usd), Some(years)) = (capex, years) else {
            bail!("--own-cost: capex=USD and years=N are required, e.g. capex=30000,years=4");
        };
        if years <= 0.0 {
            bail!("--own-cost: years must be above 0, got {years}");
        }
        Ok(OwnCost {
            capex_usd,
            years,
            power_usd_per_kwh: power,
            overhead: overhead.unwrap_or(DEFAULT_OVERHEAD),
        })
    }

    /// capex ÷ (years × 8,766 h) × (1 + overhead)
    pub fn capex_usd_per_gpu_hour(&self) -> f64 {
        self.capex_usd / (self.years * HOURS_PER_YEAR) * (1.0 + self.overhead)
    }

    /// power_w ÷ 1000 × $/kWh × (1 + overhead); None without either
    pub fn power_usd_per_gpu_hour(&self, power_w: Option<f64>) -> Option<f64> {
        Some(power_w? / 1000.0 * self.power_usd_per_kwh? * (1.0 + self.overhead))
    }
}

/// A finite number ≥ 0 for `key`.
fn number(key: &str, value: &str) -> Result<f64> {
    match value.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => bail!("--own-cost: {key}={value}: expected a number >= 0"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_required_and_optional_keys() -> Result<()> {
        let c = OwnCost::parse("capex=30000,years=4")?;
        assert_eq!(c.overhead, 0.3);
        assert_eq!(c.power_usd_per_kwh, None);
        // 30,000 ÷ (4 × 8,766) = 0.855578… × 1.3 = 1.112251…
        assert!((c.capex_usd_per_gpu_hour() - 30_000.0 / 35_064.0 * 1.3).abs() < 1e-12);
        assert_eq!(c.power_usd_per_gpu_hour(Some(700.0)), None);
        let c = OwnCost::parse(" capex=35064, years=4 ,power_usd_per_kwh=0.1,overhead=0")?;
        // 35,064 ÷ (4 × 8,766 h) = $1/GPU-h; 500 W × $0.1/kWh = $0.05/GPU-h
        assert_eq!(c.capex_usd_per_gpu_hour(), 1.0);
        assert_eq!(c.power_usd_per_gpu_hour(Some(500.0)), Some(0.05));
        assert_eq!(c.power_usd_per_gpu_hour(None), None);
        Ok(())
    }

    #[test]
    fn bad_specs_name_the_key() {
        let err = |s: &str| {
            OwnCost::parse(s)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(err("capex=1").contains("capex=USD and years=N are required"));
        assert!(err("capex=1,years=0").contains("years must be above 0"));
        assert!(err("capex=x,years=2").contains("capex=x: expected a number >= 0"));
        assert!(err("capex=1,years=2,color=red").contains("unknown key 'color'"));
        assert!(err("capex").contains("'capex' is not key=value"));
        assert!(err("capex=-5,years=2").contains("expected a number >= 0"));
    }
}
