//! Parsing of times, durations, sizes and fractions given on the command line
//! or found in dumps. All times are UTC microseconds since the epoch (the
//! canonical time column's unit and the engine's tick); finer input is
//! truncated to the microsecond.
use anyhow::{Context, Result, anyhow, bail};
use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// Microseconds since the Unix epoch, UTC.
pub type EpochUs = i64;

pub const US_PER_SECOND: i64 = 1_000_000;
pub const US_PER_MINUTE: i64 = 60 * US_PER_SECOND;
pub const US_PER_DAY: i64 = 86_400 * US_PER_SECOND;
/// A float: hours are computed as ticks / US_PER_HOUR.
pub const US_PER_HOUR: f64 = 3_600_000_000.0;

/// A duration such as `30s`, `2.5s`, `850ms`, `5m`, `1h30m`, `7d`, `2w`,
/// `250us` in microseconds: the one grammar of every duration flag (and of
/// a span back in a time). A bare number is refused: `--max-gap 5` could mean
/// seconds or minutes, so the unit is asked for, never guessed.
pub fn parse_duration_us(text: &str) -> Result<i64> {
    let dur = parse_duration(text)?;
    i64::try_from(dur.as_micros()).map_err(|_| anyhow!("duration '{}' is too long", text.trim()))
}

/// [`parse_duration_us`] to the nanosecond (a step time of 17.6013428 s).
pub fn parse_duration(text: &str) -> Result<std::time::Duration> {
    let text = text.trim();
    if text.parse::<f64>().is_ok() && text.contains(|c: char| c.is_ascii_digit()) {
        bail!("'{text}' needs a unit, a bare number is ambiguous (e.g. {text}s, {text}m, {text}h)");
    }
    humantime::parse_duration(text).with_context(|| {
        format!("'{text}' is not a duration (expected e.g. 850ms, 2.5s, 5m, 1h30m, 7d)")
    })
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
#[cfg_attr(not(feature = "fuzzing"), allow(dead_code))] // fuzzed (feature fuzzing) and tested
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
    if let Some(us) = parse_timestamp_str(text) {
        return Ok(us);
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

/// A `--since`/`--until` as given, typed at the door: a time, the clock's
/// `now` (live sources), or a span back from an anchor that is known only
/// once the data is (its end) or the clock is read (a live source).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeSpec {
    At(EpochUs),
    Now,
    /// microseconds back from the anchor
    Back(i64),
}

impl TimeSpec {
    pub fn parse(text: &str) -> Result<TimeSpec> {
        if text.trim().eq_ignore_ascii_case("now") {
            return Ok(TimeSpec::Now);
        }
        if let Some(us) = parse_timestamp_str(text) {
            return Ok(TimeSpec::At(us));
        }
        if let Ok(span) = parse_duration_us(text) {
            return Ok(TimeSpec::Back(span));
        }
        bail!(
            "'{text}' is not a time (expected RFC 3339 like 2026-07-01T00:00:00Z, a date like 2026-07-01, or a span back from the end of the data like 7d)"
        )
    }

    /// Whether resolving it needs the anchor.
    pub fn is_relative(self) -> bool {
        matches!(self, TimeSpec::Back(_))
    }

    /// The time against the end of the data (`anchor`): `now` has no
    /// meaning there, and a span needs data to count back from.
    pub fn against_data(self, anchor: Option<EpochUs>) -> Result<EpochUs> {
        match self {
            TimeSpec::At(us) => Ok(us),
            TimeSpec::Now => {
                bail!("'now' counts from the clock: only a live source reads up to now")
            }
            TimeSpec::Back(span) => anchor.map(|a| a - span).ok_or_else(|| {
                anyhow!("a span is relative but there is no data to count back from")
            }),
        }
    }

    /// The time against the clock (a live source: spans count back from now).
    pub fn against_clock(self, now: EpochUs) -> EpochUs {
        match self {
            TimeSpec::At(us) => us,
            TimeSpec::Now => now,
            TimeSpec::Back(span) => now - span,
        }
    }
}

/// Whether a command-line time is relative (needs the end of the data).
#[cfg(any(test, feature = "fuzzing"))]
pub fn is_relative(text: &str) -> bool {
    parse_timestamp_str(text).is_none() && parse_duration_us(text).is_ok()
}

/// Timestamps as dumps write them: RFC 3339, `YYYY-MM-DD HH:MM:SS[.fff]`,
/// nvidia-smi's `YYYY/MM/DD HH:MM:SS.fff`, a bare date. Naive times are UTC.
pub fn parse_timestamp_str(text: &str) -> Option<EpochUs> {
    parse_timestamp_zoned(text).map(|(us, _)| us)
}

/// As [`parse_timestamp_str`], and whether the text carried no UTC offset
/// (taken as UTC; the report says so).
pub fn parse_timestamp_zoned(text: &str) -> Option<(EpochUs, bool)> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if let Some(us) = parse_with_offset(t) {
        return Some((us, false));
    }
    // PostgreSQL and DuckDB print whole-hour offsets as `+00`, `-05`
    let b = t.as_bytes();
    if b.len() > 3
        && matches!(b[b.len() - 3], b'+' | b'-')
        && b[b.len() - 2..].iter().all(u8::is_ascii_digit)
        && b[b.len() - 4].is_ascii_digit()
        && let Some(us) = parse_with_offset(&format!("{t}:00"))
    {
        return Some((us, false));
    }
    let zulu = t.ends_with('Z') || t.ends_with(" UTC");
    if let Some(us) = parse_naive(t) {
        return Some((us, !zulu));
    }
    // A zone abbreviation (`2017-10-03 01:04:00 PDT`), one of the common ones.
    match zone_abbreviation(t)? {
        Zone::Known { text, offset_s, .. } => {
            parse_naive(text).map(|us| (us - i64::from(offset_s) * US_PER_SECOND, false))
        }
        Zone::Ambiguous { .. } => None,
    }
}

