//! Fault injection: the network and device paths fail the ways real servers and
//! drivers do, and each fault ends in one clear error (exit 2, naming the server
//! and the query) or a correct report that says what happened; never a silent
//! partial report. Prometheus faults come from a fault server on 127.0.0.1 run
//! by the test (it stops by itself); NVML faults from the stand-in library
//! (nvml-standin/, testdata/nvml/faults-*.json). README "Reliability" lists them.
use anyhow::{Context, Result, ensure};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
mod common;
use common::{assert_close, num};

fn gpuaudit() -> Result<assert_cmd::Command> {
    let mut c = common::gpuaudit()?;
    c.env_remove("GPUAUDIT_PROM_TOKEN")
        .env_remove("GPUAUDIT_PROM_USER")
        .env_remove("GPUAUDIT_PROM_PASSWORD")
        .env_remove("GPUAUDIT_NVML_LIB");
    Ok(c)
}

// ---------------------------------------------------------------- Prometheus

/// What the fault server does with one request.
enum Reply {
    /// a whole answer: status line, extra header lines, body
    Full(&'static str, String, String),
    /// announce the body's length, send only its first `n` bytes, then close
    Cut(String, usize),
    /// announce the body's length, send a few bytes, then say nothing for `hold`
    Stall(String, Duration),
    /// a whole answer, gzip-compressed (`Content-Encoding: gzip`)
    Gzip(String),
}

fn ok(body: String) -> Reply {
    Reply::Full("200 OK", String::new(), body)
}

/// A request as the server saw it, and when.
struct Seen {
    at: Instant,
    request: String,
}

/// How long a fault server lives: every test here is done well within it.
const SERVER_LIFETIME: Duration = Duration::from_secs(60);

/// A fault server on 127.0.0.1: `answer(request)` decides each reply. It
/// stops accepting after SERVER_LIFETIME, so a failed test cannot leave it running.
fn fault_server(
    answer: impl Fn(&str) -> Reply + Send + Sync + 'static,
) -> Result<(String, Receiver<Seen>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    let url = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
    let (tx, rx) = channel();
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        let end = Instant::now() + SERVER_LIFETIME;
        while Instant::now() < end {
            match listener.accept() {
                Ok((s, _)) => {
                    let (tx, answer) = (tx.clone(), Arc::clone(&answer));
                    std::thread::spawn(move || {
                        let _ = handle(s, answer.as_ref(), &tx);
                    });
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    Ok((url, rx))
}

fn handle(
    mut s: TcpStream,
    answer: &(impl Fn(&str) -> Reply + ?Sized),
    tx: &std::sync::mpsc::Sender<Seen>,
) -> std::io::Result<()> {
    s.set_nonblocking(false)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        match s.read(&mut chunk)? {
            0 => return Ok(()),
            n => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.strip_prefix("content-length:")
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match s.read(&mut chunk)? {
            0 => break,
            n => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let request = String::from_utf8_lossy(&buf).to_string();
    let reply = answer(&request);
    let _ = tx.send(Seen {
        at: Instant::now(),
        request,
    });
    let head = |status: &str, extra: &str, len: usize| {
        format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\n{extra}Connection: close\r\n\r\n"
        )
    };
    match reply {
        Reply::Full(status, extra, body) => {
            s.write_all(head(status, &extra, body.len()).as_bytes())?;
            s.write_all(body.as_bytes())?;
        }
        Reply::Cut(body, n) => {
            s.write_all(head("200 OK", "", body.len()).as_bytes())?;
            s.write_all(&body.as_bytes()[..n.min(body.len())])?;
            s.flush()?;
            // dropped here: the client sees the connection end mid-body
        }
        Reply::Gzip(body) => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(body.as_bytes())?;
            let bytes = gz.finish()?;
            s.write_all(head("200 OK", "Content-Encoding: gzip\r\n", bytes.len()).as_bytes())?;
            s.write_all(&bytes)?;
        }
        Reply::Stall(body, hold) => {
            s.write_all(head("200 OK", "", body.len()).as_bytes())?;
            s.write_all(&body.as_bytes()[..8.min(body.len())])?;
            s.flush()?;
            std::thread::sleep(hold);
        }
    }
    Ok(())
}

const UTIL: &str = r#"{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"Hostname":"h1","UUID":"GPU-1","job":"dcgm","instance":"h1:9400"},"values":[[1783296000,"50"],[1783296060,"0"],[1783296120,"20"]]}]}}"#;
const FB_USED: &str = r#"{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"Hostname":"h1","UUID":"GPU-1","job":"dcgm","instance":"h1:9400"},"values":[[1783296000,"2000"],[1783296060,"2000"],[1783296120,"500"]]}]}}"#;

/// One GPU, three 1-minute points, as a DCGM-fed Prometheus answers; `util`
/// is the answer to the utilization query (the one the faults are put on).
fn fleet(request: &str, util: impl FnOnce() -> Reply) -> Reply {
    if request.contains("/api/v1/labels") {
        ok(r#"{"status":"success","data":["Hostname","UUID","__name__","job","instance"]}"#.into())
    } else if request.contains("/api/v1/label/Hostname/values") {
        ok(r#"{"status":"success","data":["h1"]}"#.into())
    } else if request.contains("/api/v1/label/__name__/values") {
        ok(r#"{"status":"success","data":["DCGM_FI_DEV_FB_USED","DCGM_FI_DEV_GPU_UTIL"]}"#.into())
    } else if request.contains("DCGM_FI_DEV_GPU_UTIL") {
        util()
    } else {
        ok(FB_USED.into())
    }
}

/// The requests `fleet` answers with its `util` reply.
fn is_util_query(s: &Seen) -> bool {
    s.request.starts_with("POST /api/v1/query")
        && !s.request.contains("/api/v1/labels")
        && s.request.contains("DCGM_FI_DEV_GPU_UTIL")
}

/// A fleet whose utilization query answers `faulty(k)` on its k-th request (0-based).
fn fleet_with(
    faulty: impl Fn(usize) -> Reply + Send + Sync + 'static,
) -> Result<(String, Receiver<Seen>)> {
    let util_requests = AtomicUsize::new(0);
    fault_server(move |r| {
        fleet(r, || {
            let k = util_requests.fetch_add(1, Ordering::SeqCst);
            faulty(k)
        })
    })
}

const WINDOW: &[&str] = &[
    "--since",
    "2026-07-06T00:00:00Z",
    "--until",
    "2026-07-06T01:00:00Z",
    "--step",
    "1m",
];

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    took: Duration,
}

fn report_from(url: &str, extra: &[&str]) -> Result<Run> {
    let start = Instant::now();
    let out = gpuaudit()?
        .args(["report", "--prometheus", url, "--format", "json", "--quiet"])
        .args(WINDOW)
        .args(extra)
        .timeout(Duration::from_secs(45))
        .output()?;
    Ok(Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).to_string(),
        took: start.elapsed(),
    })
}

/// The report must be the whole, correct one: 3 points, 2 held, 0.5 active.
fn assert_whole_report(run: &Run) -> Result<Value> {
    ensure!(run.code == Some(0), "exit {:?}: {}", run.code, run.stderr);
    let v: Value = serde_json::from_slice(&run.stdout)?;
    assert_close(
        num(&v, "/layers/observed_gpu_hours"),
        3.0 / 60.0,
        "observed",
    );
    assert_close(num(&v, "/layers/held_gpu_hours"), 2.0 / 60.0, "held");
    assert_close(num(&v, "/layers/active_gpu_hours"), 0.5 / 60.0, "active");
    assert_eq!(v["gpu_count"], 1);
    Ok(v)
}

/// Exit 2, nothing on stdout (no partial report), one line naming the server and the query.
fn assert_clear_failure(run: &Run, url: &str) -> Result<()> {
    ensure!(
        run.code == Some(2),
        "expected exit 2, got {:?}: {}",
        run.code,
        run.stderr
    );
    ensure!(run.stdout.is_empty(), "a failed report printed a report");
    ensure!(
        run.stderr.lines().count() == 1,
        "not one line: {}",
        run.stderr
    );
    ensure!(
        run.stderr.starts_with("gpuaudit: ") && run.stderr.contains(url),
        "{}",
        run.stderr
    );
    ensure!(
        run.stderr.contains("DCGM_FI_DEV_GPU_UTIL"),
        "the query is not named: {}",
        run.stderr
    );
    Ok(())
}

/// Every request asked for `encoding` (`Accept-Encoding`).
fn assert_every_request_asked(seen: &Receiver<Seen>, encoding: &str) -> Result<usize> {
    let asked: Vec<String> = seen
        .try_iter()
        .map(|s| {
            s.request
                .to_lowercase()
                .lines()
                .find_map(|l| {
                    l.strip_prefix("accept-encoding:")
                        .map(|v| v.trim().to_string())
                })
                .unwrap_or_default()
        })
        .collect();
    ensure!(!asked.is_empty(), "no request reached the server");
    ensure!(
        asked.iter().all(|a| a == encoding),
        "expected every request to ask for {encoding}: {asked:?}"
    );
    Ok(asked.len())
}

#[test]
fn answers_are_asked_for_gzip_by_default_and_a_gzip_answer_reads_whole() -> Result<()> {
    let (url, seen) = fault_server(|r| match fleet(r, || ok(UTIL.into())) {
        Reply::Full(_, _, body) => Reply::Gzip(body),
        other => other,
    })?;
    assert_whole_report(&report_from(&url, &[])?)?;
    assert_every_request_asked(&seen, "gzip")?;
    Ok(())
}

#[test]
fn prom_compression_none_asks_for_plain_answers() -> Result<()> {
    let (url, seen) = fleet_with(|_| ok(UTIL.into()))?;
    assert_whole_report(&report_from(&url, &["--prom-compression", "none"])?)?;
    assert_every_request_asked(&seen, "identity")?;
    Ok(())
}

#[test]
fn a_connection_reset_mid_body_is_retried_then_the_report_is_whole() -> Result<()> {
    let (url, seen) = fleet_with(|k| {
        if k == 0 {
            Reply::Cut(UTIL.into(), UTIL.len() / 2)
        } else {
            ok(UTIL.into())
        }
    })?;
    assert_whole_report(&report_from(&url, &[])?)?;
    let util = seen.try_iter().filter(is_util_query).count();
    assert_eq!(util, 2, "the cut answer was asked again once");
    Ok(())
}

#[test]
fn a_connection_always_reset_mid_body_is_one_clear_error() -> Result<()> {
    let (url, _) = fleet_with(|_| Reply::Cut(UTIL.into(), 40))?;
    let run = report_from(&url, &["--prom-retries", "1"])?;
    assert_clear_failure(&run, &url)?;
    assert!(
        run.stderr.contains("closed before all bytes were read")
            && run.stderr.contains("after 2 tries"),
        "{}",
        run.stderr
    );
    Ok(())
}

#[test]
fn a_truncated_json_body_is_one_clear_error() -> Result<()> {
    // A whole HTTP answer whose JSON stops half-way (a proxy's buffer limit).
    let (url, _) = fleet_with(|_| ok(UTIL[..UTIL.len() / 2].to_string()))?;
    let run = report_from(&url, &[])?;
    assert_clear_failure(&run, &url)?;
    assert!(run.stderr.contains("is not usable"), "{}", run.stderr);
    Ok(())
}

#[test]
fn a_5xx_then_success_is_retried_with_backoff() -> Result<()> {
    let (url, seen) = fleet_with(|k| match k {
        0 => Reply::Full(
            "503 Service Unavailable",
            String::new(),
            "overloaded".into(),
        ),
        1 => Reply::Full("502 Bad Gateway", String::new(), String::new()),
        _ => ok(UTIL.into()),
    })?;
    assert_whole_report(&report_from(&url, &[])?)?;
    let times: Vec<Instant> = seen
        .try_iter()
        .filter(is_util_query)
        .map(|s| s.at)
        .collect();
    assert_eq!(times.len(), 3);
    // 0.5 s then 1 s of backoff
    assert!(times[1] - times[0] >= Duration::from_millis(450));
    assert!(times[2] - times[1] >= Duration::from_millis(950));
    Ok(())
}

#[test]
fn a_5xx_that_persists_is_one_clear_error_with_the_tries() -> Result<()> {
    let (url, _) = fleet_with(|_| {
        Reply::Full(
            "503 Service Unavailable",
            String::new(),
            "store gateway overloaded".into(),
        )
    })?;
    let run = report_from(&url, &["--prom-retries", "1"])?;
    assert_clear_failure(&run, &url)?;
    assert!(
        run.stderr.contains("503 Service Unavailable")
            && run.stderr.contains("store gateway overloaded")
            && run.stderr.contains("after 2 tries"),
        "{}",
        run.stderr
    );
    Ok(())
}

#[test]
fn a_429_with_retry_after_waits_as_long_as_asked() -> Result<()> {
    let (url, seen) = fleet_with(|k| {
        if k == 0 {
            Reply::Full(
                "429 Too Many Requests",
                "Retry-After: 2\r\n".into(),
                "slow down".into(),
            )
        } else {
            ok(UTIL.into())
        }
    })?;
    assert_whole_report(&report_from(&url, &[])?)?;
    let times: Vec<Instant> = seen
        .try_iter()
        .filter(is_util_query)
        .map(|s| s.at)
        .collect();
    assert_eq!(times.len(), 2);
    // 2 s as asked, not the 0.5 s of the first backoff
    let gap = times[1] - times[0];
    assert!(gap >= Duration::from_millis(1900), "waited {gap:?}");
    Ok(())
}

#[test]
fn a_response_that_never_ends_times_out_with_a_clear_error() -> Result<()> {
    let (url, _) = fleet_with(|_| Reply::Stall(UTIL.into(), Duration::from_secs(20)))?;
    let run = report_from(&url, &["--prom-timeout", "1s", "--prom-retries", "0"])?;
    assert_clear_failure(&run, &url)?;
    assert!(
        run.stderr.to_lowercase().contains("timed out"),
        "{}",
        run.stderr
    );
    assert!(
        run.took < Duration::from_secs(10),
        "the timeout did not bound the wait: {:?}",
        run.took
    );
    Ok(())
}

#[test]
fn a_partial_answer_is_reported_with_its_warning() -> Result<()> {
    let (url, _) = fleet_with(|_| {
        ok(UTIL.replacen(
            r#""status":"success","#,
            r#""status":"success","warnings":["store-b: partial response"],"#,
            1,
        ))
    })?;
    let v = assert_whole_report(&report_from(&url, &[])?)?;
    let w = v["data_quality"]["warnings"].to_string();
    assert!(
        w.contains("store-b: partial response") && w.contains("may be partial"),
        "{w}"
    );
    Ok(())
}

#[test]
fn a_series_whose_labels_change_mid_window_stays_one_gpu() -> Result<()> {
    // The exporter restarted half-way with a new `instance` label: two series
    // for GPU-1 that never overlap. Still one GPU, three points, no double count.
    const SPLIT: &str = r#"{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"Hostname":"h1","UUID":"GPU-1","job":"dcgm","instance":"h1:9400"},"values":[[1783296000,"50"],[1783296060,"0"]]},
 {"metric":{"Hostname":"h1","UUID":"GPU-1","job":"dcgm","instance":"10.0.0.1:9400"},"values":[[1783296120,"20"]]}]}}"#;
    let (url, _) = fleet_with(|_| ok(SPLIT.into()))?;
    assert_whole_report(&report_from(&url, &[])?)?;
    Ok(())
}

// ---------------------------------------------------------------- NVML

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Build the stand-in once per test binary, into the target dir this test runs from.
fn standin_built() -> Result<PathBuf> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().map_err(|e| e.to_string())?;
            let target = exe
                .parent()
                .and_then(Path::parent)
                .and_then(Path::parent)
                .ok_or("no target dir")?
                .to_path_buf();
            let cargo = option_env!("CARGO").unwrap_or("cargo");
            let out = std::process::Command::new(cargo)
                .args(["build", "-p", "nvml-standin", "--target-dir"])
                .arg(&target)
                .current_dir(root())
                .output()
                .map_err(|e| format!("running cargo: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "cargo build -p nvml-standin failed:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            Ok(target.join("debug").join("libnvml_standin.so"))
        })
        .clone()
        .map_err(anyhow::Error::msg)
}

