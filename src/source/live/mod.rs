//! Live sampling of the local GPUs: the sampling loop, behind a small [`Sampler`]
//! trait (NVML in production, an in-memory stand-in in unit tests), and the
//! canonical sample frame the samples become. Nothing here prints.
use crate::samples::{Kind, col, dtype_of};
use anyhow::Result;
use polars::prelude::*;
use process_owner::Owner;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

pub mod bracket;
pub mod nvml;
pub mod process_owner;

/// A canonical column and how to read it off a reading.
type Getter<T> = (&'static str, fn(&Reading) -> Option<T>);

/// One sampled unit: a GPU, or a MIG instance (its own unit).
#[derive(Debug, Clone, PartialEq)]
pub struct UnitInfo {
    /// the canonical `gpu` id: the UUID, or `<parent uuid>/<gi>/<ci>` for a MIG instance
    pub id: String,
    /// how a person names it on this node: the NVML index, or `<index>/<gi>/<ci>`
    pub label: String,
    pub uuid: Option<String>,
    pub model: Option<String>,
    /// the parent GPU's label, for a MIG instance
    pub mig_parent: Option<String>,
}

/// A GPU in MIG mode: listed for the operator, never a sampled unit itself.
#[derive(Debug, Clone, PartialEq)]
pub struct MigParent {
    pub label: String,
    pub uuid: Option<String>,
    pub model: Option<String>,
    pub instances: usize,
    pub power_w: Option<f64>,
    /// why its device activity is n/a
    pub device_util_reason: String,
}

/// Chip activity from two consecutive GPM samples, as fractions 0..1: one
/// value per registry metric with a GPM id, in registry order.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Gpm(pub [Option<f64>; crate::metric::GPM]);

impl Gpm {
    /// The reading of canonical column `column` (None: not a GPM metric, or not read).
    pub fn get(&self, column: &str) -> Option<f64> {
        crate::metric::gpm_index(column).and_then(|i| self.0[i])
    }

    /// Record `v` for canonical column `column` (a registry GPM metric).
    pub fn set(&mut self, column: &str, v: f64) {
        if let Some(i) = crate::metric::gpm_index(column) {
            self.0[i] = Some(v);
        }
    }
}

/// A process on a unit at one tick.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcSample {
    pub pid: u32,
    pub used_mem_bytes: Option<u64>,
    /// per-process SM utilization (fraction), where NVML reports it
    pub sm_util: Option<f64>,
}

/// Everything read from one unit at one tick; None = not measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reading {
    pub mem_used_bytes: Option<u64>,
    pub mem_total_bytes: Option<u64>,
    pub device_util: Option<f64>,
    pub power_w: Option<f64>,
    pub gpm: Gpm,
    /// None when the process list could not be read
    pub processes: Option<Vec<ProcSample>>,
    /// metric -> why it is missing (NotSupported and the like)
    pub unsupported: Vec<(&'static str, String)>,
}

/// Where samples come from.
pub trait Sampler {
    /// The units to sample, once, before the first tick (takes GPM baselines).
    fn units(&mut self) -> Result<Vec<UnitInfo>>;
    /// GPUs in MIG mode, listed but not sampled.
    fn mig_parents(&self) -> Vec<MigParent> {
        Vec::new()
    }
    /// One reading of unit `i`. An error (GPU lost, a field that fails) ends that unit's scan.
    fn read(&mut self, i: usize) -> Result<Reading>;
}

/// How long and how often.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// None: until the waiting hook says stop (a wrapped command's lifetime, a signal)
    pub ticks: Option<usize>,
    pub interval: Duration,
}

impl Plan {
    /// `--duration` at `--interval`: one tick at the end of each interval (so GPM
    /// and device activity describe the interval), at least one.
    pub fn new(duration: Duration, interval: Duration, once: bool) -> Plan {
        let ticks = if once {
            1
        } else {
            (duration.as_secs_f64() / interval.as_secs_f64())
                .round()
                .max(1.0) as usize
        };
        Plan {
            ticks: Some(ticks),
            interval,
        }
    }

    /// Until stopped: a wrapped command's lifetime and its margins.
    pub fn until_stopped(interval: Duration) -> Plan {
        Plan {
            ticks: None,
            interval,
        }
    }
}

/// Why the waiting hook returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// the deadline came: the next tick on the interval's grid
    Tick,
    /// sample now, off the grid, and go on (a wrapped command starts or ends);
    /// the grid starts again from here
    Now,
    /// sample now and stop (the command and its margin are over, or a signal came)
    Last,
}

