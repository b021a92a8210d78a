//! The key columns of a slice (host and GPU, the four labels) turned into
//! small integers on the audit's threads. Each thread takes a contiguous
//! range of rows and numbers its distinct keys in order of first appearance;
//! the engine then registers the ranges' keys in range order, so GPUs and
//! labels get the ids one thread reading every row would give them, whatever
//! the number of threads (hashing every row on the main thread was serial
//! work beside the parallel fold).
use anyhow::Result;
use foldhash::HashMap;
use polars::prelude::StringChunked;
use polars_arrow::array::{Array, Utf8ViewArray};
use std::hash::Hash;
use std::ops::Range;

/// Below this many rows a slice is read on one thread (a thread costs more).
const ROWS_PER_THREAD_MIN: usize = 1 << 16;

/// The value that stands for a null string in a view-keyed cache: no valid
/// view has all bits set (that would be a 4 GiB string).
const NULL_VIEW: u128 = u128::MAX;

/// Within one array, equal views are equal strings (the bytes are inline in
/// the view, or at the same offset of the same buffer), so a view-keyed cache
/// reads and hashes each distinct string once per slice instead of once per
/// row. Across arrays equal views may differ, hence one chunk only.
pub(super) fn one_chunk(ca: &StringChunked) -> Result<Option<&Utf8ViewArray>> {
    anyhow::ensure!(
        ca.chunks().len() <= 1,
        "internal: a string column in {} chunks reached the view cache",
        ca.chunks().len()
    );
    Ok(ca.downcast_iter().next())
}

/// Row `i`'s view (NULL_VIEW for a null): only the view is read per row, the
/// string only when the view is new to the cache.
fn view_at(arr: Option<&Utf8ViewArray>, i: usize) -> u128 {
    match arr {
        Some(a) if a.is_valid(i) => a.views()[i].as_u128(),
        _ => NULL_VIEW,
    }
}

/// Row `i`'s text ("" for a null or no column).
pub(super) fn text_at(arr: Option<&Utf8ViewArray>, i: usize) -> &str {
    match arr {
        Some(a) if a.is_valid(i) => a.value(i),
        _ => "",
    }
}

/// One range's keys: per row, the index of its key among the range's
/// distinct keys, and the row where each distinct key first appears.
#[derive(Default)]
pub(super) struct Distinct {
    pub local: Vec<u32>,
    pub firsts: Vec<usize>,
    /// per distinct key, the key of the row that last followed it (None: not
    /// yet): rows that cycle through the GPUs in the same order every tick
    /// (a fleet sorted by time) find their key with one compare, not a hash
    next: Vec<Option<u32>>,
}

impl Distinct {
    /// Numbers the keys of `rows`; `cache` maps a key to its local index.
    fn fill<K: Copy + Eq + Hash>(
        &mut self,
        rows: Range<usize>,
        key: impl Fn(usize) -> K,
        cache: &mut HashMap<K, u32>,
        keys: &mut Vec<K>,
    ) {
        self.local.clear();
        self.firsts.clear();
        self.next.clear();
        cache.clear();
        keys.clear();
        let mut previous: Option<(K, u32)> = None;
        for i in rows {
            let k = key(i);
            let id = match previous {
                // the same key as the row before (a fleet sorted by GPU)
                Some((pk, id)) if pk == k => id,
                Some((_, pid)) => match self.next[pid as usize] {
                    // the key that followed the previous one last time
                    Some(n) if keys[n as usize] == k => n,
                    _ => {
                        let id = self.lookup(i, k, cache, keys);
                        self.next[pid as usize] = Some(id);
                        id
                    }
                },
                None => self.lookup(i, k, cache, keys),
            };
            previous = Some((k, id));
            self.local.push(id);
        }
    }

    /// The local index of `k`, first seen at row `i` when new.
    fn lookup<K: Copy + Eq + Hash>(
        &mut self,
        i: usize,
        k: K,
        cache: &mut HashMap<K, u32>,
        keys: &mut Vec<K>,
    ) -> u32 {
        let (firsts, next) = (&mut self.firsts, &mut self.next);
        *cache.entry(k).or_insert_with(|| {
            firsts.push(i);
            next.push(None);
            keys.push(k);
            (firsts.len() - 1) as u32
        })
    }
}

/// The key columns of one slice (None: no column, or no rows).
#[derive(Clone, Copy)]
pub(super) struct KeyColumns<'c> {
    pub host: Option<&'c Utf8ViewArray>,
    pub gpu: Option<&'c Utf8ViewArray>,
    /// model, job, user, team; None where the input has no such column
    pub labels: [Option<Option<&'c Utf8ViewArray>>; 4],
}

