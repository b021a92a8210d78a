//! The English text of every data-quality note: the one place it is built.
//! `--format json` writes these strings as `data_quality.notes`.
use crate::audit::model::{ColumnName, Note, OwnerSource, PromQuery, TimeFrom, UntimedRows};
use crate::timeparse::{format_duration_ms, format_time};

/// The sentence a note stands for.
pub fn note_text(note: &Note) -> String {
    match note {
        Note::NaiveTimesAsUtc { column, count } => format!(
            "{}: {count} timestamps without a UTC offset, taken as UTC",
            column_text(column)
        ),
        Note::ReadAsPercent { column, max } => {
            format!("{} read as percent: max {max}", column_text(column))
        }
        Note::MetricsAligned {
            widest_ms,
            align_ms,
        } => format!(
            "metrics of one GPU stamped up to {} apart were aligned into one sample (--align {})",
            format_duration_ms(*widest_ms),
            format_duration_ms(*align_ms)
        ),
        Note::OwnerFrom {
            from,
            label,
            examples,
            count,
        } => owner_text(*from, label.as_deref(), &examples_text(examples, *count)),
        Note::UnnamedSeries { file, count, named } => format!(
            "{file}: {count} series without a metric name (a function dropped __name__) are named '{named}' (map it with --map {named}=CANONICAL)"
        ),
        Note::UntimedRows {
            file,
            rows,
            time_ms,
            from,
        } => untimed_text(file, *rows, *time_ms, *from),
        Note::MigNoActivity { file, gpus } => format!(
            "{file}: MIG enabled on {gpus} GPU(s): nvidia-smi reports no device activity for them (n/a, not 0)"
        ),
        Note::HeldFromProcesses { file } => {
            format!("{file}: held when a compute process runs on the GPU (<processes>)")
        }
        Note::NoGpuColumn { file } => {
            format!("{file}: no GPU id column (index, uuid): read as one GPU, '0'")
        }
        Note::HeldFromApps { file, apps } => {
            format!("{file}: held from the processes in {}", apps.join(", "))
        }
        Note::PrometheusPulled {
            points,
            requests,
            query,
        } => format!(
            "pulled {points} points in {requests} requests from {}; each point is the latest sample within the step before it (last_over_time), so a series that stops is not repeated for Prometheus's lookback",
            query_text(query)
        ),
        Note::PushdownCaveat => PUSHDOWN_CAVEAT.to_string(),
        Note::PushdownQueried { query, requests } => {
            format!("queried {}; {requests} requests", query_text(query))
        }
        Note::GroupsFromLabel { label } => format!("groups from label '{label}'"),
        Note::DiagnosisNotWithPushdown => "timeline, leaks, nodes, purchase, jobs: not computed with --pushdown (they need every sample; run without --pushdown)".to_string(),
        Note::UndeclaredJobs { examples, count } => format!(
            "useful: {count} held job(s) have no declaration in the jobs file and count as 0 useful: {}",
            quoted_list(examples, *count)
        ),
        Note::WholeJobMfu => "useful: MFU of jobs declared by model_flops is taken over all their samples, not only the window".to_string(),
        Note::Snapshot { weight_ms } => format!(
            "snapshot: every GPU has a single sample, weighed {} each; GPU-hours read as GPUs and dollars as per hour",
            format_duration_ms(*weight_ms)
        ),
        Note::UnmeasuredBasis {
            held_gpu_hours,
            basis,
        } => format!(
            "not-useful dollars count {held_gpu_hours:.2} held GPU-hours without {basis} as not useful"
        ),
        Note::MetricUnsupported { gpu, metric, why } => format!("GPU {gpu}: {metric} n/a: {why}"),
        Note::Text(text) => text.clone(),
    }
}

/// How --pushdown's layers can differ from a pulled report (source/prometheus/pushdown.rs).
const PUSHDOWN_CAVEAT: &str = "--pushdown: layers computed inside Prometheus (sum_over_time over subqueries, one step per point); they can differ from a pulled report: around gaps (pulled weighs the sample before a gap up to --max-gap, 3 steps; here every point weighs one step, --max-gap is ignored), where series are scraped less often than --step (pulled weighs by each GPU's median step; choose --step = the scrape interval), and observed time counts DCGM_FI_DEV_GPU_UTIL points only; no idle episodes or per-GPU rows";

/// "device_util" or "device_util (column 'busy')": how notes name a column.
pub fn column_text(c: &ColumnName) -> String {
    if c.source == c.canonical {
        c.canonical.clone()
    } else {
        format!("{} (column '{}')", c.canonical, c.source)
    }
}

fn query_text(q: &PromQuery) -> String {
    format!(
        "{} from {} to {} every {}",
        q.base,
        format_time(q.since_ms),
        format_time(q.until_ms),
        format_duration_ms(q.step_ms)
    )
}

fn owner_text(from: OwnerSource, label: Option<&str>, names: &str) -> String {
    match from {
        OwnerSource::Label => format!("job from label '{}': {names}", label.unwrap_or_default()),
        OwnerSource::ExportedPod => {
            format!("job from the workload's pod (label exported_pod): {names}")
        }
        OwnerSource::Pod => format!("job from the workload's pod (label pod): {names}"),
        OwnerSource::HpcJob => format!("job from label hpc_job: {names}"),
        OwnerSource::ExporterPodIgnored => format!(
            "pod labels naming the scrape target (the exporter's own pod: {names}) were not taken as a workload"
        ),
    }
}