/// A scan of `scenario` through this test's own copy of the stand-in.
fn scan(scenario: &str, extra: &[&str]) -> Result<(Option<i32>, Vec<u8>, String)> {
    let dir = tempfile::tempdir()?;
    let so = dir.path().join("libnvidia-ml.so.1");
    std::fs::copy(standin_built()?, &so)?;
    let out = gpuaudit()?
        .env(
            "NVML_STANDIN_SCENARIO",
            root().join("testdata/nvml").join(scenario),
        )
        .args([
            "scan",
            "--quiet",
            "--interval",
            "100ms",
            "--duration",
            "500ms",
            "--nvml-lib",
        ])
        .arg(&so)
        .args(extra)
        .timeout(Duration::from_secs(60))
        .output()?;
    Ok((
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).to_string(),
    ))
}

#[test]
fn permission_denied_on_process_lists_leaves_holders_unknown_not_the_gpu() -> Result<()> {
    let (code, stdout, stderr) = scan("faults-no-permission.json", &["--format", "json"])?;
    assert_eq!(code, Some(0), "{stderr}");
    let d: Value = serde_json::from_slice(&stdout).context(stderr.clone())?;
    let g = &d["scan"]["gpus"];
    // Both GPUs sampled throughout; the denied one keeps memory, activity and power.
    assert_eq!(
        (g[0]["samples"].as_u64(), g[1]["samples"].as_u64()),
        (Some(5), Some(5))
    );
    assert!(g[0]["failed"].is_null());
    assert_close(num(&d, "/scan/gpus/0/device_util"), 0.5, "device util");
    assert_close(num(&d, "/scan/gpus/0/power_w"), 300.0, "power");
    assert_eq!(g[0]["held"], Value::Bool(true), "held by memory");
    let reason = g[0]["unavailable"]["processes"].as_str().unwrap_or("");
    assert!(reason.contains("permission denied"), "{g}");
    assert!(g[1]["unavailable"]["processes"].is_null());
    Ok(())
}

