//! `--queue`: demand that never got a GPU (docs/semantics.md §10, Demand), end
//! to end through the binary, with every figure computed by hand.
//!
//! testdata/queue/fleet.csv: two GPUs on node-a sampled hourly at 00, 01, 03,
//! 04 and 05 h on 2026-07-06 with `--max-gap 1h`: the window is [00:00,
//! 06:00), six 1 h buckets, and bucket 02:00 observes nothing (the 01:00
//! sample weighs 1 h; the rest of its 2 h gap is unobserved).
mod common;
use common::{assert_close, data, gpuaudit, num, report_json};
use serde_json::Value;

fn report(queues: &[&str]) -> anyhow::Result<Value> {
    report_with(queues, &[])
}

fn report_with(queues: &[&str], extra: &[&str]) -> anyhow::Result<Value> {
    let mut args = vec![
        data("queue/fleet.csv"),
        "--max-gap".into(),
        "1h".into(),
        "--bucket".into(),
        "1h".into(),
    ];
    for q in queues {
        args.push("--queue".into());
        args.push(data(q));
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    report_json(&args)
}

fn pending(v: &Value) -> Vec<f64> {
    v["timeline"]["buckets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| num(b, "/pending"))
        .collect()
}

fn assert_all_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_close(*g, *w, what);
    }
}

/// (owner, pending GPU-hours, requests, longest wait) of `demand.owners`.
fn owners(v: &Value) -> Vec<(String, f64, u64, f64)> {
    v["demand"]["owners"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|o| {
            let owner = o["owner"].as_str().unwrap_or("?").to_string();
            let requests = o["requests"].as_u64().unwrap_or(0);
            let gpu_hours = num(o, "/pending_gpu_hours");
            (owner, gpu_hours, requests, num(o, "/wait_hours_max"))
        })
        .collect()
}

fn owner(name: &str, gpu_hours: f64, requests: u64, wait: f64) -> (String, f64, u64, f64) {
    (name.to_string(), gpu_hours, requests, wait)
}

fn notes(v: &Value) -> String {
    v["data_quality"]["notes"].to_string()
}

/// testdata/queue/sacct-gpu-jobs.txt (window [00:00, 06:00) of 2026-07-06, UTC):
/// - 101 alice, 2 GPUs, submitted 22:00 the day before, started 01:30: waits
///   00:00-01:30 in the window (1.5 h): bucket 0: 2, bucket 1: 2 × 0.5 = 1
/// - 102 bob, gres/gpu:a100=4, still pending from 03:15: to 06:00 (2.75 h):
///   bucket 3: 4 × 0.75 = 3, buckets 4 and 5: 4
/// - 103 carol: no GPU in ReqTRES: not GPU demand (the note counts it)
/// - 104 dave, 2 nodes × 4 (gres/gpu:h100=8 and gres/gpu=8: 8, not 16),
///   01:40-02:40 (1 h): bucket 1: 8 × 20/60, bucket 2: 8 × 40/60
/// - 105 erin, 1 GPU, cancelled while pending: 04:30 to its End 05:00 (0.5 h):
///   bucket 4: 0.5
/// - 106_[0-3%2] frank, an array of 4 pending tasks × 1 GPU from 05:00 (1 h):
///   bucket 5: 4
/// - 107 gina: waited and ran the day before: nothing in the window
#[test]
fn sacct_pending_gpus_hours_and_waits_by_hand() -> anyhow::Result<()> {
    let v = report(&["queue/sacct-gpu-jobs.txt"])?;
    let want = [2.0, 1.0 + 8.0 / 3.0, 16.0 / 3.0, 3.0, 4.5, 8.0];
    assert_all_close(&pending(&v), &want, "pending per bucket");
    let d = &v["demand"];
    // 2 × 1.5 + 4 × 2.75 + 8 × 1 + 1 × 0.5 + 4 × 1
    assert_close(num(d, "/pending_gpu_hours"), 26.5, "pending GPU-h");
    // observed buckets 0, 1, 3, 4, 5: [2, 3.67, 3, 4.5, 8], rank ceil(4.75) = 5
    assert_close(num(d, "/pending_gpus_p95"), 8.0, "pending p95");
    // waits [0.5, 1, 1, 1.5, 2.75]: p50 rank 3, p95 rank 5
    assert_close(num(d, "/wait_hours_p50"), 1.0, "wait p50");
    assert_close(num(d, "/wait_hours_p95"), 2.75, "wait p95");
    assert_eq!(d["requests"].as_u64(), Some(5));
    // per user, most GPU-hours first
    let want = vec![
        owner("bob", 11.0, 1, 2.75),
        owner("dave", 8.0, 1, 1.0),
        owner("frank", 4.0, 1, 1.0),
        owner("alice", 3.0, 1, 1.5),
        owner("erin", 0.5, 1, 0.5),
    ];
    assert_eq!(owners(&v), want);
    let n = notes(&v);
    assert!(n.contains("6 GPU request(s) read"), "{n}");
    assert!(n.contains("1 asked for no GPU (not GPU demand)"), "{n}");
    assert!(n.contains("read as UTC"), "{n}");
    Ok(())
}

