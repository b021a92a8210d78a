//! Why it leaks and what to do (diagnosis-semantics.md §8-§12). Folds over
//! the engine's intervals; nothing here prints.
pub mod findings;
pub mod jobs;

/// The 1-based nearest rank of the `percent` percentile among `n` values
/// sorted ascending: ceil(percent/100 · n), at least 1 (§8). Integer
/// arithmetic, so p95 of 20 values is rank 19 exactly, not a float's guess.
pub fn nearest_rank(n: usize, percent: u32) -> usize {
    (n * percent as usize).div_ceil(100).max(1)
}

/// The `percent` percentile of `values` by nearest rank; None for no values.
/// Sorts `values` in place.
pub fn percentile(values: &mut [f64], percent: u32) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    values.get(nearest_rank(values.len(), percent) - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_is_the_ceiling_of_the_share() {
        assert_eq!(nearest_rank(20, 95), 19);
        assert_eq!(nearest_rank(10, 90), 9);
        assert_eq!(nearest_rank(3, 90), 3);
        assert_eq!(nearest_rank(1, 5), 1);
        assert_eq!(nearest_rank(100, 5), 5);
        let mut v = vec![5.0, 1.0, 4.0, 2.0, 3.0];
        // p90 of 5 values: rank ceil(4.5) = 5
        assert_eq!(percentile(&mut v, 90), Some(5.0));
        assert_eq!(percentile(&mut v, 50), Some(3.0));
        assert_eq!(percentile(&mut [], 50), None);
    }
}
