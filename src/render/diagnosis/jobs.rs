//! The jobs section (docs/semantics.md §11) as a table or markdown: the
//! top jobs by dollars, then the findings, the declared kinds that disagree
//! with the telemetry, and what ETT is.
use super::{Layout, md_row};
use crate::audit::diagnosis::findings::{Finding, FindingDetail};
use crate::audit::diagnosis::jobs::{JobRow, JobsSection};
use crate::render::fmt::{Units, hours, pct, usd};
use crate::render::grid::{Column, Grid};
use crate::render::wrap::fill;

/// "3 (2 hosts)" style cells and ETT text shared by table and markdown.
fn gpus_cell(r: &JobRow) -> String {
    if r.hosts > 1 {
        format!("{} on {} hosts", r.gpus, r.hosts)
    } else {
        r.gpus.to_string()
    }
}

fn shape_cell(r: &JobRow) -> String {
    match r.declared_kind {
        Some(d) if d != r.inferred_shape => {
            format!("{} (looks {})", d.name(), r.inferred_shape.name())
        }
        Some(d) => format!("{} (declared)", d.name()),
        None => r.shape.name().to_string(),
    }
}

fn ett_cell(r: &JobRow) -> String {
    r.ett
        .map(|e| pct(Some(e)))
        .unwrap_or_else(|| "-".to_string())
}

fn interruptions_cell(r: &JobRow) -> String {
    match (r.interruptions, r.mtbi_hours) {
        (Some(n), Some(mtbi)) => {
            let recovery = r
                .mean_recovery_hours
                .map(|h| format!(", recovery {}", Units::span(h)))
                .unwrap_or_default();
            format!("{n} (MTBI {}{recovery})", Units::span(mtbi))
        }
        _ => "-".to_string(),
    }
}

fn job_cells(r: &JobRow) -> Vec<String> {
    vec![
        r.job.clone(),
        shape_cell(r),
        gpus_cell(r),
        r.gang.to_string(),
        Units::span(r.span_hours),
        hours(r.held_gpu_hours),
        pct(r.idle_share),
        pct(r.active_share),
        ett_cell(r),
        interruptions_cell(r),
        pct(r.mfu),
        usd(r.usd),
    ]
}

const JOB_HEADERS: [&str; 12] = [
    "job",
    "shape",
    "GPUs",
    "gang",
    "span",
    "held GPU-h",
    "idle",
    "active",
    "ETT",
    "interruptions",
    "MFU",
    "USD",
];

/// What the report says next to ETT (table, markdown and HTML).
pub const ETT_NOTE: &str = "ETT is a telemetry proxy for Meta's effective training time: the share of a training job's span in which its GPUs were as busy as usual (≥ 95% of its p90), not a measurement of training steps";

fn finding_cells(f: &Finding) -> Vec<String> {
    vec![
        f.kind.name().to_string(),
        f.job.clone(),
        hours(f.gpu_hours),
        usd(f.usd),
        finding_detail(&f.detail),
    ]
}

/// What a finding measured, in words (the table's and the JSON's `detail`).
pub fn finding_detail(d: &FindingDetail) -> String {
    match d {
        FindingDetail::Parked {
            held_gpu_hours,
            idle_share,
        } => format!(
            "held {held_gpu_hours:.1} GPU-h and was idle {:.1}% of it",
            idle_share * 100.0
        ),
        FindingDetail::GangMemberIdle {
            idle,
            progressing_buckets,
        } => {
            let each: Vec<String> = (idle.iter())
                .map(|(gpu, buckets)| format!("{gpu} idle in {buckets}"))
                .collect();
            format!(
                "{} of {progressing_buckets} progressing buckets while the rest of the gang worked",
                each.join(", ")
            )
        }
        FindingDetail::Oversized {
            profile,
            gpu,
            peak_mem_gib,
            sm_slices,
        } => {
            let sm = sm_slices
                .map(|s| format!(", p95 sm_active ≤ {s}/7"))
                .unwrap_or_default();
            format!(
                "fits MIG {profile} of {gpu} (peak memory {peak_mem_gib:.1} GiB, p95 device_util < 50%{sm})"
            )
        }
        FindingDetail::Written(words) => words.clone(),
    }
}

/// A finding's detail is its words in JSON too (one sentence for every output).
impl serde::Serialize for FindingDetail {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&finding_detail(self))
    }
}

