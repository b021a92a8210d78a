//! `gpuaudit report --prometheus` against a REAL Prometheus server: a demo
//! fleet is written as OpenMetrics with DCGM names and labels, backfilled with
//! `promtool tsdb create-blocks-from openmetrics`, served on 127.0.0.1, and the
//! pulled and pushdown reports are compared with the report on the same data
//! from a file. Error paths run against a tiny canned HTTP server on 127.0.0.1.
//! Without a `prometheus` binary the server tests skip with a message, except
//! under CI (env CI set), where they fail.
// Tests may be long (one scenario, checked step by step): the 80-line limit is
// for the code they test (clippy.toml).
#![allow(clippy::too_many_lines)]
use anyhow::{Context, Result, bail, ensure};
use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
mod common;
use common::num;

fn gpuaudit() -> Result<Command> {
    let mut c = Command::cargo_bin("gpuaudit")?;
    c.env("NO_COLOR", "1")
        .env_remove("GPUAUDIT_PROM_TOKEN")
        .env_remove("GPUAUDIT_PROM_USER")
        .env_remove("GPUAUDIT_PROM_PASSWORD");
    Ok(c)
}

fn report(args: &[&str]) -> Result<Value> {
    let out = gpuaudit()?
        .arg("report")
        .args(args)
        .args(["--format", "json", "--quiet"])
        .output()?;
    ensure!(
        out.status.success(),
        "report {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// Run a report that must fail with exit 2; its stderr.
fn report_fails(args: &[&str], env: &[(&str, &str)]) -> Result<String> {
    let mut c = gpuaudit()?;
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c
        .arg("report")
        .args(args)
        .args(["--format", "json", "--quiet"])
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    ensure!(
        out.status.code() == Some(2),
        "expected exit 2 for {args:?}, got {:?}: {stderr}",
        out.status.code()
    );
    ensure!(out.stdout.is_empty(), "a failed report printed to stdout");
    ensure!(
        stderr.lines().count() == 1,
        "expected one error line, got: {stderr}"
    );
    Ok(stderr)
}

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol * want.abs().max(1.0),
        "{what}: got {got}, want {want}"
    );
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The server binaries, or None (skip) when absent and not under CI.
fn binaries() -> Option<(PathBuf, PathBuf)> {
    match (on_path("prometheus"), on_path("promtool")) {
        (Some(p), Some(t)) => Some((p, t)),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI is set but prometheus/promtool are not on PATH (.ci/run installs Debian's prometheus package)"
            );
            // Straight to the process's stderr: the test harness captures eprintln!.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED live Prometheus test: no prometheus/promtool binary on PATH (apt-get install prometheus to run it)"
            );
            None
        }
    }
}

