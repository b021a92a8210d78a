//! A mixed fleet (NVIDIA + AMD + Gaudi samples in one parquet): the waterfall,
//! the dollars, the verdict and the lines per vendor, all hand-computed; AMD
//! partitions priced as their share of the card; MFU on AMD and Gaudi peaks
//! (issue 32 items 6 and 7).
use polars::prelude::*;
use serde_json::Value;
mod common;
use common::{assert_close, gpuaudit, num};

/// 2026-07-06T00:00:00Z in µs.
const T0: i64 = 1_783_296_000_000_000;
/// 15 minutes in µs: 96 samples a day, 1-hour buckets, 24 of them.
const STEP: i64 = 900_000_000;

/// One GPU's day: (host, gpu, model, job for sample i, device_util, sm, tensor).
type Gpu = (
    &'static str,
    &'static str,
    &'static str,
    fn(usize) -> Option<&'static str>,
    fn(usize) -> f64,
    Option<f64>,
    Option<f64>,
);

/// The fleet, every 15 minutes for 24 hours:
/// - two H100 SXM on n1: `train-nv` busy (0.9 device, 0.6 SM, 0.3 tensor) and
///   `nb-idle` held all day at 0;
/// - an MI300X on n2 (its exporter's `card_series` spelling): `train-amd`,
///   0.8 device, 0.5 SM (vector-ALU busy), 0.4 tensor (MFMA);
/// - a Gaudi 3 on n3 (hl-smi's `HL-325L`): unallocated the first 12 hours,
///   then `serve-gaudi` at 0.6 device; Gaudi measures no SM or tensor layer.
fn fleet() -> anyhow::Result<DataFrame> {
    let gpus: [Gpu; 4] = [
        (
            "n1",
            "GPU-a0",
            "NVIDIA H100 80GB HBM3",
            |_| Some("train-nv"),
            |_| 0.9,
            Some(0.6),
            Some(0.3),
        ),
        (
            "n1",
            "GPU-a1",
            "NVIDIA H100 80GB HBM3",
            |_| Some("nb-idle"),
            |_| 0.0,
            Some(0.0),
            Some(0.0),
        ),
        (
            "n2",
            "0",
            "AMD Instinct MI300X OAM",
            |_| Some("train-amd"),
            |_| 0.8,
            Some(0.5),
            Some(0.4),
        ),
        (
            "n3",
            "0",
            "HL-325L",
            |i| (i >= 48).then_some("serve-gaudi"),
            |i| if i >= 48 { 0.6 } else { 0.0 },
            None,
            None,
        ),
    ];
    let (mut time, mut host, mut gpu, mut model, mut job) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut util, mut sm, mut tensor) = (vec![], vec![], vec![]);
    for (h, g, m, j, u, s, t) in gpus {
        for i in 0..96 {
            time.push(T0 + i as i64 * STEP);
            host.push(h);
            gpu.push(g);
            model.push(m);
            job.push(j(i));
            util.push(u(i));
            sm.push(s);
            tensor.push(t);
        }
    }
    let mut df = df![
        "time" => time,
        "host" => host,
        "gpu" => gpu,
        "model" => model,
        "job" => job,
        "device_util" => util,
        "sm_active" => sm,
        "tensor_active" => tensor,
    ]?;
    let t = df.column("time")?.cast(&DataType::Datetime(
        TimeUnit::Microseconds,
        Some(TimeZone::UTC),
    ))?;
    df.with_column(t)?;
    Ok(df)
}

fn write_parquet(dir: &std::path::Path) -> anyhow::Result<String> {
    let path = dir.join("mixed-fleet.parquet");
    ParquetWriter::new(std::fs::File::create(&path)?).finish(&mut fleet()?)?;
    Ok(path.display().to_string())
}

fn run(args: &[&str]) -> anyhow::Result<std::process::Output> {
    Ok(gpuaudit()?.args(args).env("COLUMNS", "160").output()?)
}