/// One row of the scan: a unit's reading at a time, with the owners of its processes.
#[derive(Debug, Clone)]
pub struct Row {
    pub unit: usize,
    pub time_us: i64,
    pub reading: Reading,
    pub owners: Vec<Owner>,
}

/// What a scan saw.
#[derive(Debug, Clone, Default)]
pub struct ScanData {
    pub host: String,
    pub units: Vec<UnitInfo>,
    pub mig_parents: Vec<MigParent>,
    pub rows: Vec<Row>,
    /// unit -> the error that ended its scan, and the tick it happened at
    pub dropped: BTreeMap<usize, (usize, String)>,
    /// unit -> metric -> why it is missing
    pub unsupported: BTreeMap<usize, BTreeMap<&'static str, String>>,
    pub ticks: usize,
}

impl ScanData {
    /// Warnings a person must see: each GPU whose samples stopped.
    pub fn warnings(&self) -> Vec<crate::audit::model::Warning> {
        self.dropped
            .iter()
            .map(|(u, (tick, err))| {
                let unit = &self.units[*u];
                crate::audit::model::Warning::GpuFailed {
                    gpu: unit.label.clone(),
                    uuid: unit.uuid.clone(),
                    tick: tick + 1,
                    ticks: self.ticks,
                    missing: self.ticks - tick,
                    error: err.clone(),
                }
            })
            .collect()
    }
}

/// Hooks the loop calls: time, waiting, owner lookup, progress.
pub struct Hooks<'a> {
    pub now_us: &'a mut dyn FnMut() -> i64,
    /// wait until the deadline, or less when something happens that needs a sample
    pub wait_until: &'a mut dyn FnMut(Instant) -> Wake,
    pub owner: &'a mut dyn FnMut(u32) -> Owner,
    pub on_tick: &'a mut dyn FnMut(usize),
}

/// Sample every unit each tick of the plan (or until the waiting hook says
/// stop). A unit whose read fails is dropped from then on (its remaining
/// samples are missing); the others continue.
pub fn run(
    sampler: &mut dyn Sampler,
    plan: Plan,
    host: &str,
    hooks: Hooks<'_>,
) -> Result<ScanData> {
    let units = sampler.units()?;
    let mut data = ScanData {
        host: host.to_string(),
        mig_parents: sampler.mig_parents(),
        ticks: plan.ticks.unwrap_or(0),
        ..Default::default()
    };
    let mut next = Instant::now() + plan.interval;
    let mut tick = 0usize;
    while plan.ticks.is_none_or(|n| tick < n) {
        let wake = (hooks.wait_until)(next);
        next = if wake == Wake::Tick {
            next + plan.interval
        } else {
            Instant::now() + plan.interval
        };
        for i in 0..units.len() {
            if data.dropped.contains_key(&i) {
                continue;
            }
            match sampler.read(i) {
                Ok(reading) => {
                    let time_us = (hooks.now_us)();
                    for (metric, why) in &reading.unsupported {
                        data.unsupported
                            .entry(i)
                            .or_default()
                            .entry(metric)
                            .or_insert_with(|| why.clone());
                    }
                    let owners = reading
                        .processes
                        .iter()
                        .flatten()
                        .map(|p| (hooks.owner)(p.pid))
                        .collect();
                    data.rows.push(Row {
                        unit: i,
                        time_us,
                        reading,
                        owners,
                    });
                }
                Err(e) => {
                    data.dropped.insert(i, (tick, format!("{e:#}")));
                }
            }
        }
        tick += 1;
        (hooks.on_tick)(tick);
        if wake == Wake::Last {
            break;
        }
    }
    // A scan stopped early (or open-ended) took the ticks it took.
    data.ticks = tick;
    data.units = units;
    Ok(data)
}

/// Held, decided at the scan: a process on the unit; with none visible,
/// activity or memory used above the limit. Unknown (None) only when neither
/// the processes, the activity nor the memory could be read.
pub fn is_held(r: &Reading, held_mem_bytes: u64) -> Option<bool> {
    let has_process = r.processes.as_ref().map(|p| !p.is_empty());
    crate::audit::held::held_by_device(has_process, r.device_util, r.mem_used_bytes, held_mem_bytes)
}

/// Samples held with no process visible (by activity or memory), and their
/// GPUs: the warning "memory; processes not visible".
pub fn held_without_process(
    data: &ScanData,
    source: &str,
    held_mem_bytes: u64,
) -> Option<crate::audit::model::Warning> {
    let mut gpus = std::collections::BTreeSet::new();
    let mut samples = 0u64;
    for row in &data.rows {
        let r = &row.reading;
        let listed = r.processes.as_ref().map(|p| !p.is_empty());
        if crate::audit::held::held_without_visible_process(
            listed,
            r.device_util,
            r.mem_used_bytes,
            held_mem_bytes,
        ) {
            gpus.insert(row.unit);
            samples += 1;
        }
    }
    (samples > 0).then(|| crate::audit::model::Warning::HeldWithoutVisibleProcess {
        source: source.to_string(),
        gpus: gpus.len(),
        samples,
        mib: held_mem_bytes / (1024 * 1024),
    })
}

