//! The purchase plan end to end through the binary (docs/semantics.md §10,
//! Purchase): one small fleet per verdict, written by the test with hourly
//! samples (each weighs 1 h), read with `--bucket 1h --price 2`, every figure
//! computed by hand in the comments; a sparse fleet; `--own-cost`; the demo.
mod common;
use common::{assert_close, data, gpuaudit, num, report_json};
use serde_json::Value;
use std::fmt::Write as _;

/// One GPU's constant reading: host, GPU index, job ("" = not held),
/// device_util, sm_active, tensor_active, power_w.
type Gpu = (&'static str, u32, &'static str, f64, f64, f64, f64);

/// A CSV of `hours` hourly samples from 2026-07-06T00:00Z of every GPU in `gpus`.
fn fleet(hours: u32, gpus: &[Gpu]) -> String {
    let mut csv = "time,host,gpu,job,device_util,sm_active,tensor_active,power_w\n".to_string();
    for h in 0..hours {
        let (day, hour) = (6 + h / 24, h % 24);
        for (host, gpu, job, util, sm, tensor, power) in gpus {
            let _ = writeln!(
                csv,
                "2026-07-{day:02}T{hour:02}:00:00Z,{host},{gpu},{job},{util},{sm},{tensor},{power}"
            );
        }
    }
    csv
}

/// `report FILE --price 2 [--bucket 1h] ARGS --format json` of a fleet written to a temp file.
fn report(csv: &str, args: &[&str]) -> anyhow::Result<Value> {
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("fleet.csv");
    std::fs::write(&file, csv)?;
    let path = file.display().to_string();
    let mut all = vec![path.as_str(), "--price", "2"];
    if !args.contains(&"--bucket") {
        all.extend(["--bucket", "1h"]);
    }
    all.extend_from_slice(args);
    report_json(&all)
}

/// node-a: GPUs 0-1 train (device 0.9, SM 0.6, tensor 0.3, 400 W), GPU 2 a
/// notebook held and idle (100 W), GPU 3 not held (stranded: node-a is held);
/// node-b: GPUs 0-1 nobody holds (free-node). Per 1 h bucket: observed 6,
/// held 3, idle held 1, unallocated 3, spare 4 → reclaimable 4: node-b 2
/// (unallocated), nb 1 (parked: idle and 30 held GPU-h ≥ 24), node-a 1
/// (stranded). Device-active 1.8 GPUs, SM 1.2, tensor 0.6.
fn roomy(hours: u32) -> String {
    fleet(
        hours,
        &[
            ("node-a", 0, "train", 0.9, 0.6, 0.3, 400.0),
            ("node-a", 1, "train", 0.9, 0.6, 0.3, 400.0),
            ("node-a", 2, "nb", 0.0, 0.0, 0.0, 100.0),
            ("node-a", 3, "", 0.0, 0.0, 0.0, 60.0),
            ("node-b", 0, "", 0.0, 0.0, 0.0, 60.0),
            ("node-b", 1, "", 0.0, 0.0, 0.0, 60.0),
        ],
    )
}

/// 8 GPUs of one node all held by "train" at device 0.9 and SM `sm`: nothing spare.
fn full(sm: f64) -> String {
    let gpus: Vec<Gpu> = (0..8)
        .map(|g| ("node-a", g, "train", 0.9, sm, sm / 2.0, 500.0))
        .collect();
    fleet(30, &gpus)
}

fn reclaim(p: &Value) -> Vec<(String, String, f64, f64)> {
    p["reclaim"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["source"].as_str().unwrap_or("?").to_string(),
                r["owner"].as_str().unwrap_or("?").to_string(),
                num(r, "/gpus"),
                num(r, "/usd"),
            )
        })
        .collect()
}

/// A month of the plan: 730.5 h (reclaim rows are priced at their owner's cards).
const MONTH: f64 = 730.5;

