//! `gpuaudit check` end to end through the binary.
//!
//! testdata/check/{baseline,current}.csv, by hand: 2 held H100s x 4 samples
//! 15 min apart (2 GPU-h each run), --price 2.
//! baseline: gpu0 device 0.8 / SM 0.5 throughout; gpu1 0.6 / 0.3 for two
//!   samples then 0: active 1.1/2 = 0.55, sm_active 0.65/2 = 0.325,
//!   idle held 0.5 GPU-h = $1.00.
//! current: gpu1 busy for one sample only: active 0.95/2 = 0.475,
//!   sm_active 0.575/2 = 0.2875, idle held 0.75 GPU-h = $1.50.
//! So active drops 7.5 pp (13.636%), sm_active 3.75 pp (11.538%), idle held
//! rises 0.25 GPU-h / $0.50 (+50%). tensor_active is not measured (null).
//! {baseline,current}.json are `gpuaudit report <csv> --price 2 --format json`.
// Tests may be long (one scenario, checked step by step): the 80-line limit is
// for the code they test (clippy.toml).
#![allow(clippy::too_many_lines)]
use assert_cmd::Command;
use serde_json::Value;
use std::process::Output;
mod common;
use common::{assert_close, num};

fn gpuaudit() -> anyhow::Result<Command> {
    let mut c = Command::cargo_bin("gpuaudit")?;
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("COLUMNS");
    Ok(c)
}

const CUR_JSON: &str = "testdata/check/current.json";
const BASE_JSON: &str = "testdata/check/baseline.json";
const CUR_CSV: &str = "testdata/check/current.csv";
const BASE_CSV: &str = "testdata/check/baseline.csv";

fn check(args: &[&str]) -> anyhow::Result<Output> {
    Ok(gpuaudit()?.arg("check").args(args).output()?)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Run a check with --format json; the exit code and the parsed document.
fn check_json(args: &[&str]) -> anyhow::Result<(i32, Value)> {
    let out = gpuaudit()?
        .arg("check")
        .args(args)
        .args(["--format", "json"])
        .output()?;
    let code = out.status.code().unwrap_or(-1);
    let doc = serde_json::from_slice(&out.stdout)
        .map_err(|e| anyhow::anyhow!("no JSON (exit {code}, {e}): {}", text(&out.stderr)))?;
    Ok((code, doc))
}

fn rules(doc: &Value) -> Vec<Value> {
    doc["rules"].as_array().cloned().unwrap_or_default()
}

fn verdicts(doc: &Value) -> Vec<String> {
    rules(doc)
        .iter()
        .map(|r| r["verdict"].as_str().unwrap_or("?").to_string())
        .collect()
}

#[test]
fn passes_when_every_rule_holds() -> anyhow::Result<()> {
    let (code, doc) = check_json(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--min",
        "active=0.45",
        "--max-drop",
        "active=8pp",
        // rises by exactly $0.50: at the limit passes
        "--max-rise",
        "idle_held_usd=0.5",
    ])?;
    assert_eq!(code, 0);
    assert_eq!(doc["schema"], "gpuaudit.check/1");
    assert_eq!(doc["passed"], true);
    assert_eq!(verdicts(&doc), ["pass", "pass", "pass"]);
    assert_eq!(doc["current"]["kind"], "report");
    let r = rules(&doc);
    assert_eq!(r[0]["rule"], "--min active=0.45");
    assert_close(num(&r[0], "/current"), 0.475, "active now");
    assert_close(num(&r[0], "/baseline"), 0.55, "active before");
    assert_close(num(&r[0], "/limit"), 0.45, "floor");
    assert_close(num(&r[1], "/delta"), -0.075, "active delta");
    assert_close(
        num(&r[1], "/delta_relative"),
        -0.075 / 0.55,
        "active relative delta",
    );
    assert_close(num(&r[1], "/measured"), 7.5, "active drop in pp");
    assert_close(num(&r[2], "/measured"), 0.5, "idle usd rise");
    assert_close(num(&r[2], "/current"), 1.5, "idle usd now");
    assert_eq!(doc["summary"]["passed"], 3);
    Ok(())
}