/// One thread's range of a slice: its keys, and caches kept between slices
/// (their memory, not their contents).
#[derive(Default)]
pub(super) struct KeyPart {
    pub rows: Range<usize>,
    pub gpus: Distinct,
    pub labels: [Distinct; 4],
    /// the engine's GPU slot of each of `gpus`' keys (filled by the engine)
    pub gpu_ids: Vec<usize>,
    /// the engine's label id of each of `labels`' keys (None: empty text)
    pub label_ids: [Vec<Option<u32>>; 4],
    pairs: HashMap<(u128, u128), u32>,
    views: HashMap<u128, u32>,
    /// the distinct keys by local index (the caches' keys, in order)
    pair_keys: Vec<(u128, u128)>,
    view_keys: Vec<u128>,
}

impl KeyPart {
    fn fill(&mut self, c: &KeyColumns, with_labels: bool) {
        let (h, g) = (c.host, c.gpu);
        let rows = self.rows.clone();
        // columns without nulls (the usual keys) read their views directly:
        // no validity test per row
        match (views_of(h), views_of(g)) {
            (Some(hv), Some(gv)) => self.gpus.fill(
                rows.clone(),
                |i| (hv[i].as_u128(), gv[i].as_u128()),
                &mut self.pairs,
                &mut self.pair_keys,
            ),
            _ => self.gpus.fill(
                rows.clone(),
                |i| (view_at(h, i), view_at(g, i)),
                &mut self.pairs,
                &mut self.pair_keys,
            ),
        }
        if !with_labels {
            return;
        }
        for (d, column) in self.labels.iter_mut().zip(c.labels) {
            let (views, keys) = (&mut self.views, &mut self.view_keys);
            match column {
                Some(arr) => match views_of(arr) {
                    Some(v) => d.fill(rows.clone(), |i| v[i].as_u128(), views, keys),
                    None => d.fill(rows.clone(), |i| view_at(arr, i), views, keys),
                },
                None => {
                    d.local.clear();
                    d.firsts.clear();
                }
            }
        }
    }
}

/// The views of an array without nulls (None: a null, or no array).
fn views_of(arr: Option<&Utf8ViewArray>) -> Option<&[polars_arrow::array::View]> {
    arr.filter(|a| a.null_count() == 0)
        .map(|a| a.views().as_slice())
}

/// Fills `parts` (one per thread, at most) with the keys of a slice's `rows`
/// rows, each part a contiguous range in row order; the GPU keys only when
/// `with_labels` is false (pass 1). Returns how many parts hold a range.
pub(super) fn find(
    c: &KeyColumns,
    rows: usize,
    parts: &mut [KeyPart],
    with_labels: bool,
) -> Result<usize> {
    let n = parts.len().min(rows / ROWS_PER_THREAD_MIN).max(1);
    let Some((first, rest)) = parts[..n].split_first_mut() else {
        return Ok(0);
    };
    let per = rows.div_ceil(n);
    first.rows = 0..per.min(rows);
    for (k, p) in rest.iter_mut().enumerate() {
        p.rows = ((k + 1) * per).min(rows)..((k + 2) * per).min(rows);
    }
    on_threads(std::iter::once(first).chain(rest), |p| {
        p.fill(c, with_labels)
    })?;
    Ok(n)
}

/// `work` on each item, the first on this thread and each other on a thread
/// of its own (scoped: they end before this returns).
fn on_threads<T: Send>(items: impl Iterator<Item = T>, work: impl Fn(T) + Sync) -> Result<()> {
    let mut items = items;
    let Some(first) = items.next() else {
        return Ok(());
    };
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items.map(|t| scope.spawn(move || work(t))).collect();
        work(first);
        handles
            .into_iter()
            .try_for_each(|h| h.join())
            .map_err(|_| anyhow::anyhow!("internal: a key reader thread panicked"))
    })
}

/// One part's rows of the per-row outputs of [`spread`].
struct RowIds<'o> {
    slots: &'o mut [usize],
    labels: Option<[&'o mut [Option<u32>]; 4]>,
}

impl RowIds<'_> {
    fn fill(self, p: &KeyPart) {
        for (slot, &k) in self.slots.iter_mut().zip(&p.gpus.local) {
            *slot = p.gpu_ids[k as usize];
        }
        let Some(labels) = self.labels else { return };
        for ((out, d), ids) in labels.into_iter().zip(&p.labels).zip(&p.label_ids) {
            // no column: the rows keep None
            for (id, &k) in out.iter_mut().zip(&d.local) {
                *id = ids[k as usize];
            }
        }
    }
}

