//! Values of one sample that contradict each other (docs/semantics.md §1):
//! SM activity above device activity, tensor activity above SM activity,
//! memory used above the card's total, and a job on a sample that says it is
//! not held. Each is counted per sample and reported as one data-quality
//! warning with the counts; the values are used as read (a contradiction is
//! never averaged away in silence). Counted on the chunks the engine audits,
//! so the in-memory and the streamed paths count alike.
use crate::samples::col;
use anyhow::Result;
use polars::prelude::*;
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

fn as_f64(df: &DataFrame, name: &str) -> Result<Option<Float64Chunked>> {
    match df.column(name) {
        Ok(c) => Ok(Some(c.cast(&DataType::Float64)?.f64()?.clone())),
        Err(_) => Ok(None),
    }
}

/// Samples where `above` exceeds `below` by more than `tolerance` (both read).
fn count_above(
    above: Option<&Float64Chunked>,
    below: Option<&Float64Chunked>,
    tolerance: f64,
) -> u64 {
    match (above, below) {
        (Some(a), Some(b)) => {
            let fence = b + tolerance;
            a.gt(&fence).sum().map_or(0, u64::from)
        }
        _ => 0,
    }
}

/// The contradictions of one chunk of canonical samples.
pub fn count(df: &DataFrame) -> Result<Contradictions> {
    let device = as_f64(df, col::DEVICE_UTIL)?;
    let sm = as_f64(df, col::SM_ACTIVE)?;
    let tensor = as_f64(df, col::TENSOR_ACTIVE)?;
    let used = as_f64(df, col::MEM_USED_BYTES)?;
    let total = as_f64(df, col::MEM_TOTAL_BYTES)?;
    Ok(Contradictions {
        sm_above_device: count_above(sm.as_ref(), device.as_ref(), ACTIVITY_TOLERANCE),
        tensor_above_sm: count_above(tensor.as_ref(), sm.as_ref(), ACTIVITY_TOLERANCE),
        mem_above_total: count_above(used.as_ref(), total.as_ref(), 0.0),
        job_not_held: job_not_held(df)?,
    })
}

/// Samples that say held = false and name a job.
fn job_not_held(df: &DataFrame) -> Result<u64> {
    let (Ok(held), Ok(job)) = (df.column(col::HELD), df.column(col::JOB)) else {
        return Ok(0);
    };
    let held = held.cast(&DataType::Boolean)?;
    let job = job.cast(&DataType::String)?;
    let job = job.str()?;
    let named = job.is_not_null() & !job.equal("");
    let not_held = !held.bool()?.clone() & held.bool()?.is_not_null();
    Ok((named & not_held).sum().map_or(0, u64::from))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            count(&df)?,
            Contradictions {
                sm_above_device: 1,
                tensor_above_sm: 2,
                mem_above_total: 1,
                job_not_held: 1,
            }
        );
        // a table without the columns has none
        let keys = df![col::DEVICE_UTIL => [0.5]]?;
        assert_eq!(count(&keys)?.total(), 0);
        Ok(())
    }
}