/// A time zone abbreviation at the end of a timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone<'a> {
    /// one of the common zones: the time before it, its name, its UTC offset
    Known {
        text: &'a str,
        name: &'static str,
        offset_s: i32,
    },
    /// an abbreviation two zones share: refused, naming it
    Ambiguous {
        name: &'a str,
        meanings: &'static str,
    },
}

/// The common zones' abbreviations and offsets from UTC (seconds). CST is
/// US Central (not China), IST India (not Ireland or Israel): the zones
/// cluster traces come from (docs/semantics.md §1).
const ZONES: &[(&str, i32)] = &[
    ("UTC", 0),
    ("GMT", 0),
    ("PST", -8 * 3600),
    ("PDT", -7 * 3600),
    ("MST", -7 * 3600),
    ("MDT", -6 * 3600),
    ("CST", -6 * 3600),
    ("CDT", -5 * 3600),
    ("EST", -5 * 3600),
    ("EDT", -4 * 3600),
    ("CET", 3600),
    ("CEST", 2 * 3600),
    ("JST", 9 * 3600),
    ("IST", 5 * 3600 + 1800),
];

/// Abbreviations that name several zones: refused rather than guessed.
const AMBIGUOUS_ZONES: &[(&str, &str)] = &[
    ("BST", "British Summer Time or Bangladesh"),
    ("AST", "Atlantic or Arabia"),
    ("ADT", "Atlantic or Arabia daylight"),
    ("SST", "Samoa or Singapore"),
    ("GST", "Gulf or South Georgia"),
    ("ECT", "Ecuador or Eastern Caribbean"),
    ("CCT", "China Coast or Cocos Islands"),
    ("WST", "Western Standard (Australia) or West Samoa"),
];

/// The zone abbreviation a timestamp ends with (` PDT`), if it is one of the
/// common zones or a known ambiguous one; None for anything else.
pub fn zone_abbreviation(text: &str) -> Option<Zone<'_>> {
    let (time, abbr) = text.trim().rsplit_once(' ')?;
    if let Some((name, offset_s)) = ZONES.iter().find(|(n, _)| *n == abbr) {
        return Some(Zone::Known {
            text: time.trim_end(),
            name,
            offset_s: *offset_s,
        });
    }
    AMBIGUOUS_ZONES
        .iter()
        .find(|(n, _)| *n == abbr)
        .map(|(_, meanings)| Zone::Ambiguous {
            name: abbr,
            meanings,
        })
}

fn parse_with_offset(t: &str) -> Option<EpochUs> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Some(dt.timestamp_micros());
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f%:z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%.f %z",
    ] {
        if let Ok(dt) = DateTime::parse_from_str(t, fmt) {
            return Some(dt.timestamp_micros());
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
            return Some(Utc.from_utc_datetime(&ndt).timestamp_micros());
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return date
            .and_hms_opt(0, 0, 0)
            .map(|ndt| Utc.from_utc_datetime(&ndt).timestamp_micros());
    }
    None
}

