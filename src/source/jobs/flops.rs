//! The numbers people write for model FLOPs and token counts: `540.35e9`,
//! `405B`, `238.3K`, `64,000`; the arithmetic is the MFU calculator's
//! ([`crate::audit::calculator`]).
use anyhow::{Result, bail};

/// A number with thousands separators as output prints them ("64,000",
/// "1,978.9") without them; a comma that is not one ("1,5") is an error.
fn without_thousands(text: &str) -> Result<String> {
    let t = text.trim().replace('_', "");
    if !t.contains(',') {
        return Ok(t);
    }
    let int = t.split(['.', 'e', 'E']).next().unwrap_or_default();
    let int = int.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let groups: Vec<&str> = int.split(',').collect();
    let digits = |g: &str| !g.is_empty() && g.chars().all(|c| c.is_ascii_digit());
    let ok = groups.first().is_some_and(|g| digits(g) && g.len() <= 3)
        && groups[1..].iter().all(|g| digits(g) && g.len() == 3);
    if !ok {
        bail!(
            "'{text}': a comma only separates thousands (64,000); write decimals with a point (1.5)"
        );
    }
    Ok(t.replace(',', ""))
}

/// A count: `540.35e9`, `405B`, `70b`, `1.5T`, `350M`, `238.3K`, `7000000000`, `64,000`.
pub fn parse_count(text: &str) -> Result<f64> {
    let t = without_thousands(text)?;
    let (num, mult) = match t.chars().last() {
        Some(c) if c.is_ascii_alphabetic() && !t.ends_with(['e', 'E']) => {
            let m = match c.to_ascii_lowercase() {
                'k' => 1e3,
                'm' => 1e6,
                'b' | 'g' => 1e9,
                't' => 1e12,
                'p' => 1e15,
                _ => bail!(
                    "'{text}': unknown suffix '{c}' (expected K, M, B, T or a plain number like 540.35e9)"
                ),
            };
            (&t[..t.len() - 1], m)
        }
        _ => (t.as_str(), 1.0),
    };
    let v: f64 = num.trim().parse().map_err(|_| {
        anyhow::anyhow!("'{text}' is not a number (expected e.g. 540.35e9, 405B, 238.3K)")
    })?;
    let v = v * mult;
    if !v.is_finite() || v <= 0.0 {
        bail!("'{text}' must be a positive number");
    }
    Ok(v)
}

/// Seconds, in the one duration grammar ([`crate::timeparse::parse_duration_us`]):
/// `2.5s`, `850ms`, `1m`, `1h30m`; a bare number is refused as ambiguous.
pub fn parse_seconds(text: &str) -> Result<f64> {
    let seconds = crate::timeparse::parse_duration(text)?.as_secs_f64();
    if seconds <= 0.0 {
        bail!("'{text}' must be a positive duration");
    }
    Ok(seconds)
}

/// clap value parsers with the same messages.
pub fn count_arg(text: &str) -> std::result::Result<f64, String> {
    parse_count(text).map_err(|e| e.to_string())
}
pub fn seconds_arg(text: &str) -> std::result::Result<f64, String> {
    parse_seconds(text).map_err(|e| e.to_string())
}
/// A positive finite number (TFLOP/s and the like; "1,978.9" too).
pub fn positive_arg(text: &str) -> std::result::Result<f64, String> {
    let t = without_thousands(text).map_err(|e| e.to_string())?;
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("'{text}' is not a positive number")),
    }
}
/// A whole number >= 1 ("16,384" too), for GPU counts.
pub fn gpus_arg(text: &str) -> std::result::Result<u64, String> {
    let t = without_thousands(text).map_err(|e| e.to_string())?;
    match t.parse::<u64>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(format!("'{text}' is not a whole number of GPUs >= 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() -> Result<()> {
        assert_eq!(parse_count("540.35e9")?, 540.35e9);
        assert_eq!(parse_count("405B")?, 405e9);
        assert_eq!(parse_count("70B")?, 70e9);
        assert_eq!(parse_count("7b")?, 7e9);
        assert_eq!(parse_count("238.3K")?, 238_300.0);
        assert_eq!(parse_count("1.5T")?, 1.5e12);
        assert!(parse_count("7x").is_err());
        assert!(parse_count("-5").is_err());
        assert!(parse_count("B").is_err());
        assert!(parse_count("0").is_err());
        // as the output prints them
        assert_eq!(parse_count("64,000")?, 64_000.0);
        assert_eq!(parse_count("1,234,567.5")?, 1_234_567.5);
        assert_eq!(parse_count("238,300")?, 238_300.0);
        assert_eq!(parse_count("1,500K")?, 1_500_000.0);
        assert!(parse_count("1,5").is_err());
        assert!(parse_count("64,00").is_err());
        assert!(parse_count(",000").is_err());
        assert_eq!(positive_arg("1,978.9"), Ok(1978.9));
        assert_eq!(gpus_arg("16,384"), Ok(16_384));
        assert!(gpus_arg("0").is_err());
        assert!(gpus_arg("1.5").is_err());
        Ok(())
    }

    #[test]
    fn seconds() -> Result<()> {
        assert_eq!(parse_seconds("2.5s")?, 2.5);
        assert_eq!(parse_seconds("1h30m")?, 5400.0);
        assert!(parse_seconds("2.5").is_err(), "a bare number is ambiguous");
        assert!(parse_seconds("0s").is_err());
        assert_eq!(parse_seconds("850ms")?, 0.85);
        assert_eq!(parse_seconds("1m")?, 60.0);
        assert!(parse_seconds("soon").is_err());
        Ok(())
    }
}
