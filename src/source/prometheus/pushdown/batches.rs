//! The window cut into PromQL requests: each request sums the evaluation
//! points (multiples of --step) of whole epoch-aligned buckets, or of a part
//! of one bucket, so every answer falls in exactly one bucket. Whole buckets
//! side by side go in one range query (one point per bucket); the rest are
//! instant queries.
use super::super::http::Client;
use super::super::live::{MAX_POINTS_PER_SERIES, promql_millis};
use anyhow::Result;
use std::collections::BTreeMap;

/// A bucket's points are summed at 1 ms before its end: (end - 1 ms - range, end - 1 ms]
/// holds exactly the step multiples in [start, end).
const EVAL_BEFORE_END: i64 = 1_000;

/// One request: evaluation times `first_eval..=last_eval` every `every` µs,
/// each summing the points in the `range` µs before it (`(t - range, t]`),
/// each point counted `weight` times (1; less for a last point cut by --until).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Batch {
    pub first_eval: i64,
    pub last_eval: i64,
    pub every: i64,
    pub range: i64,
    pub weight: f64,
}

impl Batch {
    /// The points in [start, end), evaluated once at end - 1 ms (PromQL's
    /// finest time: steps are whole milliseconds).
    fn one(start: i64, end: i64, weight: f64) -> Self {
        Batch {
            first_eval: end - EVAL_BEFORE_END,
            last_eval: end - EVAL_BEFORE_END,
            every: end - start,
            range: end - start,
            weight,
        }
    }

    fn evaluations(&self) -> i64 {
        (self.last_eval - self.first_eval) / self.every.max(1) + 1
    }
}

/// The requests covering the points at multiples of `step` in [since, until)
/// (`since` a multiple of `step`), cut at multiples of `bucket`, each over at
/// most `max_steps` points per GPU. The last point weighs what is left of its
/// step before `until`, as pulled mode caps the last sample's weight there.
pub(super) fn batches(
    since: i64,
    until: i64,
    step: i64,
    bucket: i64,
    max_steps: i64,
) -> Vec<Batch> {
    let mut out: Vec<Batch> = Vec::new();
    if until <= since || step <= 0 || bucket <= 0 {
        return out;
    }
    let last = since + (until - 1 - since).div_euclid(step) * step;
    let partial = until - last < step;
    let full_end = if partial { last } else { until };
    let max_len = max_steps.max(1) * step;
    let mut k = since.div_euclid(bucket);
    while k * bucket < full_end {
        let (start, end) = ((k * bucket).max(since), ((k + 1) * bucket).min(full_end));
        if end - start == bucket && bucket <= max_len {
            let joins = out.last_mut().filter(|b| {
                b.range == bucket
                    && b.weight == 1.0
                    && b.last_eval + bucket == end - EVAL_BEFORE_END
                    && (b.evaluations() + 1) * bucket <= max_len
                    && b.evaluations() < MAX_POINTS_PER_SERIES
            });
            match joins {
                Some(b) => b.last_eval = end - EVAL_BEFORE_END,
                None => out.push(Batch::one(start, end, 1.0)),
            }
        } else {
            let mut s = start;
            while s < end {
                let e = (s + max_len).min(end);
                out.push(Batch::one(s, e, 1.0));
                s = e;
            }
        }
        k += 1;
    }
    if partial {
        out.push(Batch::one(last, until, (until - last) as f64 / step as f64));
    }
    out
}

/// Run `inner` (a per-GPU, per-point PromQL expression) over every batch,
/// summed by the `outer` labels: `add(evaluation time, labels, weighted sum)`.
pub(super) fn run(
    client: &mut Client,
    inner: &str,
    outer: &str,
    step: i64,
    batches: &[Batch],
    mut add: impl FnMut(i64, &BTreeMap<String, String>, f64),
) -> Result<()> {
    for b in batches {
        let query = format!(
            "sum by ({outer}) (sum_over_time(({inner})[{}ms:{}ms]))",
            promql_millis(b.range),
            promql_millis(step)
        );
        let response = if b.first_eval == b.last_eval {
            client.query(&query, b.first_eval)?
        } else {
            client.query_range(&query, b.first_eval, b.last_eval, b.every)?
        };
        for s in &response.series {
            for &(t, v) in &s.points {
                if v.is_finite() {
                    add(t, &s.labels, v * b.weight);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: i64 = 60_000_000;

    /// The points (as multiples of `step`) each batch covers, with its weight.
    fn covered(b: &[Batch], step: i64) -> Vec<(i64, f64)> {
        let mut v = Vec::new();
        for x in b {
            let mut t = x.first_eval;
            while t <= x.last_eval {
                // (t - range, t]: the multiples of step in it
                let mut p = (t - x.range).div_euclid(step) * step + step;
                while p <= t {
                    v.push((p, x.weight));
                    p += step;
                }
                t += x.every;
            }
        }
        v
    }

    #[test]
    fn whole_buckets_share_a_range_query_and_edges_are_instant() {
        // window [5m, 65m30s), 1m step, 15m buckets: 5..15 partial, 15..30,
        // 30..45, 45..60 whole, 60..65 partial, the point at 65m weighs 0.5
        let b = batches(5 * M, 65 * M + 30_000_000, M, 15 * M, 1_000);
        assert_eq!(
            b,
            vec![
                Batch::one(5 * M, 15 * M, 1.0),
                Batch {
                    first_eval: 30 * M - EVAL_BEFORE_END,
                    last_eval: 60 * M - EVAL_BEFORE_END,
                    every: 15 * M,
                    range: 15 * M,
                    weight: 1.0
                },
                Batch::one(60 * M, 65 * M, 1.0),
                Batch::one(65 * M, 65 * M + 30_000_000, 0.5),
            ]
        );
        // every point once: 5m..=65m
        let pts = covered(&b, M);
        assert_eq!(pts.len(), 61);
        assert_eq!(pts.first(), Some(&(5 * M, 1.0)));
        assert_eq!(pts.last(), Some(&(65 * M, 0.5)));
        for w in pts.windows(2) {
            assert_eq!(w[1].0 - w[0].0, M);
        }
    }

    #[test]
    fn a_bucket_too_large_for_one_query_is_split() {
        // 1h bucket, at most 25 points per query: 25 + 25 + 10 in one bucket
        let b = batches(0, 60 * M, M, 60 * M, 25);
        assert_eq!(
            b,
            vec![
                Batch::one(0, 25 * M, 1.0),
                Batch::one(25 * M, 50 * M, 1.0),
                Batch::one(50 * M, 60 * M, 1.0),
            ]
        );
        assert_eq!(covered(&b, M).len(), 60);
        // range queries stop growing at max_steps: 3 buckets of 10 per query
        let r = batches(0, 70 * M, M, 10 * M, 30);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].evaluations(), 3);
        assert_eq!(r[2].evaluations(), 1);
        assert_eq!(covered(&r, M).len(), 70);
    }

    #[test]
    fn a_single_point_window_and_an_empty_one() {
        let b = batches(0, 30_000_000, M, 15 * M, 100);
        assert_eq!(b, vec![Batch::one(0, 30_000_000, 0.5)]);
        assert!(batches(M, M, M, 15 * M, 100).is_empty());
    }
}