const FINDING_HEADERS: [&str; 5] = ["finding", "job", "GPU-h", "USD", "detail"];

fn disagreements_line(s: &JobsSection) -> Option<String> {
    if s.disagreements.is_empty() {
        return None;
    }
    let each: Vec<String> = s
        .disagreements
        .iter()
        .map(|d| {
            format!(
                "{} declared {}, looks {}",
                d.job,
                d.declared_kind.name(),
                d.inferred_shape.name()
            )
        })
        .collect();
    Some(format!(
        "Declared kinds that differ from the telemetry: {}",
        each.join("; ")
    ))
}

/// The report's jobs, findings and disagreements as one section to render,
/// and how many jobs there were before `--top` cut the list; None when the
/// samples carry no job.
pub fn section_of(s: &crate::audit::diagnosis::Sections) -> Option<(JobsSection, usize)> {
    let jobs: Vec<JobRow> = s.jobs.as_ref()?.iter().collect();
    let total = s.jobs_total.unwrap_or(jobs.len()).max(jobs.len());
    Some((
        JobsSection {
            jobs,
            findings: s.findings.clone().unwrap_or_default(),
            disagreements: s.job_disagreements.clone(),
        },
        total,
    ))
}

/// The jobs table (the `top` jobs by dollars, of `total`), then the
/// findings, each with its detail filled to the width (never cut). A snapshot
/// has no span, ETT or interruptions, and its held figures are GPUs.
pub fn table(s: &JobsSection, total: usize, layout: Layout) -> String {
    let (top, width) = (layout.top, layout.width);
    let mut out = format!("Jobs ({} of {total}, by USD)\n", s.jobs.len().min(top));
    // a snapshot leaves out span (4), ETT (8) and interruptions (9)
    let keep = |i: usize| !layout.snapshot || !matches!(i, 4 | 8 | 9);
    let columns = JOB_HEADERS
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(i, h)| {
            let h = if layout.snapshot && i == 5 {
                "held GPUs"
            } else {
                h
            };
            match i {
                0 => Column::new(h).label(),
                1 => Column::new(h),
                // the least read columns go first when narrow
                3 | 4 | 10 => Column::new(h).right().drop_rank(2),
                9 => Column::new(h).right().drop_rank(1),
                2 | 7 => Column::new(h).right().drop_rank(3),
                _ => Column::new(h).right(),
            }
        })
        .collect();
    let mut grid = Grid::new(columns);
    for r in s.jobs.iter().take(top) {
        let cells = job_cells(r).into_iter().enumerate();
        grid.row(cells.filter(|(i, _)| keep(*i)).map(|(_, c)| c).collect());
    }
    out.push_str(&grid.render_with_note(width));
    if !layout.snapshot {
        out.push_str(&format!("{}\n", fill(ETT_NOTE, width, "")));
    }
    if !s.findings.is_empty() {
        out.push_str("\nFindings\n");
        for f in &s.findings {
            out.push_str(&finding_text(f, width));
        }
    }
    if let Some(line) = disagreements_line(s) {
        out.push_str(&format!("{}\n", fill(&line, width, "  ")));
    }
    out
}

/// "- parked: jupyter-bob-0, 1,344 GPU-h, $4,032" and the detail under it,
/// indented and filled to the width.
fn finding_text(f: &Finding, width: Option<u16>) -> String {
    let head = format!(
        "- {}: {}, {} GPU-h, {}",
        f.kind.name().replace('_', " "),
        f.job,
        hours(f.gpu_hours),
        usd(f.usd)
    );
    format!(
        "{}\n{}\n",
        fill(&head, width, "    "),
        fill(&format!("    {}", finding_detail(&f.detail)), width, "    ")
    )
}

fn md_table(headers: &[&str], rows: impl Iterator<Item = Vec<String>>, out: &mut String) {
    let headers: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    out.push_str(&md_row(&headers));
    out.push_str(&md_row(&vec!["---".to_string(); headers.len()]));
    for r in rows {
        out.push_str(&md_row(&r));
    }
}

