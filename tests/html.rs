//! `report --format html`: the meeting document. Escaping (an XSS fixture),
//! the embedded JSON (equal to `--format json`, read back by `check`),
//! determinism (a snapshot), size on a 1,000-GPU month, and, when Chromium
//! is installed, the page in a real headless browser with the network off:
//! headline figures in the DOM equal the JSON's, no request leaves the
//! file, no console message; a PDF and PNG screenshots under target/.
// Tests may be long (one scenario, checked step by step): the 80-line limit is
// for the code they test (clippy.toml).
#![allow(clippy::too_many_lines)]
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;
mod common;
use common::{data, gpuaudit};

const CHROMIUM: &str = "/usr/bin/chromium";

fn report(args: &[&str], format: &str) -> anyhow::Result<String> {
    let out = gpuaudit()?
        .arg("report")
        .args(args)
        .args(["--format", format])
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8(out.stdout)?)
}

/// The text of the report's script element, found without the crate's own extractor.
fn embedded(html: &str) -> anyhow::Result<Value> {
    let open = r#"<script type="application/json" id="gpuaudit-report""#;
    let start = html
        .find(open)
        .ok_or_else(|| anyhow::anyhow!("no report script in the page"))?;
    let body = start
        + html[start..]
            .find('>')
            .ok_or_else(|| anyhow::anyhow!("unclosed tag"))?
        + 1;
    let end = body
        + html[body..]
            .find("</script>")
            .ok_or_else(|| anyhow::anyhow!("unclosed script"))?;
    Ok(serde_json::from_str(&html[body..end])?)
}

#[test]
fn xss_labels_render_as_text() -> anyhow::Result<()> {
    let html = report(&[&data("html/xss-fleet.csv"), "--by", "team"], "html")?;
    let lower = html.to_ascii_lowercase();
    // the embedded report is the only script; no label became an element
    assert_eq!(lower.matches("<script").count(), 1, "{html}");
    assert_eq!(lower.matches("</script").count(), 1);
    assert!(
        !lower.contains("<img") && !lower.contains("<b>") && !lower.contains("<!--"),
        "{html}"
    );
    for escaped in [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&lt;/script&gt;&lt;b&gt;team&lt;/b&gt;",
        "a&amp;b &quot;q&quot; &#39;single&#39;",
        "h&lt;1&gt;&amp;&quot;x&quot;",
        "&lt;!--",
    ] {
        assert!(html.contains(escaped), "missing {escaped}");
    }
    // and the JSON inside still carries the labels as they were
    let doc = embedded(&html)?;
    assert_eq!(doc["idle_episodes"][0]["job"], "<script>alert(1)</script>");
    assert_eq!(doc["idle_episodes"][0]["team"], "</script><b>team</b>");
    assert_eq!(doc["idle_episodes"][0]["host"], "h<1>&\"x\"");
    Ok(())
}

