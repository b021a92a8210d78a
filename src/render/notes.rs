//! The English text of every data-quality note and warning: the one place it
//! is built. `--format json` writes these strings as `data_quality.notes` and
//! `data_quality.warnings`.
use crate::audit::model::{
    ColumnName, Note, OwnerSource, PromQuery, TimeBulk, TimeFrom, UntimedRows, Warning,
};
use crate::timeparse::{format_duration_us, format_time};

/// The sentence a note stands for.
/// How held was decided, in the report's words (and the JSON's `held_rule`).
impl std::fmt::Display for crate::audit::model::HeldBasis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::audit::model::HeldBasis as H;
        match self {
            H::HeldColumn => write!(f, "held column"),
            H::JobColumn => write!(f, "job column: held when a job is set"),
            H::MemoryAbove { mib } => write!(f, "memory used > {mib} MiB"),
            H::Assumed => write!(f, "--assume-held: every sample held"),
            H::PromLabel(l) => write!(f, "owner label '{l}' set (PromQL, --pushdown)"),
            H::PromMemoryAbove { mib } => {
                write!(f, "DCGM_FI_DEV_FB_USED > {mib} MiB (PromQL, --pushdown)")
            }
            H::Text(t) => write!(f, "{t}"),
        }
    }
}

impl serde::Serialize for crate::audit::model::HeldBasis {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

// one arm per variant: an exhaustive match, so the compiler checks each is worded
#[allow(clippy::too_many_lines)]
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
            widest_us,
            align_us,
        } => format!(
            "metrics of one GPU stamped up to {} apart were aligned into one sample (--align {})",
            format_duration_us(*widest_us),
            format_duration_us(*align_us)
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
            time_us,
            from,
        } => untimed_text(file, *rows, *time_us, *from),
        Note::QueueRead {
            file,
            family,
            requests,
            without_gpus,
            naive_times,
            zone,
        } => queue_text(file, family, (*requests, *without_gpus), *naive_times, zone),
        Note::ApproximateLayer {
            file,
            layer,
            source,
        } => format!(
            "{file}: {layer} is {source}, an approximation (not the same counter as NVIDIA's)"
        ),
        Note::MigNoActivity { file, gpus } => format!(
            "{file}: MIG enabled on {gpus} GPU(s): nvidia-smi reports no device activity for them (n/a, not 0)"
        ),
        Note::HeldFromProcesses { file } => {
            format!("{file}: held when a compute process runs on the GPU (<processes>), or, with none listed, when it is busy or uses more memory than --held-mem")
        }
        Note::HeldFromPmon { file } => format!(
            "{file}: nvidia-smi pmon: a GPU is held in a tick when a compute process is listed on it; per-process sm% is not device activity (n/a: give a dmon or --query-gpu log of the same GPUs for it)"
        ),
        Note::WideReshaped {
            file,
            gpus,
            host,
            empty_cells,
        } => format!(
            "{file}: wide layout: {gpus} GPU column groups (gpuN_...) reshaped into one row per GPU, GPU id {}; {empty_cells} empty GPU cells are no sample",
            host.as_ref()
                .map_or("N".to_string(), |h| format!("{h}/N"))
        ),
        Note::TrailingEmptyField { file } => format!(
            "{file}: every row ends with an empty field (a trailing comma): dropped"
        ),
        Note::ZoneAbbreviations { file, zones } => format!(
            "{file}: timestamps with a zone abbreviation read at its UTC offset: {}",
            zones
                .iter()
                .map(|(z, n)| format!("{z} {} ({n})", zone_offset_text(z)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Note::NoGpuColumn { file } => {
            format!("{file}: no GPU id column (index, uuid): read as one GPU, '0'")
        }
        Note::HeldFromApps { file, apps } => {
            format!("{file}: held from the processes in {}", apps.join(", "))
        }
        Note::PriceRowFamily {
            file,
            line,
            name,
            models,
        } => format!(
            "--prices {file} line {line}: '{name}' could mean several cards; it prices {}, the only one of them in the data",
            models.join(", ")
        ),
        Note::PricesPerMonth {
            file,
            hours_per_month,
        } => format!(
            "--prices {file}: prices per GPU-month, divided by {hours_per_month} hours"
        ),
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
        Note::NodesJobsNotWithPushdown => "nodes, jobs: not computed with --pushdown (node-held needs each host's held GPUs per bucket, jobs each job's samples; run without --pushdown)".to_string(),
        Note::PushdownBucketNotStepMultiple { bucket_us, step_us } => format!(
            "timeline, purchase: not computed with --pushdown: the bucket ({}) is not a multiple of --step ({}), so a point's step would straddle two buckets (pulled mode splits it; PromQL sums cannot); pass --bucket as a multiple of --step",
            format_duration_us(*bucket_us),
            format_duration_us(*step_us)
        ),
        Note::UndeclaredJobs { examples, count } => format!(
            "useful: {count} held job(s) have no declaration in the jobs file and count as 0 useful: {}",
            quoted_list(examples, *count)
        ),
        Note::WholeJobMfu => "useful: MFU of jobs declared by model_flops is taken over all their samples, not only the window".to_string(),
        Note::SamplesAligned { samples, align_us } => format!(
            "{samples} samples within --align {} of a GPU's sample kept were the same sample (two exporters scraping one GPU)",
            format_duration_us(*align_us)
        ),
        Note::LoneSamples { gpus, weight_us } => format!(
            "{gpus} GPUs with a single sample in a time series weighed the fleet's step, {} each (not --interval's snapshot hour)",
            format_duration_us(*weight_us)
        ),
        Note::Snapshot { weight_us } => format!(
            "snapshot: every GPU has a single sample, weighed {} each; GPU-hours read as GPUs and dollars as per hour",
            format_duration_us(*weight_us)
        ),
        Note::UnmeasuredBasis {
            held_gpu_hours,
            basis,
        } => format!(
            "not-useful dollars count {held_gpu_hours:.2} held GPU-hours without {basis} as not useful"
        ),
        Note::MetricUnsupported { gpu, metric, why } => format!("GPU {gpu}: {metric} n/a: {why}"),
        Note::ApproximateSmActive { source, means } => format!(
            "SM active from {source} is {means}: approximate, not NVIDIA's SM active"
        ),
        Note::ZeroFieldUnmeasured { metric, gpus } => format!(
            "{metric}: 0 on every sample of {gpus} GPU(s) whose device activity is not: read as not measured (n/a; an exporter before 1.4 exports 0 for a field the card does not support)"
        ),
        Note::CounterNotPercent { file, column, gpus } => format!(
            "{file}: '{column}' is an accumulated counter, not a percent: never read as device activity; {gpus} GPU(s) without 'GPU use (%)' have no device activity (n/a)"
        ),
        Note::PartitionsAsUnits { cards } => format!(
            "{cards} AMD card(s) partitioned (CPX/DPX/QPX): each partition is a held unit <card>/<partition>, its device activity from gpu_gfx_busy_instantaneous; whole-GPU gpu_gfx_activity, gpu_umc_activity and power are not a partition's (n/a)"
        ),
        Note::PartialsRead {
            file,
            rows,
            timeline,
        } => format!(
            "{file}: {rows} rows of partial sums from `gpuaudit sql`: {} need every sample (run report on the samples for them)",
            if *timeline {
                "idle episodes, leaks, nodes, jobs and whom to reclaim from"
            } else {
                "idle episodes, leaks, nodes, jobs and (without sql --bucket) the timeline and the purchase answer"
            }
        ),
        Note::Text(text) => text.clone(),
    }
}

/// A zone abbreviation's offset as `UTC-07:00`.
fn zone_offset_text(zone: &str) -> String {
    match crate::timeparse::zone_abbreviation(&format!("2000-01-01 00:00:00 {zone}")) {
        Some(crate::timeparse::Zone::Known { offset_s, .. }) => format!(
            "UTC{}{:02}:{:02}",
            if offset_s < 0 { '-' } else { '+' },
            offset_s.abs() / 3600,
            offset_s.abs() % 3600 / 60
        ),
        _ => "UTC?".to_string(),
    }
}

/// The sentence a warning stands for.
/// Samples whose values contradict each other, the kinds that occur.
fn contradictions_text(c: &crate::audit::contradictions::Contradictions) -> String {
    let kinds = [
        (
            c.sm_above_device,
            "SM activity above device activity (by more than 1 point)",
        ),
        (
            c.tensor_above_sm,
            "tensor activity above SM activity (by more than 1 point)",
        ),
        (c.mem_above_total, "memory used above memory total"),
        (c.job_not_held, "a job on a sample whose held is false"),
    ];
    let listed: Vec<String> = kinds
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} with {what}"))
        .collect();
    format!(
        "{} sample(s) whose values contradict each other: {}; the values are used as read: check the exporter",
        c.total(),
        listed.join(", ")
    )
}

