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

/// What the values without a unit of their own look like.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    /// every value is a whole number written as one (an integer column, or text
    /// such as "1"): "1" may be 100% or 1%, "1.0" is a fraction's way to write it
    pub integer_written: bool,
}

/// Stats of a raw source column; `None` when it holds no bare number.
pub fn stats(src: &Series) -> Option<Stats> {
    let mut acc: Option<Stats> = None;
    let mut add = |x: f64, integer: bool| {
        if !x.is_finite() {
            return;
        }
        let s = acc.get_or_insert(Stats {
            min: x,
            max: x,
            integer_written: true,
        });
        s.min = s.min.min(x);
        s.max = s.max.max(x);
        s.integer_written &= integer;
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
/// README): a fraction column with a value above 1 and none outside 0..100 is
/// percent; one holding only the integers 0 and 1 (at least one 1) cannot tell
/// and is refused; anything else is taken as named.
pub fn decide(kind: Kind, unit: Unit, stats: &Stats) -> Decision {
    if unit != Unit::AsIs {
        return Decision::Keep; // the name or the user stated it
    }
    match kind {
        Kind::Fraction if stats.max > 1.0 && stats.max <= 100.0 && stats.min >= 0.0 => {
            Decision::Percent { max: stats.max }
        }
        Kind::Fraction if stats.integer_written && stats.min >= 0.0 && stats.max == 1.0 => {
            Decision::Ambiguous
        }
        Kind::Bytes if stats.max > 0.0 && stats.max < 1_048_576.0 => Decision::Implausible {
            max_bytes: stats.max,
        },
        _ => Decision::Keep,
    }
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
        // out of 0..100: not percent, the values are counted invalid
        assert_eq!(
            decide(Kind::Fraction, Unit::AsIs, &st(&[5.0, 150.0], false)),
            Decision::Keep
        );
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