#[test]
fn a_failing_rule_exits_1_and_is_named() -> anyhow::Result<()> {
    let out = check(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "active=2pp",
        "--min",
        "sm_active=0.25",
    ])?;
    assert_eq!(out.status.code(), Some(1));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(stderr.contains("--max-drop active=2pp"), "stderr: {stderr}");
    assert!(stderr.contains("7.5 pp"), "stderr: {stderr}");
    assert!(
        !stderr.contains("sm_active=0.25"),
        "a passing rule is not listed as failed: {stderr}"
    );
    assert!(stdout.contains("1 of 2 rules failed"), "{stdout}");
    let active = stdout
        .lines()
        .find(|l| l.contains("drop ≤ 2 pp"))
        .unwrap_or_default();
    assert!(
        active.contains("55%")
            && active.contains("47.5%")
            && active.contains("-7.5 pp")
            && active.contains("FAIL"),
        "{stdout}"
    );
    let sm = stdout
        .lines()
        .find(|l| l.contains("≥ 25%"))
        .unwrap_or_default();
    assert!(sm.contains("28.75%") && sm.contains("pass"), "{stdout}");
    Ok(())
}

#[test]
fn each_unit_pp_percent_and_absolute() -> anyhow::Result<()> {
    let (code, doc) = check_json(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "active=7.4pp", // drop 7.5 pp: fail
        "--max-drop",
        "active=7.5pp", // exactly: pass
        "--max-drop",
        "sm_active=11.5%", // drop 11.538%: fail
        "--max-drop",
        "sm_active=11.6%", // pass
        "--max-rise",
        "idle_held_gpu_hours=0.24", // rise 0.25 GPU-h: fail
        "--max-rise",
        "idle_held_gpu_hours=0.25", // pass
        "--max-rise",
        "idle_held_usd=49%", // +50%: fail
    ])?;
    assert_eq!(code, 1);
    assert_eq!(
        verdicts(&doc),
        ["fail", "pass", "fail", "pass", "fail", "pass", "fail"]
    );
    let r = rules(&doc);
    let units: Vec<&str> = r
        .iter()
        .map(|x| x["limit_unit"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        units,
        [
            "pp",
            "pp",
            "percent",
            "percent",
            "gpu_hours",
            "gpu_hours",
            "percent"
        ]
    );
    assert_close(num(&r[0], "/measured"), 7.5, "pp");
    assert_close(num(&r[2], "/measured"), 0.0375 / 0.325 * 100.0, "percent");
    assert_close(num(&r[4], "/measured"), 0.25, "GPU-hours");
    assert_close(num(&r[6], "/measured"), 50.0, "usd percent");
    assert_eq!(doc["summary"]["failed"], 4);
    assert!(
        r[0]["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("dropped 7.5 pp")
    );
    Ok(())
}

#[test]
fn a_missing_metric_is_an_error_unless_allowed() -> anyhow::Result<()> {
    let out = check(&[
        CUR_JSON,
        "--min",
        "tensor_active=0.1",
        "--min",
        "active=0.4",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--min tensor_active=0.1") && stderr.contains("--allow-missing"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");

    let (code, doc) = check_json(&[
        CUR_JSON,
        "--min",
        "tensor_active=0.1",
        "--min",
        "active=0.4",
        "--allow-missing",
    ])?;
    assert_eq!(code, 0);
    assert_eq!(verdicts(&doc), ["skipped", "pass"]);
    assert_eq!(rules(&doc)[0]["missing_in"], serde_json::json!(["current"]));
    assert_eq!(doc["summary"]["skipped"], 1);

    // Only unmeasured rules, skipping allowed: it passes, saying nothing was checked
    let out = check(&[CUR_JSON, "--min", "tensor_active=0.1", "--allow-missing"])?;
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("nothing was checked: all 1 rules skipped (their metrics are null)"),
        "{stdout}"
    );
    assert_eq!(
        text(&out.stderr).trim_end(),
        "gpuaudit: nothing was checked: every rule's metric is null and --allow-missing skipped it"
    );
    Ok(())
}

#[test]
fn a_read_back_ratio_outside_zero_to_one_is_refused() -> anyhow::Result<()> {
    // baseline.json with ratios.active written as 55 (percent): never compared
    // as 55 ("dropped 5445 pp"), refused naming the file and the field
    let out = check(&[
        CUR_JSON,
        "--baseline",
        "testdata/check/baseline-percent.json",
        "--max-drop",
        "active=2pp",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr).trim_end(),
        "gpuaudit: --baseline: testdata/check/baseline-percent.json: ratios.active is 55, expected a fraction 0..1 (a report's ratios are never percent)"
    );
    // the same document as CURRENT
    let out = check(&[
        "testdata/check/baseline-percent.json",
        "--min",
        "active=0.1",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("baseline-percent.json: ratios.active is 55, expected a fraction 0..1"),
        "{}",
        text(&out.stderr)
    );
    Ok(())
}

#[test]
fn raw_samples_in_place_of_json_reports() -> anyhow::Result<()> {
    let rule_args = [
        "--max-drop",
        "active=2pp",
        "--max-drop",
        "sm_active=5%",
        "--max-rise",
        "idle_held_usd=1",
        "--min",
        "held_usd=4",
    ];
    let mut from_json = vec![CUR_JSON, "--baseline", BASE_JSON];
    from_json.extend(rule_args);
    let mut from_csv = vec![CUR_CSV, "--baseline", BASE_CSV, "--price", "2"];
    from_csv.extend(rule_args);
    let mut mixed = vec![CUR_CSV, "--baseline", BASE_JSON, "--price", "2"];
    mixed.extend(rule_args);
    let (code_json, json) = check_json(&from_json)?;
    for args in [from_csv, mixed] {
        let (code, doc) = check_json(&args)?;
        assert_eq!(code, code_json);
        assert_eq!(doc["current"]["kind"], "samples");
        for (a, b) in rules(&doc).iter().zip(rules(&json).iter()) {
            for field in ["/baseline", "/current", "/delta", "/measured"] {
                assert_close(num(a, field), num(b, field), field);
            }
            assert_eq!(a["verdict"], b["verdict"]);
        }
    }
    // Rules come out by kind (--min, --max, --max-drop, --max-rise), then the rules file.
    assert_eq!(verdicts(&json), ["pass", "fail", "fail", "pass"]);
    assert_close(num(&rules(&json)[0], "/current"), 4.0, "held usd");

    // Without --price the same samples go by the built-in price profile.
    let (_, doc) = check_json(&[CUR_CSV, "--min", "active=0.4", "--quiet"])?;
    assert_close(
        num(&rules(&doc)[0], "/current"),
        0.475,
        "active from samples",
    );
    Ok(())
}

#[test]
fn parquet_samples_from_demo() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let fleet = dir.path().join("fleet.parquet");
    gpuaudit()?
        .args(["demo", "--out"])
        .arg(&fleet)
        .args(["--gpus", "8", "--days", "1"])
        .assert()
        .success();
    let fleet = fleet.display().to_string();
    let report = gpuaudit()?
        .args(["report", &fleet, "--format", "json"])
        .output()?;
    assert!(report.status.success());
    let report_path = dir.path().join("fleet.json");
    std::fs::write(&report_path, &report.stdout)?;
    let report: Value = serde_json::from_slice(&report.stdout)?;
    // The same run against itself: no change, every limit holds at zero.
    let (code, doc) = check_json(&[
        &fleet,
        "--baseline",
        &report_path.display().to_string(),
        "--max-drop",
        "active=0pp",
        "--max-rise",
        "idle_held_gpu_hours=0",
        "--max-rise",
        "held_usd=0%",
    ])?;
    assert_eq!(code, 0);
    let r = rules(&doc);
    assert_close(
        num(&r[0], "/current"),
        num(&report, "/ratios/active"),
        "active",
    );
    assert_close(
        num(&r[1], "/current"),
        num(&report, "/layers/idle_held_gpu_hours"),
        "idle",
    );
    for rule in &r {
        assert_close(num(rule, "/delta"), 0.0, "delta");
    }
    Ok(())
}

#[test]
fn markdown_for_a_pr_comment() -> anyhow::Result<()> {
    let out = check(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "active=2pp",
        "--max",
        "idle_held_usd=2",
        "--format",
        "markdown",
    ])?;
    assert_eq!(out.status.code(), Some(1));
    let md = text(&out.stdout);
    assert!(
        md.starts_with("## ❌ gpuaudit check: 1 of 2 rules failed"),
        "{md}"
    );
    assert!(
        md.contains("| rule (metric) | baseline | current | delta | limit | verdict |"),
        "{md}"
    );
    assert!(
        md.contains(
            "| `--max-drop active=2pp` | 55% | 47.5% | -7.5 pp (-13.64%) | drop ≤ 2 pp | ❌ FAIL |"
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "| `--max idle_held_usd=2` | $1.00 | $1.50 | +$0.50 (+50%) | ≤ $2.00 | ✅ pass |"
        ),
        "{md}"
    );
    Ok(())
}

