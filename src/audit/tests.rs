//! Every rule of docs/semantics.md on tiny hand-made frames with answers
//! computed by hand.
use super::*;
use crate::samples::Quality;
use crate::source::from_frame;
use crate::timeparse::format_time;
use polars::prelude::{Column, DataFrame};

const T0: i64 = 1_700_000_000_000_000; // µs (ticks), a real epoch
const MIN: i64 = super::interval::TICKS_PER_MINUTE;
const HOUR: f64 = super::interval::TICKS_PER_HOUR;

fn table(cols: Vec<Column>) -> Result<SampleTable> {
    let df = DataFrame::new_infer_height(cols)?;
    from_frame("test", df, &[], Quality::default())
}

fn times(mins: &[i64]) -> Column {
    Column::new(
        "time".into(),
        mins.iter().map(|m| T0 + m * MIN).collect::<Vec<i64>>(),
    )
}

fn strs(name: &str, v: &[&str]) -> Column {
    Column::new(name.into(), v.to_vec())
}

fn opt_strs(name: &str, v: &[Option<&str>]) -> Column {
    Column::new(name.into(), v.to_vec())
}

fn f64s(name: &str, v: &[Option<f64>]) -> Column {
    Column::new(name.into(), v.to_vec())
}

fn cfg() -> AuditConfig {
    let mut c = AuditConfig::new(PriceBook::new(Some(2.0), None, false).expect("flat price"));
    c.idle.min_episode_us = 0;
    c
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn weights_gaps_and_the_last_sample() -> Result<()> {
    // one GPU at 0,1,2,12,13 min: step 1 min, max_gap 3 min; 7 min unobserved
    let t = table(vec![
        times(&[0, 1, 2, 12, 13]),
        strs("gpu", &["g"; 5]),
        Column::new("held".into(), vec![true; 5]),
        f64s("device_util", &[Some(1.0); 5]),
    ])?;
    let r = audit(&t, &cfg())?;
    // weights 1,1,3,1,1 minutes = 7 min
    assert!(close(r.layers.observed_gpu_hours, 7.0 / 60.0));
    assert!(close(r.data_quality.unobserved_gpu_hours, 7.0 / 60.0));
    assert!(close(r.window.hours, 14.0 / 60.0)); // 0 .. 13 min + last weight
    assert!(!r.window.snapshot);
    Ok(())
}

#[test]
fn a_single_sample_is_a_snapshot_of_one_hour_or_interval() -> Result<()> {
    let t = table(vec![
        times(&[0, 0]),
        strs("gpu", &["a", "b"]),
        Column::new("held".into(), vec![true, false]),
    ])?;
    let r = audit(&t, &cfg())?;
    assert!(r.window.snapshot);
    assert!(close(r.layers.observed_gpu_hours, 2.0));
    assert!(close(r.layers.held_gpu_hours, 1.0));
    assert!(close(r.cost.held_usd.unwrap_or(f64::NAN), 2.0));
    let mut c = cfg();
    c.weights.interval_us = Some(30 * MIN);
    let r = audit(&t, &c)?;
    assert!(close(r.layers.observed_gpu_hours, 1.0));
    Ok(())
}

#[test]
fn exact_duplicates_are_one_sample_the_busiest_kept_and_counted() -> Result<()> {
    let t = table(vec![
        times(&[0, 0, 1]),
        strs("gpu", &["g", "g", "g"]),
        Column::new("held".into(), vec![true; 3]),
        f64s("device_util", &[Some(0.5), Some(0.9), Some(0.5)]),
    ])?;
    let r = audit(&t, &cfg())?;
    assert_eq!(r.data_quality.duplicates, 1);
    assert_eq!(r.sources.rows_used, 2);
    // the busier of two that disagree is kept, whatever their order: (0.9 + 0.5) / 2
    assert_eq!(r.ratios.active(), Some(0.7));
    assert_eq!(
        r.data_quality.warnings,
        vec![crate::audit::model::Warning::RepeatsDisagree { samples: 1 }]
    );
    Ok(())
}

#[test]
fn held_by_the_held_column() -> Result<()> {
    let t = table(vec![
        times(&[0, 1, 2, 3]),
        strs("gpu", &["g"; 4]),
        Column::new("held".into(), vec![true, true, false, false]),
        opt_strs("job", &[None, None, Some("j"), Some("j")]), // ignored: held column wins
    ])?;
    let r = audit(&t, &cfg())?;
    assert_eq!(r.held_rule.to_string(), "held column");
    assert!(close(r.layers.held_gpu_hours, 2.0 / 60.0));
    Ok(())
}

#[test]
fn held_by_the_job_column() -> Result<()> {
    let t = table(vec![
        times(&[0, 1, 2, 3]),
        strs("gpu", &["g"; 4]),
        opt_strs("job", &[Some("train"), Some(""), None, Some("x")]),
        Column::new("mem_used_bytes".into(), vec![0u64, 5 << 30, 5 << 30, 0]),
    ])?;
    let r = audit(&t, &cfg())?;
    assert!(r.held_rule.to_string().starts_with("job column"));
    assert!(close(r.layers.held_gpu_hours, 2.0 / 60.0)); // empty and null are not held
    Ok(())
}

#[test]
fn held_by_memory_above_the_threshold() -> Result<()> {
    let t = table(vec![
        times(&[0, 1, 2]),
        strs("gpu", &["g"; 3]),
        Column::new("mem_used_bytes".into(), vec![(1u64 << 30) + 1, 1 << 30, 0]),
    ])?;
    let r = audit(&t, &cfg())?;
    assert_eq!(r.held_rule.to_string(), "memory used > 1024 MiB");
    assert!(close(r.layers.held_gpu_hours, 1.0 / 60.0)); // strictly greater
    let mut c = cfg();
    c.held.mem_bytes = 0;
    let r = audit(&t, &c)?;
    assert!(close(r.layers.held_gpu_hours, 2.0 / 60.0));
    Ok(())
}

#[test]
fn no_way_to_tell_held_is_an_error_unless_assumed() -> Result<()> {
    let t = table(vec![
        times(&[0, 1]),
        strs("gpu", &["g"; 2]),
        f64s("device_util", &[Some(0.2), Some(0.4)]),
    ])?;
    let err = audit(&t, &cfg())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("--assume-held"), "{err}");
    let mut c = cfg();
    c.held.assume = true;
    let r = audit(&t, &c)?;
    assert!(close(r.layers.held_gpu_hours, 2.0 / 60.0));
    assert!(close(r.ratios.active().unwrap_or(f64::NAN), 0.3));
    Ok(())
}

