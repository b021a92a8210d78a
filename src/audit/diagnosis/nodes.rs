//! The node view (§10): "rent 8, use 2". A host is node-held in a bucket when
//! any of its GPUs has held weight there; the cards of a node-held host that
//! are not held are stranded, those of a host nobody holds are free.
use super::Sum;
use crate::audit::interval::{ByLabel, Fold, Interval, Names, TICKS_PER_HOUR, split_at_buckets};
use foldhash::HashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One host in one bucket. Weight whose held state could not be read is in
/// neither sum: it never makes a node held and is neither stranded nor free.
#[derive(Debug, Clone, Copy, Default)]
struct HostBucket {
    held: i64,
    unallocated: i64,
    unallocated_usd: Sum,
}

/// One host's buckets, dense from the first bucket it was seen in to the
/// last: an interval costs an index, not a hash, and a host seen for a day of
/// a year costs a day (at most the window's buckets, as the timeline).
#[derive(Debug, Clone, Default)]
struct HostState {
    /// bucket index k of `buckets[0]`
    first: i64,
    buckets: Vec<HostBucket>,
}

impl HostState {
    fn bucket_mut(&mut self, k: i64) -> Option<&mut HostBucket> {
        if self.buckets.is_empty() {
            self.first = k;
        }
        if k < self.first {
            // a GPU of the host seen after another, from an earlier time
            let earlier = usize::try_from(self.first - k).ok()?;
            self.buckets
                .splice(0..0, std::iter::repeat_n(HostBucket::default(), earlier));
            self.first = k;
        }
        let at = usize::try_from(k - self.first).ok()?;
        if at >= self.buckets.len() {
            self.buckets.resize(at + 1, HostBucket::default());
        }
        self.buckets.get_mut(at)
    }

    /// The buckets with weight, by index k.
    fn buckets(&self) -> impl Iterator<Item = (i64, &HostBucket)> {
        (self.first..)
            .zip(&self.buckets)
            .filter(|(_, b)| b.held > 0 || b.unallocated > 0)
    }
}

/// State of the node view: per host, per bucket, held and unallocated ticks.
#[derive(Debug, Clone)]
pub struct NodesFold {
    bucket: i64,
    window_start: i64,
    window_end: i64,
    hosts: ByLabel<HostState>,
    /// the host of each GPU slot seen (a slot is one GPU of one host), so
    /// GPUs per host are counted once at the end, not hashed per interval
    gpu_host: Vec<Option<u32>>,
    priced: bool,
}

impl NodesFold {
    /// The same buckets and window as the timeline (§8).
    pub fn new(bucket_ticks: i64, window_start: i64, window_end: i64) -> Self {
        NodesFold {
            bucket: bucket_ticks.max(1),
            window_start,
            window_end,
            hosts: ByLabel::default(),
            gpu_host: Vec::new(),
            priced: false,
        }
    }

    /// The section; `top` hosts by stranded GPU-hours (all with None), most
    /// first, then by name.
    pub fn finish(&self, names: &dyn Names, top: Option<usize>) -> Nodes {
        let mut totals = NodeTotals::default();
        let mut gpus: HashMap<u32, usize> = HashMap::default();
        for host in self.gpu_host.iter().flatten() {
            *gpus.entry(*host).or_default() += 1;
        }
        let mut hosts: Vec<NodeHost> = self
            .hosts
            .iter()
            .map(|(id, state)| {
                let t = host_totals(state);
                totals.add(&t);
                NodeHost {
                    host: names.label(id).to_string(),
                    gpus: gpus.get(&id).copied().unwrap_or(0),
                    node_held_gpu_hours: hours(t.node_held),
                    held_gpu_hours: hours(t.held),
                    stranded_gpu_hours: hours(t.stranded),
                    stranded_usd: self.priced.then(|| t.stranded_usd.get()),
                }
            })
            .collect();
        hosts.sort_by(|a, b| {
            b.stranded_gpu_hours
                .total_cmp(&a.stranded_gpu_hours)
                .then_with(|| a.host.cmp(&b.host))
        });
        let hosts_total = hosts.len();
        if let Some(n) = top {
            hosts.truncate(n);
        }
        Nodes {
            node_held_gpu_hours: hours(totals.node_held),
            stranded_gpu_hours: hours(totals.stranded),
            free_node_gpu_hours: hours(totals.free),
            stranded_usd: self.priced.then(|| totals.stranded_usd.get()),
            free_node_usd: self.priced.then(|| totals.free_usd.get()),
            hosts_total,
            hosts,
        }
    }
}

