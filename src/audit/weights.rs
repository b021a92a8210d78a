//! How much time each sample stands for (docs/semantics.md §2).

/// The weight rule's settings (a part of `AuditConfig`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WeightSettings {
    /// `--max-gap`: a longer gap is unobserved (None: 3 x the GPU's median step)
    pub max_gap_us: Option<i64>,
    /// `--interval`: what a single-sample GPU's sample stands for (None: 1 h)
    pub interval_us: Option<i64>,
}

/// Weights of one GPU's samples (sorted by time, duplicates already removed).
#[cfg_attr(not(feature = "fuzzing"), allow(dead_code))] // fuzzed (feature fuzzing) and tested
#[derive(Debug, Clone, PartialEq)]
pub struct GpuWeights {
    /// per sample, in ticks (µs)
    pub weight_us: Vec<i64>,
    /// per sample: the gap to the next sample exceeded max_gap (an episode breaks there)
    pub gap_after: Vec<bool>,
    /// time not covered by any sample, in ticks (gaps beyond max_gap)
    pub unobserved_us: i64,
    /// median positive step; None for a single-sample GPU (a snapshot)
    pub step_us: Option<i64>,
    pub max_gap_us: Option<i64>,
}

/// The one median rule (docs/semantics.md §2, docs/semantics.md): the middle
/// value for an odd count, the mean of the two middle values (rounded toward
/// zero) for an even count; None for no values. `nth(k)` is the k-th smallest
/// of the `count` values, so a sorted slice and a histogram share the rule.
pub fn median_by_rank(count: u64, nth: impl Fn(u64) -> i64) -> Option<i64> {
    if count == 0 {
        return None;
    }
    Some(if count % 2 == 1 {
        nth(count / 2)
    } else {
        (nth(count / 2 - 1) + nth(count / 2)) / 2
    })
}

/// Median of values already sorted ascending.
pub fn median_of_sorted(sorted: &[i64]) -> Option<i64> {
    median_by_rank(sorted.len() as u64, |k| {
        sorted.get(k as usize).copied().unwrap_or_default()
    })
}

/// Median of the positive consecutive differences of sorted times.
pub fn median_step(times: &[i64]) -> Option<i64> {
    let mut diffs: Vec<i64> = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|d| *d > 0)
        .collect();
    diffs.sort_unstable();
    median_of_sorted(&diffs)
}

/// The one weight rule (§2), shared by the streaming engine and `weights`.
/// A sample followed `gap` ticks later by the next weighs min(gap, max_gap); the
/// part of the gap beyond max_gap is unobserved. Returns (weight, unobserved).
pub fn weigh_gap(gap: i64, max_gap: i64) -> (i64, i64) {
    (gap.min(max_gap), (gap - max_gap).max(0))
}

/// A GPU's last sample weighs one step (at most max_gap); a GPU with no step
/// (a single sample) weighs `snapshot_us`.
pub fn weigh_last(step: Option<i64>, max_gap: Option<i64>, snapshot_us: i64) -> i64 {
    match (step, max_gap) {
        (Some(step), Some(max_gap)) => step.min(max_gap),
        (Some(step), None) => step,
        _ => snapshot_us,
    }
}

/// No sample stands for time at or after `--until`.
pub fn cap_until(t: i64, w: i64, until: Option<i64>) -> i64 {
    match until {
        Some(u) => w.min(u - t).max(0),
        None => w,
    }
}

