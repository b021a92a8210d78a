//! `gpuaudit check`: rules on a run's report, against a baseline; exit 1 when
//! one fails, so a CI build goes red when utilization regresses.
use crate::audit::check::{Rule, RuleKind, Side, Verdict, comparability, evaluate, parse_rule};
use crate::audit::model::{Report, SCHEMA};
use crate::cli::InputArgs;
use crate::cli::check::{CheckArgs, CheckFormat};
use crate::error::{Findings, emit};
use crate::render::check::{CheckView, RunSource};
use crate::render::diagnostics::{Diagnostic, Diagnostics};
use crate::render::table::TableOptions;
use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::Path;

/// `matches`: clap's answer for `check`, which says which flags were given
/// (not defaulted).
pub fn run(
    args: CheckArgs,
    matches: Option<&clap::ArgMatches>,
    said: &mut Diagnostics,
) -> Result<u8> {
    let given = |id: &str| {
        matches.is_some_and(|m| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
    };
    let width = TableOptions::detect(0).width;
    if args.list_metrics {
        return emit(&crate::render::check::metric_list(width), Ok(0));
    }
    match check(&args, &given, width, said) {
        Ok((text, verdict)) => emit(&text, verdict),
        // A check that cannot run still leaves a CI page something to show.
        Err(err) => match args.format {
            CheckFormat::Junit => emit(
                &crate::render::check::junit_error(&format!("{err:#}")),
                Err(err),
            ),
            CheckFormat::Markdown => emit(
                &crate::render::check::markdown_error(&format!("{err:#}")),
                Err(err),
            ),
            CheckFormat::Table | CheckFormat::Json => Err(err),
        },
    }
}

/// A run read: its report and where it came from.
type Run = (Report, RunSource);

/// Run the rules: the rendered result and the exit it decides (decided before
/// anything is written, so a closed stdout cannot turn a failure into a pass).
fn check(
    args: &CheckArgs,
    given: &dyn Fn(&str) -> bool,
    width: u16,
    said: &mut Diagnostics,
) -> Result<(String, Result<u8>)> {
    let rules = collect_rules(args)?;
    refuse_unrunnable(args, &rules)?;
    let ((current, current_src), baseline) = load_runs(args)?;
    let all_reports =
        current_src.kind == "report" && baseline.as_ref().is_none_or(|(_, s)| s.kind == "report");
    if all_reports && let Some(flag) = sample_options(given).first() {
        bail!(
            "{flag} applies to raw samples, but every input is a report already audited; give it to `gpuaudit report`, or check the samples"
        );
    }
    let outcomes = evaluate(&rules, &current, baseline.as_ref().map(|(r, _)| r));
    if !args.allow_missing {
        refuse_missing(&outcomes)?;
    }
    let caveats = match &baseline {
        Some((b, _)) => comparability(&rules, &current, b),
        None => Vec::new(),
    };
    // On stderr too: a CI log shows them even when stdout goes to a file.
    for c in &caveats {
        said.push(Diagnostic::CheckCaveat {
            message: crate::render::check::caveat_text(c),
            strict: args.strict,
        });
    }
    let view = CheckView {
        current: &current_src,
        baseline: baseline.as_ref().map(|(_, s)| s),
        outcomes: &outcomes,
        caveats: &caveats,
        strict: args.strict,
    };
    let text = match args.format {
        CheckFormat::Table => crate::render::check::table(&view, width),
        CheckFormat::Markdown => crate::render::check::markdown(&view),
        CheckFormat::Junit => crate::render::check::junit(&view),
        CheckFormat::Json => crate::render::check::json(&view)?,
    };
    Ok((text, verdict_of(&view, said)))
}

/// Rules that cannot run as given: none at all, a baseline rule without a
/// baseline, no CURRENT, standard input read twice.
fn refuse_unrunnable(args: &CheckArgs, rules: &[Rule]) -> Result<()> {
    if rules.is_empty() {
        bail!("no rules to check: give --min, --max, --max-drop, --max-rise or --rules FILE");
    }
    if args.baseline.is_none()
        && let Some(r) = rules.iter().find(|r| r.kind.needs_baseline())
    {
        bail!(
            "{} compares with a baseline: give --baseline BASELINE",
            r.label()
        );
    }
    if args.input.inputs.is_empty()
        && args.input.live.prometheus.is_none()
        && args.input.partials.is_none()
        && !args.input.engine.given()
    {
        bail!(
            "no CURRENT input to check: give a report, metric dumps, --partials FILE, --prometheus URL, --clickhouse URL or --trino URL"
        );
    }
    if args.baseline.as_deref() == Some("-") && args.input.inputs.iter().any(|i| i == "-") {
        bail!("CURRENT and --baseline cannot both read standard input");
    }
    Ok(())
}

/// CURRENT, then the baseline when one is given.
fn load_runs(args: &CheckArgs) -> Result<(Run, Option<Run>)> {
    let current = load_run(args, args.input.clone())?;
    let baseline = match &args.baseline {
        Some(spec) => {
            let mut input = InputArgs {
                inputs: vec![spec.clone()],
                ..args.input.clone()
            };
            // --prometheus / --partials is where CURRENT comes from; the baseline is the file named.
            input.live.prometheus = None;
            input.partials = None;
            input.engine.clickhouse = None;
            input.engine.trino = None;
            Some(load_run(args, input).context("--baseline")?)
        }
        None => None,
    };
    Ok((current, baseline))
}

/// A rule whose metric is null on a side cannot be checked (unless
/// --allow-missing skips it).
fn refuse_missing(outcomes: &[crate::audit::check::Outcome]) -> Result<()> {
    let missing: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.missing.is_empty())
        .map(|o| {
            let sides: Vec<&str> = o
                .missing
                .iter()
                .map(|s| {
                    if *s == Side::Current {
                        "CURRENT"
                    } else {
                        "BASELINE"
                    }
                })
                .collect();
            format!(
                "{} ({} is null in {})",
                o.rule.label(),
                o.rule.metric.name,
                sides.join(" and ")
            )
        })
        .collect();
    if !missing.is_empty() {
        bail!(
            "cannot check {}: the input does not measure it; pass --allow-missing to skip such rules",
            missing.join("; ")
        );
    }
    Ok(())
}

