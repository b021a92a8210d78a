//! Demand that never got a GPU (docs/semantics.md §10, Demand): requests read
//! from a scheduler queue (`--queue`: Slurm sacct, kube-state-metrics), folded
//! onto the timeline's buckets as pending GPUs, and their waits.
//!
//! This file is the shared shape between the queue readers (src/source/queue/)
//! and the purchase plan (purchase.rs); the fold itself lives here too.
use serde::{Deserialize, Serialize};

/// One request for GPUs that waited: from `submit_us` until `start_us` (None:
/// still pending when the data ends). Times in µs since the Unix epoch (UTC),
/// the audit's tick (`crate::audit::interval::TICKS_PER_SECOND`).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingRequest {
    /// the user / account / namespace that asked, where the queue names one
    pub owner: Option<String>,
    /// GPUs asked for (all nodes together)
    pub gpus: f64,
    pub submit_us: i64,
    pub start_us: Option<i64>,
}

/// Demand over the report's window, in the timeline's buckets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Demand {
    /// pending GPUs per timeline bucket (same length and order as the timeline's buckets)
    pub pending_per_bucket: Vec<f64>,
    /// Σ over requests of gpus × hours waited inside the window
    pub pending_gpu_hours: f64,
    /// nearest-rank p95 of pending GPUs over the observed buckets
    pub pending_gpus_p95: Option<f64>,
    /// nearest-rank p50/p95 of the waits (hours, inside the window) of the requests that waited
    pub wait_hours_p50: Option<f64>,
    pub wait_hours_p95: Option<f64>,
    /// requests that waited inside the window
    pub requests: usize,
}