/// weight = min(next - t, max_gap, until - t); the last sample min(step, max_gap, until - t);
/// a single sample weighs `snapshot_us` (capped by until - t).
#[cfg_attr(not(feature = "fuzzing"), allow(dead_code))] // fuzzed (feature fuzzing) and tested
pub fn weights(
    times: &[i64],
    max_gap_opt: Option<i64>,
    until: Option<i64>,
    snapshot_us: i64,
) -> GpuWeights {
    let n = times.len();
    let Some(step) = median_step(times) else {
        let weight_us = times
            .iter()
            .map(|t| cap_until(*t, snapshot_us, until))
            .collect();
        return GpuWeights {
            weight_us,
            gap_after: vec![false; n],
            unobserved_us: 0,
            step_us: None,
            max_gap_us: max_gap_opt,
        };
    };
    let max_gap = max_gap_opt.unwrap_or(3 * step);
    let mut weight_us = Vec::with_capacity(n);
    let mut gap_after = Vec::with_capacity(n);
    let mut unobserved_us = 0;
    for i in 0..n {
        let t = times[i];
        let w = if i + 1 < n {
            let gap = times[i + 1] - t;
            let (w, unobserved) = weigh_gap(gap, max_gap);
            unobserved_us += unobserved;
            gap_after.push(gap > max_gap);
            w
        } else {
            gap_after.push(false);
            weigh_last(Some(step), Some(max_gap), snapshot_us)
        };
        weight_us.push(cap_until(t, w, until));
    }
    GpuWeights {
        weight_us,
        gap_after,
        unobserved_us,
        step_us: Some(step),
        max_gap_us: Some(max_gap),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::interval::{TICKS_PER_MINUTE as MIN, TICKS_PER_SECOND};
    const HOUR: i64 = 3_600 * TICKS_PER_SECOND;

    #[test]
    fn weights_are_exact_to_the_microsecond() {
        // samples 1.5 ms, then 250 µs apart: steps 1500 and 250 µs; the even-count
        // median is their mean, 875 µs; max_gap 3 x 875 = 2625 µs; the last weighs 875
        let t = [0, 1_500, 1_750];
        let w = weights(&t, None, None, HOUR);
        assert_eq!(w.step_us, Some(875));
        assert_eq!(w.max_gap_us, Some(2_625));
        assert_eq!(w.weight_us, vec![1_500, 250, 875]);
        assert_eq!(w.unobserved_us, 0);
    }

    #[test]
    fn regular_samples_weigh_one_step_each_including_the_last() {
        let t = [0, MIN, 2 * MIN, 3 * MIN];
        let w = weights(&t, None, None, HOUR);
        assert_eq!(w.weight_us, vec![MIN; 4]);
        assert_eq!(w.unobserved_us, 0);
        assert_eq!(w.step_us, Some(MIN));
    }

    #[test]
    fn a_gap_beyond_three_steps_is_unobserved() {
        // steps 1,1,10,1 minutes: median 1 min, max_gap 3 min
        let t = [0, MIN, 2 * MIN, 12 * MIN, 13 * MIN];
        let w = weights(&t, None, None, HOUR);
        assert_eq!(w.weight_us, vec![MIN, MIN, 3 * MIN, MIN, MIN]);
        assert_eq!(w.unobserved_us, 7 * MIN);
        assert_eq!(w.gap_after, vec![false, false, true, false, false]);
    }

    #[test]
    fn explicit_max_gap_and_until_cap_weights() {
        let t = [0, 10 * MIN, 20 * MIN];
        let w = weights(&t, Some(5 * MIN), Some(22 * MIN), HOUR);
        // median step 10 min; max_gap 5 min; the last sample is capped by until (2 min)
        assert_eq!(w.weight_us, vec![5 * MIN, 5 * MIN, 2 * MIN]);
        assert_eq!(w.unobserved_us, 10 * MIN);
    }

    #[test]
    fn a_single_sample_is_a_snapshot() {
        let w = weights(&[5 * MIN], None, None, HOUR);
        assert_eq!(w.weight_us, vec![HOUR]);
        assert_eq!(w.step_us, None);
    }

    #[test]
    fn even_count_median_takes_the_middle_two() {
        assert_eq!(median_step(&[0, 10, 30, 60, 100]), Some(25)); // diffs 10,20,30,40
        // diffs 10,10,15,40: (10 + 15) / 2 = 12.5, truncated to 12
        assert_eq!(median_step(&[0, 10, 20, 35, 75]), Some(12));
        assert_eq!(median_of_sorted(&[7]), Some(7));
        assert_eq!(median_of_sorted(&[]), None);
        assert_eq!(median_step(&[5, 5]), None); // no positive step
    }
}
