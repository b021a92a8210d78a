//! The diagnosis sections end to end through the binary (docs/semantics.md
//! §10-§12): the JSON keys, the flags that shape them and `check` rules on them.
//!
//! testdata/diagnosis/two-nodes.csv, by hand: two hosts of two GPUs, sampled
//! hourly 00:00..03:00 (each sample weighs the 1 h step; window 4 h), --price 2.
//! node-a/0 runs job j1 at device 0.9, SM 0.6, tensor 0.4; the other three are
//! not held. So per 1 h bucket: observed 4, held 1, active 0.9, unallocated 3,
//! spare 3; leaks: unallocated 12 GPU-h ($24), effective 4 GPU-h ($8); node-a is
//! node-held in every bucket: node-held 8 GPU-h, stranded 8 - 4 = 4 ($8),
//! free-node 12 - 4 = 8 ($16); 4 buckets < 24: insufficient_data.
mod common;
use common::{assert_close, gpuaudit, num, report_json as json};
use serde_json::Value;

fn data(name: &str) -> String {
    format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn class(v: &Value, name: &str) -> Value {
    v["leaks"]["classes"]
        .as_array()
        .and_then(|c| c.iter().find(|r| r["class"] == name).cloned())
        .unwrap_or(Value::Null)
}

#[test]
fn two_nodes_by_hand() -> anyhow::Result<()> {
    let v = json(&[
        &data("diagnosis/two-nodes.csv"),
        "--price",
        "2",
        "--bucket",
        "1h",
    ])?;
    let t = &v["timeline"];
    assert_eq!(t["bucket_seconds"].as_f64(), Some(3600.0));
    assert_eq!(t["buckets"].as_array().map(Vec::len), Some(4));
    for b in t["buckets"].as_array().into_iter().flatten() {
        assert_close(num(b, "/observed"), 4.0, "observed");
        assert_close(num(b, "/held"), 1.0, "held");
        assert_close(num(b, "/active"), 0.9, "active");
        assert_close(num(b, "/unallocated"), 3.0, "unallocated");
        assert_close(num(b, "/spare"), 3.0, "spare");
    }
    assert_close(
        num(&class(&v, "unallocated"), "/gpu_hours"),
        12.0,
        "unallocated",
    );
    assert_close(
        num(&class(&v, "unallocated"), "/usd"),
        24.0,
        "unallocated usd",
    );
    assert_close(num(&class(&v, "effective"), "/gpu_hours"), 4.0, "effective");
    assert_close(num(&class(&v, "effective"), "/usd"), 8.0, "effective usd");
    assert_close(num(&class(&v, "idle"), "/gpu_hours"), 0.0, "idle");
    assert_close(num(&v, "/nodes/node_held_gpu_hours"), 8.0, "node-held");
    assert_close(num(&v, "/nodes/stranded_gpu_hours"), 4.0, "stranded");
    assert_close(num(&v, "/nodes/stranded_usd"), 8.0, "stranded usd");
    assert_close(num(&v, "/nodes/free_node_gpu_hours"), 8.0, "free node");
    assert_close(num(&v, "/nodes/free_node_usd"), 16.0, "free node usd");
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "insufficient_data");
    assert_eq!(p["owned"].as_f64(), Some(4.0));
    assert_eq!(p["gpus_seen"].as_u64(), Some(4));
    assert_close(num(p, "/held_max"), 1.0, "held max");
    assert_close(num(p, "/spare_p5"), 3.0, "spare p5");
    let j = &v["jobs"][0];
    assert_eq!(j["job"], "j1");
    assert_eq!(j["gpus"].as_u64(), Some(1));
    assert_close(num(j, "/held_gpu_hours"), 4.0, "j1 held");
    assert_close(num(j, "/span_hours"), 4.0, "j1 span");
    assert_close(num(j, "/usd"), 8.0, "j1 usd");
    assert_eq!(v["jobs"].as_array().map(Vec::len), Some(1));
    Ok(())
}