fn json_of(args: &[&str]) -> anyhow::Result<Value> {
    let out = run(&[args, &["--format", "json"]].concat())?;
    anyhow::ensure!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

// Built-in prices (USD per GPU-hour): H100 SXM 3.00, MI300X 1.85, Gaudi 3 2.10.
const H100: f64 = 3.00;
const MI300X: f64 = 1.85;
const GAUDI3: f64 = 2.10;

#[test]
fn mixed_fleet_waterfall_dollars_and_verdict() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let v = json_of(&["report", &write_parquet(dir.path())?])?;
    // every GPU 96 samples × 0.25 h = 24 GPU-h
    let l = "/layers";
    assert_close(
        num(&v, &format!("{l}/observed_gpu_hours")),
        96.0,
        "observed",
    );
    assert_close(
        num(&v, &format!("{l}/held_gpu_hours")),
        84.0,
        "held: 24 + 24 + 24 + 12",
    );
    assert_close(
        num(&v, &format!("{l}/unallocated_gpu_hours")),
        12.0,
        "Gaudi's first 12 h",
    );
    // active: 24×0.9 + 0 + 24×0.8 + 12×0.6
    assert_close(num(&v, &format!("{l}/active_gpu_hours")), 48.0, "active");
    // SM and tensor: measured on NVIDIA and AMD only (72 held hours)
    assert_close(
        num(&v, &format!("{l}/sm_active_gpu_hours")),
        14.4 + 12.0,
        "sm",
    );
    assert_close(
        num(&v, &format!("{l}/tensor_active_gpu_hours")),
        7.2 + 9.6,
        "tensor",
    );
    assert_close(
        num(&v, "/ratios/sm_active"),
        26.4 / 72.0,
        "sm over measured held",
    );
    assert_close(num(&v, "/ratios/tensor_active"), 16.8 / 72.0, "tensor");
    assert_close(
        num(&v, &format!("{l}/idle_held_gpu_hours")),
        24.0,
        "nb-idle",
    );
    // dollars, each GPU at its own catalog price
    let c = "/cost";
    assert_close(
        num(&v, &format!("{c}/observed_usd")),
        48.0 * H100 + 24.0 * MI300X + 24.0 * GAUDI3,
        "observed $",
    );
    assert_close(
        num(&v, &format!("{c}/held_usd")),
        48.0 * H100 + 24.0 * MI300X + 12.0 * GAUDI3,
        "held $",
    );
    assert_close(
        num(&v, &format!("{c}/unallocated_usd")),
        12.0 * GAUDI3,
        "unallocated $",
    );
    assert_close(
        num(&v, &format!("{c}/idle_held_usd")),
        24.0 * H100,
        "idle held $",
    );
    // not busy: held $ × (1 − device activity)
    assert_close(
        num(&v, &format!("{c}/not_busy_usd")),
        24.0 * H100 * 0.1 + 24.0 * H100 + 24.0 * MI300X * 0.2 + 12.0 * GAUDI3 * 0.4,
        "not busy $",
    );
    assert_eq!(v["cost"]["unpriced_gpu_hours"].as_f64(), Some(0.0));
    // the verdict: 24 one-hour buckets; spare (idle held + unallocated) is 2
    // GPUs in the first 12 and 1 in the last 12: p5 (rank 2 of 24) = 1 card,
    // ≥ 10% of the 4 owned: reclaim first
    let p = &v["purchase"];
    assert_eq!(p["verdict"], "reclaim_first", "{p}");
    assert_eq!(p["reclaimable_gpus"].as_f64(), Some(1.0), "{p}");
    assert_eq!(p["owned"].as_f64(), Some(4.0), "{p}");
    assert_eq!(p["gpus_seen"].as_f64(), Some(4.0), "{p}");
    assert_vendor_lines(&v);
    Ok(())
}