// ---------------------------------------------------------------- files

#[test]
fn scan_out_that_cannot_be_placed_leaves_no_half_file() -> Result<()> {
    // The target is a directory: the rename of the finished temporary file fails
    // (as a full disk fails its write), and nothing is left beside it.
    let dir = tempfile::tempdir()?;
    let target = dir.path().join("samples.parquet");
    std::fs::create_dir(&target)?;
    let out = target.to_string_lossy().to_string();
    let (code, _, stderr) = scan("ampere.json", &["--format", "json", "--out", &out])?;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--out") && stderr.contains("samples.parquet"),
        "{stderr}"
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(
        left,
        vec!["samples.parquet".to_string()],
        "left behind: {left:?}"
    );
    assert!(target.is_dir() && std::fs::read_dir(&target)?.next().is_none());
    Ok(())
}

#[test]
fn scan_out_to_a_missing_directory_is_a_clear_error() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("no/such/dir/s.parquet");
    let out = out.to_string_lossy().to_string();
    let (code, _, stderr) = scan("ampere.json", &["--format", "json", "--out", &out])?;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--out") && stderr.contains("no/such/dir"),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn a_driver_restarting_at_start_is_waited_for() -> Result<()> {
    // nvmlInit fails twice (modules reloading), then succeeds: a whole scan.
    let (code, stdout, stderr) = scan("faults-driver-restart.json", &["--format", "json"])?;
    assert_eq!(code, Some(0), "{stderr}");
    let d: Value = serde_json::from_slice(&stdout).context(stderr)?;
    assert_eq!(d["scan"]["gpus"][0]["samples"].as_u64(), Some(5));
    assert_close(
        num(&d, "/scan/gpus/0/mem_used_bytes"),
        30000.0 * 1048576.0,
        "memory",
    );
    Ok(())
}