#[test]
fn reclaim_first_when_the_spare_cards_cover_the_want() -> anyhow::Result<()> {
    let v = report(&roomy(30), &["--want", "4"])?;
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "reclaim_first");
    assert_close(num(p, "/owned"), 6.0, "owned: 6 per bucket");
    assert_eq!(p["gpus_seen"].as_u64(), Some(6));
    assert_close(num(p, "/spare_p5"), 4.0, "spare");
    assert_close(num(p, "/reclaimable_gpus"), 4.0, "reclaimable");
    assert_close(num(p, "/covered_by_reclaim"), 4.0, "covered");
    assert!(p["uncovered_gpus"].is_null() && p["buy"].is_null());
    // largest first, then parked before stranded; $2/GPU-h × 730.5 h per GPU
    assert_eq!(
        reclaim(p),
        [
            (
                "unallocated".into(),
                "node-b".into(),
                2.0,
                2.0 * 2.0 * MONTH
            ),
            ("parked".into(), "nb".into(), 1.0, 2.0 * MONTH),
            ("stranded".into(), "node-a".into(), 1.0, 2.0 * MONTH),
        ]
    );
    assert_eq!(p["rule"], "4 GPUs spare in 95% of hours ≥ the 4 asked for");
    assert_close(num(p, "/busy_equivalent_gpus_p95"), 1.8, "busy p95");
    assert_close(num(p, "/busy_equivalent_gpus_peak"), 1.8, "busy peak");
    assert_close(num(p, "/sm_equivalent_gpus_p95"), 1.2, "SM p95");
    assert_close(num(p, "/tensor_equivalent_gpus_p95"), 0.6, "tensor p95");
    // 180 observed GPU-h of 6 GPUs × 30 h, all with held known
    assert_close(num(p, "/coverage"), 1.0, "coverage");
    assert_close(num(p, "/held_known_share"), 1.0, "held known");
    assert_close(num(p, "/unobserved_gpu_hours"), 0.0, "unobserved");
    assert!(p["provisional"].is_null());
    assert_eq!(
        p["caveat"],
        "no scheduler queue data: demand that never got a GPU is not visible here"
    );
    // without --want: 4 ≥ 10% of the 6 observed
    let share = report(&roomy(30), &[])?;
    assert_eq!(share["purchase"]["verdict"], "reclaim_first");
    assert_eq!(
        share["purchase"]["rule"],
        "4 GPUs spare in 95% of hours ≥ 0.6, 10% of the 6 observed"
    );
    Ok(())
}

#[test]
fn reclaim_then_buy_names_the_uncovered_rest_and_prices_it_both_ways() -> anyhow::Result<()> {
    // own: 35,064 ÷ (4 × 8,766 h) = $1/GPU-h × 1.5 overhead = $1.5; power: held
    // time's mean (400 + 400 + 100) ÷ 3 = 300 W → 0.3 kWh × $0.25 × 1.5 = $0.1125
    let v = report(
        &roomy(30),
        &[
            "--want",
            "7",
            "--own-cost",
            "capex=35064,years=4,power_usd_per_kwh=0.25,overhead=0.5",
        ],
    )?;
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "reclaim_then_buy");
    assert_close(num(p, "/covered_by_reclaim"), 4.0, "covered");
    assert_close(num(p, "/uncovered_gpus"), 3.0, "uncovered");
    assert_eq!(
        p["rule"],
        "4 GPUs spare in 95% of hours < the 7 asked for: 3 not covered"
    );
    let own = &p["own_cost"];
    assert_close(num(own, "/capex_usd_per_gpu_hour"), 1.5, "capex rate");
    assert_close(num(own, "/power_w"), 300.0, "mean held power");
    assert_close(num(own, "/power_usd_per_gpu_hour"), 0.1125, "power rate");
    assert_close(num(own, "/usd_per_gpu_hour"), 1.6125, "own rate");
    let buy = &p["buy"];
    assert_close(num(buy, "/gpus"), 3.0, "buy");
    assert_close(num(buy, "/cloud_usd_per_month"), 3.0 * 2.0 * MONTH, "cloud");
    assert_close(num(buy, "/own_usd_per_month"), 3.0 * 1.6125 * MONTH, "own");
    assert_close(num(buy, "/own_capex_usd"), 3.0 * 35_064.0, "capex");
    // the table prints the plan under the verdict
    let out = gpuaudit()?
        .args([
            "report", "-", "--bucket", "1h", "--price", "2", "--want", "7",
        ])
        .args([
            "--own-cost",
            "capex=35064,years=4,power_usd_per_kwh=0.25,overhead=0.5",
        ])
        .write_stdin(roomy(30))
        .output()?;
    let text = String::from_utf8(out.stdout)?;
    for line in [
        "Verdict: reclaim, then buy — reclaiming covers 4 of the 7 asked for; 3 remain uncovered.",
        "reclaim 4: 2 unallocated on node-b (node free, $2,922/month), 1 from nb (parked, $1,461/month), 1 stranded on node-a (node held, $1,461/month)",
        "buy 3: $4,383/month at cloud prices; owned $3,534/month amortized ($105,192 up front)",
        "own cost: $1.61/GPU-h amortized (capex $35,064 over 4 years + power 300 W at $0.25/kWh, +50% overhead)",
        "rule: 4 GPUs spare in 95% of hours < the 7 asked for: 3 not covered",
    ] {
        assert!(text.contains(line), "lacks {line:?}:\n{text}");
    }
    Ok(())
}

