//! MFU of declared jobs, from the canonical samples (report-semantics.md §4,
//! "useful"): a job's achieved model FLOP/s over the summed dense peaks of the
//! GPUs it held, over its held time. Pure: nothing here reads files or prints.
use super::{AuditConfig, DEFAULT_SNAPSHOT_MS, HeldRule, held_rule, weights};
use crate::hardware::{self, Dtype};
use crate::samples::{SampleTable, col};
use anyhow::{Context, Result, bail};
use polars::prelude::{DataType, IntoLazy, SortMultipleOptions, lit};
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

/// The MFU of each job whose MFU could be computed, plus what the report should say.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobMfu {
    pub mfu: BTreeMap<String, f64>,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
}

/// What the samples say about one job's held time.
#[derive(Debug, Default)]
struct Held {
    /// [start, end) of every held sample, ms
    intervals: Vec<(i64, i64)>,
    /// held seconds per GPU model (None: the sample had no model)
    seconds_by_model: BTreeMap<Option<String>, f64>,
    samples_by_model: BTreeMap<Option<String>, u64>,
}

/// Wall-clock ms covered by at least one interval.
fn union_ms(mut v: Vec<(i64, i64)>) -> i64 {
    v.sort_unstable();
    let mut total = 0;
    let mut cur: Option<(i64, i64)> = None;
    for (s, e) in v {
        cur = match cur {
            Some((cs, ce)) if s <= ce => Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total += ce - cs;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    if let Some((cs, ce)) = cur {
        total += ce - cs;
    }
    total
}

/// Held time per job, weighed exactly as the audit weighs samples (§2, §3).
fn held_by_job(
    table: &SampleTable,
    cfg: &AuditConfig,
    rule: HeldRule,
    since: Option<i64>,
    until: Option<i64>,
) -> Result<BTreeMap<String, Held>> {
    let mut lf = table.df.clone().lazy();
    let t = polars::prelude::col(col::TIME).cast(DataType::Int64);
    if let Some(s) = since {
        lf = lf.filter(t.clone().gt_eq(lit(s)));
    }
    if let Some(u) = until {
        lf = lf.filter(t.clone().lt(lit(u)));
    }
    let df = lf
        .sort(
            [col::HOST, col::GPU, col::TIME],
            SortMultipleOptions::default().with_maintain_order(true),
        )
        .collect()
        .map_err(anyhow::Error::from)
        .context("sorting samples for MFU")?;
    let (time, host, gpu) = super::engine::sample_keys(&df)?;
    let job = df
        .column(col::JOB)?
        .cast(&DataType::String)?
        .str()?
        .rechunk()
        .into_owned();
    let model = match df.column(col::MODEL) {
        Ok(c) => Some(c.cast(&DataType::String)?.str()?.rechunk().into_owned()),
        Err(_) => None,
    };
    let held_col = match df.column(col::HELD) {
        Ok(c) => Some(c.bool()?.rechunk().into_owned()),
        Err(_) => None,
    };
    let mem = match df.column(col::MEM_USED_BYTES) {
        Ok(c) => Some(c.cast(&DataType::UInt64)?.u64()?.rechunk().into_owned()),
        Err(_) => None,
    };
    let snapshot_ms = cfg.interval_ms.unwrap_or(DEFAULT_SNAPSHOT_MS);
    let mut out: BTreeMap<String, Held> = BTreeMap::new();
    let n = df.height();
    let mut start = 0;
    while start < n {
        let (h, g) = (host.get(start), gpu.get(start));
        let mut end = start + 1;
        while end < n && host.get(end) == h && gpu.get(end) == g {
            end += 1;
        }
        // exact duplicates of (host, gpu, time): the first is kept, as in the audit
        let mut idx = Vec::with_capacity(end - start);
        let mut times: Vec<i64> = Vec::with_capacity(end - start);
        for i in start..end {
            let ti = time.get(i).unwrap_or(0);
            if times.last() != Some(&ti) {
                idx.push(i);
                times.push(ti);
            }
        }
        let w = weights::weights(&times, cfg.max_gap_ms, until, snapshot_ms);
        for (k, &i) in idx.iter().enumerate() {
            let Some(j) = job.get(i).filter(|s| !s.is_empty()) else {
                continue;
            };
            // the job is set here, so the job rule holds
            let held = rule.holds(
                held_col.as_ref().and_then(|c| c.get(i)),
                true,
                mem.as_ref().and_then(|m| m.get(i)),
            );
            let w_ms = w.weight_ms[k];
            if !held || w_ms <= 0 {
                continue;
            }
            let m = model
                .as_ref()
                .and_then(|c| c.get(i))
                .filter(|s| !s.is_empty())
                .map(str::to_string);
            let e = out.entry(j.to_string()).or_default();
            e.intervals.push((times[k], times[k] + w_ms));
            *e.seconds_by_model.entry(m.clone()).or_default() += w_ms as f64 / 1000.0;
            *e.samples_by_model.entry(m).or_default() += 1;
        }
        start = end;
    }
    Ok(out)
}

fn list(names: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut s = names
        .iter()
        .take(SHOWN)
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(", … ({} in all)", names.len()));
    }
    s
}