#[test]
fn a_driver_that_stays_down_is_one_clear_error() -> Result<()> {
    let start = Instant::now();
    let (code, stdout, stderr) = scan("faults-driver-down.json", &[])?;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(stderr.contains("kernel driver is not loaded"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(20), "bounded tries");
    Ok(())
}

#[test]
fn a_driver_hung_in_its_start_up_is_one_clear_error_not_a_stuck_scan() -> Result<()> {
    // nvmlInit never returns: each of the 3 tries gets --nvml-timeout, then one error.
    let start = Instant::now();
    let (code, stdout, stderr) = scan("faults-init-hang.json", &["--nvml-timeout", "200ms"])?;
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "the scan waited for the hung start-up: {:?}",
        start.elapsed()
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("did not finish initialising within 1.6 s")
            && stderr.contains("--nvml-timeout"),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn a_mig_instance_destroyed_mid_scan_is_named_the_other_continues() -> Result<()> {
    let (code, stdout, stderr) = scan("faults-mig-reconfigured.json", &["--format", "json"])?;
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("MIG-aaaaaaaa-0000-0000-0000-000000000002")
            || stderr.contains("GPU-44444444-4444-4444-4444-444444444444/2/0"),
        "{stderr}"
    );
    assert!(stderr.contains("the unit is gone"), "{stderr}");
    let d: Value = serde_json::from_slice(&stdout).context(stderr.clone())?;
    let g = &d["scan"]["gpus"];
    assert_eq!(
        (g[0]["samples"].as_u64(), g[1]["samples"].as_u64()),
        (Some(5), Some(2))
    );
    assert!(g[0]["failed"].is_null());
    assert!(
        g[1]["failed"].as_str().is_some_and(|f| f.contains("MIG")),
        "{g}"
    );
    assert_close(
        num(&d, "/scan/gpus/0/sm_active"),
        0.55,
        "the other instance",
    );
    Ok(())
}

#[test]
fn a_hung_nvml_call_gives_up_that_gpu_not_the_scan() -> Result<()> {
    // GPU 1's utilization call never returns at its third reading.
    let start = Instant::now();
    let (code, stdout, stderr) = scan(
        "faults-hung-call.json",
        &["--format", "json", "--nvml-timeout", "300ms"],
    )?;
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "the scan waited for the hung call: {:?}",
        start.elapsed()
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("GPU 1 (GPU-aaaaaaaa-1111-1111-1111-111111111111) failed at tick 3 of 5")
            && stderr.contains("did not answer within 0.3 s"),
        "{stderr}"
    );
    let d: Value = serde_json::from_slice(&stdout).context(stderr.clone())?;
    let g = &d["scan"]["gpus"];
    assert_eq!(
        (g[0]["samples"].as_u64(), g[1]["samples"].as_u64()),
        (Some(5), Some(2)),
        "the other GPU is sampled throughout"
    );
    assert!(g[1]["failed"].as_str().is_some_and(|f| f.contains("hung")));
    Ok(())
}