#[test]
fn layers_and_ratios_use_only_rows_where_the_metric_is_known() -> Result<()> {
    let t = table(vec![
        times(&[0, 1, 2, 3]),
        strs("gpu", &["g"; 4]),
        Column::new("held".into(), vec![true, true, true, false]),
        f64s("device_util", &[Some(1.0), None, Some(0.5), Some(0.9)]),
        f64s("sm_active", &[Some(0.4), Some(0.2), None, Some(0.9)]),
    ])?;
    let r = audit(&t, &cfg())?;
    let h = 1.0 / 60.0;
    assert!(close(r.layers.held_gpu_hours, 3.0 * h));
    assert!(close(
        r.layers.active_gpu_hours.unwrap_or(f64::NAN),
        1.5 * h
    ));
    assert!(close(r.ratios.active().unwrap_or(f64::NAN), 0.75)); // 1.5 / 2 known rows
    assert!(close(
        r.layers.sm_active_gpu_hours.unwrap_or(f64::NAN),
        0.6 * h
    ));
    assert!(close(r.ratios.sm_active().unwrap_or(f64::NAN), 0.3));
    assert!(close(r.data_quality.held_unknown_activity_gpu_hours, h));
    // tensor and useful are absent columns: null, not 0
    assert_eq!(r.layers.tensor_active_gpu_hours, None);
    assert_eq!(r.layers.useful_gpu_hours, None);
    assert_eq!(r.ratios.tensor_active(), None);
    Ok(())
}

