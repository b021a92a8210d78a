//! The statistics of a numeric metric column that its unit decision and the
//! "never measured" rule need (docs/semantics.md §3), in one pass over its
//! values. A plain loop: as forty polars expressions per file (a cast, two
//! comparisons and a bitmap each) they were a sixth of a parquet report's CPU.
use anyhow::Result;
use polars::prelude::*;
use polars_arrow::array::Array;

/// One column's statistics over a file. NaN is "no value" (never invalid):
/// it is in no count and in no min or max, as polars' own min/max ignore it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColumnStats {
    /// values neither null nor NaN (±inf counted: written, if invalid)
    pub values: u64,
    pub in_fraction: u64,
    pub in_percent: u64,
    pub in_nonneg: u64,
    /// values in [PERCENT_EVIDENCE, 100]
    pub percent_evidence: u64,
    min: f64,
    max: f64,
    max_in_percent: f64,
}

impl Default for ColumnStats {
    fn default() -> Self {
        ColumnStats {
            values: 0,
            in_fraction: 0,
            in_percent: 0,
            in_nonneg: 0,
            percent_evidence: 0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            max_in_percent: f64::NEG_INFINITY,
        }
    }
}

impl ColumnStats {
    #[inline]
    fn add(&mut self, x: f64) {
        // NaN compares false everywhere and f64::min/max skip it
        let between = |lo: f64, hi: f64| u64::from(x >= lo && x <= hi);
        self.values += u64::from(!x.is_nan());
        self.in_fraction += between(0.0, 1.0);
        let in_percent = (0.0..=100.0).contains(&x);
        self.in_percent += u64::from(in_percent);
        self.in_nonneg += between(0.0, f64::MAX);
        self.percent_evidence += between(crate::units::PERCENT_EVIDENCE, 100.0);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
        if in_percent {
            self.max_in_percent = self.max_in_percent.max(x);
        }
    }

    /// The statistics of a slice's column (any numeric type, read as f64).
    pub fn of(src: &Series) -> Result<Self> {
        let f = src.cast(&DataType::Float64)?;
        let mut s = ColumnStats::default();
        for arr in f.f64()?.downcast_iter() {
            if arr.null_count() == 0 {
                s.merge(&Self::of_values(arr.values()));
            } else {
                arr.iter().flatten().for_each(|&x| s.add(x));
            }
        }
        Ok(s)
    }