#[test]
fn a_bad_nvml_timeout_is_a_usage_error() -> Result<()> {
    for bad in ["0s", "soon"] {
        let (code, stdout, stderr) = scan("ampere.json", &["--nvml-timeout", bad])?;
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stdout.is_empty());
        assert!(stderr.contains("--nvml-timeout"), "{stderr}");
    }
    Ok(())
}

// ---------------------------------------------------------------- files being written

#[test]
fn a_parquet_still_being_written_is_one_clear_error() -> Result<()> {
    // A writer that has not finished has written no footer yet: half the bytes, or none.
    let whole = std::fs::read(root().join("testdata/demo-fleet.parquet"))?;
    let dir = tempfile::tempdir()?;
    for (name, len) in [("half.parquet", whole.len() / 2), ("empty.parquet", 0)] {
        let path = dir.path().join(name);
        std::fs::write(&path, &whole[..len])?;
        let out = gpuaudit()?
            .arg("report")
            .arg(&path)
            .args(["--format", "json", "--quiet"])
            .timeout(Duration::from_secs(60))
            .output()?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{name}: a report from a partial file"
        );
        assert!(
            stderr.contains(name),
            "{name}: the file is not named: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
    }
    Ok(())
}

#[test]
fn gpm_counters_going_backwards_make_that_sample_na_not_a_wild_ratio() -> Result<()> {
    // sm_util per reading: 50, -40 (counters went backwards), 50, 250 (wrapped), 50.
    let (code, stdout, stderr) = scan("faults-gpm-backwards.json", &["--format", "json"])?;
    assert_eq!(code, Some(0), "{stderr}");
    let d: Value = serde_json::from_slice(&stdout).context(stderr)?;
    assert_eq!(d["scan"]["gpus"][0]["samples"].as_u64(), Some(5));
    // The three good samples only (unguarded it would read (50-40+50+250+50)/5 = 0.72).
    assert_close(num(&d, "/scan/gpus/0/sm_active"), 0.5, "sm_active");
    let notes = d["data_quality"]["notes"].to_string();
    assert!(notes.contains("went backwards or wrapped"), "{notes}");
    Ok(())
}

