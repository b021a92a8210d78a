//! The unit every fold consumes: one sample's weighed interval
//! (docs/semantics.md §2). The engine's second pass turns each sample into an
//! [`Interval`] once its weight is known and hands it to every [`Fold`]; a fold
//! is a small piece of state with `add` and `merge` (so GPU shards can run on
//! separate threads and be merged at the end).
//!
//! Times are engine ticks: microseconds since the Unix epoch, the canonical
//! time column's unit (weights are exact to the microsecond). Code that needs
//! hours divides by [`TICKS_PER_HOUR`], never by a literal.

use crate::metric::Activity;

/// Engine ticks in one hour (ticks are microseconds).
pub const TICKS_PER_HOUR: f64 = crate::timeparse::US_PER_HOUR;
/// Engine ticks in one second and one minute.
pub const TICKS_PER_SECOND: i64 = crate::timeparse::US_PER_SECOND;
pub const TICKS_PER_MINUTE: i64 = crate::timeparse::US_PER_MINUTE;

/// One sample standing for [start, start + weight) on one GPU.
///
/// Label-like fields are ids into the engine's interner; folds keep ids and
/// turn them into names only when they build their report section (see [`Names`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Interval {
    /// the GPU's dense slot in the engine (0..number of GPUs)
    pub gpu: usize,
    /// the GPU's host, as a label id
    pub host: u32,
    /// ticks since the epoch
    pub start: i64,
    /// ticks; non-negative, never more than the GPU's max gap
    pub weight: i64,
    /// the held rule said held
    pub held: bool,
    /// the held value could not be read (counted apart, never held)
    pub held_unknown: bool,
    /// held and device activity below the idle threshold
    pub idle: bool,
    /// the registry's audited metrics (device_util, sm_active, ...), fractions
    /// 0..1; None where not measured
    pub activity: Activity,
    /// bytes
    pub mem_used: Option<u64>,
    pub mem_total: Option<u64>,
    /// watts
    pub power: Option<f64>,
    /// USD per GPU-hour; None when the model has no price
    pub price: Option<f64>,
    pub model: Option<u32>,
    pub job: Option<u32>,
    pub user: Option<u32>,
    pub team: Option<u32>,
    /// the declared MFU of the interval's job (None: no jobs file, or not declared)
    pub mfu: Option<f64>,
    /// the gap after this sample exceeded max gap (an idle episode breaks here)
    pub gap_after: bool,
}

impl Interval {
    pub fn device_util(&self) -> Option<f64> {
        self.activity.device_util()
    }
    pub fn sm_active(&self) -> Option<f64> {
        self.activity.sm_active()
    }
    pub fn tensor_active(&self) -> Option<f64> {
        self.activity.tensor_active()
    }
    pub fn dram_active(&self) -> Option<f64> {
        self.activity.dram_active()
    }

    pub fn end(&self) -> i64 {
        self.start + self.weight
    }

    pub fn hours(&self) -> f64 {
        self.weight as f64 / TICKS_PER_HOUR
    }
}

/// A fold over intervals. `merge` combines two folds that saw disjoint sets of
/// GPUs (shards), so sums must be order-independent up to float rounding.
pub trait Fold {
    fn add(&mut self, iv: &Interval);
    fn merge(&mut self, other: Self)
    where
        Self: Sized;
}

/// Names for the ids an interval carries, given to folds when they build
/// their report section.
pub trait Names {
    fn label(&self, id: u32) -> &str;
    fn host_of(&self, gpu: usize) -> &str;
    fn gpu_of(&self, gpu: usize) -> &str;
}

/// A per-label state list taken apart row by row gives its memory back every
/// this many labels (a shrink of a large block is a remap, not a copy).
pub const FREE_EVERY: usize = 1 << 16;

/// Per-label state, indexed by label id: the engine's ids are dense (0..labels
/// seen), so an interval finds its label's state by an index, not a hash.
/// Items keep the order their labels were first seen in.
#[derive(Debug, Clone)]
pub struct ByLabel<T> {
    /// by label id: 1 + the label's place in `items`, 0 for none
    index: Vec<u32>,
    items: Vec<(u32, T)>,
}