/// --queue-tz +02:00: sacct's times are 2 h ahead of UTC, so every job moves
/// 2 h earlier: alice ran before the window; dave waits 23:40-00:40 (2/3 h
/// inside); bob 01:15-06:00 (4.75 h); erin 02:30-03:00; frank 03:00-06:00.
#[test]
fn sacct_times_in_a_given_zone() -> anyhow::Result<()> {
    let v = report_with(&["queue/sacct-gpu-jobs.txt"], &["--queue-tz", "+02:00"])?;
    let want = [16.0 / 3.0, 3.0, 4.5, 8.0, 8.0, 8.0];
    assert_all_close(&pending(&v), &want, "pending per bucket");
    // 8 × 2/3 + 4 × 4.75 + 1 × 0.5 + 4 × 3
    assert_close(num(&v, "/demand/pending_gpu_hours"), 221.0 / 6.0, "GPU-h");
    // waits [0.5, 2/3, 3, 4.75]
    assert_close(num(&v, "/demand/wait_hours_p50"), 2.0 / 3.0, "wait p50");
    assert_close(num(&v, "/demand/wait_hours_p95"), 4.75, "wait p95");
    assert!(notes(&v).contains("read as +02:00"), "{}", notes(&v));
    Ok(())
}

/// testdata/queue/kube-state-metrics.prom, scraped every 30 min (none at
/// 04:30), timestamps in ms:
/// - team-a/train-0: Pending at 00:00, 00:30, 01:00 (step 30 min), trainer
///   asks 2 GPUs (the cpu requests are not GPUs): [00:00, 01:30) × 2:
///   bucket 0: 2, bucket 1: 1
/// - team-a/cpu-job: pending, no GPU request: not GPU demand
/// - team-b/infer-1: Pending at 03:00, 03:30, Running at 04:00, Pending at
///   05:00, 05:30 (steps 30, 30, 60, 30: median 30 min): two waits of 1 h × 1
///   GPU, [03:00, 04:00) and [05:00, 06:00) (the last sample weighs one step)
/// - team-c/big: one sample, Pending at 04:00, two containers × 2 GPUs; its
///   step is the file's (30 min): [04:00, 04:30) × 4: bucket 4: 2
#[test]
fn kube_state_metrics_pending_pods_by_hand() -> anyhow::Result<()> {
    let v = report(&["queue/kube-state-metrics.prom"])?;
    assert_all_close(
        &pending(&v),
        &[2.0, 1.0, 0.0, 1.0, 2.0, 1.0],
        "pending per bucket",
    );
    let d = &v["demand"];
    assert_close(num(d, "/pending_gpu_hours"), 7.0, "pending GPU-h");
    // observed buckets [2, 1, 1, 2, 1]: rank 5 of the sorted -> 2
    assert_close(num(d, "/pending_gpus_p95"), 2.0, "pending p95");
    // waits [0.5, 1, 1, 1.5]: p50 rank 2 -> 1; p95 rank ceil(3.8) = 4 -> 1.5
    assert_close(num(d, "/wait_hours_p50"), 1.0, "wait p50");
    assert_close(num(d, "/wait_hours_p95"), 1.5, "wait p95");
    assert_eq!(d["requests"].as_u64(), Some(4));
    // per namespace; team-b and team-c tie at 2 GPU-h: by name
    let want = vec![
        owner("team-a", 3.0, 1, 1.5),
        owner("team-b", 2.0, 2, 1.0),
        owner("team-c", 2.0, 1, 0.5),
    ];
    assert_eq!(owners(&v), want);
    let n = notes(&v);
    assert!(
        n.contains("(kube-state-metrics): 4 GPU request(s) read"),
        "{n}"
    );
    assert!(n.contains("1 asked for no GPU (not GPU demand)"), "{n}");
    Ok(())
}