#[test]
fn embedded_json_is_the_report() -> anyhow::Result<()> {
    let args = [
        data("demo-fleet.parquet"),
        "--by".into(),
        "team".into(),
        "--top".into(),
        "10".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let html = report(&args, "html")?;
    let json: Value = serde_json::from_str(&report(&args, "json")?)?;
    assert_eq!(embedded(&html)?, json);
    assert_eq!(json["idle_episodes"].as_array().map(Vec::len), Some(10));
    Ok(())
}

#[test]
fn same_input_same_bytes() -> anyhow::Result<()> {
    let args = [data("small-fleet.csv"), "--by".into(), "team".into()];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let a = report(&args, "html")?;
    let b = report(&args, "html")?;
    assert_eq!(a, b);
    // the sources line names the file: make the snapshot independent of the checkout path
    let stable = a.replace(&data("small-fleet.csv"), "testdata/small-fleet.csv");
    insta::assert_snapshot!("small_fleet_html", stable);
    Ok(())
}

/// With `--jobs`, the useful layer joins the waterfall and the jobs table lists MFU
/// (testdata/mfu: train-a at 30%, not useful $12.60; see tests/mfu.rs).
#[test]
fn declared_jobs_show_their_mfu() -> anyhow::Result<()> {
    let html = report(
        &[&data("mfu/fleet.csv"), "--jobs", &data("mfu/jobs.csv")],
        "html",
    )?;
    let jobs = html
        .split("<section id=\"jobs\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .ok_or_else(|| anyhow::anyhow!("no jobs section"))?;
    assert!(
        jobs.contains("<td class=\"n\">2</td><td class=\"n\">6.00</td><td class=\"n\">95.0%</td><td class=\"n\">70.0%</td><td class=\"n\">50.0%</td><td class=\"n\">30.0%</td><td class=\"n\">$12.60</td>"),
        "{jobs}"
    );
    assert!(jobs.contains("<tr><td>train-a</td>"), "{jobs}");
    assert!(jobs.contains("<td>mystery</td>") && jobs.contains("<td class=\"n\">n/a</td>"));
    assert!(
        html.contains("title=\"useful: "),
        "the useful layer is drawn"
    );
    Ok(())
}

#[test]
fn page_fetches_nothing() -> anyhow::Result<()> {
    let html = report(&[&data("demo-fleet.parquet"), "--by", "team"], "html")?;
    let lower = html.to_ascii_lowercase();
    for banned in [
        "http://", "https://", "src=", "href=", "url(", "@import", "<link", "<img", "<iframe",
        "<object",
    ] {
        assert!(!lower.contains(banned), "the page contains {banned}");
    }
    assert!(
        html.contains(r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none';"#)
    );
    assert!(html.contains("prefers-color-scheme: dark") && html.contains("@media print"));
    Ok(())
}

#[test]
fn check_reads_the_embedded_report() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let (html, json) = (dir.path().join("fleet.html"), dir.path().join("fleet.json"));
    let input = data("demo-fleet.parquet");
    for (path, format) in [(&html, "html"), (&json, "json")] {
        let out = gpuaudit()?
            .args(["report", &input, "--format", format, "-o"])
            .arg(path)
            .output()?;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty(), "-o writes nothing to stdout");
    }
    // the page against the JSON, and the JSON against the page: the same run
    for (current, baseline) in [(&html, &json), (&json, &html)] {
        let out = gpuaudit()?
            .arg("check")
            .arg(current)
            .arg("--baseline")
            .arg(baseline)
            .args(["--max-drop", "active=0.000001"])
            .output()?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("(report)"), "{stdout}");
    }
    // a regression rule that must fail on the numbers read from the page
    let out = gpuaudit()?
        .arg("check")
        .arg(&html)
        .args(["--min", "active=0.99"])
        .output()?;
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );

    let plain = dir.path().join("other.html");
    std::fs::write(
        &plain,
        "<!DOCTYPE html><html><body>not a report</body></html>",
    )?;
    let out = gpuaudit()?
        .arg("check")
        .arg(&plain)
        .args(["--min", "active=0.1"])
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("other.html") && stderr.contains("id=\"gpuaudit-report\""),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn output_to_a_file_and_a_clear_error_when_it_cannot() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("fleet.html");
    let out = gpuaudit()?
        .args(["report", &data("small-fleet.csv"), "--format", "html", "-o"])
        .arg(&path)
        .output()?;
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(&path)?,
        report(&[&data("small-fleet.csv")], "html")?
    );
    let bad = dir.path().join("no-such-dir").join("fleet.html");
    let out = gpuaudit()?
        .args([
            "report",
            &data("small-fleet.csv"),
            "--format",
            "html",
            "--output",
        ])
        .arg(&bad)
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--output") && stderr.contains("no-such-dir"),
        "{stderr}"
    );
    Ok(())
}

/// 1,000 GPUs for 30 days (hourly samples: the page's size depends on GPUs,
/// groups and episodes, not on the sample count) stays under 1 MB, even by job.
#[test]
fn a_thousand_gpus_for_thirty_days_stay_under_one_megabyte() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let fleet = dir.path().join("fleet.parquet");
    let out = gpuaudit()?
        .args([
            "demo",
            "--gpus",
            "1000",
            "--days",
            "30",
            "--interval",
            "1h",
            "--out",
        ])
        .arg(&fleet)
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fleet = fleet.display().to_string();
    let html = report(&[&fleet, "--by", "job", "-q"], "html")?;
    println!("1,000 GPUs x 30 days by job: {} bytes", html.len());
    assert!(html.len() <= 1_000_000, "{} bytes", html.len());
    let doc = embedded(&html)?;
    assert_eq!(doc["gpu_count"], 1000);
    assert_eq!(
        doc["gpus"].as_array().map(Vec::len),
        Some(1000),
        "1,000 GPUs are embedded in full"
    );
    assert_eq!(
        doc["groups"].as_array().map(Vec::len),
        Some(20),
        "showback cut to the top 20 jobs"
    );
    assert!(
        html.contains(" data-cut=\"idle_episodes 10 of ") && html.contains("groups 20 of "),
        "the cut is stated"
    );
    Ok(())
}