impl<T> Default for ByLabel<T> {
    fn default() -> Self {
        ByLabel {
            index: Vec::new(),
            items: Vec::new(),
        }
    }
}

impl<T: Default> ByLabel<T> {
    /// The place of label `id` in [`ByLabel::iter`]'s order, added when new.
    pub fn place(&mut self, id: u32) -> usize {
        let slot = id as usize;
        if slot >= self.index.len() {
            self.index.resize(slot + 1, 0);
        }
        match self.index.get(slot).copied() {
            Some(at) if at > 0 => at as usize - 1,
            _ => {
                self.items.push((id, T::default()));
                // at most u32::MAX labels: there are no more label ids
                self.index[slot] = self.items.len() as u32;
                self.items.len() - 1
            }
        }
    }

    /// The state of label `id`, added when new.
    pub fn entry(&mut self, id: u32) -> &mut T {
        let at = self.place(id);
        &mut self.items[at].1
    }
}

impl<T> ByLabel<T> {
    /// The state at a place [`ByLabel::place`] returned.
    pub fn at_mut(&mut self, place: usize) -> Option<&mut T> {
        self.items.get_mut(place).map(|(_, t)| t)
    }

    /// (label id, state), in the order labels were first seen.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.items.iter().map(|(id, t)| (*id, t))
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }
}

impl<T: Default> ByLabel<T> {
    /// Merge `other` in with `merge`, label by label in its order, freeing
    /// its states as they are merged (every [`FREE_EVERY`]): merging two
    /// shards of a million jobs never holds both whole beside the result.
    pub fn merge_from(&mut self, other: ByLabel<T>, mut merge: impl FnMut(&mut T, T)) {
        let mut items: Vec<(u32, T)> = other.into_iter().collect();
        items.reverse();
        while let Some((id, t)) = items.pop() {
            merge(self.entry(id), t);
            if items.capacity() - items.len() >= FREE_EVERY {
                items.shrink_to_fit();
            }
        }
    }
}

impl<T> IntoIterator for ByLabel<T> {
    type Item = (u32, T);
    type IntoIter = std::vec::IntoIter<(u32, T)>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

/// Split [start, start + weight) at epoch-aligned bucket boundaries of
/// `bucket` ticks: yields (bucket index k, ticks of the interval inside
/// [k·bucket, (k+1)·bucket)). The parts sum to `weight`; nothing is yielded
/// for a zero weight.
pub fn split_at_buckets(start: i64, weight: i64, bucket: i64) -> impl Iterator<Item = (i64, i64)> {
    debug_assert!(bucket > 0);
    let end = start + weight.max(0);
    let mut at = start;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let k = at.div_euclid(bucket);
        let bucket_end = (k + 1) * bucket;
        let part_end = bucket_end.min(end);
        let part = part_end - at;
        at = part_end;
        Some((k, part))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_is_split_at_bucket_boundaries() {
        // [50, 250) in buckets of 100: 50 in bucket 0, 100 in 1, 50 in 2
        let parts: Vec<_> = split_at_buckets(50, 200, 100).collect();
        assert_eq!(parts, vec![(0, 50), (1, 100), (2, 50)]);
    }

    #[test]
    fn an_interval_ending_on_a_boundary_does_not_touch_the_next_bucket() {
        let parts: Vec<_> = split_at_buckets(100, 100, 100).collect();
        assert_eq!(parts, vec![(1, 100)]);
        assert_eq!(split_at_buckets(7, 0, 100).count(), 0);
    }

    #[test]
    fn by_label_keeps_one_state_per_id_in_first_seen_order() {
        let mut m: ByLabel<i64> = ByLabel::default();
        *m.entry(7) += 2;
        *m.entry(3) += 5;
        *m.entry(7) += 1;
        assert_eq!(m.place(3), 1);
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![(7, &3), (3, &5)]);
        if let Some(v) = m.at_mut(0) {
            *v = 10;
        }
        assert_eq!(m.into_iter().collect::<Vec<_>>(), vec![(7, 10), (3, 5)]);
    }

    #[test]
    fn times_before_the_epoch_use_floor_buckets() {
        let parts: Vec<_> = split_at_buckets(-150, 100, 100).collect();
        assert_eq!(parts, vec![(-2, 50), (-1, 50)]);
    }
}