/// A price row that priced nothing, with what it could have meant.
fn price_row_unused_text(
    file: &str,
    line: usize,
    name: &str,
    means: &[String],
    data_models: &[String],
) -> String {
    let means = match means {
        [] => "no card of the catalog".to_string(),
        [one] => one.clone(),
        many => format!("one of {}", many.join(", ")),
    };
    let data = if data_models.is_empty() {
        "none".to_string()
    } else {
        data_models.join(", ")
    };
    format!(
        "--prices {file} line {line}: '{name}' prices no GPU of the data (it means {means}; the data's closest models: {data}): the row is not used"
    )
}

// one arm per variant: an exhaustive match, so the compiler checks each is worded
#[allow(clippy::too_many_lines)]
pub fn warning_text(warning: &Warning) -> String {
    match warning {
        Warning::FarOutsideTimes {
            count,
            first_us,
            last_us,
            bulk,
        } => far_outside_text(*count, *first_us, *last_us, *bulk),
        Warning::UuidUnderHosts {
            gpus,
            example_gpu,
            hosts,
        } => format!(
            "identity: {gpus} GPU UUIDs appear under more than one host name (such as {example_gpu} under {}): each is one GPU, counted once under {}",
            hosts.join(", "),
            hosts.first().map_or("", String::as_str)
        ),
        Warning::ClosePairs { gpus } => format!(
            "time: {gpus} GPUs have a third or more of their steps beyond 3 median steps, so much of their time is unobserved: samples in close pairs, as two exporters scraping one GPU give? --align merges them (e.g. --align 2s), --max-gap sets the gap"
        ),
        Warning::RepeatsDisagree { samples } => format!(
            "duplicates: {samples} repeats of a GPU's sample (same instant, or within --align) disagree with the one kept; kept: the held one, then the busiest (device_util, sm_active, ...), whatever the order of the inputs"
        ),
        Warning::MigParentDropped { parents, samples } => format!(
            "MIG: {samples} samples of {parents} parent GPUs dropped at times their MIG instances report: each card is billed once, as its instances"
        ),
        Warning::Unmeasured { column, invalid } => {
            format!("{column}: no usable value ({invalid} invalid, the rest missing): not measured")
        }
        Warning::UnmeasuredInFile { column, file } => format!(
            "{column}: no usable value in {file} (all missing or out of range): not measured"
        ),
        Warning::BytesImplausible { column, max_bytes } => format!(
            "{}: the busiest value is {max_bytes} bytes, under 1 MiB: likely MiB (or KiB), not bytes; state it with --map",
            column_text(column)
        ),
        Warning::NoGpuLabel {
            samples,
            examples,
            count,
        } => format!(
            "{samples} samples without a GPU label (UUID or gpu) skipped: {}",
            examples_text(examples, *count)
        ),
        Warning::PrometheusWarned { text } => {
            format!("Prometheus warned (the answer may be partial): {text}")
        }
        Warning::UuidsRepeat { file } => {
            format!("{file}: GPU UUIDs repeat (masked?): GPUs told apart by PCI bus id")
        }
        Warning::HeldWithoutVisibleProcess {
            source,
            gpus,
            samples,
            mib,
        } => format!(
            "{source}: {gpus} GPU(s) busy or using more than {mib} MiB list no compute process (hidden by a container's PID namespace?): {samples} sample(s) counted as held (basis: memory; processes not visible)"
        ),
        Warning::GpuFailed {
            gpu,
            uuid,
            tick,
            ticks,
            missing,
            error,
        } => format!(
            "GPU {gpu} ({}) failed at tick {tick} of {ticks}: {error}; its remaining {missing} samples are missing",
            uuid.as_deref().unwrap_or("no uuid"),
        ),
        Warning::ScanStopped { signal, ticks } => format!(
            "{signal} stopped the scan after {ticks} ticks; the report covers what was sampled"
        ),
        Warning::DeclaredJobsAbsent { examples, count } => format!(
            "{count} declared job(s) have no held samples in the window: {}",
            quoted_list(examples, *count)
        ),
        Warning::NoDensePeak {
            model,
            dtype,
            samples,
            jobs,
            jobs_count,
        } => format!(
            "no dense {dtype} peak for model '{model}' ({samples} held samples of job(s) {}): their MFU is n/a; add a peak_tflops column to the jobs file (see `gpuaudit peaks`)",
            quoted_list(jobs, *jobs_count)
        ),
        Warning::MfuOverOne { jobs } => format!(
            "{} job(s) declare more model FLOPs than their GPUs' dense peak allows (MFU above 100%): {}; check flops_per_token, tokens_per_sec and dtype",
            jobs.len(),
            jobs.iter()
                .map(|j| format!("'{}' {:.1}%", j.job, j.mfu * 100.0))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Warning::HeldUnreadable { gpu_hours } => format!(
            "held: {gpu_hours:.2} GPU-h have a held value that cannot be read: counted as held_unknown_gpu_hours, neither held nor unallocated"
        ),
        Warning::Contradictions { counts } => contradictions_text(counts),
        Warning::PriceRowUnused {
            file,
            line,
            name,
            means,
            data_models,
        } => price_row_unused_text(file, *line, name, means, data_models),
        Warning::AmbiguousModels { models } => format!(
            "{} GPU model name(s) could mean several cards and are neither priced nor peaked as any of them: {}; name the card in a --prices file (or give --price)",
            models.len(),
            models
                .iter()
                .map(|a| format!(
                    "'{}' ({:.2} GPU-hours; one of {})",
                    a.name,
                    a.gpu_hours,
                    a.candidates.join(", ")
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Warning::Text(text) => text.clone(),
    }
}

fn far_outside_text(count: u64, first_us: i64, last_us: i64, bulk: TimeBulk) -> String {
    let (first, last) = (format_time(first_us), format_time(last_us));
    match bulk {
        TimeBulk::Samples { start_us, end_us } => format!(
            "time: {count} samples far outside the bulk of the data left out ({first} .. {last}); the window is the bulk, {} .. {} (samples within 7 days, or 10x the interquartile span, of the middle half); --since/--until do not bring them back",
            format_time(start_us),
            format_time(end_us)
        ),
        TimeBulk::Fences { lo_us, hi_us } => format!(
            "time: {count} samples far outside the bulk of the data left out ({first} .. {last}); the window is the bulk, within {} .. {} (7 days, or 10x the interquartile span, of the middle half); --since/--until do not bring them back",
            format_time(lo_us),
            format_time(hi_us)
        ),
    }
}

/// How --pushdown's layers can differ from a pulled report (source/prometheus/pushdown.rs).
const PUSHDOWN_CAVEAT: &str = "--pushdown: layers, timeline and leak map computed inside Prometheus (sum_over_time over subqueries, one step per point); they can differ from a pulled report: around gaps (pulled weighs the sample before a gap up to --max-gap, 3 steps; here every point weighs one step, --max-gap is ignored), where series are scraped less often than --step (pulled weighs by each GPU's median step; choose --step = the scrape interval), and observed time counts DCGM_FI_DEV_GPU_UTIL points only; no idle episodes, per-GPU rows, node view or jobs";

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
        format_time(q.since_us),
        format_time(q.until_us),
        format_duration_us(q.step_us)
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

fn untimed_text(file: &str, rows: UntimedRows, time_us: i64, from: TimeFrom) -> String {
    let what = match rows {
        UntimedRows::Samples { count: Some(n) } => format!("{n} samples"),
        UntimedRows::Samples { count: None } => "samples".to_string(),
        UntimedRows::Snapshots => "snapshots".to_string(),
        UntimedRows::DmonSamples => "dmon samples".to_string(),
        UntimedRows::PmonTicks => "pmon ticks".to_string(),
        UntimedRows::TimeOfDay => "xpu-smi dump rows".to_string(),
    };
    let took = match from {
        TimeFrom::At => format!("--at {}", format_time(time_us)),
        TimeFrom::FileModified => format!(
            "the file's modification time {} (give --at TIME to set it)",
            format_time(time_us)
        ),
    };
    let spacing = match rows {
        UntimedRows::DmonSamples => "; taken 1 s apart (dmon's default -d 1)",
        UntimedRows::PmonTicks => "; taken 1 s apart (pmon's default -d 1)",
        UntimedRows::TimeOfDay => {
            " as their date (a time of day only, dump without --date; the last within the day before it, read as UTC)"
        }
        _ => "",
    };
    format!("{file}: {what} without timestamps took {took}{spacing}")
}

fn queue_text(
    file: &str,
    family: &str,
    (requests, without_gpus): (usize, usize),
    naive_times: usize,
    zone: &str,
) -> String {
    let mut text = format!("{file} ({family}): {requests} GPU request(s) read");
    if without_gpus > 0 {
        text.push_str(&format!(
            "; {without_gpus} asked for no GPU (not GPU demand)"
        ));
    }
    if naive_times > 0 {
        text.push_str(&format!(
            "; {naive_times} time(s) without a zone read as {zone} (--queue-tz)"
        ));
    }
    text
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
        let t = 1_771_529_464_000_000; // 2026-02-19T19:31:04Z
        let at = Note::UntimedRows {
            file: "x.prom".into(),
            rows: UntimedRows::Samples { count: Some(3) },
            time_us: t,
            from: TimeFrom::At,
        };
        assert_eq!(
            note_text(&at),
            "x.prom: 3 samples without timestamps took --at 2026-02-19T19:31:04Z"
        );
        let dmon = Note::UntimedRows {
            file: "d.log".into(),
            rows: UntimedRows::DmonSamples,
            time_us: t,
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
            since_us: 0,
            until_us: 3_600_000_000,
            step_us: 30_000_000,
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
            widest_us: w,
            align_us: 15_000,
        };
        assert!(aligned(1000).same_kind(&aligned(1000)));
        assert!(!aligned(1000).same_kind(&aligned(2000)));
    }

    #[test]
    fn warnings_carry_their_numbers_into_the_text() {
        use crate::audit::model::{AmbiguousModel, JobMfuValue};
        let t = 1_771_529_464_000_000; // 2026-02-19T19:31:04Z
        let far = Warning::FarOutsideTimes {
            count: 2,
            first_us: 0,
            last_us: t,
            bulk: TimeBulk::Fences {
                lo_us: t,
                hi_us: t + 3_600_000_000,
            },
        };
        assert_eq!(
            warning_text(&far),
            "time: 2 samples far outside the bulk of the data left out (1970-01-01T00:00:00Z .. 2026-02-19T19:31:04Z); the window is the bulk, within 2026-02-19T19:31:04Z .. 2026-02-19T20:31:04Z (7 days, or 10x the interquartile span, of the middle half); --since/--until do not bring them back"
        );
        let failed = Warning::GpuFailed {
            gpu: "1".into(),
            uuid: None,
            tick: 3,
            ticks: 4,
            missing: 2,
            error: "lost".into(),
        };
        assert_eq!(
            warning_text(&failed),
            "GPU 1 (no uuid) failed at tick 3 of 4: lost; its remaining 2 samples are missing"
        );
        let over = Warning::MfuOverOne {
            jobs: vec![JobMfuValue {
                job: "a".into(),
                mfu: 1.234,
            }],
        };
        assert!(warning_text(&over).starts_with(
            "1 job(s) declare more model FLOPs than their GPUs' dense peak allows (MFU above 100%): 'a' 123.4%;"
        ));
        let ambiguous = Warning::AmbiguousModels {
            models: vec![AmbiguousModel {
                name: "X".into(),
                candidates: vec!["X 1".into(), "X 2".into()],
                gpu_hours: 1.5,
            }],
        };
        assert!(
            warning_text(&ambiguous)
                .contains(": 'X' (1.50 GPU-hours; one of X 1, X 2); name the card")
        );
        let labels = Warning::NoGpuLabel {
            samples: 7,
            examples: vec!["m1".into()],
            count: 6,
        };
        assert_eq!(
            warning_text(&labels),
            "7 samples without a GPU label (UUID or gpu) skipped: m1, …"
        );
        assert_eq!(
            warning_text(&Warning::HeldUnreadable { gpu_hours: 0.125 }),
            "held: 0.12 GPU-h have a held value that cannot be read: counted as held_unknown_gpu_hours, neither held nor unallocated"
        );
    }
}