fn hours(ticks: i64) -> f64 {
    ticks as f64 / TICKS_PER_HOUR
}

#[derive(Debug, Default)]
struct NodeTotals {
    node_held: i64,
    held: i64,
    stranded: i64,
    free: i64,
    stranded_usd: Sum,
    free_usd: Sum,
}

impl NodeTotals {
    fn add(&mut self, o: &NodeTotals) {
        self.node_held += o.node_held;
        self.held += o.held;
        self.stranded += o.stranded;
        self.free += o.free;
        self.stranded_usd.merge(&o.stranded_usd);
        self.free_usd.merge(&o.free_usd);
    }
}

/// One host's sums over its buckets: node-held buckets count all its
/// (held or unallocated) cards, and their unallocated cards are stranded.
fn host_totals(state: &HostState) -> NodeTotals {
    let mut t = NodeTotals::default();
    for (_, b) in state.buckets() {
        t.held += b.held;
        if b.held > 0 {
            t.node_held += b.held + b.unallocated;
            t.stranded += b.unallocated;
            t.stranded_usd.merge(&b.unallocated_usd);
        } else {
            t.free += b.unallocated;
            t.free_usd.merge(&b.unallocated_usd);
        }
    }
    t
}

/// One host's unallocated cards per bucket index k, stranded (the node was
/// held in that bucket) or free-node, and their dollars (unpriced: $0).
#[derive(Debug, Clone, Default)]
pub(crate) struct HostSpare {
    pub host: u32,
    pub stranded: BTreeMap<i64, i64>,
    pub free: BTreeMap<i64, i64>,
    pub stranded_usd: f64,
    pub free_usd: f64,
}

impl NodesFold {
    /// Per host: its [`HostSpare`], for the purchase plan's owners.
    pub(crate) fn unallocated_by_bucket(&self) -> Vec<HostSpare> {
        self.hosts
            .iter()
            .map(|(id, state)| {
                let mut spare = HostSpare {
                    host: id,
                    ..HostSpare::default()
                };
                for (k, b) in state.buckets().filter(|(_, b)| b.unallocated > 0) {
                    if b.held > 0 {
                        spare.stranded.insert(k, b.unallocated);
                        spare.stranded_usd += b.unallocated_usd.get();
                    } else {
                        spare.free.insert(k, b.unallocated);
                        spare.free_usd += b.unallocated_usd.get();
                    }
                }
                spare
            })
            .collect()
    }
}