    /// [`ColumnStats::add`] over values without nulls, in LANES independent
    /// accumulators the compiler keeps in vector registers (compares joined
    /// with `&`, not `&&`, and selects: no branch, which halved its time; NaN compares false, so it is in no count and never
    /// replaces a min or max, as in `add`). Counts are integers and min/max do
    /// not depend on order, so the lanes merge to what `add` gives.
    // indexed lanes: eight arrays advance together (an iterator per array would
    // hide that); `contains` short-circuits, which kept the loop scalar
    fn of_values(v: &[f64]) -> Self {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above
            return unsafe { Self::of_values_avx2(v) };
        }
        Self::of_values_lanes(v)
    }

    /// [`ColumnStats::of_values_lanes`] compiled for AVX2: four f64 lanes a
    /// register instead of the baseline's two (SSE2), about half the
    /// instructions of the unit-evidence pass; the same arithmetic, so the
    /// same statistics.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn of_values_avx2(v: &[f64]) -> Self {
        Self::of_values_lanes(v)
    }

    #[inline(always)]
    #[allow(clippy::needless_range_loop, clippy::manual_range_contains)]
    fn of_values_lanes(v: &[f64]) -> Self {
        const LANES: usize = 8;
        let evidence = crate::units::PERCENT_EVIDENCE;
        let mut values = [0u64; LANES];
        let mut in_fraction = [0u64; LANES];
        let mut in_percent = [0u64; LANES];
        let mut in_nonneg = [0u64; LANES];
        let mut percent_evidence = [0u64; LANES];
        let mut min = [f64::INFINITY; LANES];
        let mut max = [f64::NEG_INFINITY; LANES];
        let mut max_in_percent = [f64::NEG_INFINITY; LANES];
        let chunks = v.chunks_exact(LANES);
        let rest = chunks.remainder();
        for c in chunks {
            for l in 0..LANES {
                let x = c[l];
                let percent = (x >= 0.0) & (x <= 100.0);
                values[l] += u64::from(!x.is_nan());
                in_fraction[l] += u64::from((x >= 0.0) & (x <= 1.0));
                in_percent[l] += u64::from(percent);
                in_nonneg[l] += u64::from((x >= 0.0) & (x <= f64::MAX));
                percent_evidence[l] += u64::from((x >= evidence) & (x <= 100.0));
                min[l] = if x < min[l] { x } else { min[l] };
                max[l] = if x > max[l] { x } else { max[l] };
                let p = if percent { x } else { f64::NEG_INFINITY };
                max_in_percent[l] = if p > max_in_percent[l] {
                    p
                } else {
                    max_in_percent[l]
                };
            }
        }
        let mut s = ColumnStats::default();
        for l in 0..LANES {
            s.merge(&ColumnStats {
                values: values[l],
                in_fraction: in_fraction[l],
                in_percent: in_percent[l],
                in_nonneg: in_nonneg[l],
                percent_evidence: percent_evidence[l],
                min: min[l],
                max: max[l],
                max_in_percent: max_in_percent[l],
            });
        }
        rest.iter().for_each(|&x| s.add(x));
        s
    }

    pub fn merge(&mut self, o: &ColumnStats) {
        self.values += o.values;
        self.in_fraction += o.in_fraction;
        self.in_percent += o.in_percent;
        self.in_nonneg += o.in_nonneg;
        self.percent_evidence += o.percent_evidence;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.max_in_percent = self.max_in_percent.max(o.max_in_percent);
    }

    /// The least and the greatest value; None when there is none.
    pub fn min_max(&self) -> Option<(f64, f64)> {
        (self.values > 0).then_some((self.min, self.max))
    }

    /// The largest value in 0..=100; None when there is none.
    pub fn max_in_percent(&self) -> Option<f64> {
        (self.in_percent > 0).then_some(self.max_in_percent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// counts (values, in_fraction, in_percent, in_nonneg, percent_evidence), min, max, max in 0..=100
    type Reference = (Vec<u64>, Option<f64>, Option<f64>, Option<f64>);

    /// What the polars expressions this replaces computed, the reference.
    fn by_polars(values: &[Option<f64>]) -> Result<Reference> {
        let df = df!("x" => values)?;
        let c = || col("x");
        let between = |lo: f64, hi: f64| c().gt_eq(lit(lo)).and(c().lt_eq(lit(hi)));
        let count = |e: Expr| e.cast(DataType::Float64).sum();
        let out = df
            .lazy()
            .select([
                count(c().is_not_nan()).alias("n"),
                count(between(0.0, 1.0)).alias("f"),
                count(between(0.0, 100.0)).alias("p"),
                count(between(0.0, f64::MAX)).alias("nn"),
                count(between(crate::units::PERCENT_EVIDENCE, 100.0)).alias("e"),
                c().min().alias("min"),
                c().max().alias("max"),
                c().filter(between(0.0, 100.0)).max().alias("mp"),
            ])
            .collect()?;
        let get = |name: &str| -> Result<Option<f64>> { Ok(out.column(name)?.f64()?.get(0)) };
        let counts = ["n", "f", "p", "nn", "e"]
            .iter()
            .map(|n| get(n).map(|v| v.unwrap_or(0.0) as u64))
            .collect::<Result<Vec<_>>>()?;
        Ok((counts, get("min")?, get("max")?, get("mp")?))
    }

    #[test]
    fn the_loop_counts_as_the_polars_expressions_did() -> Result<()> {
        let cases: Vec<Vec<Option<f64>>> = vec![
            vec![Some(0.5), Some(0.0), Some(1.0), None, Some(-0.0)],
            vec![Some(45.0), Some(2.0), Some(100.0), Some(100.5), Some(-3.0)],
            vec![Some(f64::NAN), Some(0.25), None, Some(f64::INFINITY)],
            vec![Some(f64::NEG_INFINITY), Some(1e300), Some(1.5)],
            vec![Some(f64::NAN), None],
            vec![None, None],
        ];
        for case in cases {
            let (counts, min, max, max_in_percent) = by_polars(&case)?;
            let s = ColumnStats::of(&Series::new("x".into(), &case))?;
            let ours = vec![
                s.values,
                s.in_fraction,
                s.in_percent,
                s.in_nonneg,
                s.percent_evidence,
            ];
            assert_eq!(ours, counts, "{case:?}");
            // polars gives NaN for a column of NaN alone, we give None: both are "no evidence"
            let finite = |v: Option<f64>| v.filter(|x| !x.is_nan());
            assert_eq!(s.min_max().map(|m| m.0), finite(min), "{case:?}");
            assert_eq!(s.min_max().map(|m| m.1), finite(max), "{case:?}");
            assert_eq!(s.max_in_percent(), max_in_percent, "{case:?}");
        }
        Ok(())
    }

    #[test]
    fn the_lanes_count_as_the_one_value_loop() {
        let pool = [
            0.5,
            0.0,
            -0.0,
            1.0,
            1.0000001,
            45.0,
            100.0,
            100.5,
            -3.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            crate::units::PERCENT_EVIDENCE,
        ];
        // lengths below, at and past the lanes, each value in every lane
        for len in [0usize, 1, 7, 8, 9, 16, 31, 64, 200] {
            for shift in 0..pool.len() {
                let v: Vec<f64> = (0..len)
                    .map(|i| pool[(i * 5 + shift) % pool.len()])
                    .collect();
                let mut one = ColumnStats::default();
                v.iter().for_each(|&x| one.add(x));
                let lanes = ColumnStats::of_values(&v);
                // the baseline build of the loop answers as the dispatched one (AVX2 here)
                assert_eq!(ColumnStats::of_values_lanes(&v), lanes, "{v:?}");
                let counts = |s: &ColumnStats| {
                    [
                        s.values,
                        s.in_fraction,
                        s.in_percent,
                        s.in_nonneg,
                        s.percent_evidence,
                    ]
                };
                assert_eq!(counts(&lanes), counts(&one), "{v:?}");
                assert_eq!(lanes.min_max(), one.min_max(), "{v:?}");
                assert_eq!(lanes.max_in_percent(), one.max_in_percent(), "{v:?}");
            }
        }
    }

    #[test]
    fn merged_slices_are_the_whole_column() -> Result<()> {
        let all = [
            Some(0.5),
            None,
            Some(42.0),
            Some(f64::NAN),
            Some(-1.0),
            Some(3.0),
        ];
        let whole = ColumnStats::of(&Series::new("x".into(), &all))?;
        let mut parts = ColumnStats::of(&Series::new("x".into(), &all[..2]))?;
        parts.merge(&ColumnStats::of(&Series::new("x".into(), &all[2..]))?);
        assert_eq!(parts, whole);
        assert_eq!(whole.values, 4);
        assert_eq!(whole.min_max(), Some((-1.0, 42.0)));
        assert_eq!(whole.percent_evidence, 2);
        Ok(())
    }
}