/// An epoch number of unknown unit: seconds, milliseconds, microseconds or
/// nanoseconds, told apart by magnitude (valid for 1973..2286). A float is
/// rounded to the nearest microsecond (what a float of that size can hold).
pub fn epoch_number_to_us(value: f64) -> Option<EpochUs> {
    if !value.is_finite() || value < 0.0 {
        return None;
    }
    let us = if value < 1e11 {
        value * 1e6
    } else if value < 1e14 {
        value * 1e3
    } else if value < 1e17 {
        value
    } else {
        value / 1e3
    };
    Some(us.round() as i64)
}

/// As [`epoch_number_to_us`], exactly, for an integer: nanoseconds are
/// truncated to the microsecond (floor), like nanosecond text.
pub fn epoch_integer_to_us(value: i64) -> Option<EpochUs> {
    if value < 0 {
        return None;
    }
    if value < 100_000_000_000 {
        value.checked_mul(US_PER_SECOND)
    } else if value < 100_000_000_000_000 {
        value.checked_mul(1_000)
    } else if value < 100_000_000_000_000_000 {
        Some(value)
    } else {
        Some(value.div_euclid(1_000))
    }
}

/// RFC 3339 text of a time, for output: no fraction for whole seconds, else
/// 3 or 6 digits (as many as the microseconds need).
pub fn format_time(us: EpochUs) -> String {
    match DateTime::<Utc>::from_timestamp_micros(us) {
        Some(dt) => dt.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        None => format!("@{us}us"),
    }
}

/// A tick (µs) as a report time. Normalised times lie in the years 1..9999;
/// anything beyond chrono's range clamps to it rather than fail.
pub fn to_datetime(us: EpochUs) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp_micros(us).unwrap_or(if us < 0 {
        DateTime::<Utc>::MIN_UTC
    } else {
        DateTime::<Utc>::MAX_UTC
    })
}

/// RFC 3339 text of a report time, as `gpuaudit.report/1` has always written
/// it: UTC with `Z`, no fraction for whole seconds, else 3, 6 or 9 digits.
pub fn rfc3339(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}

/// A report time from RFC 3339 text, for tests.
#[cfg(test)]
pub fn utc(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .expect("an RFC 3339 test time")
}

/// Serde for report times: written by [`rfc3339`], read from any RFC 3339
/// text (any offset, taken to UTC), so baselines written before the model
/// held `DateTime` parse unchanged. Use with `#[serde(with = "...")]`.
pub mod rfc3339_serde {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&super::rfc3339(t))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        DateTime::parse_from_rfc3339(&text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|_| {
                D::Error::custom(format!(
                    "'{text}' is not an RFC 3339 time (expected e.g. 2026-07-01T00:00:00Z)"
                ))
            })
    }
}