#[test]
fn junit_parses_as_xml_with_one_testcase_per_rule() -> anyhow::Result<()> {
    let out = check(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "active=2pp",
        "--max-rise",
        "idle_held_usd=60%",
        "--min",
        "tensor_active=0.1",
        "--allow-missing",
        "--format",
        "junit",
    ])?;
    assert_eq!(out.status.code(), Some(1));
    let xml = text(&out.stdout);
    let doc = roxmltree::Document::parse(&xml)?;
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .expect("a testsuite");
    assert_eq!(suite.attribute("tests"), Some("3"));
    assert_eq!(suite.attribute("failures"), Some("1"));
    assert_eq!(suite.attribute("skipped"), Some("1"));
    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let names: Vec<&str> = cases.iter().filter_map(|c| c.attribute("name")).collect();
    assert_eq!(
        names,
        [
            "--min tensor_active=0.1",
            "--max-drop active=2pp",
            "--max-rise idle_held_usd=60%"
        ]
    );
    let child = |i: usize, tag: &str| cases[i].children().find(|n| n.has_tag_name(tag));
    assert!(child(0, "skipped").is_some());
    let failure = child(1, "failure").expect("the drop fails");
    assert_eq!(
        failure.attribute("message"),
        Some("active dropped 7.5 pp; limit 2 pp")
    );
    assert!(child(2, "failure").is_none() && child(2, "skipped").is_none());
    Ok(())
}

