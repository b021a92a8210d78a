//! A synthetic demo fleet that tells the seed's story, deterministic for a
//! seed: a training gang that reads ~95% device activity but ~40% SM active
//! and ~20% tensor active; an inference pool with low, diurnal activity; a
//! batch queue with gaps between jobs; a node held by one user's notebook at
//! 0% for days; unallocated cards. Synthetic: never mistake it for a capture.
//!
//! Every value is a pure function of (seed, gpu, tick), so the generator can
//! write any slice of time on its own: 100M rows in bounded memory.
use crate::timeparse::US_PER_HOUR;
use polars::prelude::*;

/// What a node does in the story; nodes cycle through these in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Training,
    Inference,
    Batch,
    Notebook,
}

const ROLE_CYCLE: [Role; 5] = [
    Role::Training,
    Role::Training,
    Role::Inference,
    Role::Batch,
    Role::Notebook,
];

#[derive(Debug, Clone)]
pub struct DemoSpec {
    pub gpus: usize,
    pub start_us: i64,
    pub interval_us: i64,
    pub seed: u64,
}

impl DemoSpec {
    pub fn nodes(&self) -> usize {
        self.gpus.div_ceil(8)
    }
    pub fn total_gpus(&self) -> usize {
        self.nodes() * 8
    }
}

/// SplitMix64: tiny, fast, and its output never changes with a crate upgrade.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn rand(seed: u64, a: u64, b: u64, c: u64) -> f64 {
    let h = mix(mix(mix(seed ^ 0xA5A5_5A5A) ^ a) ^ b.wrapping_mul(0x1000_0001)) ^ c;
    (mix(h) >> 11) as f64 / (1u64 << 53) as f64
}

fn uuid(seed: u64, gpu: usize) -> String {
    let a = mix(seed ^ (gpu as u64).wrapping_mul(0x51ED_270B));
    let b = mix(a);
    format!(
        "GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xffff,
        b >> 48,
        b & 0xffff_ffff_ffff
    )
}

struct Sample {
    held: bool,
    job: Option<String>,
    user: Option<&'static str>,
    team: Option<&'static str>,
    device: f64,
    sm: f64,
    occ: f64,
    tensor: f64,
    dram: f64,
    mem_gib: f64,
    power: f64,
    missing: bool,
}

const GIB: f64 = 1_073_741_824.0;

fn model_of(role: Role) -> (&'static str, f64, f64) {
    // (NVML name, memory GiB, idle..max power W)
    match role {
        Role::Training | Role::Notebook => ("NVIDIA H100 80GB HBM3", 80.0, 700.0),
        Role::Inference => ("NVIDIA L40S", 48.0, 350.0),
        Role::Batch => ("NVIDIA A100-SXM4-80GB", 80.0, 400.0),
    }
}