/// "a, b, c, …": the examples, an ellipsis when there are more.
fn examples_text(examples: &[String], count: usize) -> String {
    let more = if count > examples.len() { ", …" } else { "" };
    format!("{}{more}", examples.join(", "))
}

/// "'a', 'b', … (12 in all)".
fn quoted_list(examples: &[String], count: usize) -> String {
    let mut s = examples
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ");
    if count > examples.len() {
        s.push_str(&format!(", … ({count} in all)"));
    }
    s
}

fn untimed_text(file: &str, rows: UntimedRows, time_ms: i64, from: TimeFrom) -> String {
    let what = match rows {
        UntimedRows::Samples { count: Some(n) } => format!("{n} samples"),
        UntimedRows::Samples { count: None } => "samples".to_string(),
        UntimedRows::Snapshots => "snapshots".to_string(),
        UntimedRows::DmonSamples => "dmon samples".to_string(),
    };
    let took = match from {
        TimeFrom::At => format!("--at {}", format_time(time_ms)),
        TimeFrom::FileModified => format!(
            "the file's modification time {} (give --at TIME to set it)",
            format_time(time_ms)
        ),
    };
    let spacing = if rows == UntimedRows::DmonSamples {
        "; taken 1 s apart (dmon's default -d 1)"
    } else {
        ""
    };
    format!("{file}: {what} without timestamps took {took}{spacing}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(canonical: &str, source: &str) -> ColumnName {
        ColumnName {
            canonical: canonical.into(),
            source: source.into(),
        }
    }

    #[test]
    fn column_notes_name_the_input_column_only_when_it_differs() {
        let percent = Note::ReadAsPercent {
            column: col("device_util", "device_util"),
            max: 99.7,
        };
        assert_eq!(note_text(&percent), "device_util read as percent: max 99.7");
        let naive = Note::NaiveTimesAsUtc {
            column: col("time", "ts"),
            count: 8,
        };
        assert_eq!(
            note_text(&naive),
            "time (column 'ts'): 8 timestamps without a UTC offset, taken as UTC"
        );
    }

    #[test]
    fn lists_are_cut_to_their_examples_with_the_count() {
        let owners = Note::OwnerFrom {
            from: OwnerSource::Label,
            label: Some("job_id".into()),
            examples: vec!["a".into(), "b".into(), "c".into()],
            count: 4,
        };
        assert_eq!(note_text(&owners), "job from label 'job_id': a, b, c, …");
        let exporter = Note::OwnerFrom {
            from: OwnerSource::ExporterPodIgnored,
            label: None,
            examples: vec!["dcgm-x".into()],
            count: 1,
        };
        assert_eq!(
            note_text(&exporter),
            "pod labels naming the scrape target (the exporter's own pod: dcgm-x) were not taken as a workload"
        );
        let jobs = Note::UndeclaredJobs {
            examples: vec!["a".into(), "b".into()],
            count: 12,
        };
        assert_eq!(
            note_text(&jobs),
            "useful: 12 held job(s) have no declaration in the jobs file and count as 0 useful: 'a', 'b', … (12 in all)"
        );
    }

    #[test]
    fn untimed_rows_say_which_time_they_took() {
        let t = 1_771_529_464_000; // 2026-02-19T19:31:04Z
        let at = Note::UntimedRows {
            file: "x.prom".into(),
            rows: UntimedRows::Samples { count: Some(3) },
            time_ms: t,
            from: TimeFrom::At,
        };
        assert_eq!(
            note_text(&at),
            "x.prom: 3 samples without timestamps took --at 2026-02-19T19:31:04Z"
        );
        let dmon = Note::UntimedRows {
            file: "d.log".into(),
            rows: UntimedRows::DmonSamples,
            time_ms: t,
            from: TimeFrom::FileModified,
        };
        assert_eq!(
            note_text(&dmon),
            "d.log: dmon samples without timestamps took the file's modification time 2026-02-19T19:31:04Z (give --at TIME to set it); taken 1 s apart (dmon's default -d 1)"
        );
    }

    #[test]
    fn queries_and_durations_are_written_out() {
        let q = PromQuery {
            base: "http://p:9090".into(),
            since_ms: 0,
            until_ms: 3_600_000,
            step_ms: 30_000,
        };
        assert_eq!(
            note_text(&Note::PushdownQueried {
                query: q,
                requests: 4
            }),
            "queried http://p:9090 from 1970-01-01T00:00:00Z to 1970-01-01T01:00:00Z every 30s; 4 requests"
        );
        assert_eq!(
            note_text(&Note::UnmeasuredBasis {
                held_gpu_hours: 2.345,
                basis: "sm_active".into()
            }),
            "not-useful dollars count 2.35 held GPU-hours without sm_active as not useful"
        );
        assert!(note_text(&Note::PushdownCaveat).contains("--max-gap is ignored"));
    }

    #[test]
    fn owner_notes_of_one_kind_are_the_same_whatever_their_examples() {
        let of = |from, examples: &[&str]| Note::OwnerFrom {
            from,
            label: None,
            examples: examples.iter().map(|e| e.to_string()).collect(),
            count: examples.len(),
        };
        assert!(of(OwnerSource::Pod, &["a"]).same_kind(&of(OwnerSource::Pod, &["b", "c"])));
        assert!(!of(OwnerSource::Pod, &["a"]).same_kind(&of(OwnerSource::HpcJob, &["a"])));
        let aligned = |w| Note::MetricsAligned {
            widest_ms: w,
            align_ms: 15_000,
        };
        assert!(aligned(1000).same_kind(&aligned(1000)));
        assert!(!aligned(1000).same_kind(&aligned(2000)));
    }
}
