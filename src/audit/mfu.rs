//! MFU of declared jobs, from the canonical samples (docs/semantics.md §4,
//! "useful"): a job's achieved model FLOP/s over the summed dense peaks of the
//! GPUs it held, over its held time. Pure: nothing here reads files or prints.
#[cfg(test)]
use super::TableChunks;
use super::engine::Engine;
use super::folds::mfu::JobHeld;
use super::{AuditConfig, ChunkSource, HeldRule, held_rule_from};
use crate::audit::model::{JobMfuValue, Note, Warning};
use crate::catalog::Dtype;
use crate::catalog::peaks as hardware;
#[cfg(test)]
use crate::samples::SampleTable;
use crate::samples::col;
use anyhow::{Result, bail};
use std::collections::{BTreeMap, BTreeSet};

/// What a job declares it did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Work {
    /// achieved model FLOP/s of the whole job (flops_per_token × tokens_per_sec, or achieved_tflops)
    Rate(f64),
    /// model FLOPs over the job's whole run
    Total(f64),
}

/// One job's declaration (one row of a jobs file).
#[derive(Debug, Clone, PartialEq)]
pub struct JobDeclaration {
    pub job: String,
    pub work: Work,
    pub dtype: Dtype,
    /// a dense peak per GPU (TFLOP/s) that replaces the table, for GPUs it lacks
    pub peak_tflops: Option<f64>,
}

/// A jobs file's declarations, an input of the audit; `label` names the file
/// in errors ("--jobs jobs.csv").
#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredJobs {
    pub label: String,
    pub decls: Vec<JobDeclaration>,
    /// the kind each job declares (training, inference, ...), for the jobs section
    pub kinds: BTreeMap<String, crate::audit::diagnosis::jobs::Shape>,
}

/// The MFU of each job whose MFU could be computed, plus what the report should say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobMfu {
    pub mfu: BTreeMap<String, f64>,
    pub warnings: Vec<Warning>,
    pub notes: Vec<Note>,
}

/// Held time per job, weighed exactly as the audit weighs samples (§2, §3):
/// the engine's two passes with only the MFU fold listening.
fn held_by_job(
    source: &dyn ChunkSource,
    cfg: &AuditConfig,
    rule: HeldRule,
) -> Result<BTreeMap<String, JobHeld>> {
    let has = |c: &str| source.has(c);
    let mut engine = Engine::new(cfg, rule, super::present_from(&has)).collecting_mfu();
    source.for_each_chunk(true, &mut |df| engine.observe_steps(df))?;
    engine.finish_steps();
    source.for_each_chunk(false, &mut |df| engine.add(df))?;
    Ok(engine.finish_mfu())
}

/// How many job names a note or warning lists.
const LISTED: usize = 10;

/// MFU of every declared job within cfg's window, from an in-memory table.
#[cfg(test)]
pub fn job_mfu(table: &SampleTable, cfg: &AuditConfig, decls: &[JobDeclaration]) -> Result<JobMfu> {
    declared_mfu(&TableChunks::new(table)?, cfg, decls)
}

/// MFU of every declared job within cfg's window (`model_flops` totals over the
/// job's whole recorded run, since a total cannot be cut by a window).
pub fn declared_mfu(
    source: &dyn ChunkSource,
    cfg: &AuditConfig,
    decls: &[JobDeclaration],
) -> Result<JobMfu> {
    if !source.has(col::JOB) {
        let missing = crate::samples::missing_column(col::JOB, None);
        bail!("the samples have {missing} to find each declared job's GPUs");
    }
    let rule = held_rule_from(&|c| source.has(c), &source.sources(), cfg)?;
    let windowed = held_by_job(source, cfg, rule)?;
    let any_total = decls.iter().any(|d| matches!(d.work, Work::Total(_)));
    let has_window = cfg.since.is_some() || cfg.until.is_some();
    let whole = if any_total && has_window {
        let mut unwindowed = cfg.clone();
        (unwindowed.since, unwindowed.until) = (None, None);
        Some(held_by_job(source, &unwindowed, rule)?)
    } else {
        None
    };
    Ok(mfu_of(&windowed, whole.as_ref(), decls))
}

/// Jobs by (model or "(no model)", dtype) without a dense peak: (held samples, jobs).
type NoPeak = BTreeMap<(String, Dtype), (u64, BTreeSet<String>)>;