// ---- the page in a real browser ----

fn out_dir() -> anyhow::Result<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("html");
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Headless Chromium with the network off: every proxied request goes to a
/// dead port, no background services, a fresh profile; console messages on stderr.
fn chromium(profile: &Path, args: &[String], url: &str) -> anyhow::Result<Output> {
    let out = std::process::Command::new("timeout")
        .arg("120")
        .arg(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--no-first-run",
        ])
        .args([
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-default-apps",
        ])
        .args([
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "chromium failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(out)
}

/// Requests the page made (the browser's own background requests carry no
/// initiator: "not an origin"), read from Chromium's net log.
fn page_requests(netlog: &Path) -> anyhow::Result<Vec<String>> {
    let log: Value = serde_json::from_str(&std::fs::read_to_string(netlog)?)?;
    let start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].as_u64();
    anyhow::ensure!(start_job.is_some(), "net log without URL_REQUEST_START_JOB");
    let mut urls = Vec::new();
    for e in log["events"].as_array().into_iter().flatten() {
        let p = &e["params"];
        // the event's begin phase carries the URL and initiator; its end phase nothing
        if let (true, Some(url)) = (e["type"].as_u64() == start_job, p["url"].as_str())
            && p["initiator"].as_str() != Some("not an origin")
        {
            urls.push(url.to_string());
        }
    }
    Ok(urls)
}

fn console_lines(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect()
}

/// The formatting a person reads, written out here independently of src/render.
fn shown(pointer: &str, v: f64) -> String {
    let grouped = |x: f64| {
        let digits = (x.round() as i64).to_string();
        let mut s = String::new();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                s.push(',');
            }
            s.push(ch);
        }
        s
    };
    if pointer == "/gpu_count" {
        format!("{v}")
    } else if pointer.starts_with("/ratios/") {
        format!("{:.1}%", v * 100.0)
    } else if pointer.ends_with("_usd") {
        if v >= 100.0 {
            format!("${}", grouped(v))
        } else {
            format!("${v:.2}")
        }
    } else if v >= 100.0 {
        grouped(v)
    } else {
        format!("{v:.1}")
    }
}

/// (pointer, data-value, text) of every headline figure in a DOM dump.
fn figures(dom: &str) -> Vec<(String, Option<f64>, String)> {
    let mut out = Vec::new();
    for chunk in dom.split("<dd data-figure=\"").skip(1) {
        let pointer = chunk.split('"').next().unwrap_or_default().to_string();
        let tag = chunk.split('>').next().unwrap_or_default();
        let value = tag
            .split("data-value=\"")
            .nth(1)
            .and_then(|v| v.split('"').next())
            .and_then(|v| v.parse().ok());
        let text = chunk
            .split_once('>')
            .map(|(_, rest)| rest.split("</dd>").next().unwrap_or_default().to_string())
            .unwrap_or_default();
        out.push((pointer, value, text));
    }
    out
}