fn assert_vendor_lines(v: &Value) {
    let lines = v["vendors"].as_array().cloned().unwrap_or_default();
    let fams: Vec<&str> = lines.iter().filter_map(|l| l["family"].as_str()).collect();
    assert_eq!(fams, ["NVIDIA", "AMD Instinct", "Intel Gaudi"]);
    let (nv, amd, gaudi) = (&lines[0], &lines[1], &lines[2]);
    // NVIDIA: two H100s, every layer its DCGM field, none approximate
    assert_eq!(nv["vendor"], "NVIDIA");
    assert_eq!(nv["gpus"], 2);
    assert_eq!(nv["models"], serde_json::json!(["NVIDIA H100 80GB HBM3"]));
    assert_close(num(nv, "/held_gpu_hours"), 48.0, "nv held");
    assert_close(num(nv, "/held_usd"), 48.0 * H100, "nv $");
    assert_close(num(nv, "/idle_held_usd"), 24.0 * H100, "nv idle $");
    assert_close(num(nv, "/layers/device/gpu_hours"), 21.6, "nv active");
    assert_close(num(nv, "/layers/chip/gpu_hours"), 14.4, "nv sm");
    assert_close(num(nv, "/layers/tensor/gpu_hours"), 7.2, "nv tensor");
    assert_close(num(nv, "/layers/chip/ratio"), 0.3, "nv sm ratio");
    assert_eq!(nv["layers"]["device"]["metric"], "DCGM_FI_DEV_GPU_UTIL");
    assert_eq!(nv["layers"]["chip"]["metric"], "DCGM_FI_PROF_SM_ACTIVE");
    assert_eq!(
        nv["layers"]["tensor"]["metric"],
        "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"
    );
    assert_eq!(nv["layers"]["chip"]["approximate"], false);
    // AMD: the SM layer is vector-ALU busy, marked approximate
    assert_eq!(amd["vendor"], "AMD");
    assert_eq!(amd["gpus"], 1);
    assert_eq!(
        amd["models"],
        serde_json::json!(["AMD Instinct MI300X OAM"])
    );
    assert_close(num(amd, "/held_gpu_hours"), 24.0, "amd held");
    assert_close(num(amd, "/held_usd"), 24.0 * MI300X, "amd $");
    assert_close(num(amd, "/idle_held_usd"), 0.0, "amd idle $");
    assert_close(num(amd, "/layers/device/gpu_hours"), 19.2, "amd active");
    assert_close(num(amd, "/layers/chip/gpu_hours"), 12.0, "amd sm");
    assert_close(num(amd, "/layers/tensor/gpu_hours"), 9.6, "amd tensor");
    assert_eq!(amd["layers"]["device"]["metric"], "gpu_gfx_activity");
    assert_eq!(amd["layers"]["chip"]["metric"], "gpu_prof_sm_active");
    assert_eq!(amd["layers"]["chip"]["approximate"], true);
    assert_eq!(
        amd["layers"]["tensor"]["metric"],
        "gpu_prof_tensor_active_percent"
    );
    assert_eq!(amd["layers"]["tensor"]["approximate"], false);
    // Gaudi: device only; SM and tensor n/a (null), never 0
    assert_eq!(gaudi["vendor"], "Intel");
    assert_eq!(gaudi["gpus"], 1);
    assert_close(num(gaudi, "/observed_gpu_hours"), 24.0, "gaudi observed");
    assert_close(num(gaudi, "/held_gpu_hours"), 12.0, "gaudi held");
    assert_close(num(gaudi, "/held_usd"), 12.0 * GAUDI3, "gaudi $");
    assert_close(num(gaudi, "/layers/device/gpu_hours"), 7.2, "gaudi active");
    assert_close(
        num(gaudi, "/layers/device/ratio"),
        0.6,
        "gaudi active ratio",
    );
    assert_eq!(
        gaudi["layers"]["device"]["metric"],
        "habanalabs_utilization"
    );
    for layer in ["chip", "tensor"] {
        assert!(gaudi["layers"][layer]["metric"].is_null(), "{layer}");
        assert!(gaudi["layers"][layer]["gpu_hours"].is_null(), "{layer}");
        assert!(gaudi["layers"][layer]["ratio"].is_null(), "{layer}");
    }
}

#[test]
fn vendor_lines_in_table_markdown_and_html() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = write_parquet(dir.path())?;
    let out = run(&["report", &path])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout)?;
    assert!(
        text.contains("By vendor (each layer from the vendor's own counter)"),
        "{text}"
    );
    let row = |family: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("│ {family} ")) && l.contains('$'))
            .map(|l| {
                l.split(['│', '┆'])
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    };
    assert!(
        row("NVIDIA").ends_with("2 48.0 $144 21.6 14.4 7.20"),
        "{text}"
    );
    assert!(
        row("AMD Instinct").ends_with("1 24.0 $44.40 19.2 ≈12.0 9.60"),
        "{text}"
    );
    assert!(
        row("Intel Gaudi").ends_with("1 12.0 $25.20 7.20 n/a n/a"),
        "{text}"
    );
    assert!(
        text.contains("AMD Instinct: active = gpu_gfx_activity, SM ≈ gpu_prof_sm_active (vector-ALU (VALU) busy, not NVIDIA's SM active), tensor = gpu_prof_tensor_active_percent"),
        "{text}"
    );
    assert!(
        text.contains(
            "Intel Gaudi: active = habanalabs_utilization, SM: no counter, tensor: no counter"
        ),
        "{text}"
    );
    let out = run(&["report", &path, "--format", "markdown"])?;
    let md = String::from_utf8(out.stdout)?;
    assert!(
        md.contains("| AMD Instinct | 1 | 24.0 | $44.40 | 19.2 | ≈12.0 | 9.60 |"),
        "{md}"
    );
    assert!(
        md.contains("| Intel Gaudi | 1 | 12.0 | $25.20 | 7.20 | n/a | n/a |"),
        "{md}"
    );
    let html_path = dir.path().join("r.html");
    let out = run(&[
        "report",
        &path,
        "--format",
        "html",
        "--output",
        &html_path.display().to_string(),
    ])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&html_path)?;
    assert!(html.contains("<td>AMD Instinct</td><td class=\"n\">1</td><td class=\"n\">24.0</td><td class=\"n\">$44.40</td><td class=\"n\">19.2</td><td class=\"n\">≈12.0</td>"), "html vendor row");
    Ok(())
}

#[test]
fn an_nvidia_only_fleet_has_no_vendor_lines() -> anyhow::Result<()> {
    let v = json_of(&["report", &common::data("small-fleet.csv")])?;
    assert!(v.get("vendors").is_none(), "{}", v["vendors"]);
    Ok(())
}

