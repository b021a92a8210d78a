//! Parsing of times, durations, sizes and fractions given on the command line
//! or found in dumps. All times are UTC milliseconds since the epoch.
use anyhow::{Context, Result, anyhow, bail};
use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// Milliseconds since the Unix epoch, UTC.
pub type EpochUs = i64;

pub const US_PER_HOUR: f64 = 3_600_000.0;

/// A duration such as `30s`, `5m`, `1h30m`, `7d`, `2w` in milliseconds.
pub fn parse_duration_us(text: &str) -> Result<i64> {
    let text = text.trim();
    let dur = humantime::parse_duration(text)
        .with_context(|| format!("'{text}' is not a duration (expected e.g. 30s, 5m, 2h, 7d)"))?;
    i64::try_from(dur.as_millis()).map_err(|_| anyhow!("duration '{text}' is too long"))
}

/// A size such as `1GiB`, `512MiB`, `1G`, `1073741824` in bytes.
pub fn parse_size_bytes(text: &str) -> Result<u64> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .trim()
        .parse()
        .with_context(|| format!("'{text}' is not a size (expected e.g. 1GiB, 512MiB)"))?;
    let factor: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "kib" => 1024.0,
        "m" | "mb" => 1e6,
        "mib" => 1024.0 * 1024.0,
        "g" | "gb" => 1e9,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "t" | "tb" => 1e12,
        "tib" => 1024f64.powi(4),
        other => bail!(
            "'{text}': unknown size unit '{other}' (expected B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)"
        ),
    };
    if !(value.is_finite() && value >= 0.0) {
        bail!("'{text}' is not a size (must be >= 0)");
    }
    Ok((value * factor).round() as u64)
}

/// A fraction `0.01` or a percent `1%`, into 0..1.
pub fn parse_fraction(text: &str) -> Result<f64> {
    let t = text.trim();
    let value = if let Some(p) = t.strip_suffix('%') {
        p.trim().parse::<f64>().map(|v| v / 100.0)
    } else {
        t.parse::<f64>()
    }
    .with_context(|| format!("'{text}' is not a fraction (expected e.g. 0.01 or 1%)"))?;
    if !(0.0..=1.0).contains(&value) {
        bail!("'{text}' is outside 0..1 (or 0%..100%)");
    }
    Ok(value)
}

/// A time given on the command line: RFC 3339, a date, or a span back from
/// `anchor` (the end of the data) such as `7d`.
pub fn parse_cli_time(text: &str, anchor: Option<EpochUs>) -> Result<EpochUs> {
    if let Some(ms) = parse_timestamp_str(text) {
        return Ok(ms);
    }
    if let Ok(span) = parse_duration_us(text) {
        let anchor = anchor.ok_or_else(|| {
            anyhow!("'{text}' is relative but there is no data to count back from")
        })?;
        return Ok(anchor - span);
    }
    bail!(
        "'{text}' is not a time (expected RFC 3339 like 2026-07-01T00:00:00Z, a date like 2026-07-01, or a span back from the end of the data like 7d)"
    )
}

/// Whether a command-line time is relative (needs the end of the data).
pub fn is_relative(text: &str) -> bool {
    parse_timestamp_str(text).is_none() && parse_duration_us(text).is_ok()
}

/// Timestamps as dumps write them: RFC 3339, `YYYY-MM-DD HH:MM:SS[.fff]`,
/// nvidia-smi's `YYYY/MM/DD HH:MM:SS.fff`, a bare date. Naive times are UTC.
pub fn parse_timestamp_str(text: &str) -> Option<EpochUs> {
    parse_timestamp_zoned(text).map(|(ms, _)| ms)
}

/// As [`parse_timestamp_str`], and whether the text carried no UTC offset
/// (taken as UTC; the report says so).
pub fn parse_timestamp_zoned(text: &str) -> Option<(EpochUs, bool)> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if let Some(ms) = parse_with_offset(t) {
        return Some((ms, false));
    }
    // PostgreSQL and DuckDB print whole-hour offsets as `+00`, `-05`
    let b = t.as_bytes();
    if b.len() > 3
        && matches!(b[b.len() - 3], b'+' | b'-')
        && b[b.len() - 2..].iter().all(u8::is_ascii_digit)
        && b[b.len() - 4].is_ascii_digit()
        && let Some(ms) = parse_with_offset(&format!("{t}:00"))
    {
        return Some((ms, false));
    }
    let zulu = t.ends_with('Z') || t.ends_with(" UTC");
    parse_naive(t).map(|ms| (ms, !zulu))
}