#[test]
fn idle_episodes_break_on_job_change_and_gaps_and_respect_min_idle() -> Result<()> {
    // minutes: 0..=4 idle job a; 5 idle job b; 6 busy; 7,8 idle job b; gap; 20,21 idle job b
    let t = table(vec![
        times(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 20, 21]),
        strs("gpu", &["g"; 11]),
        opt_strs(
            "job",
            &[
                Some("a"),
                Some("a"),
                Some("a"),
                Some("a"),
                Some("a"),
                Some("b"),
                Some("b"),
                Some("b"),
                Some("b"),
                Some("b"),
                Some("b"),
            ],
        ),
        f64s(
            "device_util",
            &[
                Some(0.0),
                Some(0.0),
                Some(0.005),
                Some(0.0),
                Some(0.0),
                Some(0.0),
                Some(0.5),
                Some(0.0),
                Some(0.0),
                Some(0.0),
                Some(0.0),
            ],
        ),
    ])?;
    let mut c = cfg();
    c.weights.max_gap_us = Some(3 * MIN);
    let r = audit(&t, &c)?;
    let mut hours: Vec<(String, f64, chrono::DateTime<chrono::Utc>)> = r
        .idle_episodes
        .iter()
        .map(|e| (e.job.clone().unwrap_or_default(), e.hours * 60.0, e.start))
        .collect();
    hours.sort_by_key(|h| h.2);
    let got: Vec<(String, i64)> = hours
        .iter()
        .map(|(j, h, _)| (j.clone(), h.round() as i64))
        .collect();
    // a: 5 min; b@5: 1 min; b@7..8: 1 + 3 (weight capped at max_gap) = 4 min; b@20..21: 2 min
    assert_eq!(
        got,
        vec![
            ("a".into(), 5),
            ("b".into(), 1),
            ("b".into(), 4),
            ("b".into(), 2)
        ]
    );
    assert!(close(
        r.layers.idle_held_gpu_hours.unwrap_or(f64::NAN),
        12.0 / 60.0
    ));
    let first = r
        .idle_episodes
        .iter()
        .find(|e| e.job.as_deref() == Some("a"))
        .map(|e| crate::timeparse::rfc3339(&e.end));
    assert_eq!(first.as_deref(), Some(format_time(T0 + 5 * MIN).as_str()));
    // --min-idle 3m lists only the 5 and 4 minute episodes; hours still count
    c.idle.min_episode_us = 3 * MIN;
    let r = audit(&t, &c)?;
    assert_eq!(r.idle_episodes.len(), 2);
    assert!(close(
        r.layers.idle_held_gpu_hours.unwrap_or(f64::NAN),
        12.0 / 60.0
    ));
    Ok(())
}

#[test]
fn since_and_until_clip_before_weights() -> Result<()> {
    let t = table(vec![
        times(&[0, 10, 20, 30, 40]),
        strs("gpu", &["g"; 5]),
        Column::new("held".into(), vec![true; 5]),
    ])?;
    let mut c = cfg();
    c.since = Some(T0 + 10 * MIN);
    c.until = Some(T0 + 35 * MIN);
    let r = audit(&t, &c)?;
    // kept 10, 20, 30; weights 10, 10, min(10, until - 30 = 5) = 25 min
    assert_eq!(r.data_quality.rows_outside_window, 2);
    assert!(close(r.layers.observed_gpu_hours, 25.0 / 60.0));
    assert!(close(r.window.hours, 25.0 / 60.0));
    c.since = Some(T0 + 100 * MIN);
    c.until = None;
    assert!(audit(&t, &c).is_err());
    Ok(())
}