#[test]
fn rules_from_a_toml_file() -> anyhow::Result<()> {
    let (code, doc) = check_json(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--rules",
        "testdata/check/gpuaudit.toml",
        "--min",
        "active=0.4",
    ])?;
    assert_eq!(code, 1);
    let labels: Vec<String> = rules(&doc)
        .iter()
        .map(|r| r["rule"].as_str().unwrap_or("?").to_string())
        .collect();
    assert_eq!(
        labels,
        [
            "--min active=0.4",
            "--max idle_held_usd=2",
            "--max-drop active=10pp",
            "--max-drop sm_active=10%",
            "--max-rise idle_held_gpu_hours=0.5"
        ]
    );
    assert_eq!(verdicts(&doc), ["pass", "pass", "pass", "fail", "pass"]);

    let dir = tempfile::tempdir()?;
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[min]\nactive = 0.4\n[max-drop]\nmfuu = \"2pp\"\n")?;
    let out = check(&[CUR_JSON, "--rules", &bad.display().to_string()])?;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("bad.toml")
            && stderr.contains("unknown metric 'mfuu'")
            && stderr.contains("did you mean mfu"),
        "{stderr}"
    );
    std::fs::write(&bad, "[min]\nactive = \n")?;
    let stderr = text(&check(&[CUR_JSON, "--rules", &bad.display().to_string()])?.stderr);
    assert!(stderr.contains("bad.toml: line 2"), "{stderr}");
    Ok(())
}