/// The exit the outcomes decide: 1 (a finding) when a rule failed.
fn verdict_of(view: &CheckView, said: &mut Diagnostics) -> Result<u8> {
    if !view.passed() {
        Err(anyhow::Error::new(Findings(
            crate::render::check::failure_line(view),
        )))
    } else {
        if view.outcomes.iter().all(|o| o.verdict == Verdict::Skipped) {
            // Only reached with --allow-missing (else a null metric is an error
            // above): the user allowed skipping, so it passes, saying so on
            // stderr too, where a CI log shows it.
            said.push(Diagnostic::NothingChecked);
        }
        Ok(0)
    }
}

/// The reading and audit options given on the command line, which a report
/// document ignores (it was audited when it was written). Every audit flag
/// counts, from clap's own definition, so a new one needs no line here;
/// `--threads` changes no figure.
fn sample_options(given: &dyn Fn(&str) -> bool) -> Vec<String> {
    let audit = crate::cli::AuditArgs::augment_args(clap::Command::new("audit"));
    let input = [("input_format", "input-format"), ("maps", "map")];
    audit
        .get_arguments()
        .filter(|a| a.get_id() != "threads")
        .filter_map(|a| Some((a.get_id().as_str(), a.get_long()?)))
        .chain(input)
        .filter(|(id, _)| given(id))
        .map(|(_, long)| format!("--{long}"))
        .collect()
}

