//! Units decided from the data and said out loud (docs/semantics.md §1):
//! a fraction column that holds percent, memory too small to be bytes, and
//! values that carry their own unit ("45 %", "8192 MiB", "300 W").
use crate::samples::{Kind, Unit, is_missing_marker};
use polars::prelude::*;

/// A number as dumps write it, split from the unit it carries (lower-case,
/// empty when it carries none): `"8192 MiB"` -> `(8192, "mib")`.
pub fn split_number(text: &str) -> Option<(f64, String)> {
    let t = text.trim();
    let end = t
        .find(|c: char| {
            !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')
        })
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(end);
    let value = num.trim().parse::<f64>().ok()?;
    Some((value, unit.trim().to_ascii_lowercase()))
}

/// The factor from a unit a value names itself into the canonical unit of
/// `kind`; `None` when that unit cannot be one of `kind` (a `W` in a
/// utilisation column), which makes the value invalid, never stripped.
pub fn suffix_factor(suffix: &str, kind: Kind) -> Option<f64> {
    const KIB: f64 = 1024.0;
    match (kind, suffix) {
        (Kind::Fraction, "%") => Some(0.01),
        (Kind::Bytes, "b") => Some(1.0),
        (Kind::Bytes, "kb") => Some(1e3),
        (Kind::Bytes, "kib") => Some(KIB),
        (Kind::Bytes, "mb") => Some(1e6),
        (Kind::Bytes, "mib") => Some(KIB * KIB),
        (Kind::Bytes, "gb") => Some(1e9),
        (Kind::Bytes, "gib") => Some(KIB * KIB * KIB),
        (Kind::Bytes, "tb") => Some(1e12),
        (Kind::Bytes, "tib") => Some(KIB.powi(4)),
        (Kind::Watts, "w") => Some(1.0),
        (Kind::Watts, "kw") => Some(1e3),
        _ => None,
    }
}

/// What the values without a unit of their own look like. Mergeable: the
/// stats of a whole input are the merge of its files' (docs/semantics.md §1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    /// every value is a whole number written as one (an integer column, or text
    /// such as "1"): "1" may be 100% or 1%, "1.0" is a fraction's way to write it
    pub integer_written: bool,
    /// values in [PERCENT_EVIDENCE, 100]: only percent writes them
    pub percent_evidence: u64,
    /// the largest value in 0..=100 (what a percent note shows); None: none
    pub max_in_percent_range: Option<f64>,
}

/// The least value that says "percent": a fraction is at most 1, and float
/// noise (`1.0000001` from a pandas or DCGM round trip) or a value a little
/// over 1 from a rounding is no evidence; 2 is twice what a fraction can be.
pub const PERCENT_EVIDENCE: f64 = 2.0;

impl Stats {
    fn of(x: f64, integer: bool) -> Self {
        let in_percent = (0.0..=100.0).contains(&x);
        Stats {
            min: x,
            max: x,
            integer_written: integer,
            percent_evidence: u64::from((PERCENT_EVIDENCE..=100.0).contains(&x)),
            max_in_percent_range: in_percent.then_some(x),
        }
    }