#[test]
fn optimize_first_when_nothing_is_spare_and_sm_activity_is_low() -> anyhow::Result<()> {
    // SM-active 8 × 0.2 = 1.6 GPUs: on 50% SM-active cards ceil(3.2) = 4 ≤ 75% of 8
    let v = report(&full(0.2), &["--want", "2"])?;
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "optimize_first");
    assert_close(num(p, "/optimize_to_gpus"), 4.0, "optimize to");
    assert_close(num(p, "/reclaimable_gpus"), 0.0, "nothing spare");
    assert_close(num(p, "/covered_by_reclaim"), 0.0, "covered");
    assert!(p["uncovered_gpus"].is_null());
    assert_close(num(p, "/busy_equivalent_gpus_p95"), 7.2, "busy");
    Ok(())
}

#[test]
fn buy_when_nothing_is_spare_and_the_work_is_efficient() -> anyhow::Result<()> {
    // SM-active 8 × 0.6 = 4.8 GPUs: ceil(9.6) = 10 > 6 cards
    let v = report(&full(0.6), &["--want", "2"])?;
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "buy");
    assert_close(num(p, "/uncovered_gpus"), 2.0, "uncovered");
    assert_close(num(p, "/buy/cloud_usd_per_month"), 2.0 * 2.0 * MONTH, "buy");
    assert!(p["optimize_to_gpus"].is_null());
    // without --want or a queue, nothing says what is needed
    let v = report(&full(0.6), &[])?;
    assert_eq!(v["purchase"]["verdict"], "insufficient_data");
    Ok(())
}

#[test]
fn insufficient_data_under_min_window_and_provisional_above_it() -> anyhow::Result<()> {
    // 20 h: under the 24 h default
    let v = report(&roomy(20), &["--want", "4"])?;
    assert_eq!(v["purchase"]["verdict"], "insufficient_data");
    assert_eq!(
        v["purchase"]["rule"],
        "too short to decide: 20 observed buckets and a 20.0 h window; 24 buckets and 24 h needed"
    );
    // --min-window 12h and 30 min buckets (40 of them): decided, provisional
    let v = report(
        &roomy(20),
        &["--want", "4", "--min-window", "12h", "--bucket", "30m"],
    )?;
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "reclaim_first");
    assert_close(num(p, "/provisional/window_hours"), 20.0, "window");
    assert_close(num(p, "/provisional/min_window_hours"), 12.0, "min window");
    assert_eq!(p["provisional"]["observed_buckets"].as_u64(), Some(40));
    // a bad duration is a usage error naming the flag
    let out = gpuaudit()?
        .args([
            "report",
            &data("diagnosis/two-nodes.csv"),
            "--min-window",
            "soon",
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)?.contains("--min-window"));
    let out = gpuaudit()?
        .args([
            "report",
            &data("diagnosis/two-nodes.csv"),
            "--own-cost",
            "capex=1",
        ])
        .output()?;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8(out.stderr)?
            .contains("invalid value 'capex=1' for '--own-cost <SPEC>': capex=USD and years=N")
    );
    Ok(())
}

