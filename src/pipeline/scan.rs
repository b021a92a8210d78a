//! `scan` as a pipeline path: sample this node's GPUs through NVML (for a
//! duration, or around a command), keep the samples, audit them as `report`
//! does, and add who holds each card. The live source's readings become plain
//! numbers here, at the edge, before audit/ sees them.
use super::AuditOptions;
use crate::audit::calculator::DeclaredWork;
use crate::audit::model::{Note, Report, Warning};
use crate::audit::scan::{
    Holder, ScanDetail, ScanMigParent, ScanObserved, UnitObserved, UnitSample,
};
use crate::catalog::Dtype;
use crate::samples::{Quality, SampleTable, col};
use crate::source::live::bracket::{Bracket, Signals, signal_name};
use crate::source::live::nvml::{NvmlSampler, open};
use crate::source::live::process_owner::ProcFs;
use crate::source::live::{self as sampling, Hooks, Plan, Reading, ScanData};
use anyhow::{Result, bail};
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

/// A scan's options, typed: what to sample, how, and how to audit it.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// the node's name ("" when unknown: "this node")
    pub host: String,
    /// how long to sample when no command is given
    pub duration: Duration,
    pub interval: Duration,
    /// one sample: a snapshot
    pub once: bool,
    /// `scan -- CMD`: sample for exactly its lifetime, --pre before and --post after
    pub command: Vec<String>,
    pub pre: Duration,
    pub post: Duration,
    pub nvml_lib: Option<PathBuf>,
    pub nvml_timeout: Duration,
    /// refuse to run a command unmonitored when sampling cannot start
    pub require_nvml: bool,
    /// where the samples are written before the audit
    pub out: Option<PathBuf>,
    pub held_mem_bytes: u64,
    pub audit: AuditOptions,
    /// the job's declared work and the dtype whose peaks the live MFU uses
    pub work: Option<(DeclaredWork, Dtype)>,
}

/// What a scan tells the person watching while it runs.
pub trait ScanEvents {
    /// sampling begins: `ticks` samples, or until stopped (None)
    fn sampling(&mut self, ticks: Option<usize>);
    fn tick(&mut self, n: usize);
    /// sampling ended
    fn sampled(&mut self);
    /// a warning a person must see now (a GPU failed, a signal stopped the scan)
    fn warning(&mut self, w: &Warning);
}

/// How a scan ended.
pub enum ScanOutcome {
    /// sampling could not start before a command did: it runs unmonitored
    Unmonitored(anyhow::Error),
    Scanned(Box<Scanned>),
}

/// A finished scan: the report of its samples, the per-GPU detail, the command's exit.
pub struct Scanned {
    pub report: Report,
    pub detail: ScanDetail,
    /// the wrapped command's exit status (None: no command)
    pub status: Option<ExitStatus>,
    /// the labels of the GPUs that failed mid-scan (their remaining samples are missing)
    pub failed: Vec<String>,
}

/// Sample, keep, audit: the one path of `gpuaudit scan`.
pub fn scan(opts: &ScanOptions, events: &mut dyn ScanEvents) -> Result<ScanOutcome> {
    let (data, mut bracket) = match sample(opts, events)? {
        Sampling::Done(done) => *done,
        Sampling::Unmonitored(why) => return Ok(ScanOutcome::Unmonitored(why)),
    };
    let mut warnings = data.warnings();
    for w in &warnings {
        events.warning(w);
    }
    if let Some(sig) = bracket.stopped_by {
        let w = Warning::ScanStopped {
            signal: signal_name(sig),
            ticks: data.ticks,
        };
        events.warning(&w);
        warnings.push(w);
    }
    if data.rows.is_empty() {
        let _ = bracket.finish();
        bail!("no samples: every GPU failed before its first sample");
    }
    let table = sample_table(&data, opts.held_mem_bytes, warnings.clone())?;
    // The samples go to disk first: a stopped scan keeps them even if what follows fails.
    if let Some(out) = &opts.out {
        crate::source::write::write_samples(&table.df, out)?;
    }
    // The command's exit, or an error running it (exit 2, after the samples are safe).
    let status = bracket.finish()?;
    // A GPU that failed after its first sample stands for one interval, not for the
    // hour a snapshot stands for; only --once is a snapshot.
    let last_weight = (!opts.once && opts.audit.config.weights.interval_us.is_none())
        .then_some(opts.interval.as_micros() as i64);
    let report = super::sampled_report(&table, &opts.audit, last_weight)?;
    let detail = crate::audit::scan::build(
        &observed(&data, opts.held_mem_bytes),
        &report,
        opts.interval.as_secs_f64(),
        warnings,
        opts.work,
    )?;
    let failed = (data.dropped.keys())
        .map(|u| data.units[*u].label.clone())
        .collect();
    Ok(ScanOutcome::Scanned(Box::new(Scanned {
        report,
        detail,
        status,
        failed,
    })))
}

