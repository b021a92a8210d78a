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
}

impl Distinct {
    fn fill<K: Copy + Eq + Hash>(
        &mut self,
        rows: Range<usize>,
        key: impl Fn(usize) -> K,
        cache: &mut HashMap<K, u32>,
    ) {
        self.local.clear();
        self.firsts.clear();
        cache.clear();
        // neighbouring rows often share a key (a file sorted by GPU, a host's
        // GPUs, a gang's job): the previous row's key is checked before the hash
        let mut previous: Option<(K, u32)> = None;
        for i in rows {
            let k = key(i);
            if let Some((pk, id)) = previous
                && pk == k
            {
                self.local.push(id);
                continue;
            }
            let firsts = &mut self.firsts;
            let id = *cache.entry(k).or_insert_with(|| {
                firsts.push(i);
                (firsts.len() - 1) as u32
            });
            previous = Some((k, id));
            self.local.push(id);
        }
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
    pairs: HashMap<(u128, u128), u32>,
    views: HashMap<u128, u32>,
}

impl KeyPart {
    fn fill(&mut self, c: &KeyColumns, with_labels: bool) {
        let (h, g) = (c.host, c.gpu);
        let rows = self.rows.clone();
        self.gpus.fill(
            rows.clone(),
            |i| (view_at(h, i), view_at(g, i)),
            &mut self.pairs,
        );
        if !with_labels {
            return;
        }
        for (d, column) in self.labels.iter_mut().zip(c.labels) {
            match column {
                Some(arr) => d.fill(rows.clone(), |i| view_at(arr, i), &mut self.views),
                None => {
                    d.local.clear();
                    d.firsts.clear();
                }
            }
        }
    }
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
    std::thread::scope(|scope| {
        let handles: Vec<_> = rest
            .iter_mut()
            .map(|p| scope.spawn(move || p.fill(c, with_labels)))
            .collect();
        first.fill(c, with_labels);
        handles
            .into_iter()
            .try_for_each(|h| h.join())
            .map_err(|_| anyhow::anyhow!("internal: a key reader thread panicked"))
    })?;
    Ok(n)
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
}
