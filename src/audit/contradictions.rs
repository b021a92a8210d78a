//! Values of one sample that contradict each other (docs/semantics.md §1):
//! SM activity above device activity, tensor activity above SM activity,
//! memory used above the card's total, and a job on a sample that says it is
//! not held. Each is counted per sample and reported as one data-quality
//! warning with the counts; the values are used as read (a contradiction is
//! never averaged away in silence). Counted on every row the engine reads
//! (its shards' loop), so the in-memory and the streamed paths count alike.
use serde::{Deserialize, Serialize};

/// Activity above another by more than this is a contradiction: one point
/// of a percent, the resolution of nvidia-smi's integer percentages, so
/// rounding alone is never counted.
pub const ACTIVITY_TOLERANCE: f64 = 0.01;

/// Samples whose values contradict each other, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Contradictions {
    /// sm_active above device_util
    pub sm_above_device: u64,
    /// tensor_active above sm_active
    pub tensor_above_sm: u64,
    /// mem_used_bytes above mem_total_bytes
    pub mem_above_total: u64,
    /// held = false with a job set
    pub job_not_held: u64,
}

impl Contradictions {
    pub fn add(&mut self, other: &Contradictions) {
        self.sm_above_device += other.sm_above_device;
        self.tensor_above_sm += other.tensor_above_sm;
        self.mem_above_total += other.mem_above_total;
        self.job_not_held += other.job_not_held;
    }

    pub fn total(&self) -> u64 {
        self.sm_above_device + self.tensor_above_sm + self.mem_above_total + self.job_not_held
    }
}

/// What one sample holds of the values a contradiction compares.
#[derive(Debug, Clone, Copy, Default)]
pub struct SampleValues {
    pub device_util: Option<f64>,
    pub sm_active: Option<f64>,
    pub tensor_active: Option<f64>,
    pub mem_used: Option<u64>,
    pub mem_total: Option<u64>,
    pub held: Option<bool>,
    /// the sample names a job (neither null nor empty)
    pub job_named: bool,
}

/// `above` exceeds `below` by more than `tolerance` (both read; NaN never does).
#[inline]
fn above(above: Option<f64>, below: Option<f64>, tolerance: f64) -> bool {
    matches!((above, below), (Some(a), Some(b)) if a > b + tolerance)
}