/// Distinct non-empty labels of the owners, in first-seen order, joined by ",".
fn joined<'a>(values: impl Iterator<Item = Option<&'a str>>) -> Option<String> {
    let mut seen: Vec<&str> = Vec::new();
    for v in values.flatten() {
        if !v.is_empty() && !seen.contains(&v) {
            seen.push(v);
        }
    }
    if seen.is_empty() {
        None
    } else {
        Some(seen.join(","))
    }
}

/// The samples as a frame with canonical column names, for `source::from_frame`.
/// A metric no unit reported is left out (absent, not zero).
pub fn to_frame(data: &ScanData, held_mem_bytes: u64) -> Result<DataFrame> {
    let rows = &data.rows;
    let n = rows.len();
    let unit = |r: &Row| &data.units[r.unit];
    let time = Series::new(
        col::TIME.into(),
        rows.iter().map(|r| r.time_us).collect::<Vec<i64>>(),
    )
    .cast(&dtype_of(Kind::Time))?;
    let mut cols: Vec<Column> = vec![
        time.into_column(),
        Column::new(col::HOST.into(), vec![data.host.as_str(); n]),
        Column::new(
            col::GPU.into(),
            rows.iter().map(|r| unit(r).id.clone()).collect::<Vec<_>>(),
        ),
        Column::new(
            col::MODEL.into(),
            rows.iter()
                .map(|r| unit(r).model.clone())
                .collect::<Vec<_>>(),
        ),
        Column::new(
            col::HELD.into(),
            rows.iter()
                .map(|r| is_held(&r.reading, held_mem_bytes))
                .collect::<Vec<_>>(),
        ),
    ];
    let jobs: Vec<Option<String>> = rows
        .iter()
        .map(|r| joined(r.owners.iter().map(|o| o.job.as_deref())))
        .collect();
    if jobs.iter().any(Option::is_some) {
        cols.push(Column::new(col::JOB.into(), jobs));
    }
    let users: Vec<Option<String>> = rows
        .iter()
        .map(|r| joined(r.owners.iter().map(|o| Some(o.user.as_str()))))
        .collect();
    if users.iter().any(Option::is_some) {
        cols.push(Column::new(col::USER.into(), users));
    }
    let f64_cols: [Getter<f64>; 2] = [
        (col::DEVICE_UTIL, |r| r.device_util),
        (col::POWER_W, |r| r.power_w),
    ];
    // device activity, the registry's GPM metrics, power: canonical column order
    let gpm = crate::metric::gpm_readings().map(|(_, name)| name);
    let names = std::iter::once(col::DEVICE_UTIL)
        .chain(gpm)
        .chain(std::iter::once(col::POWER_W));
    for name in names {
        let get = |r: &Reading| match f64_cols.iter().find(|(n, _)| *n == name) {
            Some((_, get)) => get(r),
            None => r.gpm.get(name),
        };
        let v: Vec<Option<f64>> = rows.iter().map(|r| get(&r.reading)).collect();
        if v.iter().any(Option::is_some) {
            cols.push(Column::new(name.into(), v));
        }
    }
    let u64_cols: [Getter<u64>; 2] = [
        (col::MEM_USED_BYTES, |r| r.mem_used_bytes),
        (col::MEM_TOTAL_BYTES, |r| r.mem_total_bytes),
    ];
    for (name, get) in u64_cols {
        let v: Vec<Option<u64>> = rows.iter().map(|r| get(&r.reading)).collect();
        if v.iter().any(Option::is_some) {
            cols.push(Column::new(name.into(), v));
        }
    }
    Ok(DataFrame::new(n, cols)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An in-memory sampler: unit 0 busy, unit 1 idle and lost at tick 2.
    struct Fake {
        reads: Vec<usize>,
    }

    impl Sampler for Fake {
        fn units(&mut self) -> Result<Vec<UnitInfo>> {
            let unit = |i: usize| UnitInfo {
                id: format!("GPU-{i}"),
                label: i.to_string(),
                uuid: Some(format!("GPU-{i}")),
                model: Some("NVIDIA A100-SXM4-80GB".into()),
                mig_parent: None,
            };
            Ok(vec![unit(0), unit(1)])
        }
        fn read(&mut self, i: usize) -> Result<Reading> {
            self.reads[i] += 1;
            if i == 1 && self.reads[i] == 3 {
                anyhow::bail!("GPU is lost");
            }
            Ok(Reading {
                mem_used_bytes: Some(if i == 0 { 40 << 30 } else { 0 }),
                mem_total_bytes: Some(80 << 30),
                device_util: Some(if i == 0 { 0.9 } else { 0.0 }),
                processes: Some(if i == 0 {
                    vec![ProcSample {
                        pid: 7,
                        used_mem_bytes: Some(40 << 30),
                        sm_util: None,
                    }]
                } else {
                    vec![]
                }),
                unsupported: vec![("sm_active", "no GPM".into())],
                ..Default::default()
            })
        }
    }

    #[test]
    fn a_lost_unit_stops_and_the_others_continue() -> Result<()> {
        let mut fake = Fake { reads: vec![0, 0] };
        let mut t = 0i64;
        let data = run(
            &mut fake,
            Plan {
                ticks: Some(4),
                interval: Duration::ZERO,
            },
            "node1",
            Hooks {
                now_us: &mut || {
                    t += 1000;
                    t
                },
                wait_until: &mut |_| Wake::Tick,
                owner: &mut |pid| Owner {
                    pid,
                    user: "alice".into(),
                    command: None,
                    job: Some("42".into()),
                },
                on_tick: &mut |_| {},
            },
        )?;
        assert_eq!(data.rows.iter().filter(|r| r.unit == 0).count(), 4);
        assert_eq!(data.rows.iter().filter(|r| r.unit == 1).count(), 2);
        assert_eq!(data.dropped.get(&1).map(|d| d.0), Some(2));
        let text = crate::render::notes::warning_text(&data.warnings()[0]);
        assert!(text.contains("GPU 1 (GPU-1) failed at tick 3 of 4"));
        assert_eq!(data.unsupported[&0]["sm_active"], "no GPM");

        let df = to_frame(&data, 1 << 30)?;
        assert_eq!(df.height(), 6);
        assert!(
            df.column(col::SM_ACTIVE).is_err(),
            "a metric nobody reported is absent, not zero"
        );
        let held = df.column(col::HELD)?.bool()?.clone();
        assert_eq!(
            held.iter().collect::<Vec<_>>()[..2],
            [Some(true), Some(false)]
        );
        assert_eq!(df.column(col::JOB)?.str()?.get(0), Some("42"));
        Ok(())
    }

    #[test]
    fn held_needs_a_process_or_memory() {
        let mut r = Reading::default();
        assert_eq!(is_held(&r, 1 << 30), None);
        r.mem_used_bytes = Some(2 << 30);
        assert_eq!(is_held(&r, 1 << 30), Some(true));
        r.mem_used_bytes = Some(1 << 20);
        assert_eq!(is_held(&r, 1 << 30), Some(false));
        r.processes = Some(vec![ProcSample {
            pid: 1,
            used_mem_bytes: None,
            sm_util: None,
        }]);
        assert_eq!(is_held(&r, 1 << 30), Some(true));
    }

    #[test]
    fn plan_rounds_and_once_is_one_tick() {
        assert_eq!(
            Plan::new(Duration::from_secs(5), Duration::from_secs(1), false).ticks,
            Some(5)
        );
        assert_eq!(
            Plan::new(Duration::from_secs(5), Duration::from_secs(1), true).ticks,
            Some(1)
        );
        assert_eq!(
            Plan::new(Duration::from_millis(50), Duration::from_millis(100), false).ticks,
            Some(1)
        );
    }

    #[test]
    fn an_open_plan_samples_until_the_last_wake() -> Result<()> {
        let mut fake = Fake { reads: vec![0, 0] };
        let mut wakes = [Wake::Now, Wake::Tick, Wake::Tick, Wake::Now, Wake::Last].into_iter();
        let mut t = 0i64;
        let data = run(
            &mut fake,
            Plan::until_stopped(Duration::ZERO),
            "node1",
            Hooks {
                now_us: &mut || {
                    t += 1000;
                    t
                },
                wait_until: &mut |_| wakes.next().unwrap_or(Wake::Last),
                owner: &mut |pid| Owner {
                    pid,
                    user: "alice".into(),
                    command: None,
                    job: None,
                },
                on_tick: &mut |_| {},
            },
        )?;
        assert_eq!(data.ticks, 5);
        assert_eq!(data.rows.iter().filter(|r| r.unit == 0).count(), 5);
        // unit 1 is lost at its third read: 2 samples, 3 missing
        assert!(
            crate::render::notes::warning_text(&data.warnings()[0])
                .contains("failed at tick 3 of 5"),
            "{:?}",
            data.warnings()
        );
        Ok(())
    }
}