/// The same figures as markdown, labels whole.
pub fn markdown(s: &JobsSection, total: usize, top: usize) -> String {
    let mut out = format!(
        "\n### Jobs\n\n{} of {total} jobs, by USD.\n\n",
        s.jobs.len().min(top)
    );
    md_table(
        &JOB_HEADERS,
        s.jobs.iter().take(top).map(job_cells),
        &mut out,
    );
    out.push_str(&format!("\n{ETT_NOTE}.\n"));
    if !s.findings.is_empty() {
        out.push_str("\n### Findings\n\n");
        md_table(
            &FINDING_HEADERS,
            s.findings.iter().map(finding_cells),
            &mut out,
        );
    }
    if let Some(line) = disagreements_line(s) {
        out.push_str(&format!("\n{line}.\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::diagnosis::findings::FindingKind;
    use crate::audit::diagnosis::jobs::{Disagreement, Shape};

    fn row(job: &str, shape: Shape, declared: Option<Shape>, usd_: Option<f64>) -> JobRow {
        JobRow {
            job: job.to_string(),
            shape: declared.unwrap_or(shape),
            inferred_shape: shape,
            declared_kind: declared,
            gpus: 8,
            hosts: 2,
            gang: 8,
            span_hours: 10.0,
            presence: Some(0.5),
            held_gpu_hours: 80.0,
            idle_held_gpu_hours: 8.0,
            idle_share: Some(0.1),
            active_share: Some(0.9),
            sm_active_share: None,
            tensor_active_share: None,
            activity_cv: Some(0.0),
            synchrony: Some(1.0),
            ett: (shape == Shape::Training).then_some(0.7),
            interruptions: (shape == Shape::Training).then_some(1),
            mtbi_hours: (shape == Shape::Training).then_some(7.0),
            mean_recovery_hours: (shape == Shape::Training).then_some(3.0),
            mfu: None,
            model: None,
            usd: usd_,
            ..JobRow::default()
        }
    }

    fn section() -> JobsSection {
        JobsSection {
            jobs: vec![
                row("train-a", Shape::Training, None, Some(240.0)),
                row("nb", Shape::Idle, Some(Shape::Interactive), None),
            ],
            findings: vec![Finding {
                kind: FindingKind::Parked,
                job: "nb".to_string(),
                gpu_hours: 80.0,
                usd: None,
                detail: FindingDetail::Parked {
                    held_gpu_hours: 80.0,
                    idle_share: 0.9,
                },
            }],
            disagreements: vec![Disagreement {
                job: "nb".to_string(),
                declared_kind: Shape::Interactive,
                inferred_shape: Shape::Idle,
            }],
        }
    }

    #[test]
    fn the_table_lists_jobs_then_findings_and_says_what_ett_is() {
        let layout = Layout {
            top: 1,
            ..Layout::default()
        };
        let t = table(&section(), 131, layout);
        assert!(t.starts_with("Jobs (1 of 131, by USD)"), "{t}");
        assert!(t.contains("train-a") && !t.contains("nb (looks"), "{t}");
        assert!(
            t.contains("70.0%") && t.contains("1 (MTBI 7.00 h, recovery 3.00 h)"),
            "{t}"
        );
        assert!(
            t.contains("telemetry proxy for Meta's effective training time"),
            "{t}"
        );
        let findings_at = t.find("Findings").unwrap_or(0);
        assert!(findings_at > t.find("train-a").unwrap_or(usize::MAX), "{t}");
        assert!(
            t.contains(
                "- parked: nb, 80.0 GPU-h, n/a\n    held 80.0 GPU-h and was idle 90.0% of it\n"
            ),
            "{t}"
        );
        // at 30 columns the detail wraps, whole words, every word kept
        let narrow = finding_text(&section().findings[0], Some(30));
        assert_eq!(
            narrow,
            "- parked: nb, 80.0 GPU-h, n/a\n    held 80.0 GPU-h and was\n    idle 90.0% of it\n"
        );
        assert!(t.contains("nb declared interactive, looks idle"), "{t}");
    }

    #[test]
    fn markdown_has_the_same_figures() {
        let m = markdown(&section(), 2, 10);
        assert!(m.contains("| train-a | training | 8 on 2 hosts | 8 | 10.0 h | 80.0 | 10.0% | 90.0% | 70.0% | 1 (MTBI 7.00 h, recovery 3.00 h) | n/a | $240 |"), "{m}");
        assert!(m.contains("| nb | interactive (looks idle) |"), "{m}");
        assert!(
            m.contains("| parked | nb | 80.0 | n/a | held 80.0 GPU-h and was idle 90.0% of it |"),
            "{m}"
        );
    }
}