#[test]
fn usage_and_input_errors_exit_2() -> anyhow::Result<()> {
    let cases: [(&[&str], &str); 7] = [
        (&[CUR_JSON, "--min", "mfuu=0.3"], "unknown metric 'mfuu'"),
        (&[CUR_JSON], "no rules"),
        (&[CUR_JSON, "--max-drop", "active=2pp"], "--baseline"),
        (
            &[
                CUR_JSON,
                "--baseline",
                BASE_JSON,
                "--max-drop",
                "idle_held_usd=2pp",
            ],
            "ratios only",
        ),
        (&[CUR_JSON, "--min", "sm_active=60"], "fraction"),
        (
            &["testdata/check/empty.csv", "--min", "active=0"],
            "no usable samples",
        ),
        (
            &[
                CUR_JSON,
                "--baseline",
                "testdata/check/missing.json",
                "--max-drop",
                "active=1pp",
            ],
            "missing.json",
        ),
    ];
    for (args, want) in cases {
        let out = check(args)?;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(want), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed a result");
    }
    Ok(())
}

#[test]
fn list_metrics_prints_the_metric_table() -> anyhow::Result<()> {
    let out = check(&["--list-metrics"])?;
    assert_eq!(out.status.code(), Some(0));
    let list = text(&out.stdout);
    for name in [
        "active",
        "sm_active",
        "sm_occupancy",
        "tensor_active",
        "mfu",
        "idle_held_gpu_hours",
        "useful_gpu_hours",
        "idle_held_usd",
        "not_useful_usd",
    ] {
        assert!(
            list.contains(&format!(" {name} ")),
            "{name} missing from\n{list}"
        );
    }
    assert!(list.contains("cost.monthly_run_rate.idle_held_usd"));
    Ok(())
}

#[test]
fn sample_options_on_reports_are_refused() -> anyhow::Result<()> {
    let out = check(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "active=2pp",
        "--price",
        "3",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--price applies to raw samples"),
        "{}",
        text(&out.stderr)
    );
    let out = check(&[CUR_JSON, "--min", "active=0.4", "--idle-below", "5%"])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--idle-below"));
    // "given" is clap's value source, not a value unlike the default: the
    // default spelled out, or any audit flag (--want), is refused too;
    // --threads changes no figure and passes
    for (flag, value) in [
        ("--idle-below", "0.01"),
        ("--want", "4"),
        ("--min-window", "24h"),
    ] {
        let out = check(&[CUR_JSON, "--min", "active=0.4", flag, value])?;
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(
            text(&out.stderr).contains(&format!("{flag} applies to raw samples")),
            "{}",
            text(&out.stderr)
        );
    }
    let out = check(&[CUR_JSON, "--min", "active=0.4", "--threads", "2"])?;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // With samples on one side the options apply there.
    let (code, doc) = check_json(&[
        CUR_CSV,
        "--baseline",
        BASE_JSON,
        "--max-rise",
        "idle_held_usd=0%",
        "--price",
        "1",
    ])?;
    assert_eq!(
        code, 0,
        "idle held $0.75 at $1/h, below the baseline's $1.00"
    );
    assert_close(num(&rules(&doc)[0], "/current"), 0.75, "idle usd at $1");
    Ok(())
}