impl Fold for NodesFold {
    fn add(&mut self, iv: &Interval) {
        let start = iv.start.max(self.window_start);
        let end = iv.end().min(self.window_end);
        if end <= start {
            return;
        }
        if self.gpu_host.len() <= iv.gpu {
            self.gpu_host.resize(iv.gpu + 1, None);
        }
        if let Some(slot) = self.gpu_host.get_mut(iv.gpu) {
            *slot = Some(iv.host);
        }
        self.priced |= iv.price.is_some() && !iv.held_unknown;
        let host = self.hosts.entry(iv.host);
        if iv.held_unknown {
            return;
        }
        for (k, part) in split_at_buckets(start, end - start, self.bucket) {
            let Some(b) = host.bucket_mut(k) else {
                continue;
            };
            if iv.held {
                b.held += part;
            } else {
                b.unallocated += part;
                if let Some(price) = iv.price {
                    b.unallocated_usd.add(part as f64 / TICKS_PER_HOUR * price);
                }
            }
        }
    }
    fn merge(&mut self, other: Self) {
        self.priced |= other.priced;
        if self.gpu_host.len() < other.gpu_host.len() {
            self.gpu_host.resize(other.gpu_host.len(), None);
        }
        for (mine, theirs) in self.gpu_host.iter_mut().zip(other.gpu_host) {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
        for (id, theirs) in other.hosts {
            let mine = self.hosts.entry(id);
            for (k, b) in theirs.buckets() {
                let Some(m) = mine.bucket_mut(k) else {
                    continue;
                };
                m.held += b.held;
                m.unallocated += b.unallocated;
                m.unallocated_usd.merge(&b.unallocated_usd);
            }
        }
    }
}

/// The `nodes` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Nodes {
    pub node_held_gpu_hours: f64,
    /// node-held minus held: cards not held on a node someone holds
    pub stranded_gpu_hours: f64,
    /// unallocated minus stranded: cards on nodes nobody holds
    pub free_node_gpu_hours: f64,
    /// null when no sample had a price
    pub stranded_usd: Option<f64>,
    pub free_node_usd: Option<f64>,
    /// hosts seen, before the list is cut to the top ones
    pub hosts_total: usize,
    pub hosts: Vec<NodeHost>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NodeHost {
    pub host: String,
    pub gpus: usize,
    pub node_held_gpu_hours: f64,
    pub held_gpu_hours: f64,
    pub stranded_gpu_hours: f64,
    pub stranded_usd: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{H, TestNames, free, held};
    use super::*;

    /// Host 1 (4 GPUs): GPU 0 held for half of hour 0 only; GPUs 1-3 free both
    /// hours. Host 2 (2 GPUs): both free both hours. Price $2/h everywhere.
    fn fleet() -> NodesFold {
        let mut f = NodesFold::new(H, 0, 2 * H);
        let priced = |mut iv: Interval| {
            iv.price = Some(2.0);
            iv
        };
        f.add(&priced(held(0, 1, 0, H / 2, Some(0.5))));
        f.add(&priced(free(0, 1, H / 2, H + H / 2)));
        for gpu in 1..=3 {
            f.add(&priced(free(gpu, 1, 0, 2 * H)));
        }
        for gpu in 4..=5 {
            f.add(&priced(free(gpu, 2, 0, 2 * H)));
        }
        f
    }

    #[test]
    fn a_partial_hold_makes_the_node_held_for_its_bucket_only() {
        let n = fleet().finish(&TestNames, None);
        // hour 0 of host 1 is node-held: its 4 GPU-hours; hour 1 nobody holds it
        assert_eq!(n.node_held_gpu_hours, 4.0);
        // 4 − 0.5 held
        assert_eq!(n.stranded_gpu_hours, 3.5);
        // unallocated 12 − 0.5 = 11.5; minus stranded
        assert_eq!(n.free_node_gpu_hours, 8.0);
        assert_eq!(n.stranded_usd, Some(7.0));
        assert_eq!(n.free_node_usd, Some(16.0));
        assert_eq!(n.hosts_total, 2);
        let h = &n.hosts[0];
        assert_eq!(h.host, "l1");
        assert_eq!(h.gpus, 4);
        assert_eq!(h.node_held_gpu_hours, 4.0);
        assert_eq!(h.held_gpu_hours, 0.5);
        assert_eq!(h.stranded_gpu_hours, 3.5);
        assert_eq!(h.stranded_usd, Some(7.0));
        assert_eq!(n.hosts[1].host, "l2");
        assert_eq!(n.hosts[1].stranded_gpu_hours, 0.0);
        let top = fleet().finish(&TestNames, Some(1));
        assert_eq!(top.hosts.len(), 1);
        assert_eq!(top.hosts_total, 2);
    }

    #[test]
    fn held_unknown_never_makes_a_node_held_and_no_price_is_null() {
        let mut f = NodesFold::new(H, 0, H);
        let mut unknown = free(0, 0, 0, H);
        unknown.held_unknown = true;
        f.add(&unknown);
        f.add(&free(1, 0, 0, H));
        let n = f.finish(&TestNames, None);
        assert_eq!(n.node_held_gpu_hours, 0.0);
        assert_eq!(n.free_node_gpu_hours, 1.0);
        assert_eq!(n.stranded_usd, None);
        assert_eq!(n.hosts[0].gpus, 2);
    }

    #[test]
    fn merged_shards_agree_with_one_fold() {
        // host 0's GPUs arrive in two shards: the hold in one, the free card in the other
        let mut a = NodesFold::new(H, 0, H);
        let mut b = NodesFold::new(H, 0, H);
        a.add(&held(0, 0, 0, H, Some(0.9)));
        b.add(&free(1, 0, 0, H));
        a.merge(b);
        let n = a.finish(&TestNames, None);
        assert_eq!(n.node_held_gpu_hours, 2.0);
        assert_eq!(n.stranded_gpu_hours, 1.0);
        assert_eq!(n.free_node_gpu_hours, 0.0);
        assert_eq!(n.hosts[0].gpus, 2, "GPUs of both shards");
    }
}