/// The same series as a Prometheus API answer (a query_range matrix of both
/// metrics, the cpu requests left out): the same figures.
#[test]
fn kube_state_metrics_from_a_prometheus_matrix() -> anyhow::Result<()> {
    let v = report(&["queue/kube-state-metrics.json"])?;
    assert_all_close(
        &pending(&v),
        &[2.0, 1.0, 0.0, 1.0, 2.0, 1.0],
        "pending per bucket",
    );
    assert_close(num(&v, "/demand/pending_gpu_hours"), 7.0, "pending GPU-h");
    assert_close(num(&v, "/demand/wait_hours_p95"), 1.5, "wait p95");
    assert_eq!(v["demand"]["requests"].as_u64(), Some(4));
    Ok(())
}

/// An untimed scrape (one instant, as `curl /metrics` saves it) stands at the
/// file's modification time, here 04:00, and weighs one hour (§2's snapshot):
/// 3 GPUs pending over [04:00, 05:00); the note says where the time came from.
#[test]
fn an_untimed_scrape_stands_at_the_file_time() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("scrape.prom");
    std::fs::write(
        &path,
        "kube_pod_status_phase{namespace=\"ns\",pod=\"p\",phase=\"Pending\"} 1\n\
         kube_pod_container_resource_requests{namespace=\"ns\",pod=\"p\",container=\"c\",resource=\"nvidia_com_gpu\"} 3\n",
    )?;
    let four = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_783_296_000 + 4 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&path)?
        .set_modified(four)?;
    let v = report_json(&[
        data("queue/fleet.csv"),
        "--max-gap".into(),
        "1h".into(),
        "--bucket".into(),
        "1h".into(),
        "--queue".into(),
        path.display().to_string(),
    ])?;
    assert_all_close(
        &pending(&v),
        &[0.0, 0.0, 0.0, 0.0, 3.0, 0.0],
        "pending per bucket",
    );
    assert_close(num(&v, "/demand/pending_gpu_hours"), 3.0, "pending GPU-h");
    assert!(notes(&v).contains("modification time"), "{}", notes(&v));
    Ok(())
}

/// Two queues add up: the per-bucket sums and GPU-hours of both.
#[test]
fn queues_add_up() -> anyhow::Result<()> {
    let v = report(&["queue/sacct-gpu-jobs.txt", "queue/kube-state-metrics.prom"])?;
    let want = [4.0, 2.0 + 8.0 / 3.0, 16.0 / 3.0, 4.0, 6.5, 9.0];
    assert_all_close(&pending(&v), &want, "pending per bucket");
    assert_close(num(&v, "/demand/pending_gpu_hours"), 33.5, "pending GPU-h");
    assert_eq!(v["demand"]["requests"].as_u64(), Some(9));
    Ok(())
}

/// Without --queue: no demand section, no pending per bucket.
#[test]
fn no_queue_no_demand() -> anyhow::Result<()> {
    let v = report(&[])?;
    assert!(v.get("demand").is_none(), "{}", v["demand"]);
    let b = &v["timeline"]["buckets"][0];
    assert!(b.get("pending").is_none(), "{b}");
    Ok(())
}