// ---------------------------------------------------------------- files changing between passes

/// Audit `path` as a stream, calling `change` between its two passes (the
/// seam lives in the crate: the stream and the audit are not public).
fn audit_changed_between_passes(
    path: &Path,
    change: impl FnOnce() + 'static,
) -> Result<gpuaudit::audit::model::Report> {
    gpuaudit::fuzzing::audit_changed_between_passes(path, change)
}

fn demo_fleet_copy(dir: &Path, name: &str) -> Result<PathBuf> {
    let path = dir.join(name);
    std::fs::copy(root().join("testdata/demo-fleet.parquet"), &path)?;
    Ok(path)
}

#[test]
fn a_parquet_deleted_between_the_two_passes_is_an_error_naming_it() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = demo_fleet_copy(dir.path(), "deleted.parquet")?;
    let gone = path.clone();
    let err = match audit_changed_between_passes(&path, move || {
        let _ = std::fs::remove_file(&gone);
    }) {
        Ok(r) => panic!(
            "a report from a deleted file ({} rows used)",
            r.sources.rows_used
        ),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        err.contains("deleted.parquet"),
        "the file is not named: {err}"
    );
    Ok(())
}

#[test]
fn a_parquet_truncated_between_the_two_passes_is_an_error_naming_it() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = demo_fleet_copy(dir.path(), "truncated.parquet")?;
    let whole = std::fs::read(&path)?;
    let target = path.clone();
    let err = match audit_changed_between_passes(&path, move || {
        let _ = std::fs::write(&target, &whole[..whole.len() / 2]);
    }) {
        Ok(r) => panic!(
            "a report from a truncated file ({} rows used)",
            r.sources.rows_used
        ),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        err.contains("truncated.parquet"),
        "the file is not named: {err}"
    );
    Ok(())
}