#[test]
fn the_demo_fleet_tells_its_story() -> anyhow::Result<()> {
    let v = json(&[&data("demo-fleet.parquet")])?;
    // 7 days of 5-minute samples: 1 h buckets by the automatic rule
    assert_eq!(v["timeline"]["bucket_seconds"].as_f64(), Some(3600.0));
    assert_eq!(v["timeline"]["buckets"].as_array().map(Vec::len), Some(168));
    let observed = num(&v, "/layers/observed_gpu_hours");
    let held = num(&v, "/layers/held_gpu_hours");
    let classes = v["leaks"]["classes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let sum: f64 = classes.iter().map(|c| num(c, "/gpu_hours")).sum();
    assert_close(sum, observed, "leak classes sum to observed");
    let held_sum: f64 = classes
        .iter()
        .filter(|c| c["class"] != "unallocated" && c["class"] != "held_unknown")
        .map(|c| num(c, "/gpu_hours"))
        .sum();
    assert_close(held_sum, held, "held classes sum to held");
    assert_close(
        num(&class(&v, "idle"), "/gpu_hours"),
        num(&v, "/layers/idle_held_gpu_hours"),
        "the idle class is the idle layer",
    );
    // the batch node's two never-scheduled cards are stranded
    assert_eq!(v["nodes"]["hosts"][0]["host"], "node-003");
    assert_close(
        num(&v, "/nodes/stranded_gpu_hours") + num(&v, "/nodes/free_node_gpu_hours"),
        num(&v, "/layers/unallocated_gpu_hours"),
        "stranded + free node = unallocated",
    );
    assert_eq!(v["purchase"]["verdict"], "reclaim_first");
    assert_eq!(v["purchase"]["owned"].as_f64(), Some(40.0));
    let job = |name: &str| {
        v["jobs"]
            .as_array()
            .and_then(|j| j.iter().find(|r| r["job"] == name).cloned())
            .unwrap_or(Value::Null)
    };
    // the notebook is parked; the training gang's 3-hour hang is one interruption
    assert_eq!(job("jupyter-bob-0")["shape"], "idle");
    assert_eq!(job("pretrain-0")["shape"], "training");
    assert_eq!(job("pretrain-0")["interruptions"].as_u64(), Some(1));
    assert_close(num(&job("pretrain-0"), "/mean_recovery_hours"), 3.0, "hang");
    assert_eq!(job("chat-serve-0")["shape"], "inference");
    assert_eq!(job("chat-serve-0")["gpus"].as_u64(), Some(7));
    // the spare replica is its own inference job, idle for the whole week: parked
    let spare = job("chat-serve-0-spare");
    assert_eq!(spare["shape"], "idle");
    assert_eq!(spare["gpus"].as_u64(), Some(1));
    assert_close(num(&spare, "/held_gpu_hours"), 168.0, "a week on one card");
    assert_close(num(&spare, "/idle_share"), 1.0, "never a request");
    let findings_of = |name: &str| -> Vec<String> {
        v["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["job"] == name)
            .filter_map(|f| f["kind"].as_str().map(str::to_string))
            .collect()
    };
    assert_eq!(findings_of("chat-serve-0-spare"), ["parked"]);
    assert_eq!(findings_of("jupyter-bob-0"), ["parked", "oversized"]);
    Ok(())
}

#[test]
fn want_and_bucket_and_thresholds_shape_the_answer() -> anyhow::Result<()> {
    let demo = data("demo-fleet.parquet");
    // spare_p5 is 11: a request for 8 fits in idle capacity, 16 does not
    // (tests/purchase.rs has the plan)
    let fits = json(&[&demo, "--want", "8"])?;
    assert_eq!(fits["purchase"]["verdict"], "reclaim_first");
    assert_eq!(fits["purchase"]["want"].as_u64(), Some(8));
    let short = json(&[&demo, "--want", "16"])?;
    assert_eq!(short["purchase"]["verdict"], "reclaim_then_buy");
    let fine = json(&[&demo, "--bucket", "15m"])?;
    assert_eq!(fine["timeline"]["bucket_seconds"].as_f64(), Some(900.0));
    assert_eq!(
        fine["timeline"]["buckets"].as_array().map(Vec::len),
        Some(672)
    );
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("leaks.toml");
    std::fs::write(&file, "starved_below = 0.99\n")?;
    let strict = json(&[&demo, "--leak-thresholds", &file.display().to_string()])?;
    let default = json(&[&demo])?;
    assert!(
        num(&class(&strict, "starved"), "/gpu_hours")
            > num(&class(&default, "starved"), "/gpu_hours")
    );
    assert_eq!(
        strict["leaks"]["thresholds"]["starved_below"].as_f64(),
        Some(0.99)
    );
    // a bad file is a usage error naming it
    std::fs::write(&file, "starved_below = 7\n")?;
    let out = gpuaudit()?
        .args(["report", &demo, "--leak-thresholds"])
        .arg(&file)
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr)?;
    assert!(
        err.contains("leaks.toml") && err.contains("starved_below"),
        "{err}"
    );
    Ok(())
}

#[test]
fn check_rules_name_diagnosis_figures() -> anyhow::Result<()> {
    let demo = data("demo-fleet.parquet");
    let pass = gpuaudit()?
        .args([
            "check",
            &demo,
            "--min",
            "purchase.spare_p5=5",
            "--min",
            "jobs.ett.min=0.9",
        ])
        .output()?;
    assert_eq!(
        pass.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&pass.stderr)
    );
    let fail = gpuaudit()?
        .args([
            "check",
            &demo,
            "--max",
            "leaks.idle=1000",
            "--max",
            "nodes.stranded_gpu_hours=1000",
        ])
        .output()?;
    assert_eq!(fail.status.code(), Some(1));
    let err = String::from_utf8(fail.stderr)?;
    assert!(
        err.contains("leaks.idle") && !err.contains("stranded"),
        "{err}"
    );
    Ok(())
}

#[test]
fn csv_tables_of_jobs_and_the_timeline() -> anyhow::Result<()> {
    let csv = |table: &str| -> anyhow::Result<String> {
        let out = gpuaudit()?
            .args(["report", &data("diagnosis/two-nodes.csv"), "--bucket", "1h"])
            .args(["--format", "csv", "--table", table])
            .output()?;
        anyhow::ensure!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(String::from_utf8(out.stdout)?)
    };
    let timeline = csv("timeline")?;
    assert_eq!(timeline.lines().count(), 5, "{timeline}");
    let jobs = csv("jobs")?;
    assert_eq!(jobs.lines().count(), 2, "{jobs}");
    assert!(
        jobs.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("j1,1,4,")),
        "{jobs}"
    );
    Ok(())
}