fn fails_with(queue: &str, want: &str) -> anyhow::Result<()> {
    let out = gpuaudit()?
        .args(["report", &data("queue/fleet.csv"), "--queue", &data(queue)])
        .output()?;
    assert_eq!(out.status.code(), Some(2), "{queue}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(want), "{queue}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    Ok(())
}

#[test]
fn bad_queues_exit_2_naming_file_line_and_column() -> anyhow::Result<()> {
    // line 3, Submit is the 5th field: 102|bob|vision|gpu| is 19 characters
    fails_with(
        "queue/invalid/sacct-bad-submit.txt",
        "sacct-bad-submit.txt:3:20: Submit: expected a time like 2026-07-06T10:00:00 (or Unknown), found '2026-07-06T25:15:00'",
    )?;
    fails_with(
        "queue/invalid/sacct-no-reqtres.txt",
        "sacct-no-reqtres.txt:1: the header has no ReqTRES column",
    )?;
    fails_with(
        "queue/invalid/kube-broken-line.prom",
        "kube-broken-line.prom:3:",
    )?;
    fails_with(
        "queue/invalid/not-a-queue.txt",
        "not-a-queue.txt:1: not a queue",
    )?;
    Ok(())
}

/// A canned Prometheus on 127.0.0.1 answering every request with `answer`
/// (as tests/prometheus.rs does); returns its URL.
fn canned(answer: fn(&str) -> &'static str) -> anyhow::Result<String> {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://127.0.0.1:{}", listener.local_addr()?.port());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            // the headers, then the form body (the query) they announce
            let mut want = usize::MAX;
            while buf.len() < want {
                match s.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
                if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..end]).to_lowercase();
                    let length: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    want = end + 4 + length;
                }
            }
            let body = answer(&String::from_utf8_lossy(&buf));
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(reply.as_bytes());
        }
    });
    Ok(url)
}

/// One GPU sampled at 00:00, 00:01, 00:02 (2026-07-06, UTC) and one pod,
/// team-a/p1, Pending with 2 GPUs at 00:00 and 00:01, scheduled at 00:02.
fn live_fleet(request: &str) -> &'static str {
    if request.contains("kube_pod_status_phase") {
        r#"{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"namespace":"team-a","pod":"p1"},"values":[[1783296000,"2"],[1783296060,"2"],[1783296120,"0"]]}]}}"#
    } else if request.contains("/api/v1/series") {
        r#"{"status":"success","data":[{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"h1","UUID":"GPU-1"}]}"#
    } else if request.contains("/api/v1/labels") {
        r#"{"status":"success","data":["Hostname","UUID","__name__"]}"#
    } else if request.contains("/api/v1/label/Hostname/values") {
        r#"{"status":"success","data":["h1"]}"#
    } else if request.contains("/api/v1/label/__name__/values") {
        r#"{"status":"success","data":["DCGM_FI_DEV_GPU_UTIL"]}"#
    } else {
        r#"{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"Hostname":"h1","UUID":"GPU-1"},"values":[[1783296000,"50"],[1783296060,"0"],[1783296120,"20"]]}]}}"#
    }
}

/// --prom-queue: the pod waits [00:00, 00:02) × 2 GPUs = 4 GPU-minutes; in
/// 1 min buckets pending is 2, 2, 0; waits one of 2 min. The same with
/// --pushdown (the canned sums are not a consistent fleet; only demand is read).
#[test]
fn prom_queue_reads_pending_pods_live() -> anyhow::Result<()> {
    prom_queue_live(&[])?;
    prom_queue_live(&["--pushdown"])
}

fn prom_queue_live(extra: &[&str]) -> anyhow::Result<()> {
    let url = canned(live_fleet)?;
    let mut args = extra.to_vec();
    args.extend([
        "--prometheus",
        url.as_str(),
        "--prom-queue",
        "--step",
        "1m",
        "--since",
        "2026-07-06T00:00:00Z",
        "--until",
        "2026-07-06T00:03:00Z",
        "--bucket",
        "1m",
        "--assume-held",
        "--quiet",
    ]);
    let v = report_json(&args)?;
    assert_all_close(&pending(&v), &[2.0, 2.0, 0.0], "pending per bucket");
    assert_close(
        num(&v, "/demand/pending_gpu_hours"),
        4.0 / 60.0,
        "pending GPU-h",
    );
    assert_close(num(&v, "/demand/wait_hours_p95"), 2.0 / 60.0, "wait p95");
    assert_eq!(v["demand"]["requests"].as_u64(), Some(1));
    let n = notes(&v);
    assert!(
        n.contains("(kube-state-metrics): 1 GPU request(s) read"),
        "{n}"
    );
    Ok(())
}