fn clamp01(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

/// Round to 4 decimals, as exporters print.
fn r4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// A batch lane's sample: jobs of 2-10 h with 0-4 h of queue gap between them.
fn batch_lane(out: &mut Sample, s: u64, lane: u64, hours: f64, noise: &dyn Fn(u64) -> f64) {
    let mut t = 0.0;
    let mut k = 0u64;
    loop {
        let gap = 4.0 * rand(s, lane, k, 91);
        let len = 2.0 + 8.0 * rand(s, lane, k, 92);
        if hours < t + gap {
            break;
        }
        if hours < t + gap + len {
            out.held = true;
            out.job = Some(format!("batch-{}-{k}", lane));
            out.user = Some(if k.is_multiple_of(2) { "carol" } else { "dave" });
            out.team = Some("data");
            out.mem_gib = 30.0 + 20.0 * rand(s, lane, k, 93);
            out.device = clamp01(0.80 + 0.16 * noise(2));
            out.sm = clamp01(0.55 + 0.10 * noise(3));
            out.occ = clamp01(0.35 + 0.08 * noise(4));
            out.tensor = clamp01(0.10 + 0.04 * noise(5));
            out.dram = clamp01(0.45 + 0.10 * noise(6));
            out.power = 300.0 + 60.0 * noise(7);
            break;
        }
        t += gap + len;
        k += 1;
    }
}

/// A training gang's sample: busy, but for a hang and an exporter outage.
fn training(out: &mut Sample, node: usize, hours: f64, noise: &dyn Fn(u64) -> f64) {
    let gang = node / 5 * 2 + (node % 5);
    out.held = true;
    out.job = Some(format!("pretrain-{gang}"));
    out.user = Some("alice");
    out.team = Some("research");
    out.mem_gib = 71.0 + 2.0 * noise(1);
    // A hang on day 3: the gang waits on a collective for 3 h at 0%.
    let hung = (60.0..63.0).contains(&hours);
    // The node's exporter is down for 2 h on day 5: no samples at all.
    out.missing = node % 5 == 1 && (100.0..102.0).contains(&hours);
    if hung {
        out.power = 90.0;
    } else {
        out.device = clamp01(0.95 + 0.06 * noise(2));
        out.sm = clamp01(0.40 + 0.10 * noise(3));
        out.occ = clamp01(0.22 + 0.06 * noise(4));
        out.tensor = clamp01(0.20 + 0.06 * noise(5));
        out.dram = clamp01(0.35 + 0.10 * noise(6));
        out.power = 480.0 + 80.0 * noise(7);
    }
}

fn sample(spec: &DemoSpec, gpu: usize, tick: usize) -> Sample {
    let node = gpu / 8;
    let slot = gpu % 8;
    let role = ROLE_CYCLE[node % ROLE_CYCLE.len()];
    let hours = tick as f64 * spec.interval_us as f64 / US_PER_HOUR;
    let day_hour = (spec.start_us as f64 / US_PER_HOUR + hours).rem_euclid(24.0);
    let s = spec.seed;
    let noise = |k: u64| rand(s, gpu as u64, tick as u64, k) - 0.5;
    let mut out = Sample {
        held: false,
        job: None,
        user: None,
        team: None,
        device: 0.0,
        sm: 0.0,
        occ: 0.0,
        tensor: 0.0,
        dram: 0.0,
        mem_gib: 0.0,
        power: 0.0,
        missing: false,
    };
    match role {
        Role::Training => training(&mut out, node, hours, &noise),
        Role::Inference => {
            out.held = true;
            // Traffic follows the working day (peak 15:00 UTC); replica 7 is an
            // over-provisioned spare that never gets a request: its own job, so the
            // job view shows an idle inference job beside the busy pool.
            out.job = Some(if slot == 7 {
                format!("chat-serve-{}-spare", node / 5)
            } else {
                format!("chat-serve-{}", node / 5)
            });
            out.user = Some("svc-inference");
            out.team = Some("product");
            out.mem_gib = 38.0 + noise(1);
            let diurnal = (((day_hour - 9.0) / 24.0) * std::f64::consts::TAU)
                .sin()
                .max(0.0);
            if slot != 7 {
                out.device = clamp01(0.04 + 0.36 * diurnal + 0.04 * noise(2));
                out.sm = clamp01(out.device * 0.45);
                out.occ = clamp01(out.device * 0.30);
                out.tensor = clamp01(out.device * 0.12);
                out.dram = clamp01(out.device * 0.5);
                out.power = 80.0 + 200.0 * out.device;
            } else {
                out.power = 35.0;
            }
        }
        Role::Batch => {
            if slot >= 6 {
                // Unallocated: owned, paid for, never scheduled.
                out.power = 55.0;
            } else {
                batch_lane(&mut out, s, (node * 8 + slot) as u64, hours, &noise);
                if !out.held {
                    out.power = 60.0;
                }
            }
        }
        Role::Notebook => {
            // One user's notebook grabs all 8 cards, works for 6 hours, then sits.
            out.held = true;
            out.job = Some(format!("jupyter-bob-{}", node / 5));
            out.user = Some("bob");
            out.team = Some("research");
            out.mem_gib = 18.0;
            if hours < 6.0 && slot < 2 {
                out.device = clamp01(0.20 + 0.2 * noise(2));
                out.sm = clamp01(out.device * 0.5);
                out.occ = clamp01(out.device * 0.3);
                out.tensor = clamp01(out.device * 0.2);
                out.dram = clamp01(out.device * 0.3);
                out.power = 150.0;
            } else {
                out.power = 70.0;
            }
        }
    }
    out
}

/// The canonical rows for ticks `from..to`, ordered by time, then GPU.
pub fn generate(spec: &DemoSpec, from: usize, to: usize) -> PolarsResult<DataFrame> {
    let gpus = spec.total_gpus();
    let cap = (to - from) * gpus;
    let mut time = Vec::with_capacity(cap);
    let mut host = Vec::with_capacity(cap);
    let mut gpu_id = Vec::with_capacity(cap);
    let mut model = Vec::with_capacity(cap);
    let mut job: Vec<Option<String>> = Vec::with_capacity(cap);
    let mut user: Vec<Option<&str>> = Vec::with_capacity(cap);
    let mut team: Vec<Option<&str>> = Vec::with_capacity(cap);
    let (mut device, mut sm, mut occ, mut tensor, mut dram, mut power) = (
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
    );
    let mut mem_used: Vec<u64> = Vec::with_capacity(cap);
    let mut mem_total: Vec<u64> = Vec::with_capacity(cap);
    let uuids: Vec<String> = (0..gpus).map(|g| uuid(spec.seed, g)).collect();
    let hosts: Vec<String> = (0..spec.nodes()).map(|n| format!("node-{n:03}")).collect();
    for tick in from..to {
        let t = spec.start_us + tick as i64 * spec.interval_us;
        for g in 0..gpus {
            let s = sample(spec, g, tick);
            if s.missing {
                continue;
            }
            let role = ROLE_CYCLE[(g / 8) % ROLE_CYCLE.len()];
            let (name, mem_gib, _) = model_of(role);
            time.push(t);
            host.push(hosts[g / 8].as_str());
            gpu_id.push(uuids[g].as_str());
            model.push(name);
            job.push(s.job);
            user.push(s.user);
            team.push(s.team);
            device.push(r4(s.device));
            sm.push(r4(s.sm));
            occ.push(r4(s.occ));
            tensor.push(r4(s.tensor));
            dram.push(r4(s.dram));
            power.push((s.power * 10.0).round() / 10.0);
            mem_used.push(if s.held { (s.mem_gib * GIB) as u64 } else { 0 });
            mem_total.push((mem_gib * GIB) as u64);
        }
    }
    let time = Series::new("time".into(), time).cast(&DataType::Datetime(
        TimeUnit::Microseconds,
        Some(TimeZone::UTC),
    ))?;
    let columns = vec![
        time.into_column(),
        Column::new("host".into(), host),
        Column::new("gpu".into(), gpu_id),
        Column::new("model".into(), model),
        Column::new("job".into(), job),
        Column::new("user".into(), user),
        Column::new("team".into(), team),
        Column::new("device_util".into(), device),
        Column::new("sm_active".into(), sm),
        Column::new("sm_occupancy".into(), occ),
        Column::new("tensor_active".into(), tensor),
        Column::new("dram_active".into(), dram),
        Column::new("mem_used_bytes".into(), mem_used),
        Column::new("mem_total_bytes".into(), mem_total),
        Column::new("power_w".into(), power),
    ];
    DataFrame::new_infer_height(columns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeparse::US_PER_SECOND;

    #[test]
    fn deterministic_for_a_seed() -> PolarsResult<()> {
        let spec = DemoSpec {
            gpus: 40,
            start_us: 0,
            interval_us: 300 * US_PER_SECOND,
            seed: 7,
        };
        let a = generate(&spec, 0, 10)?;
        let b = generate(&spec, 0, 10)?;
        assert!(a.equals_missing(&b));
        assert_eq!(a.height(), 400);
        let c = generate(&DemoSpec { seed: 8, ..spec }, 0, 10)?;
        assert!(!a.equals_missing(&c));
        Ok(())
    }
}