/// testdata/mfu (tests/mfu.rs's fixtures, by hand in its README): with the jobs
/// file, useful = 0.3 x 6 + 0.25 x 3 = 2.55 of 12 held GPU-h, MFU 0.2125.
#[test]
fn mfu_rules_on_samples_with_a_jobs_file() -> anyhow::Result<()> {
    let fleet = "testdata/mfu/fleet.csv";
    let jobs = ["--jobs", "testdata/mfu/jobs.csv", "--price", "2"];
    let mut args = vec![
        fleet,
        "--min",
        "mfu=0.2",
        "--min",
        "mfu=21.3%",
        "--max",
        "not_useful_usd=18.9",
    ];
    args.extend(jobs);
    let (code, doc) = check_json(&args)?;
    assert_eq!(code, 1);
    assert_eq!(verdicts(&doc), ["pass", "fail", "pass"]);
    assert_close(num(&rules(&doc)[0], "/current"), 2.55 / 12.0, "mfu");
    assert_close(num(&rules(&doc)[1], "/limit"), 0.213, "21.3% as a fraction");
    assert_close(
        num(&rules(&doc)[2], "/current"),
        24.0 - 2.55 * 2.0,
        "not useful usd",
    );

    // Without the jobs file nothing declares model FLOPs: MFU is not measured.
    let out = check(&[fleet, "--min", "mfu=0.2", "--price", "2"])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("mfu is null in CURRENT"),
        "{}",
        text(&out.stderr)
    );
    Ok(())
}

#[test]
fn a_report_of_no_samples_never_passes() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(CUR_JSON)?)?;
    doc["sources"]["rows_used"] = 0.into();
    doc["layers"]["observed_gpu_hours"] = 0.0.into();
    let empty = dir.path().join("empty-report.json");
    std::fs::write(&empty, serde_json::to_string_pretty(&doc)?)?;
    let out = check(&[&empty.display().to_string(), "--max", "idle_held_usd=100"])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("covers no samples"),
        "{}",
        text(&out.stderr)
    );

    // A gpuaudit document that is not a report, and a report cut short.
    let other = dir.path().join("check-output.json");
    std::fs::write(
        &other,
        "{\n  \"schema\": \"gpuaudit.check/1\",\n  \"rules\": []\n}\n",
    )?;
    let stderr = text(&check(&[&other.display().to_string(), "--min", "active=0"])?.stderr);
    assert!(
        stderr.contains("expected a gpuaudit.report/1 report"),
        "{stderr}"
    );
    let cut = dir.path().join("cut.json");
    let full = std::fs::read_to_string(CUR_JSON)?;
    std::fs::write(&cut, &full[..full.len() / 2])?;
    let out = check(&[&cut.display().to_string(), "--min", "active=0"])?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cut.json: not valid JSON"),
        "{}",
        text(&out.stderr)
    );
    Ok(())
}

/// Run a check with stdout a pipe whose read end is already closed (`| head`
/// that exited, a crashed uploader): the exit code and stderr.
fn check_into_closed_pipe(args: &[&str]) -> anyhow::Result<(i32, String)> {
    let (reader, writer) = std::io::pipe()?;
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpuaudit"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .arg("check")
        .args(args)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()?;
    Ok((out.status.code().unwrap_or(-1), text(&out.stderr)))
}

#[test]
fn a_closed_stdout_never_turns_a_failure_into_a_pass() -> anyhow::Result<()> {
    for format in ["table", "json", "markdown", "junit"] {
        let failing = [
            CUR_JSON,
            "--baseline",
            BASE_JSON,
            "--max-drop",
            "active=2pp",
            "--format",
            format,
        ];
        let (code, stderr) = check_into_closed_pipe(&failing)?;
        assert_eq!(code, 1, "{format}: {stderr}");
        assert!(
            stderr.contains("check failed: --max-drop active=2pp"),
            "{format}: {stderr}"
        );

        // An input error stays 2 (junit and markdown write a document first).
        let (code, stderr) =
            check_into_closed_pipe(&[CUR_JSON, "--min", "tensor_active=0.1", "--format", format])?;
        assert_eq!(code, 2, "{format}: {stderr}");

        // Nothing failed: the closed pipe ends the output quietly with 0.
        let (code, stderr) =
            check_into_closed_pipe(&[CUR_JSON, "--min", "active=0.4", "--format", format])?;
        assert_eq!((code, stderr.as_str()), (0, ""), "{format}");
    }
    // The same through a shell pipeline, as a CI script runs it.
    let out = std::process::Command::new("bash")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("-c")
        .arg(format!(
            "set -o pipefail; {} check {CUR_JSON} --baseline {BASE_JSON} --max-drop active=2pp | true",
            env!("CARGO_BIN_EXE_gpuaudit")
        ))
        .output()?;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    Ok(())
}