/// MFU of every declared job within cfg's window (`model_flops` totals over the
/// job's whole recorded run, since a total cannot be cut by a window).
pub fn job_mfu(table: &SampleTable, cfg: &AuditConfig, decls: &[JobDeclaration]) -> Result<JobMfu> {
    if !table.has(col::JOB) {
        bail!(
            "the samples have no job column (job, job_id, pod, exported_pod, hpc_job; or --map YOURS=job) to find each declared job's GPUs"
        );
    }
    let rule = held_rule(table, cfg)?;
    let windowed = held_by_job(table, cfg, rule, cfg.since, cfg.until)?;
    let any_total = decls.iter().any(|d| matches!(d.work, Work::Total(_)));
    let has_window = cfg.since.is_some() || cfg.until.is_some();
    let whole = if any_total && has_window {
        Some(held_by_job(table, cfg, rule, None, None)?)
    } else {
        None
    };

    let mut out = JobMfu::default();
    let mut absent: Vec<String> = Vec::new();
    let mut over_one: Vec<String> = Vec::new();
    // (model or "(no model)", dtype) -> (held samples, jobs)
    let mut no_peak: BTreeMap<(String, Dtype), (u64, BTreeSet<String>)> = BTreeMap::new();
    for d in decls {
        let Some(in_window) = windowed.get(&d.job) else {
            absent.push(d.job.clone());
            continue;
        };
        let held = match (d.work, &whole) {
            (Work::Total(_), Some(w)) => w.get(&d.job).unwrap_or(in_window),
            _ => in_window,
        };
        // peak FLOPs the job's GPUs could have done over its held GPU-time
        let mut capacity = 0.0;
        let mut complete = true;
        for (m, secs) in &held.seconds_by_model {
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
        if !complete || capacity <= 0.0 {
            continue;
        }
        let mfu = match d.work {
            Work::Rate(flops_per_sec) => {
                flops_per_sec * (union_ms(held.intervals.clone()) as f64 / 1000.0) / capacity
            }
            Work::Total(flops) => flops / capacity,
        };
        if mfu > 1.0 {
            over_one.push(format!("'{}' {:.1}%", d.job, mfu * 100.0));
        }
        out.mfu.insert(d.job.clone(), mfu);
    }

    if !absent.is_empty() {
        out.warnings.push(format!(
            "{} declared job(s) have no held samples in the window: {}",
            absent.len(),
            list(&absent)
        ));
    }
    for ((model, dtype), (samples, jobs)) in &no_peak {
        let jobs: Vec<String> = jobs.iter().cloned().collect();
        out.warnings.push(format!(
            "no dense {dtype} peak for model '{model}' ({samples} held samples of job(s) {}): their MFU is n/a; add a peak_tflops column to the jobs file (see `gpuaudit peaks`)",
            list(&jobs)
        ));
    }
    if !over_one.is_empty() {
        out.warnings.push(format!(
            "{} job(s) declare more model FLOPs than their GPUs' dense peak allows (MFU above 100%): {}; check flops_per_token, tokens_per_sec and dtype",
            over_one.len(),
            over_one.join(", ")
        ));
    }
    let declared: BTreeSet<&str> = decls.iter().map(|d| d.job.as_str()).collect();
    let undeclared: Vec<String> = windowed
        .keys()
        .filter(|j| !declared.contains(j.as_str()))
        .cloned()
        .collect();
    if !undeclared.is_empty() {
        out.notes.push(format!(
            "useful: {} held job(s) have no declaration in the jobs file and count as 0 useful: {}",
            undeclared.len(),
            list(&undeclared)
        ));
    }
    if whole.is_some() {
        out.notes.push("useful: MFU of jobs declared by model_flops is taken over all their samples, not only the window".to_string());
    }
    Ok(out)
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
    use crate::prices::PriceBook;
    use crate::source::from_frame;
    use polars::prelude::*;

    const H: i64 = 3_600_000;

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
                time.push(1_780_000_000_000i64 + k * H);
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
        assert!(r.warnings[0].contains("1 declared job(s)") && r.warnings[0].contains("'ghost'"));
        assert!(
            r.warnings[1].contains("fp64")
                && r.warnings[1].contains("'NVIDIA L4'")
                && r.warnings[1].contains("2 held samples")
        );
        assert!(r.notes[0].contains("'a'"), "{:?}", r.notes);
        Ok(())
    }

    #[test]
    fn peak_override_and_window() -> Result<()> {
        let mut c = cfg()?;
        c.until = Some(1_780_000_000_000 + H);
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
    fn union_of_intervals() {
        assert_eq!(union_ms(vec![(0, 10), (5, 15), (20, 30)]), 25);
        assert_eq!(union_ms(vec![]), 0);
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