/// The peak FLOPs the job's GPUs could have done over its held GPU-time; None
/// when a model has no peak (noted in `no_peak`, every such model) or nothing
/// was held.
fn capacity_of(d: &JobDeclaration, held: &JobHeld, no_peak: &mut NoPeak) -> Option<f64> {
    let mut capacity = 0.0;
    let mut complete = true;
    for (m, ticks) in &held.ticks_by_model {
        let secs = *ticks as f64 / super::interval::TICKS_PER_SECOND as f64;
        let peak = d.peak_tflops.or_else(|| {
            m.as_deref()
                .and_then(|m| hardware::lookup(m))
                .and_then(|c| c.peak(d.dtype))
        });
        match peak {
            Some(p) => capacity += secs * p * 1e12,
            None => {
                complete = false;
                let key = (
                    m.clone().unwrap_or_else(|| "(no model)".to_string()),
                    d.dtype,
                );
                let e = no_peak.entry(key).or_default();
                e.0 += held.samples_by_model.get(m).copied().unwrap_or(0);
                e.1.insert(d.job.clone());
            }
        }
    }
    (complete && capacity > 0.0).then_some(capacity)
}

/// The MFU of each declaration from the held time of its job.
fn mfu_of(
    windowed: &BTreeMap<String, JobHeld>,
    whole: Option<&BTreeMap<String, JobHeld>>,
    decls: &[JobDeclaration],
) -> JobMfu {
    let mut out = JobMfu::default();
    let mut absent: Vec<String> = Vec::new();
    let mut over_one: Vec<JobMfuValue> = Vec::new();
    let mut no_peak = NoPeak::new();
    for d in decls {
        let Some(in_window) = windowed.get(&d.job) else {
            absent.push(d.job.clone());
            continue;
        };
        let held = match (d.work, whole) {
            (Work::Total(_), Some(w)) => w.get(&d.job).unwrap_or(in_window),
            _ => in_window,
        };
        let Some(capacity) = capacity_of(d, held, &mut no_peak) else {
            continue;
        };
        let mfu = match d.work {
            Work::Rate(flops_per_sec) => {
                flops_per_sec
                    * (held.wall.covered() as f64 / super::interval::TICKS_PER_SECOND as f64)
                    / capacity
            }
            Work::Total(flops) => flops / capacity,
        };
        if mfu > 1.0 {
            over_one.push(JobMfuValue {
                job: d.job.clone(),
                mfu,
            });
        }
        out.mfu.insert(d.job.clone(), mfu);
    }

    if !absent.is_empty() {
        out.warnings.push(Warning::DeclaredJobsAbsent {
            examples: absent.iter().take(LISTED).cloned().collect(),
            count: absent.len(),
        });
    }
    for ((model, dtype), (samples, jobs)) in &no_peak {
        out.warnings.push(Warning::NoDensePeak {
            model: model.clone(),
            dtype: dtype.name().to_string(),
            samples: *samples,
            jobs: jobs.iter().take(LISTED).cloned().collect(),
            jobs_count: jobs.len(),
        });
    }
    if !over_one.is_empty() {
        out.warnings.push(Warning::MfuOverOne { jobs: over_one });
    }
    let declared: BTreeSet<&str> = decls.iter().map(|d| d.job.as_str()).collect();
    let undeclared: Vec<String> = windowed
        .keys()
        .filter(|j| !declared.contains(j.as_str()))
        .cloned()
        .collect();
    if !undeclared.is_empty() {
        out.notes.push(Note::UndeclaredJobs {
            examples: undeclared.iter().take(LISTED).cloned().collect(),
            count: undeclared.len(),
        });
    }
    if whole.is_some() {
        out.notes.push(Note::WholeJobMfu);
    }
    out
}

