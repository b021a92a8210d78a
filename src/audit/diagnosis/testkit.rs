//! Tiny hand-made fleets for the diagnosis tests.
use crate::audit::interval::{Interval, Names};

/// One hour in ticks.
pub const H: i64 = crate::audit::interval::TICKS_PER_HOUR as i64;

/// Label ids 0.. name "l0", "l1", ...; host ids are labels too.
pub struct TestNames;

impl Names for TestNames {
    fn label(&self, id: u32) -> &str {
        const L: [&str; 8] = ["l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7"];
        L.get(id as usize).copied().unwrap_or("l?")
    }
    fn host_of(&self, _gpu: usize) -> &str {
        "host"
    }
    fn gpu_of(&self, _gpu: usize) -> &str {
        "gpu"
    }
}

/// An unheld interval of `gpu` on `host` over [start, start + weight).
pub fn free(gpu: usize, host: u32, start: i64, weight: i64) -> Interval {
    Interval {
        gpu,
        host,
        start,
        weight,
        ..Interval::default()
    }
}

/// A held interval with device activity `util` (None: not measured).
pub fn held(gpu: usize, host: u32, start: i64, weight: i64, util: Option<f64>) -> Interval {
    Interval {
        held: true,
        idle: util.is_some_and(|u| u < 0.01),
        activity: crate::metric::Activity::default().with(crate::metric::DEVICE_UTIL, util),
        ..free(gpu, host, start, weight)
    }
}