#[test]
fn unpriced_models_give_no_dollars_not_zero() -> Result<()> {
    let t = table(vec![
        times(&[0, 60, 0, 60]),
        strs("gpu", &["a", "a", "b", "b"]),
        strs(
            "model",
            &[
                "NVIDIA H100 80GB HBM3",
                "NVIDIA H100 80GB HBM3",
                "Mystery GPU",
                "Mystery GPU",
            ],
        ),
        Column::new("held".into(), vec![true; 4]),
        f64s("device_util", &[Some(0.0); 4]),
    ])?;
    let mut c = AuditConfig::new(PriceBook::new(None, None, true)?);
    c.idle.min_episode_us = 0;
    let r = audit(&t, &c)?;
    assert!(close(r.cost.held_usd.unwrap_or(f64::NAN), 2.0 * 3.0)); // 2 h of H100 at $3
    assert!(close(r.cost.unpriced_gpu_hours, 2.0));
    assert_eq!(r.cost.unpriced_models, vec!["Mystery GPU".to_string()]);
    let mystery = r.idle_episodes.iter().find(|e| e.gpu == "b").map(|e| e.usd);
    assert_eq!(mystery, Some(None));
    // nothing priced at all: dollars are null
    let c = AuditConfig {
        ..AuditConfig::new(PriceBook::new(None, None, false)?)
    };
    let r = audit(&t, &c)?;
    assert_eq!(r.cost.held_usd, None);
    assert_eq!(r.cost.idle_held_usd, None);
    Ok(())
}

#[test]
fn dollars_idle_unallocated_not_useful_and_run_rate() -> Result<()> {
    // two GPUs, one hour each at 30-min steps; a held busy (tensor 0.25), b not held
    let t = table(vec![
        times(&[0, 30, 0, 30]),
        strs("gpu", &["a", "a", "b", "b"]),
        Column::new("held".into(), vec![true, true, false, false]),
        f64s("device_util", &[Some(0.0), Some(1.0), Some(0.0), Some(0.0)]),
        f64s("tensor_active", &[Some(0.0), Some(0.5), None, None]),
    ])?;
    let r = audit(&t, &cfg())?; // $2 per GPU-hour
    assert!(close(r.cost.observed_usd.unwrap_or(f64::NAN), 4.0));
    assert!(close(r.cost.held_usd.unwrap_or(f64::NAN), 2.0));
    assert!(close(r.cost.idle_held_usd.unwrap_or(f64::NAN), 1.0));
    assert!(close(r.cost.unallocated_usd.unwrap_or(f64::NAN), 2.0));
    // not useful = 2 - (0.5 h x $2 x 0 + 0.5 h x $2 x 0.5) = 1.5
    assert!(close(r.cost.not_useful_usd.unwrap_or(f64::NAN), 1.5));
    assert_eq!(r.cost.not_useful_basis.as_deref(), Some("tensor_active"));
    // window 1 h: monthly run-rate = figure x 730
    assert!(close(
        r.cost.monthly_run_rate.held_usd.unwrap_or(f64::NAN),
        2.0 * 730.0
    ));
    Ok(())
}

#[test]
fn showback_groups_sum_to_the_fleet() -> Result<()> {
    let t = table(vec![
        times(&[0, 1, 0, 1, 0, 1]),
        strs("gpu", &["a", "a", "b", "b", "c", "c"]),
        opt_strs(
            "job",
            &[Some("j1"), Some("j1"), Some("j2"), Some("j2"), None, None],
        ),
        opt_strs(
            "team",
            &[
                Some("red"),
                Some("red"),
                Some("blue"),
                Some("blue"),
                None,
                None,
            ],
        ),
    ])?;
    let mut c = cfg();
    c.by = Some(GroupBy::Team);
    let r = audit(&t, &c)?;
    let groups = r.groups.unwrap_or_default();
    let keys: Vec<&str> = groups.iter().map(|g| g.key.as_str()).collect();
    assert_eq!(keys, vec!["blue", "red", "(unallocated)"]);
    let sum: f64 = groups.iter().map(|g| g.layers.observed_gpu_hours).sum();
    assert!(close(sum, r.layers.observed_gpu_hours));
    Ok(())
}

#[test]
fn percent_columns_convert_and_out_of_range_values_are_counted() -> Result<()> {
    let t = table(vec![
        times(&[0, 1, 2]),
        strs("gpu", &["g"; 3]),
        Column::new("held".into(), vec![true; 3]),
        f64s(
            "DCGM_FI_DEV_GPU_UTIL",
            &[Some(50.0), Some(100.0), Some(140.0)],
        ),
    ])?;
    let r = audit(&t, &cfg())?;
    assert_eq!(r.data_quality.invalid.get("device_util"), Some(&1));
    assert!(close(r.ratios.active().unwrap_or(f64::NAN), 0.75));
    let _ = HOUR;
    Ok(())
}