#[test]
fn a_parquet_rewritten_shorter_between_the_two_passes_is_an_error_not_a_partial_report()
-> Result<()> {
    use polars::prelude::*;
    let dir = tempfile::tempdir()?;
    let path = demo_fleet_copy(dir.path(), "rewritten.parquet")?;
    // the same file rewritten with its first 1000 rows only: valid, but not what pass 1 read
    let mut shorter = ParquetReader::new(std::fs::File::open(&path)?)
        .finish()?
        .head(Some(1000));
    let staged = dir.path().join("staged.parquet");
    ParquetWriter::new(std::fs::File::create(&staged)?).finish(&mut shorter)?;
    let target = path.clone();
    let err = match audit_changed_between_passes(&path, move || {
        let _ = std::fs::rename(&staged, &target);
    }) {
        Ok(r) => panic!(
            "a silent partial report from a file rewritten between passes ({} rows used)",
            r.sources.rows_used
        ),
        Err(e) => format!("{e:#}"),
    };
    assert!(
        err.contains("rewritten.parquet") && err.contains("changed while"),
        "{err}"
    );
    Ok(())
}

#[test]
fn a_parquet_that_grew_between_the_two_passes_is_audited_as_it_was_opened() -> Result<()> {
    use polars::prelude::*;
    let dir = tempfile::tempdir()?;
    let path = demo_fleet_copy(dir.path(), "growing.parquet")?;
    let unchanged = audit_changed_between_passes(&path, || {})?;
    // a writer appended a second copy of every row after pass 1 counted them
    let rows = ParquetReader::new(std::fs::File::open(&path)?).finish()?;
    let mut longer = rows.vstack(&rows)?;
    let staged = dir.path().join("staged.parquet");
    ParquetWriter::new(std::fs::File::create(&staged)?).finish(&mut longer)?;
    let target = path.clone();
    let grown = audit_changed_between_passes(&path, move || {
        let _ = std::fs::rename(&staged, &target);
    })?;
    assert_eq!(grown.sources.rows_used, unchanged.sources.rows_used);
    assert_close(
        grown.layers.held_gpu_hours,
        unchanged.layers.held_gpu_hours,
        "held GPU-hours",
    );
    assert_close(
        grown.layers.observed_gpu_hours,
        unchanged.layers.observed_gpu_hours,
        "observed GPU-hours",
    );
    Ok(())
}