    /// The stats of two parts of one column together.
    pub fn merge(self, o: Stats) -> Stats {
        Stats {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
            integer_written: self.integer_written && o.integer_written,
            percent_evidence: self.percent_evidence + o.percent_evidence,
            max_in_percent_range: match (self.max_in_percent_range, o.max_in_percent_range) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

/// Stats of a raw source column; `None` when it holds no bare number.
pub fn stats(src: &Series) -> Option<Stats> {
    let mut acc: Option<Stats> = None;
    let mut add = |x: f64, integer: bool| {
        if !x.is_finite() {
            return;
        }
        let one = Stats::of(x, integer);
        acc = Some(acc.map_or(one, |s| s.merge(one)));
    };
    match src.dtype() {
        DataType::String => {
            for t in src.str().ok()?.iter().flatten() {
                if is_missing_marker(t) {
                    continue;
                }
                if let Some((x, unit)) = split_number(t)
                    && unit.is_empty()
                {
                    let integer = !t.contains(['.', 'e', 'E']);
                    add(x, integer);
                }
            }
        }
        dt if dt.is_primitive_numeric() => {
            let integer = dt.is_integer();
            let f = src.cast(&DataType::Float64).ok()?;
            for x in f.f64().ok()?.iter().flatten() {
                add(x, integer);
            }
        }
        _ => return None,
    }
    acc
}

/// What the data says about a column whose unit no name and no `--map` states.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Keep,
    /// values above 1 and within 0..100: percent (a note says so, with the max)
    Percent {
        max: f64,
    },
    /// only 0 and 1, written as integers: 100% busy or 1% busy? Refused.
    Ambiguous,
    /// memory whose busiest value is under 1 MiB: a warning names the likely unit
    Implausible {
        max_bytes: f64,
    },
}

/// Decide a unit from the data (the rule is in docs/semantics.md §1 and the
/// README): a fraction column with a value in [2, 100] is percent (values
/// outside 0..100 are each invalid alone, never evidence); one holding only
/// the integers 0 and 1 (at least one 1) cannot tell and is refused; anything
/// else is taken as named. Values in (1, 2) prove nothing: float noise or a
/// rounding above 100% of a fraction, invalid alone.
pub fn decide(kind: Kind, unit: Unit, stats: &Stats) -> Decision {
    if unit != Unit::AsIs {
        return Decision::Keep; // the name or the user stated it
    }
    match kind {
        Kind::Fraction if stats.percent_evidence > 0 => Decision::Percent {
            max: stats.max_in_percent_range.unwrap_or(stats.max),
        },
        Kind::Fraction if stats.integer_written && stats.min >= 0.0 && stats.max == 1.0 => {
            Decision::Ambiguous
        }
        Kind::Bytes if stats.max > 0.0 && stats.max < 1_048_576.0 => Decision::Implausible {
            max_bytes: stats.max,
        },
        _ => Decision::Keep,
    }
}

/// A share given on the command line (`--idle-below`): a fraction `0.01` or
/// a percent `1%`, as `check` takes them. A bare number of 1 or more could be
/// either (`1` meant as 1% would be 100%), so it is refused.
pub fn parse_share(text: &str) -> anyhow::Result<f64> {
    let t = text.trim();
    let (value, percent) = match t.strip_suffix('%') {
        Some(p) => (p.trim().parse::<f64>(), true),
        None => (t.parse::<f64>(), false),
    };
    let Ok(value) = value else {
        anyhow::bail!(
            "'{text}' is not a share (expected a fraction like 0.01 or a percent like 1%)"
        );
    };
    if !percent && value >= 1.0 {
        anyhow::bail!(
            "{text} is ambiguous: {text}% or {}%? Write {text}% for percent, or a fraction below 1 (0.01 = 1%)",
            value * 100.0
        );
    }
    let share = if percent { value / 100.0 } else { value };
    if !(0.0..=1.0).contains(&share) {
        anyhow::bail!("'{text}' is outside 0..1 (or 0%..100%)");
    }
    Ok(share)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(v: &[f64], integer: bool) -> Stats {
        let s = Series::new("x".into(), v);
        let s = if integer {
            s.cast(&DataType::Int64).unwrap_or(s)
        } else {
            s
        };
        stats(&s).unwrap_or(Stats {
            min: f64::NAN,
            max: f64::NAN,
            integer_written: false,
            percent_evidence: 0,
            max_in_percent_range: None,
        })
    }

    #[test]
    fn percent_is_read_from_values_above_one() {
        let d = decide(Kind::Fraction, Unit::AsIs, &st(&[0.0, 7.0, 99.7], false));
        assert_eq!(d, Decision::Percent { max: 99.7 });
        assert_eq!(
            decide(Kind::Fraction, Unit::AsIs, &st(&[0.2, 0.9], false)),
            Decision::Keep
        );
        // one value out of 0..100 is invalid alone: the column stays percent
        assert_eq!(
            decide(Kind::Fraction, Unit::AsIs, &st(&[5.0, 150.0], false)),
            Decision::Percent { max: 5.0 }
        );
        assert_eq!(
            decide(
                Kind::Fraction,
                Unit::AsIs,
                &st(&[50.0, 100.5, 1e308], false)
            ),
            Decision::Percent { max: 50.0 }
        );
        // float noise above 1 (a round trip), or 1e308 alone, is no evidence
        assert_eq!(
            decide(Kind::Fraction, Unit::AsIs, &st(&[0.5, 1.000_000_1], false)),
            Decision::Keep
        );
        assert_eq!(
            decide(Kind::Fraction, Unit::AsIs, &st(&[0.5, 1.9, 1e308], false)),
            Decision::Keep
        );
        // the stats of two files merged decide as the whole would
        let (a, b) = (st(&[0.5, 0.8], false), st(&[0.2, 40.0], false));
        assert_eq!(
            decide(Kind::Fraction, Unit::AsIs, &a.merge(b)),
            Decision::Percent { max: 40.0 }
        );
    }

    #[test]
    fn a_share_takes_check_units_and_refuses_a_bare_one() {
        assert_eq!(parse_share("0.01").ok(), Some(0.01));
        assert_eq!(parse_share("1%").ok(), Some(0.01));
        assert_eq!(parse_share("100%").ok(), Some(1.0));
        let e = |t: &str| {
            parse_share(t)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            e("1"),
            "1 is ambiguous: 1% or 100%? Write 1% for percent, or a fraction below 1 (0.01 = 1%)"
        );
        assert!(e("5").starts_with("5 is ambiguous"), "{}", e("5"));
        assert!(e("150%").contains("outside 0..1"));
        assert!(e("x").contains("not a share"));
    }

    #[test]
    fn integer_zero_one_is_ambiguous_float_is_not() {
        assert_eq!(
            decide(Kind::Fraction, Unit::AsIs, &st(&[0.0, 1.0], true)),
            Decision::Ambiguous
        );
        assert_eq!(
            decide(Kind::Fraction, Unit::AsIs, &st(&[0.0, 1.0], false)),
            Decision::Keep
        );
        assert_eq!(
            decide(Kind::Fraction, Unit::Fraction, &st(&[0.0, 1.0], true)),
            Decision::Keep
        );
    }

    #[test]
    fn values_carry_their_unit() {
        assert_eq!(split_number("8192 MiB"), Some((8192.0, "mib".into())));
        assert_eq!(split_number("45 %"), Some((45.0, "%".into())));
        assert_eq!(suffix_factor("gib", Kind::Bytes), Some(1073741824.0));
        assert_eq!(suffix_factor("w", Kind::Fraction), None);
    }
}