/// Hands a frame to the streaming audit in chunks of `rows`.
struct Chunked {
    df: DataFrame,
    rows: usize,
}

impl ChunkSource for Chunked {
    fn has(&self, column: &str) -> bool {
        self.df.column(column).is_ok()
    }
    fn sources(&self) -> Vec<String> {
        vec!["test".to_string()]
    }
    fn rows_read(&self) -> u64 {
        self.df.height() as u64
    }
    fn for_each_chunk(
        &self,
        _keys_only: bool,
        f: &mut dyn FnMut(&DataFrame) -> Result<()>,
    ) -> Result<Quality> {
        for offset in (0..self.df.height()).step_by(self.rows) {
            f(&self.df.slice(offset as i64, self.rows))?;
        }
        Ok(Quality::default())
    }
}

#[test]
fn interleaved_long_ids_null_labels_and_chunk_edges_give_the_same_report() -> Result<()> {
    // Two GPUs with ids longer than an inline arrow view (12 bytes), rows
    // interleaved tick by tick as a time-major dump has them, a null host on
    // one row of each GPU and null or empty jobs: the per-slice view caches
    // must map every row to the right GPU and label wherever chunks are cut.
    let (a, b) = (
        "GPU-0a1b2c3d-aaaa-4e5f-8a9b-000000000001",
        "GPU-0a1b2c3d-aaaa-4e5f-8a9b-000000000002",
    );
    let t = table(vec![
        times(&[0, 0, 10, 10, 20, 20, 30, 30]),
        opt_strs(
            "host",
            &[
                Some("node-with-a-long-name"),
                Some("node-with-a-long-name"),
                None,
                None,
                Some("node-with-a-long-name"),
                Some("node-with-a-long-name"),
                Some("node-with-a-long-name"),
                Some("node-with-a-long-name"),
            ],
        ),
        strs("gpu", &[a, b, a, b, a, b, a, b]),
        opt_strs(
            "job",
            &[
                Some("training-job-with-long-id"),
                None,
                Some("training-job-with-long-id"),
                Some(""),
                None,
                Some("x"),
                Some("training-job-with-long-id"),
                Some("x"),
            ],
        ),
        f64s(
            "device_util",
            &[
                Some(0.5),
                Some(0.0),
                Some(0.5),
                Some(0.0),
                Some(0.0),
                Some(0.9),
                Some(0.5),
                Some(0.9),
            ],
        ),
    ])?;
    let cfg = cfg();
    let whole = audit(&t, &cfg)?;
    // 4 GPUs: (node, a) and (node, b) at 0, 20, 30 (median step 15 min:
    // weights 20, 10, 15); ("", a) and ("", b) at 10 alone (lone samples in
    // a series: the fleet's step, 15 min).
    assert_eq!(whole.gpu_count, 4);
    // held: (node, a) at 0 and 30 = 20 + 15; (node, b) "x" at 20 and 30 =
    // 10 + 15; ("", a) 15; ("", b) has an empty job: not held. 75 min.
    let held_h = whole.layers.held_gpu_hours;
    assert!(close(held_h, 1.25), "held {held_h}");
    // a column in two arrays, and every chunk size, agree with the in-memory audit
    let mut two_arrays = t.df.slice(0, 3);
    two_arrays.vstack_mut(&t.df.slice(3, 5))?;
    for rows in [1, 2, 3, 5, 8] {
        for df in [t.df.clone(), two_arrays.clone()] {
            let r = audit_chunks(&Chunked { df, rows }, &cfg)?;
            assert_eq!(r.gpu_count, whole.gpu_count, "chunks of {rows}");
            assert_eq!(r.layers, whole.layers, "chunks of {rows}");
            assert_eq!(r.gpus, whole.gpus, "chunks of {rows}");
        }
    }
    Ok(())
}