/// CSV on stdin, all held, hourly for 3 hours.
fn report_csv(rows: &[(&str, &str, &str, f64)]) -> anyhow::Result<Value> {
    let mut csv = String::from("time,host,gpu,model,job,device_util\n");
    for hour in 10..13 {
        for (host, gpu, model, util) in rows {
            csv.push_str(&format!(
                "2026-07-06T{hour}:00:00Z,{host},{gpu},{model},j-{gpu},{util}\n"
            ));
        }
    }
    let out = gpuaudit()?
        .args(["report", "-", "--format", "json"])
        .write_stdin(csv)
        .output()?;
    anyhow::ensure!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(serde_json::from_slice(&out.stdout)?)
}

#[test]
fn amd_partitions_are_priced_at_their_share_of_the_card() -> anyhow::Result<()> {
    // a CPX MI300X: two of its 8 partitions, and a QPX MI325X partition
    let v = report_csv(&[
        ("n1", "0/0", "AMD Instinct MI300X CPX", 0.5),
        ("n1", "0/1", "AMD Instinct MI300X CPX NPS4", 0.5),
        ("n2", "1/0", "AMD Instinct MI325X QPX", 0.5),
    ])?;
    let prices: Vec<f64> = v["gpus"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|g| g["usd_per_hour"].as_f64().unwrap_or(f64::NAN))
        .collect();
    assert_eq!(prices.len(), 3);
    assert_close(prices[0], MI300X / 8.0, "CPX: 1 XCD of 8");
    assert_close(
        prices[1],
        MI300X / 8.0,
        "CPX NPS4: the memory mode does not change it",
    );
    assert_close(prices[2], 1.95 / 4.0, "QPX: 2 XCDs of 8");
    assert_close(
        num(&v, "/cost/held_usd"),
        3.0 * (2.0 * MI300X / 8.0 + 1.95 / 4.0),
        "held $",
    );
    // an AMD-only fleet says where its layers came from
    assert_eq!(v["vendors"][0]["family"], "AMD Instinct");
    assert_eq!(v["vendors"][0]["gpus"], 3);
    Ok(())
}

#[test]
fn mfu_on_amd_and_gaudi_peaks() -> anyhow::Result<()> {
    for (gpu, achieved, peak) in [
        ("AMD Instinct MI300X", "523", 1307.4),
        ("MI300X-O", "523", 1307.4),
        ("AMD Instinct MI355X", "1000", 2500.0),
        ("HL-325L", "734", 1835.0),
        ("HL-225", "172.8", 432.0),
        ("Intel(R) Data Center GPU Max 1550", "335.56", 838.9),
    ] {
        let v = json_of(&["mfu", "--gpu", gpu, "--achieved-tflops-per-gpu", achieved])?;
        assert_eq!(num(&v, "/peak_tflops_per_gpu"), peak, "{gpu}");
        let want: f64 = achieved.parse::<f64>()? / peak;
        assert_close(num(&v, "/mfu"), want, gpu);
    }
    // a partition has no peak of its own: exit 2 saying so
    let out = run(&[
        "mfu",
        "--gpu",
        "AMD Instinct MI300X CPX",
        "--achieved-tflops-per-gpu",
        "100",
    ])?;
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("CPX compute partition of AMD Instinct MI300X"),
        "{err}"
    );
    Ok(())
}

#[test]
fn report_jobs_mfu_on_a_mixed_fleet() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let path = write_parquet(dir.path())?;
    // per-GPU achieved TFLOP/s: half the H100's peak, 30% of the MI300X's, 10% of Gaudi 3's
    let jobs = dir.path().join("jobs.csv");
    std::fs::write(
        &jobs,
        "job,achieved_tflops\ntrain-nv,494.7\ntrain-amd,392.22\nserve-gaudi,183.5\n",
    )?;
    let v = json_of(&["report", &path, "--jobs", &jobs.display().to_string()])?;
    let jobs = v["jobs"].as_array().cloned().unwrap_or_default();
    let mfu = |name: &str| {
        jobs.iter()
            .find(|j| j["job"] == name)
            .and_then(|j| j["mfu"].as_f64())
            .unwrap_or(f64::NAN)
    };
    assert_close(mfu("train-nv"), 0.5, "H100");
    assert_close(mfu("train-amd"), 0.3, "MI300X");
    assert_close(mfu("serve-gaudi"), 0.1, "Gaudi 3");
    // useful = Σ MFU × the job's held hours
    assert_close(
        num(&v, "/layers/useful_gpu_hours"),
        0.5 * 24.0 + 0.3 * 24.0 + 0.1 * 12.0,
        "useful",
    );
    Ok(())
}