#[test]
fn the_demo_report_in_headless_chromium() -> anyhow::Result<()> {
    if !Path::new(CHROMIUM).exists() {
        anyhow::ensure!(
            std::env::var_os("GPUAUDIT_REQUIRE_BROWSER").is_none(),
            "GPUAUDIT_REQUIRE_BROWSER is set but {CHROMIUM} is missing"
        );
        println!("skip: {CHROMIUM} not found (install Debian's chromium to run the browser test)");
        return Ok(());
    }
    let work = tempfile::tempdir()?;
    let args = [data("demo-fleet.parquet"), "--by".into(), "team".into()];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let page = work.path().join("fleet.html");
    std::fs::write(&page, report(&args, "html")?)?;
    let json: Value = serde_json::from_str(&report(&args, "json")?)?;
    let url = format!("file://{}", page.display());

    // The DOM, with the net log and console messages.
    let netlog = work.path().join("net.json");
    let dump = chromium(
        &work.path().join("p1"),
        &[
            "--dump-dom".into(),
            format!("--log-net-log={}", netlog.display()),
        ],
        &url,
    )?;
    let dom = String::from_utf8(dump.stdout)?;
    let figs = figures(&dom);
    assert!(figs.len() >= 6, "headline figures in the DOM: {figs:?}");
    for (pointer, value, text) in &figs {
        let want = json
            .pointer(pointer)
            .ok_or_else(|| anyhow::anyhow!("{pointer} not in the JSON"))?;
        match want.as_f64() {
            Some(w) => {
                assert_eq!(*value, Some(w), "{pointer}: data-value vs JSON");
                assert_eq!(text, &shown(pointer, w), "{pointer}: shown text");
            }
            None => assert!(
                want.is_null() && value.is_none() && text == "n/a",
                "{pointer}: {want} vs {text}"
            ),
        }
    }
    let headline = format!(
        "{} GPUs held {} GPU-h of {} observed",
        json["gpu_count"],
        shown(
            "/layers/held_gpu_hours",
            json["layers"]["held_gpu_hours"]
                .as_f64()
                .unwrap_or(f64::NAN)
        ),
        shown(
            "/layers/observed_gpu_hours",
            json["layers"]["observed_gpu_hours"]
                .as_f64()
                .unwrap_or(f64::NAN)
        )
    );
    assert!(
        dom.contains(&headline),
        "headline {headline:?} not in the DOM"
    );
    assert_eq!(
        embedded(&dom)?["layers"],
        json["layers"],
        "the JSON survives the browser's parse"
    );
    let requests = page_requests(&netlog)?;
    assert!(requests.is_empty(), "the page made requests: {requests:?}");
    let console = console_lines(&dump.stderr);
    assert!(console.is_empty(), "console messages: {console:?}");

    // The detectors detect: a page that loads an image is caught by both.
    let leaky = work.path().join("leaky.html");
    std::fs::write(
        &leaky,
        "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"img-src 'self'\"><img src=\"http://example.invalid/a.png\"><img src=\"http://127.0.0.2:9/b.png\">",
    )?;
    let control_log = work.path().join("control.json");
    let control = chromium(
        &work.path().join("p2"),
        &[
            "--dump-dom".into(),
            format!("--log-net-log={}", control_log.display()),
        ],
        &format!("file://{}", leaky.display()),
    )?;
    assert!(
        !console_lines(&control.stderr).is_empty(),
        "a blocked image logs a console message"
    );
    let control_page = work.path().join("control.html");
    std::fs::write(
        &control_page,
        "<!DOCTYPE html><img src=\"http://example.invalid/a.png\">",
    )?;
    let control_log = work.path().join("control2.json");
    chromium(
        &work.path().join("p3"),
        &[
            "--dump-dom".into(),
            format!("--log-net-log={}", control_log.display()),
        ],
        &format!("file://{}", control_page.display()),
    )?;
    assert!(
        !page_requests(&control_log)?.is_empty(),
        "an image request shows in the net log"
    );

    // For a person to look at: PDF (print CSS) and screenshots, light and dark.
    let dir = out_dir()?;
    let pdf = dir.join("report.pdf");
    chromium(
        &work.path().join("p4"),
        &[
            format!("--print-to-pdf={}", pdf.display()),
            "--no-pdf-header-footer".into(),
        ],
        &url,
    )?;
    let bytes = std::fs::read(&pdf)?;
    assert!(
        bytes.starts_with(b"%PDF") && bytes.len() > 10_000,
        "{} bytes",
        bytes.len()
    );
    for (name, extra) in [
        ("report.png", None),
        ("report-dark.png", Some("--force-dark-mode")),
    ] {
        let png = dir.join(name);
        let mut a = vec![
            format!("--screenshot={}", png.display()),
            "--window-size=1100,2100".into(),
            "--hide-scrollbars".into(),
        ];
        a.extend(extra.map(String::from));
        chromium(&work.path().join(format!("p-{name}")), &a, &url)?;
        assert!(std::fs::read(&png)?.starts_with(b"\x89PNG"), "{name}");
    }
    // prefers-color-scheme: dark swaps the palette
    assert_ne!(
        std::fs::read(dir.join("report.png"))?,
        std::fs::read(dir.join("report-dark.png"))?
    );
    println!("browser output: {}", dir.display());
    if std::env::var_os("GPUAUDIT_REGEN").is_some() {
        let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        std::fs::create_dir_all(&docs)?;
        std::fs::copy(dir.join("report.png"), docs.join("report.png"))?;
        println!("wrote docs/report.png");
    }
    Ok(())
}