/// Like Philly: many GPUs, few observed at a time. 100 GPUs over 50 h; GPU i
/// reports twice (hh:00, hh:30, 30 min each) in hour i ÷ 2: 2 GPUs per
/// bucket, 100 observed GPU-h of 100 × 50 = 5,000 → coverage 0.02.
#[test]
fn a_sparse_fleet_is_insufficient_coverage_and_says_how_little_was_seen() -> anyhow::Result<()> {
    let mut csv = "time,host,gpu,job,device_util\n".to_string();
    for i in 0..100u32 {
        let h = i / 2;
        let (day, hour) = (6 + h / 24, h % 24);
        let job = if i % 2 == 0 { "j" } else { "" };
        for minute in [0, 30] {
            let _ = writeln!(
                csv,
                "2026-07-{day:02}T{hour:02}:{minute:02}:00Z,host-{},{},{job},0.5",
                i / 8,
                i % 8
            );
        }
    }
    let v = report(&csv, &["--want", "1"])?;
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "insufficient_coverage");
    assert_eq!(p["gpus_seen"].as_u64(), Some(100));
    assert_close(num(p, "/owned"), 2.0, "2 observed per bucket");
    assert_close(num(p, "/coverage"), 0.02, "coverage");
    assert_close(num(p, "/unobserved_gpu_hours"), 4900.0, "unobserved");
    assert_eq!(p["observed_buckets"].as_u64(), Some(50));
    let out = gpuaudit()?
        .args(["report", "-", "--bucket", "1h", "--want", "1"])
        .write_stdin(csv)
        .output()?;
    let text = String::from_utf8(out.stdout)?;
    for line in [
        "Verdict: insufficient coverage — the data saw 2.0% of the time of the 100 GPUs it names",
        "warning: unobserved time is 49x the observed",
    ] {
        assert!(text.contains(line), "lacks {line:?}:\n{text}");
    }
    Ok(())
}

/// The acceptance: the demo with --want 16 reclaims 11 GPUs, named by
/// owner (the parked notebook's 8, 2 stranded on the batch node, the parked
/// spare replica's 1), and leaves 5 uncovered.
#[test]
fn the_demo_wanting_16_reclaims_11_by_owner_and_leaves_5() -> anyhow::Result<()> {
    let v = report_json(&[&data("demo-fleet.parquet"), "--want", "16"])?;
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "reclaim_then_buy");
    assert_close(num(p, "/reclaimable_gpus"), 11.0, "reclaimable");
    assert_close(num(p, "/covered_by_reclaim"), 11.0, "covered");
    assert_close(num(p, "/uncovered_gpus"), 5.0, "uncovered");
    // the fleet's mean price: priced dollars ÷ priced GPU-hours
    let price = num(&v, "/cost/observed_usd")
        / (num(&v, "/layers/observed_gpu_hours") - num(&v, "/cost/unpriced_gpu_hours"));
    let rows = reclaim(p);
    let named: Vec<(&str, &str, f64)> = rows
        .iter()
        .map(|(s, o, g, _)| (s.as_str(), o.as_str(), *g))
        .collect();
    assert_eq!(
        named,
        [
            ("parked", "jupyter-bob-0", 8.0),
            ("stranded", "node-003", 2.0),
            ("parked", "chat-serve-0-spare", 1.0),
        ]
    );
    // each owner at its own cards' price: H100 $3, A100 $1.50, L40S $2 (built-in profile)
    for ((_, owner, _, usd), per_hour) in rows.iter().zip([8.0 * 3.0, 2.0 * 1.5, 2.0]) {
        assert_close(*usd, per_hour * MONTH, owner);
    }
    assert_close(
        num(p, "/buy/cloud_usd_per_month"),
        5.0 * price * MONTH,
        "buy",
    );
    assert_eq!(
        p["rule"],
        "11 GPUs spare in 95% of hours < the 16 asked for: 5 not covered"
    );
    assert_close(num(p, "/owned"), 40.0, "owned");
    assert_close(
        num(p, "/coverage"),
        num(&v, "/layers/observed_gpu_hours") / (40.0 * num(&v, "/window/hours")),
        "coverage",
    );
    Ok(())
}

/// A `held` column left empty is held unknown (Philly's case): 3 of 4 GPUs
/// over 30 h → held known for 30 of 120 observed GPU-h, 25% < 50%.
#[test]
fn held_unknown_for_most_of_the_time_is_insufficient_coverage() -> anyhow::Result<()> {
    let mut csv = "time,host,gpu,held,device_util\n".to_string();
    for h in 0..30u32 {
        let (day, hour) = (6 + h / 24, h % 24);
        for (gpu, held) in [(0, "true"), (1, ""), (2, ""), (3, "")] {
            let _ = writeln!(
                csv,
                "2026-07-{day:02}T{hour:02}:00:00Z,node-a,{gpu},{held},0.5"
            );
        }
    }
    let v = report(&csv, &["--want", "1"])?;
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "insufficient_coverage");
    assert_close(num(p, "/coverage"), 1.0, "every GPU seen all the time");
    assert_close(num(p, "/held_known_share"), 0.25, "held known");
    assert_eq!(
        p["rule"],
        "coverage 100.0% of the GPUs' window, held known for 25.0% of the observed time; 50% of each needed"
    );
    Ok(())
}