/// A duration for people: `5m`, `1h`, `1h 30m`.
pub fn format_duration_us(us: i64) -> String {
    humantime::format_duration(std::time::Duration::from_micros(us.max(0) as u64)).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_spec_resolves_against_the_data_or_the_clock() -> Result<()> {
        let end = 10 * US_PER_DAY;
        let back = TimeSpec::parse("1h30m")?;
        assert_eq!(back, TimeSpec::Back(90 * US_PER_MINUTE));
        assert_eq!(back.against_data(Some(end))?, end - 90 * US_PER_MINUTE);
        assert!(back.against_data(None).is_err());
        assert_eq!(back.against_clock(end), end - 90 * US_PER_MINUTE);
        let at = TimeSpec::parse("1970-01-02")?;
        assert_eq!(at, TimeSpec::At(US_PER_DAY));
        assert_eq!(at.against_data(None)?, US_PER_DAY);
        assert_eq!(TimeSpec::parse("NOW")?.against_clock(end), end);
        assert!(TimeSpec::Now.against_data(Some(end)).is_err());
        assert!(TimeSpec::parse("2.5").is_err());
        Ok(())
    }

    #[test]
    fn parses_the_timestamp_shapes_dumps_use() {
        let want = Utc
            .with_ymd_and_hms(2026, 7, 14, 8, 12, 53)
            .single()
            .map(|d| d.timestamp_micros() + 353_000);
        assert_eq!(parse_timestamp_str("2026/07/14 08:12:53.353"), want);
        assert_eq!(parse_timestamp_str("2026-07-14T08:12:53.353Z"), want);
        assert_eq!(parse_timestamp_str("2026-07-14 08:12:53.353"), want);
        assert_eq!(parse_timestamp_str("2026-07-14T10:12:53.353+02:00"), want);
        assert_eq!(parse_timestamp_str("not a time"), None);
        // as PostgreSQL and DuckDB print timestamptz (all 6 digits kept);
        // offsets without a colon; nanoseconds (truncated to the microsecond)
        assert_eq!(
            parse_timestamp_zoned("2026-07-14 08:12:53.353961+00"),
            want.map(|w| (w + 961, false))
        );
        assert_eq!(
            parse_timestamp_str("2026-07-14T08:12:53.353961999Z"),
            want.map(|w| w + 961)
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
            parse_cli_time("1d", Some(100_000_000_000))?,
            100_000_000_000 - 86_400_000_000
        );
        assert_eq!(parse_duration_us("250us")?, 250);
        assert_eq!(parse_duration_us("1.5ms")?, 1_500);
        assert_eq!(format_duration_us(90 * US_PER_MINUTE), "1h 30m");
        assert!(parse_cli_time("1d", None).is_err());
        assert!(is_relative("7d"));
        assert!(!is_relative("2026-07-01"));
        Ok(())
    }

    #[test]
    fn zone_abbreviations_of_the_common_zones() {
        // 01:04 PDT is 08:04 UTC
        assert_eq!(
            parse_timestamp_zoned("2017-10-03 01:04:00 PDT"),
            parse_timestamp_zoned("2017-10-03T08:04:00Z")
        );
        assert_eq!(
            parse_timestamp_str("2017-10-03 01:04:00 IST"),
            parse_timestamp_str("2017-10-02T19:34:00Z")
        );
        assert_eq!(
            parse_timestamp_zoned("2017-10-03 01:04:00 GMT"),
            parse_timestamp_zoned("2017-10-03T01:04:00Z")
        );
        assert_eq!(parse_timestamp_str("2017-10-03 01:04:00 BST"), None);
        assert!(matches!(
            zone_abbreviation("2017-10-03 01:04:00 BST"),
            Some(Zone::Ambiguous { name: "BST", .. })
        ));
        assert_eq!(zone_abbreviation("2017-10-03 01:04:00"), None);
        assert_eq!(parse_timestamp_str("2017-10-03 01:04:00 XYZ"), None);
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
        const US: i64 = 1_700_000_000_000_000;
        assert_eq!(epoch_number_to_us(1_700_000_000.0), Some(US));
        assert_eq!(epoch_number_to_us(1_700_000_000_000.0), Some(US));
        assert_eq!(epoch_number_to_us(1_700_000_000_000_000.0), Some(US));
        assert_eq!(epoch_number_to_us(1_700_000_000_000_000_000.0), Some(US));
        // a float's fraction is kept to the microsecond
        assert_eq!(epoch_number_to_us(1_700_000_000.000_25), Some(US + 250));
        assert_eq!(epoch_number_to_us(1_700_000_000_001.5), Some(US + 1_500));
        // integers convert exactly; nanoseconds truncate
        assert_eq!(epoch_integer_to_us(1_700_000_000), Some(US));
        assert_eq!(epoch_integer_to_us(1_700_000_000_001), Some(US + 1_000));
        assert_eq!(epoch_integer_to_us(1_700_000_000_000_250), Some(US + 250));
        assert_eq!(
            epoch_integer_to_us(1_700_000_000_000_250_999),
            Some(US + 250)
        );
        assert_eq!(epoch_integer_to_us(-1), None);
    }

    #[test]
    fn output_times_show_the_fraction_only_when_present() {
        const T: i64 = 1_780_000_000_000_000;
        assert_eq!(format_time(T), "2026-05-28T20:26:40Z");
        assert_eq!(format_time(T + 500_000), "2026-05-28T20:26:40.500Z");
        assert_eq!(format_time(T + 1_500), "2026-05-28T20:26:40.001500Z");
        assert_eq!(format_time(T + 250), "2026-05-28T20:26:40.000250Z");
    }
}