/// Every row's GPU slot (and label ids, when given) from its part's keys and
/// the engine's ids for them, each part on its own thread: the per-row half of
/// numbering a slice, which on one thread kept the other idle (Amdahl).
pub(super) fn spread(
    parts: &[KeyPart],
    slots: &mut Vec<usize>,
    labels: Option<&mut [Vec<Option<u32>>; 4]>,
) -> Result<()> {
    let rows = parts.last().map_or(0, |p| p.rows.end);
    slots.clear();
    slots.resize(rows, 0);
    let mut slots_left: &mut [usize] = slots;
    let mut labels_left = labels.map(|ls| {
        ls.each_mut().map(|v| {
            v.clear();
            v.resize(rows, None);
            v.as_mut_slice()
        })
    });
    let mut outs = Vec::with_capacity(parts.len());
    for p in parts {
        let n = p.rows.len();
        let (mine, rest) = std::mem::take(&mut slots_left).split_at_mut(n);
        slots_left = rest;
        let labels = labels_left.as_mut().map(|ls| {
            ls.each_mut().map(|l| {
                let (mine, rest) = std::mem::take(l).split_at_mut(n);
                *l = rest;
                mine
            })
        });
        outs.push((
            p,
            RowIds {
                slots: mine,
                labels,
            },
        ));
    }
    on_threads(outs.into_iter(), |(p, out)| out.fill(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::*;

    fn array(ca: &StringChunked) -> Result<Option<&Utf8ViewArray>> {
        one_chunk(ca)
    }

    /// Any split of the rows numbers the keys as one range does, once the
    /// ranges' keys are taken in range order.
    #[test]
    fn ranges_in_order_give_the_first_appearance_order() -> Result<()> {
        let hosts: Vec<Option<String>> = (0..300_000)
            .map(|i: usize| {
                (!i.is_multiple_of(97))
                    .then(|| format!("node-{}.cluster.example.com", (i * 7) % 13))
            })
            .collect();
        let gpus: Vec<String> = (0..300_000)
            .map(|i: usize| format!("{}", (i / 3) % 8))
            .collect();
        let (h, g) = (
            StringChunked::from_iter_options("h".into(), hosts.iter().map(|s| s.as_deref())),
            StringChunked::from_iter_values("g".into(), gpus.iter().map(String::as_str)),
        );
        let c = KeyColumns {
            host: array(&h)?,
            gpu: array(&g)?,
            labels: [Some(array(&h)?), None, Some(array(&g)?), None],
        };
        let order = |parts: &[KeyPart], n: usize, which: Option<usize>| {
            let mut seen: Vec<String> = Vec::new();
            let mut per_row: Vec<usize> = Vec::new();
            for p in &parts[..n] {
                let d = which.map_or(&p.gpus, |w| &p.labels[w]);
                let mut map = Vec::new();
                for &f in &d.firsts {
                    let key = match which {
                        None => format!("{}\0{}", text_at(c.host, f), text_at(c.gpu, f)),
                        Some(w) => text_at(c.labels[w].flatten(), f).to_string(),
                    };
                    let at = seen.iter().position(|s| *s == key).unwrap_or_else(|| {
                        seen.push(key);
                        seen.len() - 1
                    });
                    map.push(at);
                }
                per_row.extend(d.local.iter().map(|&k| map[k as usize]));
            }
            (seen, per_row)
        };
        let mut one = vec![KeyPart::default()];
        let n1 = find(&c, hosts.len(), &mut one, true)?;
        assert_eq!(n1, 1);
        for threads in [2, 3, 4] {
            let mut parts: Vec<KeyPart> = (0..threads).map(|_| KeyPart::default()).collect();
            let n = find(&c, hosts.len(), &mut parts, true)?;
            assert_eq!(n, threads);
            for which in [None, Some(0), Some(2)] {
                assert_eq!(
                    order(&parts, n, which),
                    order(&one, 1, which),
                    "{threads} {which:?}"
                );
            }
            assert!(parts[1].labels[1].local.is_empty(), "no column, no keys");
        }
        let (seen, per_row) = order(&one, 1, None);
        assert_eq!(per_row.len(), hosts.len());
        // 13 hosts x 8 GPUs seen, and the null host with its GPUs
        assert_eq!(seen.len(), 13 * 8 + 8);
        Ok(())
    }

    #[test]
    fn the_successor_guess_numbers_every_order_as_the_hash_alone_would() {
        // cycles in one order (a fleet sorted by time), a cycle that changes
        // order halfway, runs (sorted by GPU) and scattered keys
        let cycling: Vec<u64> = (0..4_000).map(|i| i % 40).collect();
        let reordered: Vec<u64> = (0..4_000)
            .map(|i| if i < 2_000 { i % 40 } else { 39 - i % 40 })
            .collect();
        let runs: Vec<u64> = (0..4_000).map(|i| i / 100).collect();
        let scattered: Vec<u64> = (0..4_000u64).map(|i| (i * 2_654_435_761) % 97).collect();
        for keys in [cycling, reordered, runs, scattered] {
            let mut d = Distinct::default();
            let (mut cache, mut seen) = (HashMap::default(), Vec::new());
            d.fill(0..keys.len(), |i| keys[i], &mut cache, &mut seen);
            // the first appearances, in order, and each row's index among them
            let mut firsts: Vec<usize> = Vec::new();
            for (i, k) in keys.iter().enumerate() {
                if !firsts.iter().any(|&f| keys[f] == *k) {
                    firsts.push(i);
                }
            }
            assert_eq!(d.firsts, firsts);
            for (i, &id) in d.local.iter().enumerate() {
                assert_eq!(keys[d.firsts[id as usize]], keys[i], "row {i}");
            }
            assert_eq!(d.local.len(), keys.len());
        }
    }
}