/// A Prometheus server on a temporary data dir; killed on drop.
struct Server {
    child: Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Backfill `openmetrics` and serve it with the default settings (5m lookback:
/// gpuaudit's last_over_time over one step keeps a missing sample missing and an
/// owner change from showing two series at once).
fn start_server(prometheus: &Path, promtool: &Path, openmetrics: &Path) -> Result<Server> {
    let dir = tempfile::tempdir()?;
    let data = dir.path().join("data");
    let out = std::process::Command::new(promtool)
        // One pass over the file per block: 24h blocks instead of 2h (a hidden promtool flag).
        .args([
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            "--max-block-duration=24h",
        ])
        .arg(openmetrics)
        .arg(&data)
        .output()?;
    ensure!(
        out.status.success(),
        "promtool backfill failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = dir.path().join("prometheus.yml");
    std::fs::write(&config, "global:\n  scrape_interval: 1m\n")?;
    let port = free_port()?;
    let child = std::process::Command::new(prometheus)
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", data.display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .args(["--storage.tsdb.retention.time=100y", "--log.level=warn"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting prometheus")?;
    let server = Server {
        child,
        url: format!("http://127.0.0.1:{port}"),
        _dir: dir,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(r) = ureq::get(&format!("{}/-/ready", server.url)).call()
            && r.status() == 200
        {
            return Ok(server);
        }
        if Instant::now() > deadline {
            bail!("prometheus did not become ready within 60 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// One canonical row of the demo CSV.
struct Row {
    t_s: i64,
    host: String,
    gpu: String,
    model: String,
    job: String,
    team: String,
    /// device_util, sm_active, sm_occupancy, tensor_active, dram_active, mem_used_bytes, power_w
    values: Vec<Option<f64>>,
}

const CSV_METRICS: &[(&str, &str, f64)] = &[
    ("device_util", "DCGM_FI_DEV_GPU_UTIL", 100.0),
    ("sm_active", "DCGM_FI_PROF_SM_ACTIVE", 1.0),
    ("sm_occupancy", "DCGM_FI_PROF_SM_OCCUPANCY", 1.0),
    ("tensor_active", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 1.0),
    ("dram_active", "DCGM_FI_PROF_DRAM_ACTIVE", 1.0),
    ("mem_used_bytes", "DCGM_FI_DEV_FB_USED", 1.0 / 1_048_576.0),
    ("power_w", "DCGM_FI_DEV_POWER_USAGE", 1.0),
];

fn read_demo_csv(path: &Path) -> Result<(Vec<String>, Vec<Row>)> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .context("empty csv")?
        .split(',')
        .map(str::to_string)
        .collect();
    let idx = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("no column {name}"))
    };
    let (ti, hi, gi, mi, ji, tei) = (
        idx("time")?,
        idx("host")?,
        idx("gpu")?,
        idx("model")?,
        idx("job")?,
        idx("team")?,
    );
    let vi: Vec<usize> = CSV_METRICS
        .iter()
        .map(|(c, _, _)| idx(c))
        .collect::<Result<_>>()?;
    let mut rows = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let t = chrono::NaiveDateTime::parse_from_str(f[ti], "%Y-%m-%dT%H:%M:%S%.f")?
            .and_utc()
            .timestamp();
        rows.push(Row {
            t_s: t,
            host: f[hi].into(),
            gpu: f[gi].into(),
            model: f[mi].into(),
            job: f[ji].into(),
            team: f[tei].into(),
            values: vi.iter().map(|&i| f[i].parse::<f64>().ok()).collect(),
        });
    }
    Ok((header, rows))
}

/// The rows as dcgm-exporter series scraped by Prometheus: DCGM names and
/// units, Hostname/UUID/gpu/modelName, the workload as exported_pod and
/// exported_namespace, and the scrape target's own job/instance labels.
fn write_openmetrics(rows: &[Row], path: &Path) -> Result<()> {
    std::fs::write(path, exposition(rows, |t_s| t_s.to_string()))?;
    Ok(())
}

/// The same series as the Prometheus text format VictoriaMetrics imports
/// (`/api/v1/import/prometheus`: timestamps in milliseconds).
fn prometheus_text(rows: &[Row]) -> String {
    exposition(rows, |t_s| (t_s * 1000).to_string())
}

fn exposition(rows: &[Row], stamp: impl Fn(i64) -> String) -> String {
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    for r in rows {
        let n = index.keys().filter(|(h, _)| *h == r.host).count();
        index.entry((r.host.clone(), r.gpu.clone())).or_insert(n);
    }
    let mut out = String::new();
    for (m, (_, name, scale)) in CSV_METRICS.iter().enumerate() {
        out.push_str(&format!("# TYPE {name} gauge\n"));
        let mut series: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in rows {
            let Some(v) = r.values[m] else { continue };
            let mut labels = format!(
                "gpu=\"{}\",UUID=\"{}\",Hostname=\"{}\",modelName=\"{}\",job=\"dcgm-exporter\",instance=\"{}:9400\"",
                index[&(r.host.clone(), r.gpu.clone())],
                r.gpu,
                r.host,
                r.model,
                r.host
            );
            if !r.job.is_empty() {
                labels.push_str(&format!(
                    ",exported_pod=\"{}\",exported_namespace=\"{}\"",
                    r.job, r.team
                ));
            }
            series
                .entry(labels)
                .or_default()
                .push(format!("{} {}", v * scale, stamp(r.t_s)));
        }
        for (labels, points) in series {
            for p in points {
                out.push_str(&format!("{name}{{{labels}}} {p}\n"));
            }
        }
    }
    out.push_str("# EOF\n");
    out
}

fn write_csv(
    header: &[String],
    rows: &[Row],
    source: &Path,
    path: &Path,
    keep: &dyn Fn(&Row) -> bool,
) -> Result<()> {
    let text = std::fs::read_to_string(source)?;
    let mut out = header.join(",") + "\n";
    for (line, r) in text.lines().skip(1).zip(rows) {
        if keep(r) {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::write(path, out)?;
    Ok(())
}

fn iso(t_s: i64) -> Result<String> {
    Ok(chrono::DateTime::from_timestamp(t_s, 0)
        .context("time")?
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

const LAYERS: &[&str] = &[
    "/layers/observed_gpu_hours",
    "/layers/held_gpu_hours",
    "/layers/active_gpu_hours",
    "/layers/sm_active_gpu_hours",
    "/layers/tensor_active_gpu_hours",
    "/layers/idle_held_gpu_hours",
    "/layers/unallocated_gpu_hours",
    "/ratios/active",
    "/ratios/sm_active",
    "/ratios/sm_occupancy",
    "/ratios/tensor_active",
    "/ratios/idle_held",
    "/cost/observed_usd",
    "/cost/held_usd",
    "/cost/idle_held_usd",
    "/cost/not_useful_usd",
    "/data_quality/unobserved_gpu_hours",
    "/window/hours",
    "/gpu_count",
    "/idle_episodes_total",
];

#[test]
fn live_prometheus_gives_the_file_reports_numbers() -> Result<()> {
    let Some((prometheus, promtool)) = binaries() else {
        return Ok(());
    };
    let dir = tempfile::tempdir()?;
    let demo = dir.path().join("demo.csv");
    let out = gpuaudit()?
        .args([
            "demo",
            "--gpus",
            "40",
            "--days",
            "0.5",
            "--interval",
            "1m",
            "--out",
        ])
        .arg(&demo)
        .output()?;
    ensure!(
        out.status.success(),
        "demo failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (header, rows) = read_demo_csv(&demo)?;
    // A 4-minute hole in one GPU's series (3 samples missing): over the lookback,
    // so both modes see a gap, and the modes weigh it differently (documented).
    let hole_gpu = rows[0].gpu.clone();
    let t0 = rows.iter().map(|r| r.t_s).min().context("rows")?;
    let t_end = rows.iter().map(|r| r.t_s).max().context("rows")? + 60;
    let in_hole = |r: &Row| r.gpu == hole_gpu && (t0 + 600..t0 + 780).contains(&r.t_s);
    let keep = |r: &Row| !in_hole(r);
    let fleet_csv = dir.path().join("fleet.csv");
    write_csv(&header, &rows, &demo, &fleet_csv, &keep)?;
    let kept: Vec<Row> = rows.into_iter().filter(|r| !in_hole(r)).collect();
    let om = dir.path().join("fleet.om");
    write_openmetrics(&kept, &om)?;
    let server = start_server(&prometheus, &promtool, &om)?;
    let (since, until) = (iso(t0)?, iso(t_end)?);
    let live = [
        "--prometheus",
        server.url.as_str(),
        "--since",
        since.as_str(),
        "--until",
        until.as_str(),
        "--step",
        "1m",
    ];

    // Pulled: exactly the file's numbers.
    let file = report(&[fleet_csv.to_str().context("path")?])?;
    let pulled = report(&live)?;
    // Concurrency changes nothing: one host per request (many pieces), fetched
    // one at a time and four at a time, gives the same document.
    let one_host = [&live[..], &["--hosts-per-query", "1"]].concat();
    let serial = report(&[&one_host[..], &["--prom-concurrency", "1"]].concat())?;
    let parallel = report(&[&one_host[..], &["--prom-concurrency", "4"]].concat())?;
    assert_eq!(serial, parallel, "--prom-concurrency changed the report");
    let requests = |v: &Value| -> Option<u64> {
        let notes = v["data_quality"]["notes"].to_string();
        let at = notes.find(" requests from ")?;
        notes[..at].rsplit(' ').next()?.parse().ok()
    };
    assert!(
        requests(&parallel) > requests(&pulled) && requests(&pulled).is_some(),
        "one host per request makes more requests: {:?} vs {:?}",
        requests(&parallel),
        requests(&pulled)
    );
    for p in LAYERS {
        close(num(&parallel, p), num(&file, p), 1e-9, p);
    }
    for p in LAYERS {
        close(num(&pulled, p), num(&file, p), 1e-9, p);
    }
    assert_eq!(pulled["held_rule"], file["held_rule"]);
    assert_eq!(pulled["window"]["start"], file["window"]["start"]);
    assert_eq!(pulled["window"]["end"], file["window"]["end"]);
    assert_eq!(pulled["sources"]["files"][0], server.url.as_str());
    let episodes = |v: &Value| -> Vec<(String, String, String, String)> {
        v["idle_episodes"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        (
                            e["gpu"].to_string(),
                            e["job"].to_string(),
                            e["start"].to_string(),
                            e["end"].to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(episodes(&pulled), episodes(&file));
    assert!(
        num(&file, "/layers/held_gpu_hours") > 0.0
            && num(&file, "/layers/idle_held_gpu_hours") > 0.0
    );
    // The hole: 1 minute unobserved (4 min gap - 3 min max gap) in both.
    close(
        num(&pulled, "/data_quality/unobserved_gpu_hours"),
        1.0 / 60.0,
        1e-9,
        "unobserved",
    );

    // Per job, too (the workload's exported_pod, never the scrape job "dcgm-exporter").
    let file_by = report(&[fleet_csv.to_str().context("path")?, "--by", "job"])?;
    let pulled_by = report(&[&live[..], &["--by", "job"]].concat())?;
    let groups = |v: &Value| -> BTreeMap<String, f64> {
        v["groups"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|g| {
                        (
                            g["key"].as_str().unwrap_or("").to_string(),
                            num(g, "/layers/held_gpu_hours"),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (fg, pg) = (groups(&file_by), groups(&pulled_by));
    assert_eq!(fg.keys().collect::<Vec<_>>(), pg.keys().collect::<Vec<_>>());
    for (k, v) in &fg {
        close(pg[k], *v, 1e-9, k);
    }
    assert!(!pg.contains_key("dcgm-exporter"));

    // Pushdown: each evaluation point weighs one step, so it equals the sample
    // counts exactly; the pulled report weighs the sample before the hole
    // 3 min (its max gap) where pushdown counts 1: exactly 2 min more there.
    let push = report(&[&live[..], &["--pushdown"]].concat())?;
    let n = kept.len() as f64;
    let held: Vec<&Row> = kept.iter().filter(|r| !r.job.is_empty()).collect();
    let util = |r: &Row| r.values[0].unwrap_or(f64::NAN);
    close(
        num(&push, "/layers/observed_gpu_hours"),
        n / 60.0,
        1e-9,
        "pushdown observed",
    );
    close(
        num(&push, "/layers/held_gpu_hours"),
        held.len() as f64 / 60.0,
        1e-9,
        "pushdown held",
    );
    close(
        num(&push, "/layers/active_gpu_hours"),
        held.iter().map(|r| util(r)).sum::<f64>() / 60.0,
        1e-9,
        "pushdown active",
    );
    let idle = held.iter().filter(|r| util(r) < 0.01).count() as f64;
    close(
        num(&push, "/layers/idle_held_gpu_hours"),
        idle / 60.0,
        1e-9,
        "pushdown idle",
    );
    let hole_held = !kept
        .iter()
        .any(|r| r.gpu == hole_gpu && r.t_s == t0 + 540 && r.job.is_empty());
    close(
        num(&pulled, "/layers/observed_gpu_hours") - num(&push, "/layers/observed_gpu_hours"),
        2.0 / 60.0,
        1e-9,
        "pulled - pushdown observed",
    );
    if hole_held {
        close(
            num(&pulled, "/layers/held_gpu_hours") - num(&push, "/layers/held_gpu_hours"),
            2.0 / 60.0,
            1e-9,
            "held diff",
        );
    }
    // The documented tolerance: within 2 steps per gap, here well under 0.1 %.
    for p in [
        "/layers/sm_active_gpu_hours",
        "/layers/tensor_active_gpu_hours",
        "/ratios/active",
        "/ratios/sm_active",
        "/ratios/tensor_active",
        "/cost/held_usd",
    ] {
        close(num(&push, p), num(&pulled, p), 1e-3, p);
    }
    assert_eq!(num(&push, "/gpu_count"), 40.0);
    let notes = push["data_quality"]["notes"].to_string();
    assert!(
        notes.contains("--pushdown") && notes.contains("--max-gap"),
        "caveat missing: {notes}"
    );
    let push_by = report(&[&live[..], &["--pushdown", "--by", "job"]].concat())?;
    for (k, v) in groups(&push_by) {
        assert!(
            fg.contains_key(&k),
            "pushdown group {k} not in the file's groups"
        );
        close(v, fg[&k], 2e-3, &k);
    }

    // --selector narrows: one host only.
    let host = kept[0].host.clone();
    let one = report(
        &[
            &live[..],
            &["--selector", &format!("{{Hostname=\"{host}\"}}")],
        ]
        .concat(),
    )?;
    assert_eq!(num(&one, "/gpu_count"), 8.0);

    // A selector that matches nothing: no data, exit 2 (never an empty success).
    let e = report_fails(
        &[&live[..], &["--selector", "{cluster=\"nope\"}"]].concat(),
        &[],
    )?;
    assert!(
        e.contains("no DCGM or AMD exporter series") && e.contains("cluster=\"nope\""),
        "{e}"
    );
    let e = report_fails(
        &[
            &live[..],
            &["--selector", "{cluster=\"nope\"}", "--pushdown"],
        ]
        .concat(),
        &[],
    )?;
    assert!(e.contains("no DCGM_FI_DEV_GPU_UTIL"), "{e}");
    // A PromQL error: Prometheus's own text comes through.
    let e = report_fails(
        &[&live[..], &["--selector", "{cluster=~\"(\"}"]].concat(),
        &[],
    )?;
    assert!(
        e.contains("bad_data") && e.contains("error parsing regexp"),
        "{e}"
    );
    Ok(())
}

/// A canned HTTP server on 127.0.0.1: `answer(request)` gives the status
/// line and JSON body of every reply; returns its URL and the requests it saw.
fn canned(
    answer: fn(&str) -> (&'static str, &'static str),
) -> Result<(String, std::sync::mpsc::Receiver<String>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            // The form body (the query) follows the headers.
            let head_end = buf
                .windows(4)
                .position(|w| w == b"\r\n\r\n")
                .map_or(buf.len(), |p| p + 4);
            let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| {
                    l.strip_prefix("content-length:")
                        .and_then(|v| v.trim().parse().ok())
                })
                .unwrap_or(0);
            while buf.len() < head_end + length {
                match s.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let request = String::from_utf8_lossy(&buf).to_string();
            let (status, body) = answer(&request);
            let reply = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = tx.send(request);
            let _ = s.write_all(reply.as_bytes());
        }
    });
    Ok((url, rx))
}

fn unauthorized(_: &str) -> (&'static str, &'static str) {
    ("401 Unauthorized", "Unauthorized\n")
}

fn bad_query(_: &str) -> (&'static str, &'static str) {
    (
        "400 Bad Request",
        r#"{"status":"error","errorType":"bad_data","error":"1:2: parse error: unexpected <op:=>"}"#,
    )
}

/// Label lists are empty, queries return no series (with a partial-answer warning).
fn empty(request: &str) -> (&'static str, &'static str) {
    if request.starts_with("POST /api/v1/query") {
        (
            "200 OK",
            r#"{"status":"success","data":{"resultType":"matrix","result":[]},"warnings":["store b unreachable"]}"#,
        )
    } else {
        ("200 OK", r#"{"status":"success","data":[]}"#)
    }
}

/// A small fleet behind a Thanos-like front that answers partially: one GPU,
/// three points, and a warning that one store was unreachable.
fn partial(request: &str) -> (&'static str, &'static str) {
    if request.contains("/api/v1/labels") {
        (
            "200 OK",
            r#"{"status":"success","data":["Hostname","UUID","__name__","job","instance"]}"#,
        )
    } else if request.contains("/api/v1/label/Hostname/values") {
        ("200 OK", r#"{"status":"success","data":["h1"]}"#)
    } else if request.contains("/api/v1/label/__name__/values") {
        (
            "200 OK",
            r#"{"status":"success","data":["DCGM_FI_DEV_FB_USED","DCGM_FI_DEV_GPU_UTIL"]}"#,
        )
    } else if request.contains("DCGM_FI_DEV_GPU_UTIL") {
        // last_over_time(...) drops __name__, as Prometheus does.
        (
            "200 OK",
            r#"{"status":"success","warnings":["store-b: partial response (no data from 2 of 3 stores)"],"data":{"resultType":"matrix","result":[
 {"metric":{"Hostname":"h1","UUID":"GPU-1","job":"dcgm","instance":"h1:9400"},"values":[[1783296000,"50"],[1783296060,"0"],[1783296120,"20"]]}]}}"#,
        )
    } else {
        (
            "200 OK",
            r#"{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"Hostname":"h1","UUID":"GPU-1","job":"dcgm","instance":"h1:9400"},"values":[[1783296000,"2000"],[1783296060,"2000"],[1783296120,"500"]]}]}}"#,
        )
    }
}

#[test]
fn warnings_of_a_partial_answer_reach_the_report() -> Result<()> {
    let (url, seen) = canned(partial)?;
    let out = gpuaudit()?
        .env("GPUAUDIT_PROM_TOKEN", "tok-123")
        .args([
            "report",
            "--prometheus",
            url.as_str(),
            "--format",
            "json",
            "--quiet",
        ])
        .args(WINDOW)
        .output()?;
    ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout)?;
    // 3 points of 1 min; held by memory (2000 MiB > 1 GiB) for the first two.
    close(
        num(&v, "/layers/observed_gpu_hours"),
        3.0 / 60.0,
        1e-9,
        "observed",
    );
    close(num(&v, "/layers/held_gpu_hours"), 2.0 / 60.0, 1e-9, "held");
    close(
        num(&v, "/layers/active_gpu_hours"),
        0.5 / 60.0,
        1e-9,
        "active",
    );
    close(
        num(&v, "/layers/idle_held_gpu_hours"),
        1.0 / 60.0,
        1e-9,
        "idle held",
    );
    assert_eq!(v["gpus"][0]["host"], "h1");
    let warnings = v["data_quality"]["warnings"].to_string();
    assert!(
        warnings.contains("store-b: partial response") && warnings.contains("may be partial"),
        "{warnings}"
    );
    let requests: Vec<String> = seen.try_iter().collect();
    assert!(
        requests.iter().all(|r| r.contains("Bearer tok-123")),
        "every request carries the token"
    );
    assert!(
        requests
            .iter()
            .any(|r| r.starts_with("POST /api/v1/query_range"))
    );
    Ok(())
}

const WINDOW: &[&str] = &[
    "--since",
    "2026-07-06T00:00:00Z",
    "--until",
    "2026-07-06T01:00:00Z",
    "--step",
    "1m",
];

#[test]
fn connection_refused_is_one_clear_line() -> Result<()> {
    let port = free_port()?;
    let url = format!("http://127.0.0.1:{port}");
    let e = report_fails(
        &[
            &["--prometheus", url.as_str(), "--prom-retries", "1"],
            WINDOW,
        ]
        .concat(),
        &[],
    )?;
    assert!(
        e.contains(&format!("cannot reach Prometheus at {url}")) && e.contains("after 2 tries"),
        "{e}"
    );
    assert!(e.to_lowercase().contains("refused"), "{e}");
    Ok(())
}

#[test]
fn unauthorized_without_and_with_a_wrong_token() -> Result<()> {
    let (url, seen) = canned(unauthorized)?;
    let e = report_fails(&[&["--prometheus", url.as_str()], WINDOW].concat(), &[])?;
    assert!(
        e.contains("401 Unauthorized")
            && e.contains("no credentials were sent")
            && e.contains("GPUAUDIT_PROM_TOKEN"),
        "{e}"
    );
    let secret = "s3cret-token-value";
    let e = report_fails(
        &[&["--prometheus", url.as_str()], WINDOW].concat(),
        &[("GPUAUDIT_PROM_TOKEN", secret)],
    )?;
    assert!(
        e.contains("401 Unauthorized") && e.contains("bearer token") && e.contains("rejected"),
        "{e}"
    );
    assert!(!e.contains(secret), "the token leaked: {e}");
    let requests: Vec<String> = seen.try_iter().collect();
    assert!(
        requests
            .iter()
            .any(|r| r.contains(&format!("Bearer {secret}"))),
        "the token was not sent"
    );
    // Basic auth from the URL: sent, never shown.
    let with_user = url.replace("http://", "http://me:pw-secret@");
    let e = report_fails(
        &[&["--prometheus", with_user.as_str()], WINDOW].concat(),
        &[],
    )?;
    assert!(
        e.contains("basic-auth") && !e.contains("pw-secret") && e.contains(&url),
        "{e}"
    );
    Ok(())
}

#[test]
fn a_promql_error_shows_prometheus_text() -> Result<()> {
    let (url, _) = canned(bad_query)?;
    let e = report_fails(&[&["--prometheus", url.as_str()], WINDOW].concat(), &[])?;
    assert!(
        e.contains("400 Bad Request, bad_data")
            && e.contains("1:2: parse error: unexpected <op:=>"),
        "{e}"
    );
    Ok(())
}

#[test]
fn an_empty_answer_is_no_data_not_an_empty_report() -> Result<()> {
    let (url, _) = canned(empty)?;
    let e = report_fails(&[&["--prometheus", url.as_str()], WINDOW].concat(), &[])?;
    assert!(e.contains("has no DCGM or AMD exporter series"), "{e}");
    Ok(())
}

#[test]
fn flags_are_checked_before_any_request() -> Result<()> {
    let e = report_fails(&[&["--prometheus", "prom:9090"], WINDOW].concat(), &[])?;
    assert!(e.contains("expected an http:// or https:// URL"), "{e}");
    let e = report_fails(
        &[
            &["--prometheus", "http://127.0.0.1:9"],
            WINDOW,
            &["--selector", "DCGM_FI_DEV_GPU_UTIL{a=\"b\"}"],
        ]
        .concat(),
        &[],
    )?;
    assert!(e.contains("--selector"), "{e}");
    // refused by clap's parser (the project's own rule behind it): exit 2,
    // its first line names the flag and what was expected
    for bad in ["0", "-2", "many", "65"] {
        let out = gpuaudit()?
            .arg("report")
            .args(["--prometheus", "http://127.0.0.1:9"])
            .args(WINDOW)
            .args(["--prom-concurrency", bad])
            .output()?;
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert_eq!(
            e.lines().next().unwrap_or_default(),
            format!(
                "error: invalid value '{bad}' for '--prom-concurrency <N>': must be a whole number from 1 to 64"
            ),
        );
    }
    let out = gpuaudit()?.args(["report", "--format", "json"]).output()?;
    assert_eq!(
        out.status.code(),
        Some(2),
        "no input and no --prometheus must be a usage error"
    );
    Ok(())
}

/// Two JSON values agree: numbers to `tol` (relative), nulls and strings exactly,
/// arrays and objects member by member; the path of the first difference.
fn same(a: &Value, b: &Value, tol: f64, path: &str) -> Result<()> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            ensure!(
                (x - y).abs() <= tol * y.abs().max(1.0),
                "{path}: {x} vs {y}"
            );
        }
        (Value::Array(x), Value::Array(y)) => {
            ensure!(
                x.len() == y.len(),
                "{path}: {} vs {} items",
                x.len(),
                y.len()
            );
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same(p, q, tol, &format!("{path}[{i}]"))?;
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys: Vec<_> = x.keys().collect();
            ensure!(keys == y.keys().collect::<Vec<_>>(), "{path}: keys differ");
            for k in keys {
                same(&x[k], &y[k], tol, &format!("{path}.{k}"))?;
            }
        }
        _ => ensure!(a == b, "{path}: {a} vs {b}"),
    }
    Ok(())
}

/// The gold test of the diagnosis under --pushdown: a gap-free fleet through
/// the pulled engine and through PromQL gives the same timeline, leak map
/// (fleet, per team, per job) and purchase answer; one bucket and one class
/// are also computed here by hand from the rows. `--until` falls half a step
/// after the last point, so the last point weighs half a step in both.
#[test]
fn pushdown_timeline_and_leaks_equal_the_pulled_ones() -> Result<()> {
    let Some((prometheus, promtool)) = binaries() else {
        return Ok(());
    };
    let dir = tempfile::tempdir()?;
    let demo = dir.path().join("demo.csv");
    let out = gpuaudit()?
        .args(["demo", "--gpus", "40", "--days", "0.25", "--interval", "1m"])
        .arg("--out")
        .arg(&demo)
        .output()?;
    ensure!(out.status.success(), "demo failed");
    let (_, rows) = read_demo_csv(&demo)?;
    let om = dir.path().join("fleet.om");
    write_openmetrics(&rows, &om)?;
    let server = start_server(&prometheus, &promtool, &om)?;
    let t0 = rows.iter().map(|r| r.t_s).min().context("rows")?;
    let t_last = rows.iter().map(|r| r.t_s).max().context("rows")?;
    let (since, until) = (iso(t0)?, iso(t_last + 30)?);
    let live = [
        "--prometheus",
        server.url.as_str(),
        "--since",
        since.as_str(),
        "--until",
        until.as_str(),
        "--step",
        "1m",
        "--by",
        "team",
    ];
    let pulled = report(&live)?;
    let push_args = [&live[..], &["--pushdown"]].concat();
    let push = report(&push_args)?;
    for section in ["timeline", "leaks", "purchase"] {
        ensure!(
            !push[section].is_null(),
            "{section} is null under --pushdown"
        );
        // the plan's owners come from the node view and the jobs: pulled mode only
        let (mut push_s, mut pulled_s) = (push[section].clone(), pulled[section].clone());
        if let (Some(a), Some(b)) = (push_s.as_object_mut(), pulled_s.as_object_mut()) {
            ensure!(
                a.remove("reclaim")
                    .is_none_or(|r| r == serde_json::json!([]))
            );
            b.remove("reclaim");
        }
        same(&push_s, &pulled_s, 1e-9, section)?;
    }
    ensure!(push["nodes"].is_null() && push["jobs"].is_null());
    let notes = push["data_quality"]["notes"].to_string();
    ensure!(
        notes.contains("nodes, jobs: not computed with --pushdown"),
        "{notes}"
    );
    // the automatic bucket: 1m step, 6 h window -> 5m (>= 4 steps, <= 720 buckets)
    assert_eq!(num(&push, "/timeline/bucket_seconds"), 300.0);
    ensure!(
        push["leaks"]["groups"]
            .as_array()
            .is_some_and(|g| g.len() > 1),
        "{} {}",
        push["leaks"]["by"],
        push["leaks"]["groups"]
    );
    ensure!(
        push["leaks"]["jobs"]
            .as_array()
            .is_some_and(|j| !j.is_empty())
    );

    // The leak map by model and by job (the owner label) too; the showback
    // groups by model are the models, as pulled.
    for by in ["model", "job"] {
        let args = [&live[..live.len() - 2], &["--by", by]].concat();
        let pulled_by = report(&args)?;
        let push_by = report(&[&args[..], &["--pushdown"]].concat())?;
        same(
            &push_by["leaks"],
            &pulled_by["leaks"],
            1e-9,
            &format!("leaks by {by}"),
        )?;
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v["groups"]
                .as_array()
                .map(|g| g.iter().map(|g| g["key"].to_string()).collect())
                .unwrap_or_default();
            k.sort();
            k
        };
        assert_eq!(keys(&push_by), keys(&pulled_by), "groups by {by}");
    }

    // By hand: the first bucket [b0, b0 + 5m) of the window [t0, ...).
    let b0 = t0.div_euclid(300) * 300;
    let len_min = ((b0 + 300).min(t_last + 30) - t0) as f64 / 60.0;
    let weight = |r: &Row| if r.t_s == t_last { 0.5 } else { 1.0 };
    let util = |r: &Row| r.values[0].unwrap_or(f64::NAN);
    let first: Vec<&Row> = rows.iter().filter(|r| r.t_s < b0 + 300).collect();
    let held: Vec<&&Row> = first.iter().filter(|r| !r.job.is_empty()).collect();
    let bucket = &push["timeline"]["buckets"][0];
    close(
        num(bucket, "/observed"),
        first.len() as f64 / len_min,
        1e-9,
        "b0 observed",
    );
    close(
        num(bucket, "/held"),
        held.len() as f64 / len_min,
        1e-9,
        "b0 held",
    );
    close(
        num(bucket, "/active"),
        held.iter().map(|r| util(r)).sum::<f64>() / len_min,
        1e-9,
        "b0 active",
    );
    let idle_b0 = held.iter().filter(|r| util(r) < 0.01).count() as f64;
    close(
        num(bucket, "/idle_held"),
        idle_b0 / len_min,
        1e-9,
        "b0 idle",
    );
    // ... and the idle class of the leak map over the whole window
    let idle_h: f64 = rows
        .iter()
        .filter(|r| !r.job.is_empty() && util(r) < 0.01)
        .map(|r| weight(r) / 60.0)
        .sum();
    ensure!(idle_h > 0.0, "the demo fleet has idle held time");
    let idle_row = &push["leaks"]["classes"][3];
    assert_eq!(idle_row["class"], "idle");
    close(num(idle_row, "/gpu_hours"), idle_h, 1e-9, "leaks.idle");

    // check reads the pushdown report's leak map
    let path = dir.path().join("push.json");
    let out = gpuaudit()?
        .arg("report")
        .args(&push_args)
        .args(["--format", "json", "--quiet"])
        .output()?;
    std::fs::write(&path, out.stdout)?;
    let path = path.to_str().context("path")?;
    let check = |limit: String| -> Result<Option<i32>> {
        let out = gpuaudit()?
            .args(["check", path, "--max", &limit])
            .output()?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        ensure!(out.status.code() != Some(2), "check {limit}: {stderr}");
        Ok(out.status.code())
    };
    assert_eq!(check(format!("leaks.idle={}", idle_h * 1.01))?, Some(0));
    assert_eq!(check(format!("leaks.idle={}", idle_h * 0.99))?, Some(1));
    Ok(())
}

/// `application/x-www-form-urlencoded` decoded (`+` and `%XX`).
fn form_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One GPU over WINDOW (60 one-minute points) held by notebook "nb-1" at 45
/// of them: 15 idle, 10 starved, 20 busy, activity 12.5 GPU-points. Every
/// PromQL sum answers by what its expression tests; a range query (the
/// timeline at 15m) gets a quarter in each of its four buckets.
fn one_gpu(request: &str) -> (&'static str, &'static str) {
    let ok = |body: String| -> (&'static str, &'static str) {
        ("200 OK", Box::leak(body.into_boxed_str()))
    };
    if request.contains("/api/v1/labels") {
        return ok(
            r#"{"status":"success","data":["Hostname","UUID","__name__","exported_pod"]}"#.into(),
        );
    }
    if request.contains("/api/v1/label/__name__/values") {
        return ok(r#"{"status":"success","data":["DCGM_FI_DEV_GPU_UTIL"]}"#.into());
    }
    if request.contains("/api/v1/series") {
        return ok(r#"{"status":"success","data":[{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"h1","UUID":"GPU-1","exported_pod":"nb-1"}]}"#.into());
    }
    let q = form_decoded(request);
    let held = if q.contains(">= 0.01) < 0.5") {
        10.0
    } else if q.contains(">= 0.5") {
        20.0
    } else if q.contains("< 0.01") {
        15.0
    } else if q.contains("max by") {
        12.5
    } else {
        45.0
    };
    // observed: the held points under the owner, 15 more without one
    let free = if q.contains("exported_pod!=\"\"") {
        0.0
    } else {
        15.0
    };
    let series = |v: f64, value: &dyn Fn(f64) -> String| {
        let mut s = vec![format!(
            r#"{{"metric":{{"exported_pod":"nb-1"}},{}}}"#,
            value(v)
        )];
        if free > 0.0 {
            s.push(format!(r#"{{"metric":{{}},{}}}"#, value(free)));
        }
        s.join(",")
    };
    if request.contains("/api/v1/query_range") {
        // evaluations at the ends of the four 15m buckets of 2026-07-06T00:00Z..01:00Z, less 1 ms
        let values = |v: f64| {
            let pts: Vec<String> = (1..=4)
                .map(|k| format!(r#"[{}.999,"{}"]"#, 1_783_296_000 + 900 * k - 1, v / 4.0))
                .collect();
            format!(r#""values":[{}]"#, pts.join(","))
        };
        return ok(format!(
            r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#,
            series(held, &values)
        ));
    }
    let value = |v: f64| format!(r#""value":[1783299599.999,"{v}"]"#);
    ok(format!(
        r#"{{"status":"success","data":{{"resultType":"vector","result":[{}]}}}}"#,
        series(held, &value)
    ))
}

/// The pushdown's timeline and leak map from canned PromQL answers, by hand;
/// a bucket that is not a multiple of --step gives a null timeline and a note.
#[test]
fn pushdown_sections_from_canned_sums() -> Result<()> {
    let (url, seen) = canned(one_gpu)?;
    let base = [
        &["--prometheus", url.as_str(), "--pushdown", "--price", "2"],
        WINDOW,
    ]
    .concat();
    let v = report(&[&base[..], &["--bucket", "15m"]].concat())?;
    let class = |v: &Value, name: &str| -> Value {
        v["leaks"]["classes"]
            .as_array()
            .and_then(|c| c.iter().find(|r| r["class"] == name).cloned())
            .unwrap_or(Value::Null)
    };
    // 60 GPU-minutes observed: 15 unallocated, 15 idle, 10 starved, 20 busy
    // without profiling metrics (busy_unprofiled), none unmeasured
    for (name, minutes) in [
        ("unallocated", 15.0),
        ("unmeasured", 0.0),
        ("idle", 15.0),
        ("starved", 10.0),
        ("busy_unprofiled", 20.0),
        ("effective", 0.0),
    ] {
        close(
            num(&class(&v, name), "/gpu_hours"),
            minutes / 60.0,
            1e-12,
            name,
        );
    }
    close(
        num(&class(&v, "idle"), "/share_of_held"),
        15.0 / 45.0,
        1e-12,
        "idle share",
    );
    close(num(&class(&v, "idle"), "/usd"), 0.5, 1e-12, "idle usd");
    assert_eq!(v["leaks"]["jobs"][0]["name"], "nb-1");
    // each 15m bucket: 15 GPU-minutes observed = 1 GPU, 0.75 held, 0.25 idle
    let t = &v["timeline"];
    assert_eq!(num(t, "/bucket_seconds"), 900.0);
    assert_eq!(t["buckets"].as_array().map(Vec::len), Some(4));
    let b = &t["buckets"][3];
    assert_eq!(b["start"], "2026-07-06T00:45:00Z");
    close(num(b, "/observed"), 1.0, 1e-12, "observed");
    close(num(b, "/held"), 0.75, 1e-12, "held");
    close(num(b, "/active"), 12.5 / 4.0 / 15.0, 1e-12, "active");
    close(num(b, "/spare"), 0.5, 1e-12, "spare");
    close(num(&v, "/purchase/held_p50"), 0.75, 1e-12, "held p50");
    assert_eq!(v["purchase"]["verdict"], "insufficient_data");
    let ranges = seen
        .try_iter()
        .filter(|r| r.starts_with("POST /api/v1/query_range"))
        .count();
    // observed, held, active, idle (no SM or tensor metric): one range query each
    assert_eq!(ranges, 4, "one range query per timeline series");

    let odd = report(&[&base[..], &["--bucket", "90s"]].concat())?;
    assert!(odd["timeline"].is_null() && odd["purchase"].is_null());
    assert!(!odd["leaks"].is_null());
    let notes = odd["data_quality"]["notes"].to_string();
    assert!(notes.contains("not a multiple of --step"), "{notes}");
    Ok(())
}

/// The VictoriaMetrics binary, or None (skip) when absent and not under CI.
fn victoria_binary() -> Option<PathBuf> {
    let found = on_path("victoria-metrics");
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but victoria-metrics is not on PATH (.ci/run installs Debian's victoria-metrics package)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED live VictoriaMetrics test: no victoria-metrics binary on PATH (apt-get install victoria-metrics to run it)"
        );
    }
    found
}

/// A single-node VictoriaMetrics on a temporary data dir, loaded with `text`
/// through its Prometheus import API; answers caching off, so no answer
/// computed while the import settles is reused.
fn start_victoria(binary: &Path, text: String, util_samples: usize, at_s: i64) -> Result<Server> {
    let dir = tempfile::tempdir()?;
    let port = free_port()?;
    let child = std::process::Command::new(binary)
        .arg(format!(
            "-storageDataPath={}",
            dir.path().join("data").display()
        ))
        .arg(format!("-httpListenAddr=127.0.0.1:{port}"))
        .args([
            "-retentionPeriod=100y",
            "-search.disableCache",
            "-loggerLevel=ERROR",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting victoria-metrics")?;
    let server = Server {
        child,
        url: format!("http://127.0.0.1:{port}"),
        _dir: dir,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ureq::get(&format!("{}/health", server.url))
        .call()
        .is_ok_and(|r| r.status() == 200)
    {
        ensure!(
            Instant::now() < deadline,
            "victoria-metrics did not become ready within 60 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    ureq::post(&format!("{}/api/v1/import/prometheus", server.url))
        .send_string(&text)
        .context("importing into victoria-metrics")?;
    ureq::get(&format!("{}/internal/force_flush", server.url)).call()?;
    // every util sample visible before the test queries
    let query = "sum(count_over_time(DCGM_FI_DEV_GPU_UTIL[30d]))";
    loop {
        let body = ureq::get(&format!("{}/api/v1/query", server.url))
            .query("query", query)
            .query("time", &at_s.to_string())
            .call()?
            .into_string()?;
        let seen: Value = serde_json::from_str(&body)?;
        let n = seen["data"]["result"][0]["value"][1]
            .as_str()
            .and_then(|v| v.parse::<f64>().ok());
        if n == Some(util_samples as f64) {
            return Ok(server);
        }
        ensure!(
            Instant::now() < deadline,
            "victoria-metrics shows {n:?} of {util_samples} samples after 60 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The report's figures the parity test compares.
const PARITY: &[&str] = &[
    "/layers/observed_gpu_hours",
    "/layers/held_gpu_hours",
    "/layers/active_gpu_hours",
    "/layers/sm_active_gpu_hours",
    "/layers/tensor_active_gpu_hours",
    "/layers/idle_held_gpu_hours",
    "/layers/unallocated_gpu_hours",
    "/ratios/active",
    "/ratios/sm_active",
    "/ratios/sm_occupancy",
    "/ratios/tensor_active",
    "/ratios/idle_held",
    "/cost/observed_usd",
    "/cost/held_usd",
    "/cost/idle_held_usd",
    "/window/hours",
    "/gpu_count",
];

/// `report --partials` of the DuckDB answer to `gpuaudit sql` over `csv`
/// (None: the duckdb package is absent outside CI).
fn through_duckdb(dir: &Path, csv: &Path, window: &[&str]) -> Result<Option<Value>> {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but the Python package duckdb is missing (.ci/run installs it)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the DuckDB leg of the parity test: python3 package duckdb not found"
        );
        return Ok(None);
    }
    let (query, answer) = (dir.join("query.sql"), dir.join("partials.parquet"));
    let table = format!("read_csv('{}')", csv.display());
    let out = gpuaudit()?
        .args(["sql", "--dialect", "duckdb", "--table", &table])
        .args(window)
        .arg("-o")
        .arg(&query)
        .output()?;
    ensure!(
        out.status.success(),
        "sql: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = std::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/sql/engine_run.py"
        ))
        .arg("duckdb")
        .arg(&query)
        .arg(&answer)
        .output()?;
    ensure!(
        run.status.success(),
        "duckdb: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    Ok(Some(report(&[
        "--partials",
        answer.to_str().context("path")?,
    ])?))
}

/// The fleet in both stores: a Prometheus (backfilled by promtool) and a
/// VictoriaMetrics (loaded by its import API).
struct Stores {
    prom: Server,
    vm: Server,
}

fn stores(
    bins: &(PathBuf, PathBuf, PathBuf),
    rows: &[Row],
    dir: &Path,
    end_s: i64,
) -> Result<Stores> {
    let om = dir.join(format!("fleet-{}.om", rows.len()));
    write_openmetrics(rows, &om)?;
    let util_samples = rows.iter().filter(|r| r.values[0].is_some()).count();
    Ok(Stores {
        prom: start_server(&bins.0, &bins.1, &om)?,
        vm: start_victoria(&bins.2, prometheus_text(rows), util_samples, end_s)?,
    })
}

/// The `--pushdown` reports of both stores, equal figure by figure and
/// section by section (1e-9): the plan's PromQL read as MetricsQL.
fn pushed_down(s: &Stores, live: &dyn Fn(&str) -> Vec<String>) -> Result<(Value, Value)> {
    let push = |url: &str| {
        let args = [live(url), vec!["--pushdown".to_string()]].concat();
        report(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (prom, vm) = (push(&s.prom.url)?, push(&s.vm.url)?);
    for p in PARITY {
        close(
            num(&vm, p),
            num(&prom, p),
            1e-9,
            &format!("vm vs prometheus {p}"),
        );
    }
    for section in ["timeline", "leaks", "purchase"] {
        ensure!(!prom[section].is_null(), "{section} is null");
        same(&vm[section], &prom[section], 1e-9, section)?;
    }
    Ok((prom, vm))
}

/// Pushdown vs the reader around a hole: the reader weighs the sample before
/// it max gap (3 steps), PromQL's step sampling one step: exactly 2 steps of
/// that sample's figures more in the reader, nothing else.
fn hole_difference(reader: &Value, pushed: &[&Value], before: &Row, held: bool) {
    let util = before.values[0].unwrap_or(f64::NAN);
    let on = |b: bool| if b { 1.0 } else { 0.0 };
    for (p, per_hour) in [
        ("/layers/observed_gpu_hours", 1.0),
        ("/layers/held_gpu_hours", on(held)),
        ("/layers/active_gpu_hours", on(held) * util),
        (
            "/layers/sm_active_gpu_hours",
            on(held) * before.values[1].unwrap_or(0.0),
        ),
        (
            "/layers/tensor_active_gpu_hours",
            on(held) * before.values[3].unwrap_or(0.0),
        ),
        ("/layers/idle_held_gpu_hours", on(held && util < 0.01)),
    ] {
        for push in pushed {
            close(
                num(reader, p) - num(push, p),
                2.0 / 60.0 * per_hour,
                1e-9,
                p,
            );
        }
    }
}

/// Parity (issue 33): one fleet's samples through the reader (a CSV),
/// through SQL on DuckDB (`sql` + `report --partials`), and through
/// `--pushdown` on a real Prometheus and a real VictoriaMetrics (the plan's
/// PromQL is also MetricsQL), held by the owner label and, with the owner
/// labels gone, by memory. SQL and the reader agree to 1e-9 everywhere, the
/// two stores with each other to 1e-9 on every figure and section, pushdown
/// with the reader to 1e-9 but for the one hole (docs/semantics.md §14).
#[test]
fn one_fleet_through_the_reader_sql_prometheus_and_victoriametrics() -> Result<()> {
    let Some((prometheus, promtool)) = binaries() else {
        return Ok(());
    };
    let Some(victoria) = victoria_binary() else {
        return Ok(());
    };
    let bins = (prometheus, promtool, victoria);
    let dir = tempfile::tempdir()?;
    let demo = dir.path().join("demo.csv");
    let out = gpuaudit()?
        .args(["demo", "--gpus", "40", "--days", "0.25", "--interval", "1m"])
        .arg("--out")
        .arg(&demo)
        .output()?;
    ensure!(out.status.success(), "demo failed");
    let (header, rows) = read_demo_csv(&demo)?;
    let hole_gpu = rows[0].gpu.clone();
    let t0 = rows.iter().map(|r| r.t_s).min().context("rows")?;
    let t_end = rows.iter().map(|r| r.t_s).max().context("rows")? + 60;
    let in_hole = |r: &Row| r.gpu == hole_gpu && (t0 + 600..t0 + 780).contains(&r.t_s);
    let fleet_csv = dir.path().join("fleet.csv");
    write_csv(&header, &rows, &demo, &fleet_csv, &|r| !in_hole(r))?;
    let kept: Vec<Row> = rows.into_iter().filter(|r| !in_hole(r)).collect();
    let before = kept
        .iter()
        .find(|r| r.gpu == hole_gpu && r.t_s == t0 + 540)
        .context("the sample before the hole")?;
    let (since, until) = (iso(t0)?, iso(t_end)?);
    let window = ["--since", since.as_str(), "--until", until.as_str()];
    let live = |url: &str| -> Vec<String> {
        [&["--prometheus", url, "--step", "1m"][..], &window[..]]
            .concat()
            .into_iter()
            .map(str::to_string)
            .collect()
    };
    let file = report(&[&[fleet_csv.to_str().context("path")?][..], &window[..]].concat())?;
    ensure!(
        num(&file, "/layers/idle_held_gpu_hours") > 0.0
            && num(&file, "/layers/unallocated_gpu_hours") > 0.0,
        "the fleet has idle held and unallocated time"
    );
    if let Some(sql) = through_duckdb(dir.path(), &fleet_csv, &window)? {
        for p in PARITY {
            close(num(&sql, p), num(&file, p), 1e-9, &format!("duckdb {p}"));
        }
    }
    let s = stores(&bins, &kept, dir.path(), t_end)?;
    // the pulled report from VictoriaMetrics is the file's, as from Prometheus
    let vm_args = live(&s.vm.url);
    let vm_pulled = report(&vm_args.iter().map(String::as_str).collect::<Vec<_>>())?;
    for p in PARITY {
        close(
            num(&vm_pulled, p),
            num(&file, p),
            1e-9,
            &format!("vm pulled {p}"),
        );
    }
    let (prom_push, vm_push) = pushed_down(&s, &live)?;
    hole_difference(
        &file,
        &[&prom_push, &vm_push],
        before,
        !before.job.is_empty(),
    );
    drop(s);

    // No owner labels: held is memory used above --held-mem, in bytes, in
    // the reader (pulled from the store) and in PromQL alike.
    let unowned: Vec<Row> = kept
        .into_iter()
        .map(|r| Row {
            job: String::new(),
            team: String::new(),
            ..r
        })
        .collect();
    let s = stores(&bins, &unowned, dir.path(), t_end)?;
    let pulled_args = live(&s.prom.url);
    let pulled = report(&pulled_args.iter().map(String::as_str).collect::<Vec<_>>())?;
    assert_eq!(pulled["held_rule"], "memory used > 1024 MiB");
    let (prom_push, vm_push) = pushed_down(&s, &live)?;
    let before = unowned
        .iter()
        .find(|r| r.gpu == hole_gpu && r.t_s == t0 + 540)
        .context("the sample before the hole")?;
    let held = before.values[5].is_some_and(|mib| mib > 1024.0 * 1_048_576.0);
    hole_difference(&pulled, &[&prom_push, &vm_push], before, held);
    ensure!(
        num(&pulled, "/layers/unallocated_gpu_hours") > 0.0,
        "the memory rule leaves some time unallocated"
    );
    Ok(())
}
