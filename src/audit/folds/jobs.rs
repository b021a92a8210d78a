//! Held time per job and the GPUs each job held, for the `--jobs` summaries.
use super::row_of;
use crate::audit::interval::{ByLabel, Fold, Interval, Names};
use crate::audit::model::JobSummary;
use crate::audit::tally::{Basis, Present, Row, Tally};
use std::collections::{BTreeMap, BTreeSet};

pub struct JobsFold {
    basis: Basis,
    /// job label id -> (tally of its held intervals, the GPU slots it held)
    jobs: ByLabel<(Tally, BTreeSet<usize>)>,
    /// per GPU slot, the job of its last held interval: a GPU's set entry is
    /// written once per change of job, not once per sample
    last_job: Vec<Option<u32>>,
}

impl JobsFold {
    pub fn new(basis: Basis) -> Self {
        JobsFold {
            basis,
            jobs: ByLabel::default(),
            last_job: Vec::new(),
        }
    }

    pub fn add_row(&mut self, iv: &Interval, row: &Row) {
        let (true, Some(job)) = (iv.held, iv.job) else {
            return;
        };
        let e = self.jobs.entry(job);
        e.0.add(row, self.basis);
        if self.last_job.len() <= iv.gpu {
            self.last_job.resize(iv.gpu + 1, None);
        }
        if self.last_job[iv.gpu] != Some(job) {
            e.1.insert(iv.gpu);
            self.last_job[iv.gpu] = Some(job);
        }
    }

    /// One row per job, by held GPU-hours (most first), MFU from the declarations.
    pub fn summaries(
        &self,
        names: &dyn Names,
        present: &Present,
        mfu: &BTreeMap<String, f64>,
    ) -> Vec<JobSummary> {
        let mut rows: Vec<JobSummary> = self
            .jobs
            .iter()
            .map(|(job, (t, gpu_set))| {
                let job = names.label(job).to_string();
                let r = t.ratios(present);
                let m = mfu.get(&job).copied();
                JobSummary {
                    gpus: gpu_set.len(),
                    held_gpu_hours: t.held_h(),
                    device_util: r.active(),
                    sm_active: r.sm_active(),
                    tensor_active: r.tensor_active(),
                    mfu: m,
                    useful_gpu_hours: m.map(|m| m * t.held_h()),
                    not_useful_usd: t.not_useful_usd(),
                    job,
                }
            })
            .collect();
        rows.sort_by(|a, b| {
            b.held_gpu_hours
                .total_cmp(&a.held_gpu_hours)
                .then_with(|| a.job.cmp(&b.job))
        });
        rows
    }
}

impl Fold for JobsFold {
    fn add(&mut self, iv: &Interval) {
        self.add_row(iv, &row_of(iv));
    }
    fn merge(&mut self, other: Self) {
        for (job, (t, gpus)) in other.jobs {
            let e = self.jobs.entry(job);
            e.0.merge(&t);
            e.1.extend(gpus);
        }
    }
}