enum Sampling {
    Done(Box<(ScanData, Bracket)>),
    Unmonitored(anyhow::Error),
}

/// NVML sampled each tick of the plan, around the command when there is one.
fn sample(opts: &ScanOptions, events: &mut dyn ScanEvents) -> Result<Sampling> {
    let wraps = !opts.command.is_empty();
    let plan = if wraps {
        Plan::until_stopped(opts.interval)
    } else {
        Plan::new(opts.duration, opts.interval, opts.once)
    };
    let nvml = match open(opts.nvml_lib.as_deref(), opts.nvml_timeout) {
        Ok(nvml) => nvml,
        Err(e) if wraps && !opts.require_nvml => return Ok(Sampling::Unmonitored(e)),
        Err(e) => return Err(e),
    };
    let signals = Signals::catch()?;
    let mut bracket = if wraps {
        Bracket::command(opts.command.clone(), opts.pre, opts.post)
    } else {
        Bracket::plain()
    };
    events.sampling(plan.ticks);
    let mut sampler = NvmlSampler::new(nvml, opts.nvml_timeout);
    let mut procfs = ProcFs::default();
    let mut on_tick = |n| events.tick(n);
    let sampled = sampling::run(
        &mut sampler,
        plan,
        &opts.host,
        Hooks {
            now_us: &mut || chrono::Utc::now().timestamp_micros(),
            wait_until: &mut |t| bracket.wait_until(t, &signals),
            owner: &mut |pid| procfs.owner(pid),
            on_tick: &mut on_tick,
        },
    );
    events.sampled();
    // Its readers end and free their GPM samples; NVML is never shut down (leaked above).
    drop(sampler);
    match sampled {
        Ok(data) => Ok(Sampling::Done(Box::new((data, bracket)))),
        // Sampling could not start (no GPU) before the command did: it runs unmonitored.
        Err(e) => match bracket.finish() {
            Ok(None) if wraps && !opts.require_nvml => Ok(Sampling::Unmonitored(e)),
            _ => Err(e),
        },
    }
}

/// The samples as the canonical table, with what could not be read noted.
fn sample_table(data: &ScanData, held_mem: u64, warnings: Vec<Warning>) -> Result<SampleTable> {
    let frame = sampling::to_frame(data, held_mem)?;
    let mut quality = Quality {
        warnings,
        ..Default::default()
    };
    for (unit, reasons) in &data.unsupported {
        for (metric, why) in reasons {
            quality.notes.push(Note::MetricUnsupported {
                gpu: data.units[*unit].label.clone(),
                metric: metric.to_string(),
                why: why.clone(),
            });
        }
    }
    quality.notes.dedup();
    let source_name = format!(
        "nvml scan of {}",
        if data.host.is_empty() {
            "this node"
        } else {
            data.host.as_str()
        }
    );
    quality
        .warnings
        .extend(sampling::held_without_process(data, &source_name, held_mem));
    crate::source::from_frame(&source_name, frame, &[], quality)
}