/// Measures the laid-out page in the browser: the smallest font size of any
/// visible text (an SVG's scaled by its transform), what element carries it,
/// and whether the page scrolls sideways. The page runs in a 390-px iframe
/// (headless Chromium's window is at least 500 px wide); the result goes into
/// the parent's DOM for --dump-dom (a srcdoc frame shares its origin).
const MEASURE: &str = r#"<script>
const out = { minFont: 1000, minAt: "", scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, texts: 0 };
for (const el of document.querySelectorAll("body *")) {
  if (el.tagName === "SCRIPT") continue;
  const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim() !== "");
  if (!own) continue;
  const r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) continue;
  let size = parseFloat(getComputedStyle(el).fontSize);
  if (el instanceof SVGElement && el.getScreenCTM()) size *= el.getScreenCTM().a;
  out.texts += 1;
  if (size < out.minFont) { out.minFont = size; out.minAt = el.tagName + ": " + el.textContent.trim().slice(0, 40); }
}
const pre = document.createElement("pre");
pre.id = "measure";
pre.textContent = JSON.stringify(out);
parent.document.body.appendChild(pre);
</script>"#;

/// The meeting document's order (the verdict and the plan, with --want 16,
/// above the waterfall, a timeline chart, the glossary) and, at 390 px wide (a phone),
/// no text under 9 px and no sideways page scroll. The measuring copy drops
/// the page's CSP (it forbids scripts) and opens the glossary to measure it.
#[test]
fn the_meeting_document_reads_on_a_phone() -> anyhow::Result<()> {
    if !Path::new(CHROMIUM).exists() {
        anyhow::ensure!(
            std::env::var_os("GPUAUDIT_REQUIRE_BROWSER").is_none(),
            "GPUAUDIT_REQUIRE_BROWSER is set but {CHROMIUM} is missing"
        );
        println!("skip: {CHROMIUM} not found");
        return Ok(());
    }
    let work = tempfile::tempdir()?;
    let args = [
        data("demo-fleet.parquet"),
        "--by".into(),
        "team".into(),
        "--want".into(),
        "16".into(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let html = report(&args, "html")?;
    let json: Value = serde_json::from_str(&report(&args, "json")?)?;
    let page = work.path().join("fleet.html");
    std::fs::write(&page, &html)?;
    let url = format!("file://{}", page.display());
    let dom =
        String::from_utf8(chromium(&work.path().join("p1"), &["--dump-dom".into()], &url)?.stdout)?;
    let at = |needle: &str| {
        dom.find(needle)
            .ok_or_else(|| anyhow::anyhow!("{needle} not in the DOM"))
    };
    let verdict = format!(
        "<p class=\"verdict\" data-verdict=\"{}\">Verdict: ",
        json["purchase"]["verdict"].as_str().unwrap_or("?")
    );
    assert!(at(&verdict)? < at("<p class=\"plan\">You observed 40 GPUs.")?);
    assert!(at("<p class=\"plan\">")? < at("<section id=\"waterfall\">")?);
    // the plan by owner (issue 31's demo: 11 reclaimed, 5 uncovered)
    assert_eq!(json["purchase"]["verdict"], "reclaim_then_buy");
    let plan = at("<ul class=\"plan-items\"><li>Reclaim 11: 8 from jupyter-bob-0 (parked, ")?;
    assert!(plan < at("<section id=\"waterfall\">")?);
    assert!(at("<li>Buy 5: ")? < at("<section id=\"waterfall\">")?);
    assert!(at("<h3>The findings that matter (3 of 3)</h3>")? < at("<svg class=\"timeline\"")?);
    assert!(at("<svg class=\"timeline\"")? < at("<section id=\"leaks\">")?);
    assert!(at("<section id=\"leaks\">")? < at("<h2 class=\"appendix\">")?);
    assert!(at("<summary>How to read this")? > at("<section id=\"data-quality\">")?);
    // every term the page uses has its entry: the leak classes, the findings,
    // the shapes and the plan's words
    for term in [
        "MTBI",
        "spare",
        "gang",
        "ETT",
        "shape",
        "reclaim",
        "busy-equivalent",
        "coverage",
        "unallocated",
        "idle-held",
        "starved",
        "underfilled",
        "no-tensor",
        "parked",
        "oversized",
        "stranded",
        "free-node",
        "not-busy",
        "SM-active",
        "tensor-active",
    ] {
        at(&format!("<dt id=\"term-{term}\">"))?;
    }
    // the cost table labels as the terminal does: never "not useful (vs tensor active)"
    assert!(
        !dom.contains("not useful (vs"),
        "tensor idle is never 'not useful'"
    );
    assert!(dom.contains("<td>tensor idle</td>"));

    let measured = work.path().join("measure.html");
    let csp_end = html
        .find("<meta name=\"viewport\"")
        .ok_or_else(|| anyhow::anyhow!("no viewport meta"))?;
    let csp_start = html
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .ok_or_else(|| anyhow::anyhow!("no CSP"))?;
    let copy = format!("{}{}", &html[..csp_start], &html[csp_end..])
        .replace(
            "<details id=\"glossary\">",
            "<details id=\"glossary\" open>",
        )
        .replace("</body>", &format!("{MEASURE}</body>"));
    let frame = format!(
        "<!DOCTYPE html><html><body style=\"margin:0\"><iframe width=\"390\" height=\"4000\" style=\"border:0;display:block\" srcdoc=\"{}\"></iframe></body></html>",
        copy.replace('&', "&amp;").replace('"', "&quot;")
    );
    std::fs::write(&measured, frame)?;
    let measured_url = format!("file://{}", measured.display());
    let phone = [
        "--window-size=500,4000".to_string(),
        "--hide-scrollbars".into(),
    ];
    let mut a = phone.to_vec();
    a.push("--dump-dom".into());
    let dump = String::from_utf8(chromium(&work.path().join("p2"), &a, &measured_url)?.stdout)?;
    let result = dump
        .split("<pre id=\"measure\">")
        .nth(1)
        .and_then(|s| s.split("</pre>").next())
        .ok_or_else(|| anyhow::anyhow!("no measurement in the DOM"))?
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    let m: Value = serde_json::from_str(&result)?;
    println!("390 px: {m}");
    assert_eq!(m["innerWidth"], 390, "{m}");
    assert!(m["texts"].as_u64().unwrap_or(0) > 200, "{m}");
    assert!(m["minFont"].as_f64().unwrap_or(0.0) >= 9.0, "{m}");
    assert!(m["scrollWidth"].as_u64().unwrap_or(u64::MAX) <= 390, "{m}");

    // for a person to look at: the page in its 390-px frame
    let png = out_dir()?.join("report-390.png");
    let mut a = phone.to_vec();
    a.push(format!("--screenshot={}", png.display()));
    chromium(&work.path().join("p3"), &a, &measured_url)?;
    assert!(std::fs::read(&png)?.starts_with(b"\x89PNG"));
    Ok(())
}

/// `--title` names the page; a snapshot's page has no timeline, no verdict
/// from one instant and no run-rate column.
#[test]
fn title_and_the_snapshot_page() -> anyhow::Result<()> {
    let html = report(
        &[&data("small-fleet.csv"), "--title", "Fleet review <July>"],
        "html",
    )?;
    assert!(
        html.contains("<h1>Fleet review &lt;July&gt;</h1>"),
        "{html}"
    );
    assert!(html.contains("<title>Fleet review &lt;July&gt; 2026-07-06 10:00"));
    let snap = report(
        &[
            &data("captures/aicr_eks_h100x8_vllm_excerpt.prom"),
            "--at",
            "2026-02-19T19:31:04Z",
        ],
        "html",
    )?;
    assert!(snap.contains("data-verdict=\"none\">No purchase verdict: a snapshot is one instant"));
    assert!(!snap.contains("<section id=\"timeline\">"), "no timeline");
    assert!(
        !snap.contains("<th class=\"n\">monthly run-rate"),
        "no run-rate"
    );
    assert!(snap.contains("<th class=\"n\">now</th>"));
    assert!(
        snap.contains("<th class=\"n\">GPUs</th>"),
        "the leak map in GPUs"
    );
    Ok(())
}
