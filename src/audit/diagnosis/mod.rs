//! Why it leaks and what to do (diagnosis-semantics.md §8-§12). Folds over
//! the engine's intervals; nothing here prints.
//!
//! Glue for issue 16 part B's branch only: part A's mod.rs (timeline, leaks,
//! nodes, purchase) replaces this file; the two percentile helpers below are
//! copied from it verbatim so jobs.rs compiles against either.
pub mod findings;
pub mod jobs;

/// Nearest-rank percentile (§8): of `sorted` (ascending), the value at rank
/// ceil(pct/100 · n), 1-based. None for an empty slice.
pub fn nearest_rank(sorted: &[f64], pct: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    // pct·n first, so 95·20/100 is exactly 19 (0.95·20 is not); the tiny slack
    // keeps a product that lands a rounding above an integer on that integer
    let exact = pct * n as f64 / 100.0;
    let rank = (exact - 1e-9).ceil().clamp(1.0, n as f64) as usize;
    sorted.get(rank - 1).copied()
}

/// Nearest-rank percentiles of unsorted values (NaN-free): sorts a copy.
pub fn percentile_of(values: &[f64], pct: f64) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    nearest_rank(&sorted, pct)
}