/// Rules from the command line, then from --rules FILE.
fn collect_rules(args: &CheckArgs) -> Result<Vec<Rule>> {
    let mut rules = Vec::new();
    for (kind, specs) in [
        (RuleKind::Min, &args.min),
        (RuleKind::Max, &args.max),
        (RuleKind::MaxDrop, &args.max_drop),
        (RuleKind::MaxRise, &args.max_rise),
    ] {
        for spec in specs {
            rules.push(parse_rule(kind, spec)?);
        }
    }
    if let Some(path) = &args.rules {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read the rules file", path.display()))?;
        rules.extend(
            crate::audit::rules_file::rules_from_toml(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e:#}", path.display()))?,
        );
    }
    Ok(rules)
}

/// A run as a report: a gpuaudit.report/1 document as is, else the inputs
/// audited exactly as `report` would.
fn load_run(args: &CheckArgs, input: InputArgs) -> Result<(Report, RunSource)> {
    let engine = input
        .engine
        .clickhouse
        .as_ref()
        .or(input.engine.trino.as_ref());
    let name = match (&input.live.prometheus, &input.partials) {
        _ if engine.is_some() => {
            crate::source::prometheus::http::split_userinfo(engine.map_or("", |u| u.as_str())).0
        }
        (Some(url), _) => url.clone(),
        (None, Some(p)) => p.display().to_string(),
        (None, None) => input.inputs.join(" "),
    };
    if let [spec] = input.inputs.as_slice()
        && let Some(report) = read_report_document(spec)?
    {
        // observed time, not rows_used: a --pushdown report sums points and reads no rows
        if report.layers.observed_gpu_hours <= 0.0 {
            bail!(
                "{spec}: the report covers no samples (observed_gpu_hours 0, rows_used {}), so nothing can pass",
                report.sources.rows_used
            );
        }
        return Ok((
            report,
            RunSource {
                source: name,
                kind: "report",
            },
        ));
    }
    let kind = if input.live.prometheus.is_some() {
        "prometheus"
    } else if input.partials.is_some() || engine.is_some() {
        "partials"
    } else {
        "samples"
    };
    let request = super::common::report_request(&input, &args.audit, args.quiet)?;
    let report = crate::pipeline::report(&request)?;
    Ok((report, RunSource { source: name, kind }))
}

/// A JSON document written by `report --format json`, told apart from NDJSON
/// samples by its "schema" key near the top; `None` for anything else.
fn read_report_document(spec: &str) -> Result<Option<Report>> {
    let path = Path::new(spec);
    if spec == "-" || !path.is_file() {
        return Ok(None);
    }
    let head = crate::source::files::read_head(path, 4096)?;
    let head = String::from_utf8_lossy(&head);
    if crate::render::html::looks_like_html(&head) {
        return crate::render::html::read_embedded_report(path).map(Some);
    }
    if !head.trim_start().starts_with('{')
        || !head.contains("\"schema\"")
        || !head.contains("\"gpuaudit.")
    {
        return Ok(None);
    }
    let bytes = std::fs::read(path).with_context(|| format!("{spec}: cannot read"))?;
    let doc: serde_json::Value =
        serde_json::from_slice(&bytes).with_context(|| format!("{spec}: not valid JSON"))?;
    match doc.get("schema").and_then(|s| s.as_str()) {
        Some(SCHEMA) => {}
        Some(s) if s.starts_with("gpuaudit.") => {
            bail!("{spec}: a '{s}' document, expected a {SCHEMA} report")
        }
        _ => return Ok(None),
    }
    // Deserialise from the bytes, not the value, so errors carry line and column.
    let report: Report = serde_json::from_slice(&bytes)
        .with_context(|| format!("{spec}: not a valid {SCHEMA} report"))?;
    if let Some((metric, value)) = crate::audit::check::impossible_figure(&report) {
        let expected = if metric.kind == crate::audit::check::MetricKind::Ratio {
            "a fraction 0..1 (a report's ratios are never percent)"
        } else {
            "a finite number >= 0"
        };
        bail!("{spec}: {} is {value}, expected {expected}", metric.path);
    }
    Ok(Some(report))
}