/// Live MFU of one node (for `scan`): declared model FLOP/s over the summed dense
/// peaks of the node's GPUs. Any GPU without a peak is an error naming it.
pub fn node_mfu(flops_per_sec: f64, models: &[&str], dtype: Dtype) -> Result<f64> {
    if models.is_empty() {
        bail!("no GPUs to measure MFU against");
    }
    let mut peak = 0.0;
    for m in models {
        peak += hardware::peak_tflops(m, dtype)? * 1e12;
    }
    Ok(flops_per_sec / peak)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::prices::PriceBook;
    use crate::source::from_frame;
    use polars::prelude::*;

    const H: i64 = 3_600 * crate::audit::interval::TICKS_PER_SECOND;

    /// Two H100s held by job "a" for 2 h (hourly samples), one L4 held by "b" for 2 h.
    fn table() -> Result<SampleTable> {
        let mut time = Vec::new();
        let mut gpu = Vec::new();
        let mut model = Vec::new();
        let mut job = Vec::new();
        for (g, m, j) in [
            ("0", "NVIDIA H100 80GB HBM3", "a"),
            ("1", "NVIDIA H100 80GB HBM3", "a"),
            ("2", "NVIDIA L4", "b"),
        ] {
            for k in 0..2 {
                time.push(1_780_000_000_000_000i64 + k * H);
                gpu.push(g);
                model.push(m);
                job.push(j);
            }
        }
        let df = DataFrame::new_infer_height(vec![
            Column::new("time".into(), time),
            Column::new("gpu".into(), gpu),
            Column::new("model".into(), model),
            Column::new("job".into(), job),
        ])?;
        from_frame("t", df, &[], Default::default())
    }

    fn cfg() -> Result<AuditConfig> {
        Ok(AuditConfig::new(PriceBook::new(Some(1.0), None, false)?))
    }

    #[test]
    fn rate_over_summed_peaks() -> Result<()> {
        let decls = vec![
            JobDeclaration {
                job: "a".into(),
                work: Work::Rate(2.0 * 989.4e12 * 0.4),
                dtype: Dtype::Bf16,
                peak_tflops: None,
            },
            JobDeclaration {
                job: "b".into(),
                work: Work::Total(121e12 * 7200.0 * 0.25),
                dtype: Dtype::Bf16,
                peak_tflops: None,
            },
        ];
        let r = job_mfu(&table()?, &cfg()?, &decls)?;
        assert!((r.mfu["a"] - 0.4).abs() < 1e-12);
        assert!((r.mfu["b"] - 0.25).abs() < 1e-12);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        Ok(())
    }

    #[test]
    fn absent_jobs_and_unknown_peaks_warn_by_name() -> Result<()> {
        let decls = vec![
            JobDeclaration {
                job: "ghost".into(),
                work: Work::Rate(1e12),
                dtype: Dtype::Bf16,
                peak_tflops: None,
            },
            JobDeclaration {
                job: "b".into(),
                work: Work::Rate(1e12),
                dtype: Dtype::Fp64,
                peak_tflops: None,
            },
        ];
        let r = job_mfu(&table()?, &cfg()?, &decls)?;
        assert!(r.mfu.is_empty());
        assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
        let w: Vec<String> = r
            .warnings
            .iter()
            .map(crate::render::notes::warning_text)
            .collect();
        assert!(w[0].contains("1 declared job(s)") && w[0].contains("'ghost'"));
        assert!(
            w[1].contains("fp64")
                && w[1].contains("'NVIDIA L4'")
                && w[1].contains("2 held samples")
        );
        let note = crate::render::notes::note_text(&r.notes[0]);
        assert!(note.contains("'a'"), "{:?}", r.notes);
        Ok(())
    }

    #[test]
    fn peak_override_and_window() -> Result<()> {
        let mut c = cfg()?;
        c.until = Some(1_780_000_000_000_000 + H);
        let decls = vec![JobDeclaration {
            job: "a".into(),
            work: Work::Rate(100e12),
            dtype: Dtype::Bf16,
            peak_tflops: Some(500.0),
        }];
        let r = job_mfu(&table()?, &c, &decls)?;
        // 100 TFLOP/s over 2 × 500 TFLOP/s
        assert!((r.mfu["a"] - 0.1).abs() < 1e-12);
        Ok(())
    }

    #[test]
    fn node() -> Result<()> {
        let m = node_mfu(
            989.4e12,
            &["NVIDIA H100 80GB HBM3", "NVIDIA H100 80GB HBM3"],
            Dtype::Bf16,
        )?;
        assert!((m - 0.5).abs() < 1e-12);
        assert!(node_mfu(1.0, &["NVIDIA A10G"], Dtype::Bf16).is_err());
        Ok(())
    }
}