#[test]
fn a_plain_change_in_a_ratio_reads_as_points() -> anyhow::Result<()> {
    let out = check(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "sm_active=0.02",
    ])?;
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let row = stdout
        .lines()
        .find(|l| l.contains("sm_active"))
        .unwrap_or_default();
    assert!(
        row.contains("drop ≤ 2 pp") && row.contains("FAIL"),
        "{stdout}"
    );
    assert!(
        stdout.contains("sm_active dropped 3.75 pp; limit 2 pp"),
        "{stdout}"
    );
    let (_, doc) = check_json(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "sm_active=0.04",
    ])?;
    let r = &rules(&doc)[0];
    assert_eq!(r["limit_unit"], "pp");
    assert_close(num(r, "/limit"), 4.0, "0.04 as points");
    assert_close(num(r, "/measured"), 3.75, "drop in points");
    assert_eq!(r["verdict"], "pass");
    // A relative limit stays a percent.
    let out = check(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "sm_active=2%",
    ])?;
    assert!(
        text(&out.stdout).contains("drop ≤ 2%"),
        "{}",
        text(&out.stdout)
    );

    // 2 meant as 2 pp would be 200 points: refused, with both spellings offered.
    let out = check(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-drop",
        "sm_active=2",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--max-drop sm_active=2")
            && stderr.contains("write 2pp")
            && stderr.contains("or 2%"),
        "{stderr}"
    );
    Ok(())
}

/// BASE_JSON made to cover a week (168 h) and 4 GPUs, written to `dir`.
fn week_baseline(dir: &std::path::Path) -> anyhow::Result<String> {
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(BASE_JSON)?)?;
    doc["window"]["hours"] = 168.0.into();
    doc["gpu_count"] = 4.into();
    let path = dir.join("week.json");
    std::fs::write(&path, serde_json::to_string_pretty(&doc)?)?;
    Ok(path.display().to_string())
}