impl Contradictions {
    /// Counts one sample's contradictions. Called on every row the engine
    /// reads, in the shards' loop (a per-chunk polars pass on the main thread
    /// was serial work beside the parallel fold).
    #[inline]
    pub fn count_sample(&mut self, s: &SampleValues) {
        let tol = ACTIVITY_TOLERANCE;
        self.sm_above_device += u64::from(above(s.sm_active, s.device_util, tol));
        self.tensor_above_sm += u64::from(above(s.tensor_active, s.sm_active, tol));
        let bytes = |b: Option<u64>| b.map(|b| b as f64);
        self.mem_above_total += u64::from(above(bytes(s.mem_used), bytes(s.mem_total), 0.0));
        self.job_not_held += u64::from(s.held == Some(false) && s.job_named);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::col;
    use anyhow::Result;
    use polars::prelude::*;

    /// The polars expressions the per-sample rule replaced, the reference.
    fn count(df: &DataFrame) -> Result<Contradictions> {
        let f64_of = |name: &str| -> Result<Option<Float64Chunked>> {
            match df.column(name) {
                Ok(c) => Ok(Some(c.cast(&DataType::Float64)?.f64()?.clone())),
                Err(_) => Ok(None),
            }
        };
        let count_above =
            |a: Option<&Float64Chunked>, b: Option<&Float64Chunked>, tol: f64| match (a, b) {
                (Some(a), Some(b)) => a.gt(&(b + tol)).sum().map_or(0, u64::from),
                _ => 0,
            };
        let job_not_held = match (df.column(col::HELD), df.column(col::JOB)) {
            (Ok(held), Ok(job)) => {
                let held = held.cast(&DataType::Boolean)?;
                let job = job.cast(&DataType::String)?;
                let job = job.str()?;
                let named = job.is_not_null() & !job.equal("");
                let not_held = !held.bool()?.clone() & held.bool()?.is_not_null();
                (named & not_held).sum().map_or(0, u64::from)
            }
            _ => 0,
        };
        let (device, sm) = (f64_of(col::DEVICE_UTIL)?, f64_of(col::SM_ACTIVE)?);
        let tensor = f64_of(col::TENSOR_ACTIVE)?;
        let (used, total) = (f64_of(col::MEM_USED_BYTES)?, f64_of(col::MEM_TOTAL_BYTES)?);
        Ok(Contradictions {
            sm_above_device: count_above(sm.as_ref(), device.as_ref(), ACTIVITY_TOLERANCE),
            tensor_above_sm: count_above(tensor.as_ref(), sm.as_ref(), ACTIVITY_TOLERANCE),
            mem_above_total: count_above(used.as_ref(), total.as_ref(), 0.0),
            job_not_held,
        })
    }

    /// The per-sample rule over a table's rows.
    fn by_sample(df: &DataFrame) -> Result<Contradictions> {
        let f = |name: &str| -> Result<Vec<Option<f64>>> {
            match df.column(name) {
                Ok(c) => Ok(c.cast(&DataType::Float64)?.f64()?.iter().collect()),
                Err(_) => Ok(vec![None; df.height()]),
            }
        };
        let u = |name: &str| -> Result<Vec<Option<u64>>> {
            match df.column(name) {
                Ok(c) => Ok(c.cast(&DataType::UInt64)?.u64()?.iter().collect()),
                Err(_) => Ok(vec![None; df.height()]),
            }
        };
        let held: Vec<Option<bool>> = match df.column(col::HELD) {
            Ok(c) => c.cast(&DataType::Boolean)?.bool()?.iter().collect(),
            Err(_) => vec![None; df.height()],
        };
        let job: Vec<bool> = match df.column(col::JOB) {
            Ok(c) => c
                .cast(&DataType::String)?
                .str()?
                .iter()
                .map(|j| j.is_some_and(|j| !j.is_empty()))
                .collect(),
            Err(_) => vec![false; df.height()],
        };
        let (device, sm, tensor) = (
            f(col::DEVICE_UTIL)?,
            f(col::SM_ACTIVE)?,
            f(col::TENSOR_ACTIVE)?,
        );
        let (used, total) = (u(col::MEM_USED_BYTES)?, u(col::MEM_TOTAL_BYTES)?);
        let mut c = Contradictions::default();
        for i in 0..df.height() {
            c.count_sample(&SampleValues {
                device_util: device[i],
                sm_active: sm[i],
                tensor_active: tensor[i],
                mem_used: used[i],
                mem_total: total[i],
                held: held[i],
                job_named: job[i],
            });
        }
        Ok(c)
    }

    #[test]
    fn the_sample_rule_counts_as_the_table_expressions() -> Result<()> {
        // infinities, the tolerance's edge, nulls in either operand (no NaN:
        // a canonical table holds none, and polars orders NaN above every number)
        let v = [
            Some(0.0),
            Some(0.01),
            Some(0.5),
            Some(0.51),
            Some(0.52),
            Some(1.0),
            Some(f64::INFINITY),
            Some(f64::NEG_INFINITY),
            None,
        ];
        let n = v.len();
        let (mut device, mut sm, mut tensor) = (Vec::new(), Vec::new(), Vec::new());
        let (mut used, mut total, mut held, mut job) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let bytes = [Some(0u64), Some(10), Some(11), Some(u64::MAX), None];
        let helds = [Some(true), Some(false), None];
        let jobs = [Some("j"), Some(""), None];
        for i in 0..n * n * n {
            device.push(v[i % n]);
            sm.push(v[(i / n) % n]);
            tensor.push(v[(i / (n * n)) % n]);
            used.push(bytes[i % bytes.len()]);
            total.push(bytes[(i / bytes.len()) % bytes.len()]);
            held.push(helds[i % helds.len()]);
            job.push(jobs[(i / helds.len()) % jobs.len()]);
        }
        let df = df![
            col::DEVICE_UTIL => device,
            col::SM_ACTIVE => sm,
            col::TENSOR_ACTIVE => tensor,
            col::MEM_USED_BYTES => used,
            col::MEM_TOTAL_BYTES => total,
            col::HELD => held,
            col::JOB => job,
        ]?;
        let reference = count(&df)?;
        assert!(reference.total() > 0);
        assert_eq!(by_sample(&df)?, reference);
        // NaN is no value: never above anything
        let mut c = Contradictions::default();
        c.count_sample(&SampleValues {
            device_util: Some(0.2),
            sm_active: Some(f64::NAN),
            tensor_active: Some(0.9),
            ..Default::default()
        });
        assert_eq!(c.total(), 0);
        Ok(())
    }

    #[test]
    fn each_contradiction_is_counted_once_per_sample() -> Result<()> {
        let df = df![
            col::DEVICE_UTIL => [Some(0.5), Some(0.5), Some(0.5), None, Some(0.9)],
            // 0.505 is rounding (within a point); 0.7 is not; None is not read
            col::SM_ACTIVE => [Some(0.505), Some(0.7), None, Some(0.9), Some(0.4)],
            col::TENSOR_ACTIVE => [Some(0.6), Some(0.2), Some(0.9), Some(0.95), Some(0.4)],
            col::MEM_USED_BYTES => [Some(10u64), Some(11), Some(10), None, Some(0)],
            col::MEM_TOTAL_BYTES => [Some(10u64), Some(10), None, Some(10), Some(10)],
            col::HELD => [Some(false), Some(false), Some(true), None, Some(false)],
            col::JOB => [Some("train"), Some(""), Some("x"), Some("y"), None],
        ]?;
        assert_eq!(
            by_sample(&df)?,
            Contradictions {
                sm_above_device: 1,
                tensor_above_sm: 2,
                mem_above_total: 1,
                job_not_held: 1,
            }
        );
        // a table without the columns has none
        let keys = df![col::DEVICE_UTIL => [0.5]]?;
        assert_eq!(by_sample(&keys)?.total(), 0);
        Ok(())
    }
}