// ---------------------------------------------------------------- output that cannot be written

fn dev_full() -> Result<std::fs::File> {
    Ok(std::fs::OpenOptions::new().write(true).open("/dev/full")?)
}

fn small_fleet_report() -> Result<std::process::Command> {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("gpuaudit"));
    c.env("NO_COLOR", "1")
        .arg("report")
        .arg(root().join("testdata/small-fleet.csv"))
        .args(["--format", "json", "--quiet"]);
    Ok(c)
}

#[test]
fn stdout_on_a_full_disk_is_one_clear_error_exit_2() -> Result<()> {
    let out = small_fleet_report()?
        .stdout(dev_full()?)
        .stderr(std::process::Stdio::piped())
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("standard output") && stderr.contains("No space left"),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn stdout_closed_by_the_reader_ends_quietly_exit_0() -> Result<()> {
    // `gpuaudit report ... | head -c0`: the reader is gone before the report is written
    let mut child = small_fleet_report()?
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    drop(child.stdout.take());
    let out = child.wait_with_output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "a closed pipe needs no word: {stderr}");
    Ok(())
}

#[test]
fn output_to_a_full_disk_is_one_clear_error_naming_it() -> Result<()> {
    let out = small_fleet_report()?
        .args(["--output", "/dev/full"])
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--output /dev/full") && stderr.contains("No space left"),
        "{stderr}"
    );
    Ok(())
}