fn parse_with_offset(t: &str) -> Option<EpochUs> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Some(dt.timestamp_millis());
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f%:z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%.f %z",
    ] {
        if let Ok(dt) = DateTime::parse_from_str(t, fmt) {
            return Some(dt.timestamp_millis());
        }
    }
    None
}

fn parse_naive(t: &str) -> Option<EpochUs> {
    let naive = t.trim_end_matches(" UTC").trim_end_matches('Z');
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y/%m/%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(ndt) = NaiveDateTime::parse_from_str(naive, fmt) {
            return Some(Utc.from_utc_datetime(&ndt).timestamp_millis());
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return date
            .and_hms_opt(0, 0, 0)
            .map(|ndt| Utc.from_utc_datetime(&ndt).timestamp_millis());
    }
    None
}

/// An epoch number of unknown unit: seconds, milliseconds, microseconds or
/// nanoseconds, told apart by magnitude (valid for 1973..2286).
pub fn epoch_number_to_us(value: f64) -> Option<EpochUs> {
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    let ms = if value < 1e11 {
        value * 1e3
    } else if value < 1e14 {
        value
    } else if value < 1e17 {
        value / 1e3
    } else {
        value / 1e6
    };
    Some(ms.round() as i64)
}

/// RFC 3339 text of a time, for output.
pub fn format_time(ms: EpochUs) -> String {
    match Utc.timestamp_millis_opt(ms).single() {
        Some(dt) => dt.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        None => format!("@{ms}ms"),
    }
}

/// A duration for people: `5m`, `1h`, `1h 30m`.
pub fn format_duration_us(ms: i64) -> String {
    humantime::format_duration(std::time::Duration::from_millis(ms.max(0) as u64)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_timestamp_shapes_dumps_use() {
        let want = Utc
            .with_ymd_and_hms(2026, 7, 14, 8, 12, 53)
            .single()
            .map(|d| d.timestamp_millis() + 353);
        assert_eq!(parse_timestamp_str("2026/07/14 08:12:53.353"), want);
        assert_eq!(parse_timestamp_str("2026-07-14T08:12:53.353Z"), want);
        assert_eq!(parse_timestamp_str("2026-07-14 08:12:53.353"), want);
        assert_eq!(parse_timestamp_str("2026-07-14T10:12:53.353+02:00"), want);
        assert_eq!(parse_timestamp_str("not a time"), None);
        // as PostgreSQL and DuckDB print timestamptz; offsets without a colon; nanoseconds
        assert_eq!(
            parse_timestamp_zoned("2026-07-14 08:12:53.353961+00"),
            want.map(|w| (w, false))
        );
        assert_eq!(parse_timestamp_str("2026-07-14 13:42:53.353+05:30"), want);
        assert_eq!(parse_timestamp_str("2026-07-14T08:12:53.353+0000"), want);
        assert_eq!(parse_timestamp_str("2026-07-14T03:12:53.353-05"), want);
        assert_eq!(parse_timestamp_str("2026-07-14T08:12:53.353000001Z"), want);
        assert_eq!(
            parse_timestamp_zoned("2026-07-14 08:12:53.353"),
            want.map(|w| (w, true))
        );
    }

    #[test]
    fn relative_times_count_back_from_the_anchor() -> Result<()> {
        assert_eq!(
            parse_cli_time("1d", Some(100_000_000))?,
            100_000_000 - 86_400_000
        );
        assert!(parse_cli_time("1d", None).is_err());
        assert!(is_relative("7d"));
        assert!(!is_relative("2026-07-01"));
        Ok(())
    }

    #[test]
    fn sizes_and_fractions() -> Result<()> {
        assert_eq!(parse_size_bytes("1GiB")?, 1 << 30);
        assert_eq!(parse_size_bytes("512 MiB")?, 512 << 20);
        assert!(parse_size_bytes("1 parsec").is_err());
        assert_eq!(parse_fraction("1%")?, 0.01);
        assert_eq!(parse_fraction("0.05")?, 0.05);
        assert!(parse_fraction("150%").is_err());
        Ok(())
    }

    #[test]
    fn epoch_units_by_magnitude() {
        assert_eq!(epoch_number_to_us(1_700_000_000.0), Some(1_700_000_000_000));
        assert_eq!(
            epoch_number_to_us(1_700_000_000_000.0),
            Some(1_700_000_000_000)
        );
        assert_eq!(
            epoch_number_to_us(1_700_000_000_000_000.0),
            Some(1_700_000_000_000)
        );
    }
}
