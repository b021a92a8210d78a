//! Per-GPU summaries: each GPU's tally, owners and last reading.
use super::row_of;
use crate::audit::interval::{Fold, Interval, Names};
use crate::audit::model::GpuSummary;
use crate::audit::tally::{Basis, Present, Row, Tally};
use crate::catalog::prices::PriceBook;

/// What one GPU's intervals say about it.
#[derive(Default, Clone)]
struct GpuFacts {
    tally: Tally,
    samples: u64,
    /// jobs and users of its held intervals, most recent last
    jobs: Vec<u32>,
    users: Vec<u32>,
    model: Option<u32>,
    last_mem_used: Option<u64>,
    last_mem_total: Option<u64>,
    last_power: Option<f64>,
    last_held: bool,
}

/// Move `id` to the end of `seen` (most recent last), if it is not there already.
fn touch(seen: &mut Vec<u32>, id: u32) {
    if seen.last() != Some(&id) {
        seen.retain(|x| *x != id);
        seen.push(id);
    }
}

pub struct GpusFold {
    basis: Basis,
    /// by GPU slot
    gpus: Vec<GpuFacts>,
}

impl GpusFold {
    pub fn new(basis: Basis) -> Self {
        GpusFold {
            basis,
            gpus: Vec::new(),
        }
    }

    pub fn add_row(&mut self, iv: &Interval, row: &Row) {
        if self.gpus.len() <= iv.gpu {
            self.gpus.resize_with(iv.gpu + 1, GpuFacts::default);
        }
        let g = &mut self.gpus[iv.gpu];
        g.tally.add(row, self.basis);
        g.samples += 1;
        if iv.model.is_some() {
            g.model = iv.model;
        }
        if iv.held {
            if let Some(j) = iv.job {
                touch(&mut g.jobs, j);
            }
            if let Some(u) = iv.user {
                touch(&mut g.users, u);
            }
        }
        g.last_held = iv.held;
        // intervals of a GPU come in time order: the last one is its latest reading
        g.last_mem_used = iv.mem_used;
        g.last_mem_total = iv.mem_total;
        g.last_power = iv.power;
    }

    /// Each GPU with samples: its reported model name and its tally.
    pub fn tallies<'a>(
        &'a self,
        names: &'a dyn Names,
    ) -> impl Iterator<Item = (Option<&'a str>, &'a Tally)> + 'a {
        self.gpus
            .iter()
            .filter(|g| g.samples > 0)
            .map(move |g| (g.model.map(|m| names.label(m)), &g.tally))
    }

    /// Every GPU's tally, in slot order (those without samples are empty).
    pub fn every_tally(&self) -> impl Iterator<Item = &Tally> {
        self.gpus.iter().map(|g| &g.tally)
    }

    /// Every GPU has at most one sample (a snapshot of the fleet).
    pub fn all_single(&self) -> bool {
        self.gpus.iter().all(|g| g.samples <= 1)
    }

    /// One row per GPU with samples, by (host, gpu).
    pub fn summaries(
        &self,
        names: &dyn Names,
        present: &Present,
        prices: &PriceBook,
    ) -> Vec<GpuSummary> {
        let label = |id: &u32| names.label(*id).to_string();
        let mut rows: Vec<GpuSummary> = self
            .gpus
            .iter()
            .enumerate()
            .filter(|(_, g)| g.samples > 0)
            .map(|(slot, g)| {
                let r = g.tally.ratios(present);
                let model = g.model.as_ref().map(label);
                GpuSummary {
                    host: names.host_of(slot).to_string(),
                    gpu: names.gpu_of(slot).to_string(),
                    usd_per_hour: prices.price_of(model.as_deref()),
                    model,
                    samples: g.samples,
                    jobs: g.jobs.iter().map(label).collect(),
                    users: g.users.iter().map(label).collect(),
                    observed_gpu_hours: g.tally.observed_h(),
                    held_gpu_hours: g.tally.held_h(),
                    idle_held_gpu_hours: present.device_util.then_some(g.tally.idle_held_h()),
                    device_util: r.active(),
                    sm_active: r.sm_active(),
                    tensor_active: r.tensor_active(),
                    last_mem_used_bytes: g.last_mem_used,
                    last_mem_total_bytes: g.last_mem_total,
                    last_power_w: g.last_power,
                    last_held: g.last_held,
                }
            })
            .collect();
        rows.sort_by(|a, b| (&a.host, &a.gpu).cmp(&(&b.host, &b.gpu)));
        rows
    }
}

impl Fold for GpusFold {
    fn add(&mut self, iv: &Interval) {
        self.add_row(iv, &row_of(iv));
    }

    /// Shards hold disjoint GPUs: a slot is taken from whichever shard saw it.
    fn merge(&mut self, other: Self) {
        if self.gpus.len() < other.gpus.len() {
            self.gpus.resize_with(other.gpus.len(), GpuFacts::default);
        }
        for (mine, theirs) in self.gpus.iter_mut().zip(other.gpus) {
            if theirs.samples > 0 {
                *mine = theirs;
            }
        }
    }
}