#[test]
fn price_and_window_mismatches_are_warned_in_every_format() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let week = week_baseline(dir.path())?;
    // CURRENT from samples at the built-in price; BASELINE priced with --price 2, a week long.
    let args = |format: &'static str| -> Vec<String> {
        [
            CUR_CSV,
            "--quiet",
            "--baseline",
            &week,
            "--max-rise",
            "idle_held_usd=1000%",
            "--max-drop",
            "active=10pp",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain(["--format".to_string(), format.to_string()])
        .collect()
    };
    let price = "prices differ";
    let window = "windows differ: CURRENT covers 1 h, BASELINE 168 h (168x)";
    let offer = "(use idle_held_usd_per_hour)";
    let run = |format: &'static str| -> anyhow::Result<Output> {
        Ok(gpuaudit()?.arg("check").args(args(format)).output()?)
    };

    let out = run("table")?;
    assert_eq!(
        out.status.code(),
        Some(0),
        "warnings leave the exit code alone: {}",
        text(&out.stderr)
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    for want in [
        price,
        window,
        offer,
        "GPU count differs: CURRENT has 2 GPUs, BASELINE 4",
    ] {
        assert!(stdout.contains(want), "table lacks {want}: {stdout}");
        assert!(stderr.contains(want), "stderr lacks {want}: {stderr}");
    }
    assert!(
        stdout.contains("BASELINE by --price 2 USD per GPU-hour for every GPU"),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 of 2 rules passed; 3 comparability warnings"),
        "{stdout}"
    );

    let md = text(&run("markdown")?.stdout);
    assert!(md.starts_with("## ⚠️ gpuaudit check"), "{md}");
    assert!(md.contains(price) && md.contains(window), "{md}");

    let json_args = args("json");
    let without_format: Vec<&str> = json_args[..json_args.len() - 2]
        .iter()
        .map(String::as_str)
        .collect();
    let (code, doc) = check_json(&without_format)?;
    assert_eq!(code, 0);
    let kinds: Vec<&str> = doc["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["prices", "window", "gpu_count"]);
    assert!(
        doc["warnings"][1]["message"]
            .as_str()
            .unwrap_or_default()
            .contains(window)
    );
    assert_eq!(
        (doc["passed"].as_bool(), doc["strict"].as_bool()),
        (Some(true), Some(false))
    );

    let xml = text(&run("junit")?.stdout);
    let parsed = roxmltree::Document::parse(&xml)?;
    let props: Vec<&str> = parsed
        .descendants()
        .filter(|n| n.has_tag_name("property"))
        .filter_map(|n| n.attribute("name"))
        .collect();
    assert_eq!(
        props,
        [
            "comparability.prices",
            "comparability.window",
            "comparability.gpu_count"
        ]
    );
    let err = parsed
        .descendants()
        .find(|n| n.has_tag_name("system-err"))
        .and_then(|n| n.text())
        .unwrap_or_default();
    assert!(err.contains(price) && err.contains(window), "{xml}");

    // --strict: each warning is a failure, a failing case in JUnit.
    let mut strict = args("junit");
    strict.push("--strict".into());
    let out = gpuaudit()?.arg("check").args(&strict).output()?;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("--strict: prices differ"),
        "{}",
        text(&out.stderr)
    );
    let xml = text(&out.stdout);
    let parsed = roxmltree::Document::parse(&xml)?;
    let suite = parsed
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .expect("a testsuite");
    assert_eq!(
        (suite.attribute("tests"), suite.attribute("failures")),
        (Some("5"), Some("3"))
    );

    // A rule on a per-hour figure has no window to worry about; same prices, no warning at all.
    let (code, doc) = check_json(&[
        CUR_JSON,
        "--baseline",
        BASE_JSON,
        "--max-rise",
        "idle_held_usd_per_hour=60%",
    ])?;
    assert_eq!(code, 0);
    assert_eq!(doc["warnings"], serde_json::json!([]));
    assert_close(
        num(&rules(&doc)[0], "/current"),
        1.5,
        "idle $/h over a 1 h window",
    );
    Ok(())
}

#[test]
fn junit_and_markdown_are_written_when_the_check_cannot_run() -> anyhow::Result<()> {
    for args in [
        &[CUR_JSON, "--min", "tensor_active=0.1"][..],
        &[
            CUR_JSON,
            "--baseline",
            "testdata/check/missing.json",
            "--max-drop",
            "active=1pp",
        ][..],
        &[CUR_JSON, "--min", "mfuu=0.3"][..],
    ] {
        let out = check(&[args, &["--format", "junit"]].concat())?;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let xml = text(&out.stdout);
        let parsed = roxmltree::Document::parse(&xml)?;
        let cases: Vec<_> = parsed
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(cases.len(), 1, "{xml}");
        let failure = cases[0]
            .children()
            .find(|n| n.has_tag_name("failure"))
            .expect("a failed case");
        let stderr = text(&out.stderr);
        let said = stderr.trim().trim_start_matches("gpuaudit: ");
        assert_eq!(
            failure.attribute("message"),
            Some(said),
            "the case says what stderr says"
        );
        let suite = parsed
            .descendants()
            .find(|n| n.has_tag_name("testsuite"))
            .expect("a testsuite");
        assert_eq!(suite.attribute("failures"), Some("1"));

        let out = check(&[args, &["--format", "markdown"]].concat())?;
        assert_eq!(out.status.code(), Some(2));
        let md = text(&out.stdout);
        assert!(
            md.starts_with("## ❌ gpuaudit check could not run") && md.contains(said),
            "{md}"
        );
    }
    Ok(())
}