/// The live source's readings as plain numbers, a unit at a time.
fn observed(data: &ScanData, held_mem: u64) -> ScanObserved {
    let units = (data.units.iter().enumerate())
        .map(|(i, unit)| {
            let rows: Vec<_> = data.rows.iter().filter(|r| r.unit == i).collect();
            let last = rows.last();
            let holders = last
                .map(|r| {
                    let procs = r.reading.processes.as_deref().unwrap_or(&[]);
                    (procs.iter().zip(&r.owners))
                        .map(|(p, o)| Holder {
                            pid: o.pid,
                            user: o.user.clone(),
                            command: o.command.clone(),
                            job: o.job.clone(),
                            gpu_mem_bytes: p.used_mem_bytes,
                            sm_util: p.sm_util,
                        })
                        .collect()
                })
                .unwrap_or_default();
            UnitObserved {
                gpu: unit.id.clone(),
                label: unit.label.clone(),
                uuid: unit.uuid.clone(),
                model: unit.model.clone(),
                mig_parent: unit.mig_parent.clone(),
                samples: rows.iter().map(|r| unit_sample(&r.reading)).collect(),
                held_at_last: last.and_then(|r| sampling::is_held(&r.reading, held_mem)),
                holders,
                unsupported: (data.unsupported.get(&i))
                    .map(|m| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
                    .unwrap_or_default(),
                failed: data.dropped.get(&i).map(|(_, e)| e.clone()),
            }
        })
        .collect();
    let mig_parents = (data.mig_parents.iter())
        .map(|p| ScanMigParent {
            label: p.label.clone(),
            uuid: p.uuid.clone(),
            model: p.model.clone(),
            instances: p.instances,
            power_w: p.power_w,
            device_util: None,
            device_util_reason: p.device_util_reason.clone(),
        })
        .collect();
    ScanObserved {
        host: data.host.clone(),
        ticks: data.ticks,
        units,
        mig_parents,
    }
}

fn unit_sample(r: &Reading) -> UnitSample {
    UnitSample {
        device_util: r.device_util,
        gr_engine_active: r.gpm.get(col::GR_ENGINE_ACTIVE),
        sm_active: r.gpm.get(col::SM_ACTIVE),
        sm_occupancy: r.gpm.get(col::SM_OCCUPANCY),
        tensor_active: r.gpm.get(col::TENSOR_ACTIVE),
        dram_active: r.gpm.get(col::DRAM_ACTIVE),
        mem_used_bytes: r.mem_used_bytes,
        mem_total_bytes: r.mem_total_bytes,
        power_w: r.power_w,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::live::process_owner::Owner;
    use crate::source::live::{ProcSample, Row, UnitInfo};

    fn unit(id: &str) -> UnitInfo {
        UnitInfo {
            id: id.to_string(),
            label: id.to_string(),
            uuid: None,
            model: Some("NVIDIA H100 80GB HBM3".to_string()),
            mig_parent: None,
        }
    }

    fn row(unit: usize, util: f64, pid: Option<u32>) -> Row {
        let mut gpm = crate::source::live::Gpm::default();
        gpm.set(col::SM_ACTIVE, util / 2.0);
        Row {
            unit,
            time_us: 0,
            reading: Reading {
                device_util: Some(util),
                mem_used_bytes: Some(1 << 30),
                gpm,
                processes: Some(
                    pid.into_iter()
                        .map(|pid| ProcSample {
                            pid,
                            used_mem_bytes: Some(1 << 30),
                            sm_util: Some(util),
                        })
                        .collect(),
                ),
                ..Reading::default()
            },
            owners: pid
                .into_iter()
                .map(|pid| Owner {
                    pid,
                    user: "alice".to_string(),
                    command: Some("python train.py".to_string()),
                    job: Some("4242".to_string()),
                })
                .collect(),
        }
    }

    #[test]
    fn readings_become_plain_samples_at_the_edge() {
        let mut data = ScanData {
            host: "node1".to_string(),
            units: vec![unit("0"), unit("1")],
            rows: vec![row(0, 0.2, None), row(0, 0.6, Some(7)), row(1, 0.0, None)],
            ticks: 2,
            ..ScanData::default()
        };
        data.dropped.insert(1, (1, "GPU is lost".to_string()));
        data.unsupported
            .insert(1, [("power_w", "NotSupported".to_string())].into());
        let o = observed(&data, 512 << 20);
        assert_eq!((o.host.as_str(), o.ticks, o.units.len()), ("node1", 2, 2));
        let (a, b) = (&o.units[0], &o.units[1]);
        assert_eq!(a.samples.len(), 2);
        assert_eq!(a.samples[1].device_util, Some(0.6));
        assert_eq!(a.samples[1].sm_active, Some(0.3));
        assert_eq!(a.samples[1].tensor_active, None);
        // held at its last sample: a process holds it, named with its owner
        assert_eq!(a.held_at_last, Some(true));
        assert_eq!(a.holders.len(), 1);
        assert_eq!(
            (
                a.holders[0].pid,
                a.holders[0].user.as_str(),
                a.holders[0].job.as_deref()
            ),
            (7, "alice", Some("4242"))
        );
        assert_eq!(a.holders[0].gpu_mem_bytes, Some(1 << 30));
        // no process, 1 GiB used above the 512 MiB limit: held, nobody named
        assert_eq!(b.held_at_last, Some(true));
        assert!(b.holders.is_empty());
        assert_eq!(b.failed.as_deref(), Some("GPU is lost"));
        assert_eq!(
            b.unsupported.get("power_w").map(String::as_str),
            Some("NotSupported")
        );
    }
}
