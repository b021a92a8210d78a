//! The catalog's data. Peaks: NVIDIA/AMD datasheets and Google Cloud TPU docs
//! as collected in ../shared/reference/metrics.md (dense, no sparsity; fp64 is
//! the tensor rate where there is one). MIG profiles: the NVIDIA MIG user guide,
//! "Supported MIG Profiles" (one table per product and memory size, named at
//! each constant below). Prices: the built-in profile "on-demand, specialist
//! cloud, observed 2026" (see prices.rs); each says where it comes from, and
//! one that no observed price backs is marked `estimate`. AMD compute
//! partitions are modelled as MIG profiles are (XCDs of 8). Intel Gaudi and
//! Data Center GPU Max peaks: Intel's white paper and product brief. Gaudi 3
//! is given its spec-clock peak (1835 bf16), as every other entry is given its
//! datasheet's; the cards ship at 1600 MHz (1677): `--peak-tflops` says that.
use super::Dtype::*;
use super::{Dtype, Family, GIB, Gpu, MigProfile, Price};

const fn gib(n: u64) -> u64 {
    n * GIB
}

const fn mig(name: &'static str, slices: u8, gb: u64, max_instances: u8) -> MigProfile {
    MigProfile {
        name,
        slices,
        of: 7,
        memory_bytes: gib(gb),
        max_instances,
    }
}

const fn observed(usd_per_gpu_hour: f64, source: &'static str) -> Price {
    Price {
        usd_per_gpu_hour,
        source,
        estimate: false,
    }
}

const fn estimate(usd_per_gpu_hour: f64, source: &'static str) -> Price {
    Price {
        usd_per_gpu_hour,
        source,
        estimate: true,
    }
}

// MIG user guide, table "A100-SXM4-40GB" (the same for A100-PCIE-40GB); the
// "+me" (media extensions) variants are the same slices and are matched as such.
const MIG_A100_40GB: &[MigProfile] = &[
    mig("1g.5gb", 1, 5, 7),
    mig("1g.10gb", 1, 10, 4),
    mig("2g.10gb", 2, 10, 3),
    mig("3g.20gb", 3, 20, 2),
    mig("4g.20gb", 4, 20, 1),
    mig("7g.40gb", 7, 40, 1),
];
// MIG user guide: A100-SXM4-80GB and A100-PCIE-80GB ("names change according to the memory proportion")
const MIG_A100_80GB: &[MigProfile] = &[
    mig("1g.10gb", 1, 10, 7),
    mig("1g.20gb", 1, 20, 4),
    mig("2g.20gb", 2, 20, 3),
    mig("3g.40gb", 3, 40, 2),
    mig("4g.40gb", 4, 40, 1),
    mig("7g.80gb", 7, 80, 1),
];
// MIG user guide, table "H100-SXM5-80GB" (the same for H100-PCIE-80GB)
const MIG_H100_80GB: &[MigProfile] = &[
    mig("1g.10gb", 1, 10, 7),
    mig("1g.20gb", 1, 20, 4),
    mig("2g.20gb", 2, 20, 3),
    mig("3g.40gb", 3, 40, 2),
    mig("4g.40gb", 4, 40, 1),
    mig("7g.80gb", 7, 80, 1),
];
// MIG user guide, H100 94GB (H100-SXM5-94GB and H100-PCIE-94GB, which is the H100 NVL)
const MIG_H100_94GB: &[MigProfile] = &[
    mig("1g.12gb", 1, 12, 7),
    mig("1g.24gb", 1, 24, 4),
    mig("2g.24gb", 2, 24, 3),
    mig("3g.47gb", 3, 47, 2),
    mig("4g.47gb", 4, 47, 1),
    mig("7g.94gb", 7, 94, 1),
];
// MIG user guide, H200 141GB (H200-SXM5 and H200 NVL are both listed at 141GB, 7 instances)
const MIG_H200_141GB: &[MigProfile] = &[
    mig("1g.18gb", 1, 18, 7),
    mig("1g.35gb", 1, 35, 4),
    mig("2g.35gb", 2, 35, 3),
    mig("3g.71gb", 3, 71, 2),
    mig("4g.71gb", 4, 71, 1),
    mig("7g.141gb", 7, 141, 1),
];
// MIG user guide, B200 180GB
const MIG_B200_180GB: &[MigProfile] = &[
    mig("1g.23gb", 1, 23, 7),
    mig("1g.45gb", 1, 45, 4),
    mig("2g.45gb", 2, 45, 3),
    mig("3g.90gb", 3, 90, 2),
    mig("4g.90gb", 4, 90, 1),
    mig("7g.180gb", 7, 180, 1),
];
// MIG user guide, GB200 186GB
const MIG_GB200_186GB: &[MigProfile] = &[
    mig("1g.23gb", 1, 23, 7),
    mig("1g.47gb", 1, 47, 4),
    mig("2g.47gb", 2, 47, 3),
    mig("3g.93gb", 3, 93, 2),
    mig("4g.93gb", 4, 93, 1),
    mig("7g.186gb", 7, 186, 1),
];

// AMD compute partitions (amd-smi: SPX, DPX, QPX, CPX): XCDs per partition
// of the card's 8, the partition's share of the card's memory (in NPS1 the
// partitions share all of it), and how many the card holds.
const fn xcp(name: &'static str, xcds: u8, gb: u64, max_instances: u8) -> MigProfile {
    MigProfile {
        name,
        slices: xcds,
        of: 8,
        memory_bytes: gib(gb),
        max_instances,
    }
}
// AMD Instinct MI300X partitioning overview (8 XCDs, 192 GB)
const XCP_MI300X: &[MigProfile] = &[
    xcp("cpx", 1, 24, 8),
    xcp("qpx", 2, 48, 4),
    xcp("dpx", 4, 96, 2),
    xcp("spx", 8, 192, 1),
];
// MI325X: the MI300X's 8 XCDs with 256 GB
const XCP_MI325X: &[MigProfile] = &[
    xcp("cpx", 1, 32, 8),
    xcp("qpx", 2, 64, 4),
    xcp("dpx", 4, 128, 2),
    xcp("spx", 8, 256, 1),
];
// MI350X and MI355X: 8 XCDs, 288 GB
const XCP_MI350: &[MigProfile] = &[
    xcp("cpx", 1, 36, 8),
    xcp("qpx", 2, 72, 4),
    xcp("dpx", 4, 144, 2),
    xcp("spx", 8, 288, 1),
];

const V100_SXM: &[(Dtype, f64)] = &[(Fp16, 125.0), (Fp32, 15.7), (Fp64, 7.8)];
const V100_PCIE: &[(Dtype, f64)] = &[(Fp16, 112.0), (Fp32, 14.0), (Fp64, 7.0)];
const A100: &[(Dtype, f64)] = &[
    (Bf16, 312.0),
    (Fp16, 312.0),
    (Tf32, 156.0),
    (Fp32, 19.5),
    (Fp64, 19.5),
    (Int8, 624.0),
];
const H100_SXM: &[(Dtype, f64)] = &[
    (Bf16, 989.4),
    (Fp16, 989.4),
    (Tf32, 494.7),
    (Fp8, 1978.9),
    (Int8, 1978.9),
    (Fp32, 66.9),
    (Fp64, 66.9),
];
const MI300X: &[(Dtype, f64)] = &[
    (Bf16, 1307.4),
    (Fp16, 1307.4),
    (Tf32, 653.7),
    (Fp8, 2614.9),
    (Int8, 2614.9),
    (Fp32, 163.4),
    (Fp64, 163.4),
];

const V100_SOURCE: &str = "NVIDIA V100 datasheet (fp16 tensor; no bf16/tf32)";
const V100_NO_BF16: Option<&str> = Some("Volta has no bf16: use --dtype fp16");
const V100_PRICE: Price = estimate(
    0.55,
    "estimate: specialist clouds listed 8x V100 at about $0.55 per GPU-hour before retiring them",
);
const A100_SOURCE: &str = "NVIDIA A100 datasheet (dense)";
const A100_40_PRICE: Price = estimate(
    1.29,
    "estimate: 1x A100 40GB at a specialist cloud, about $1.29 (metrics.md: A100 $1.10-1.50)",
);
const A100_80_PRICE: Price = observed(
    1.50,
    "metrics.md: A100 80GB $1.10-1.50 at specialist clouds (observed 2025-2026)",
);

/// The table. An entry's name is the one NVML reports; `also` lists spellings
/// that can only mean this card (a family name like "H100" is ambiguous and
/// matches nothing: see names.rs).
pub const GPUS: &[Gpu] = &[
    Gpu {
        name: "Tesla T4",
        family: Family::Nvidia,
        also: &["T4 16GB"],
        memory_bytes: gib(16),
        peaks: &[(Fp16, 65.0), (Int8, 130.0), (Fp32, 8.1)],
        peak_source: "NVIDIA T4 datasheet (fp16 tensor, mixed precision; Turing has no bf16/tf32)",
        no_bf16: Some("Turing has no bf16: use --dtype fp16"),
        mig: &[],
        memory_modes: &[],
        price: estimate(
            0.35,
            "estimate: hyperscaler list price of one attached T4, about $0.35 per GPU-hour",
        ),
    },
    Gpu {
        name: "Tesla V100-SXM2-16GB",
        family: Family::Nvidia,
        also: &["V100 SXM2 16GB", "V100 16GB SXM2"],
        memory_bytes: gib(16),
        peaks: V100_SXM,
        peak_source: V100_SOURCE,
        no_bf16: V100_NO_BF16,
        mig: &[],
        memory_modes: &[],
        price: V100_PRICE,
    },
    Gpu {
        name: "Tesla V100-SXM2-32GB",
        family: Family::Nvidia,
        also: &["V100 32GB SXM2"],
        memory_bytes: gib(32),
        peaks: V100_SXM,
        peak_source: V100_SOURCE,
        no_bf16: V100_NO_BF16,
        mig: &[],
        memory_modes: &[],
        price: V100_PRICE,
    },
    Gpu {
        name: "Tesla V100-PCIE-16GB",
        family: Family::Nvidia,
        also: &["V100 16GB PCIe"],
        memory_bytes: gib(16),
        peaks: V100_PCIE,
        peak_source: V100_SOURCE,
        no_bf16: V100_NO_BF16,
        mig: &[],
        memory_modes: &[],
        price: V100_PRICE,
    },
    Gpu {
        name: "Tesla V100-PCIE-32GB",
        family: Family::Nvidia,
        also: &["V100 32GB PCIe"],
        memory_bytes: gib(32),
        peaks: V100_PCIE,
        peak_source: V100_SOURCE,
        no_bf16: V100_NO_BF16,
        mig: &[],
        memory_modes: &[],
        price: V100_PRICE,
    },
    Gpu {
        name: "NVIDIA A100-SXM4-40GB",
        family: Family::Nvidia,
        also: &["A100 SXM 40GB", "A100 40GB SXM", "A100 40GB SXM4"],
        memory_bytes: gib(40),
        peaks: A100,
        peak_source: A100_SOURCE,
        no_bf16: None,
        mig: MIG_A100_40GB,
        memory_modes: &[],
        price: A100_40_PRICE,
    },
    Gpu {
        name: "NVIDIA A100-SXM4-80GB",
        family: Family::Nvidia,
        also: &["A100 SXM 80GB", "A100 80GB SXM", "A100 80GB SXM4"],
        memory_bytes: gib(80),
        peaks: A100,
        peak_source: A100_SOURCE,
        no_bf16: None,
        mig: MIG_A100_80GB,
        memory_modes: &[],
        price: A100_80_PRICE,
    },
    Gpu {
        name: "NVIDIA A100-PCIE-40GB",
        family: Family::Nvidia,
        also: &["A100 40GB PCIe"],
        memory_bytes: gib(40),
        peaks: A100,
        peak_source: A100_SOURCE,
        no_bf16: None,
        mig: MIG_A100_40GB,
        memory_modes: &[],
        price: A100_40_PRICE,
    },
    Gpu {
        name: "NVIDIA A100 80GB PCIe",
        family: Family::Nvidia,
        also: &["A100 PCIe 80GB"],
        memory_bytes: gib(80),
        peaks: A100,
        peak_source: A100_SOURCE,
        no_bf16: None,
        mig: MIG_A100_80GB,
        memory_modes: &[],
        price: A100_80_PRICE,
    },
    Gpu {
        name: "NVIDIA A10",
        family: Family::Nvidia,
        also: &["A10 24GB"],
        memory_bytes: gib(24),
        peaks: &[
            (Bf16, 125.0),
            (Fp16, 125.0),
            (Tf32, 62.5),
            (Fp32, 31.2),
            (Int8, 250.0),
        ],
        peak_source: "NVIDIA A10 datasheet (dense); not the A10G",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            0.75,
            "estimate: 1x A10 at a specialist cloud, about $0.75 per GPU-hour",
        ),
    },
    Gpu {
        name: "NVIDIA A10G",
        family: Family::Nvidia,
        also: &["A10G 24GB"],
        memory_bytes: gib(24),
        peaks: &[],
        peak_source: "no peak: its tensor rate is lower than the A10's and unpublished: it is not an A10",
        no_bf16: Some("its tensor rate is lower than the A10's and unpublished: it is not an A10"),
        mig: &[],
        memory_modes: &[],
        price: estimate(
            1.01,
            "estimate: AWS g5.xlarge (one A10G, 4 vCPUs) on demand, about $1.01 an hour",
        ),
    },
    Gpu {
        name: "NVIDIA L4",
        family: Family::Nvidia,
        also: &["L4 24GB"],
        memory_bytes: gib(24),
        peaks: &[
            (Bf16, 121.0),
            (Fp16, 121.0),
            (Tf32, 60.0),
            (Fp8, 242.0),
            (Int8, 242.0),
            (Fp32, 30.3),
        ],
        peak_source: "NVIDIA L4 datasheet (dense = half the sparse figure)",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            0.70,
            "estimate: a one-L4 cloud VM on demand, about $0.70 an hour",
        ),
    },
    Gpu {
        name: "NVIDIA L40",
        family: Family::Nvidia,
        also: &[],
        memory_bytes: gib(48),
        peaks: &[
            (Bf16, 181.0),
            (Fp16, 181.0),
            (Tf32, 90.5),
            (Fp8, 362.0),
            (Int8, 362.0),
            (Fp32, 90.5),
        ],
        peak_source: "NVIDIA L40 datasheet (dense)",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            1.00,
            "estimate: about half the L40S price (metrics.md: L40S ~$2.00)",
        ),
    },
    Gpu {
        name: "NVIDIA L40S",
        family: Family::Nvidia,
        also: &[],
        memory_bytes: gib(48),
        peaks: &[
            (Bf16, 362.0),
            (Fp16, 362.0),
            (Tf32, 183.0),
            (Fp8, 733.0),
            (Int8, 733.0),
            (Fp32, 91.6),
        ],
        peak_source: "NVIDIA L40S datasheet (dense = half the sparse figure)",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: observed(2.00, "metrics.md: L40S ~$2.00 (observed 2025-2026)"),
    },
    Gpu {
        name: "NVIDIA H100 80GB HBM3",
        family: Family::Nvidia,
        also: &[
            "H100 SXM",
            "H100 SXM5",
            "H100 SXM 80GB",
            "H100 SXM5 80GB",
            "H100 80GB SXM",
            "H100 80GB SXM5",
        ],
        memory_bytes: gib(80),
        peaks: H100_SXM,
        peak_source: "NVIDIA H100 SXM5 datasheet (dense); torchtitan 989.4",
        no_bf16: None,
        mig: MIG_H100_80GB,
        memory_modes: &[],
        price: observed(
            3.00,
            "metrics.md: H100 SXM $2.50-3.50 at specialist clouds (Lambda 8x H100 SXM $2.99)",
        ),
    },
    Gpu {
        name: "NVIDIA H100 PCIe",
        family: Family::Nvidia,
        also: &["H100 PCIe 80GB", "H100 80GB PCIe"],
        memory_bytes: gib(80),
        peaks: &[
            (Bf16, 756.0),
            (Fp16, 756.0),
            (Tf32, 378.0),
            (Fp8, 1513.0),
            (Int8, 1513.0),
            (Fp32, 51.2),
            (Fp64, 51.2),
        ],
        peak_source: "NVIDIA H100 PCIe datasheet (dense)",
        no_bf16: None,
        mig: MIG_H100_80GB,
        memory_modes: &[],
        price: estimate(
            2.49,
            "estimate: 1x H100 PCIe at a specialist cloud, about $2.49 per GPU-hour",
        ),
    },
    Gpu {
        name: "NVIDIA H100 NVL",
        family: Family::Nvidia,
        also: &["H100 NVL 94GB", "H100 94GB NVL", "H100 PCIe 94GB"],
        memory_bytes: gib(94),
        peaks: &[
            (Bf16, 835.0),
            (Fp16, 835.0),
            (Tf32, 418.0),
            (Fp8, 1671.0),
            (Int8, 1671.0),
            (Fp32, 60.0),
            (Fp64, 60.0),
        ],
        peak_source: "NVIDIA H100 NVL datasheet, per card (Lightning's 'h100 nvl' is the two-card figure)",
        no_bf16: None,
        mig: MIG_H100_94GB,
        memory_modes: &[],
        price: estimate(
            3.00,
            "estimate: priced as the H100 SXM (metrics.md: H100 $2.50-3.50)",
        ),
    },
    Gpu {
        name: "NVIDIA H200",
        family: Family::Nvidia,
        also: &[
            "H200 SXM",
            "H200 SXM5",
            "H200 141GB",
            "H200 SXM 141GB",
            "H200 SXM5 141GB",
        ],
        memory_bytes: gib(141),
        peaks: H100_SXM,
        peak_source: "NVIDIA H200 SXM datasheet (dense; same compute as H100 SXM)",
        no_bf16: None,
        mig: MIG_H200_141GB,
        memory_modes: &[],
        price: observed(
            3.60,
            "metrics.md: H200 $3.50-4.50 at specialist clouds (observed 2025-2026)",
        ),
    },
    Gpu {
        name: "NVIDIA H200 NVL",
        family: Family::Nvidia,
        also: &["H200 NVL 141GB"],
        memory_bytes: gib(141),
        peaks: &[
            (Bf16, 835.5),
            (Fp16, 835.5),
            (Tf32, 417.5),
            (Fp8, 1670.5),
            (Int8, 1670.5),
            (Fp32, 60.0),
            (Fp64, 30.0),
        ],
        peak_source: "NVIDIA H200 datasheet, NVL column (dense = half the sparse figure)",
        no_bf16: None,
        mig: MIG_H200_141GB,
        memory_modes: &[],
        price: estimate(
            3.60,
            "estimate: priced as the H200 SXM (metrics.md: H200 $3.50-4.50)",
        ),
    },
    Gpu {
        name: "NVIDIA B200",
        family: Family::Nvidia,
        also: &["B200 SXM", "HGX B200", "B200 180GB"],
        memory_bytes: gib(180),
        peaks: &[
            (Bf16, 2250.0),
            (Fp16, 2250.0),
            (Tf32, 1125.0),
            (Fp8, 4500.0),
            (Int8, 4500.0),
            (Fp32, 75.0),
            (Fp64, 37.0),
        ],
        peak_source: "NVIDIA HGX B200 datasheet, per GPU (dense)",
        no_bf16: None,
        mig: MIG_B200_180GB,
        memory_modes: &[],
        price: observed(6.00, "metrics.md: B200 ~$6.00 (observed 2025-2026)"),
    },
    Gpu {
        name: "NVIDIA GB200",
        family: Family::Nvidia,
        also: &["GB200 NVL72", "GB200 186GB"],
        memory_bytes: gib(186),
        peaks: &[
            (Bf16, 2500.0),
            (Fp16, 2500.0),
            (Tf32, 1250.0),
            (Fp8, 5000.0),
            (Int8, 5000.0),
            (Fp32, 80.0),
            (Fp64, 40.0),
        ],
        peak_source: "NVIDIA GB200 NVL72 datasheet, per GPU (dense)",
        no_bf16: None,
        mig: MIG_GB200_186GB,
        memory_modes: &[],
        price: estimate(
            7.50,
            "estimate: above the B200's $6.00 (GB200 NVL72 capacity lists higher per GPU)",
        ),
    },
    Gpu {
        name: "NVIDIA GeForce RTX 4090",
        family: Family::Nvidia,
        also: &["RTX 4090 24GB"],
        memory_bytes: gib(24),
        peaks: &[
            (Bf16, 165.2),
            (Fp16, 165.2),
            (Tf32, 82.6),
            (Fp8, 330.3),
            (Fp32, 82.6),
        ],
        peak_source: "NVIDIA Ada whitepaper, tensor with FP32 accumulate (Lightning's bf16 figure is the non-tensor rate)",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            0.40,
            "estimate: GPU marketplaces list an RTX 4090 at about $0.30-0.70 an hour",
        ),
    },
    Gpu {
        name: "AMD Instinct MI300X",
        family: Family::AmdInstinct,
        also: &[
            "MI300X 192GB",
            "AMD Instinct MI300X OAM",
            "MI300X-O",
            // the exporter's card_model label: the OAM board's part number
            "102-G30211-0C",
        ],
        memory_bytes: gib(192),
        peaks: MI300X,
        peak_source: "AMD Instinct MI300X datasheet (dense)",
        no_bf16: None,
        mig: XCP_MI300X,
        memory_modes: &["nps1", "nps4"],
        price: observed(
            1.85,
            "on demand at specialist clouds: Vultr $1.85, TensorWave $1.50 per GPU-hour (cliffcenter.com research note, 2026-05-18)",
        ),
    },
    Gpu {
        name: "AMD Instinct MI325X",
        family: Family::AmdInstinct,
        also: &["MI325X 256GB", "AMD Instinct MI325X OAM", "MI325X-O"],
        memory_bytes: gib(256),
        peaks: MI300X,
        peak_source: "AMD Instinct MI325X datasheet (dense; the MI300X's compute, 1307.4 bf16)",
        no_bf16: None,
        mig: XCP_MI325X,
        memory_modes: &["nps1", "nps4"],
        price: observed(
            1.95,
            "on demand at a specialist cloud: TensorWave MI325X $1.95 per GPU-hour (cliffcenter.com research note, 2026-05-18)",
        ),
    },
    Gpu {
        name: "AMD Instinct MI350X",
        family: Family::AmdInstinct,
        also: &["MI350X 288GB", "AMD Instinct MI350X OAM"],
        memory_bytes: gib(288),
        peaks: &[
            (Bf16, 2300.0),
            (Fp16, 2300.0),
            (Fp8, 4600.0),
            (Fp32, 144.2),
            (Fp64, 72.1),
        ],
        peak_source: "AMD Instinct MI350X datasheet (dense; bf16/fp16 2.3 and fp8 4.6 PFLOP/s as rounded there; fp32/fp64 vector; CDNA 4 has no tf32)",
        no_bf16: None,
        mig: XCP_MI350,
        memory_modes: &["nps1", "nps2"],
        price: estimate(
            2.75,
            "estimate: between the MI325X's $1.95 and the H100 SXM's $3.00; few on-demand listings",
        ),
    },
    Gpu {
        name: "AMD Instinct MI355X",
        family: Family::AmdInstinct,
        also: &["MI355X 288GB", "AMD Instinct MI355X OAM"],
        memory_bytes: gib(288),
        peaks: &[
            (Bf16, 2500.0),
            (Fp16, 2500.0),
            (Fp8, 5000.0),
            (Fp32, 157.3),
            (Fp64, 78.6),
        ],
        peak_source: "AMD Instinct MI355X datasheet (dense; bf16/fp16 2.5 and fp8 5.0 PFLOP/s as rounded there; fp32/fp64 vector; CDNA 4 has no tf32)",
        no_bf16: None,
        mig: XCP_MI350,
        memory_modes: &["nps1", "nps2"],
        price: estimate(
            3.00,
            "estimate: priced as the H100 SXM; few on-demand listings",
        ),
    },
    Gpu {
        name: "AMD Instinct MI250X",
        family: Family::AmdInstinct,
        also: &["MI250X GCD"],
        // per GCD, as it enumerates: half of the card's 128 GB
        memory_bytes: gib(64),
        peaks: &[(Bf16, 191.5), (Fp16, 191.5), (Fp32, 23.9), (Fp64, 47.9)],
        peak_source: "AMD Instinct MI250X datasheet, per GCD (the card enumerates as two devices, each half the card's 383 bf16)",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            0.80,
            "estimate: per GCD; little on-demand market (HPC allocations)",
        ),
    },
    Gpu {
        name: "Intel Gaudi 2",
        family: Family::IntelGaudi,
        // hl-smi's name for the OAM card
        also: &["HL-225", "Gaudi2", "Habana Gaudi 2", "Gaudi 2 96GB"],
        memory_bytes: gib(96),
        peaks: &[(Bf16, 432.0), (Fp8, 865.0)],
        peak_source: "Intel Gaudi 2 white paper, MME (matrix engine) dense: bf16 432, fp8 865",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            1.30,
            "estimate: Intel's developer cloud listed an 8x Gaudi 2 node at about $10.42 an hour",
        ),
    },
    Gpu {
        name: "Intel Gaudi 3",
        family: Family::IntelGaudi,
        // hl-smi's names: HL-325L (OAM, air-cooled), HL-328 (OAM), HL-338 (PCIe card)
        also: &[
            "HL-325L",
            "HL-328",
            "HL-338",
            "Gaudi3",
            "Habana Gaudi 3",
            "Gaudi 3 128GB",
        ],
        memory_bytes: gib(128),
        peaks: &[(Bf16, 1835.0), (Fp8, 1835.0)],
        peak_source: "Intel Gaudi 3 white paper, MME dense at the spec clock: bf16 = fp8 = 1835 (1677 at the 1600 MHz the cards ship at: give --peak-tflops 1677 for that)",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            2.10,
            "estimate: below the H100 SXM's $3.00; few on-demand listings",
        ),
    },
    Gpu {
        name: "Intel(R) Data Center GPU Max 1550",
        family: Family::IntelMax,
        also: &[
            "Data Center GPU Max 1550",
            "GPU Max 1550",
            "Max 1550",
            "Ponte Vecchio Max 1550",
        ],
        memory_bytes: gib(128),
        peaks: &[
            (Bf16, 838.9),
            (Fp16, 838.9),
            (Tf32, 419.4),
            (Int8, 1677.7),
            (Fp32, 52.4),
            (Fp64, 52.4),
        ],
        peak_source: "Intel Data Center GPU Max 1550 product brief: 128 Xe cores at 1600 MHz, XMX dense (bf16 838.9); per card of two stacks (a stack enumerated alone is half)",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            1.00,
            "estimate: few on-demand listings (HPC allocations and Intel's developer cloud)",
        ),
    },
    Gpu {
        name: "Google TPU v4",
        family: Family::GoogleTpu,
        also: &[],
        memory_bytes: gib(32),
        peaks: &[(Bf16, 275.0)],
        peak_source: "Google Cloud TPU v4 docs, per chip",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            3.22,
            "estimate: Google Cloud TPU v4 on-demand list price per chip-hour, about $3.22",
        ),
    },
    Gpu {
        name: "Google TPU v5e",
        family: Family::GoogleTpu,
        also: &[],
        memory_bytes: gib(16),
        peaks: &[(Bf16, 197.0)],
        peak_source: "Google Cloud TPU v5e docs, per chip",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            1.20,
            "estimate: Google Cloud TPU v5e on-demand list price per chip-hour, about $1.20",
        ),
    },
    Gpu {
        name: "Google TPU v5p",
        family: Family::GoogleTpu,
        also: &[],
        memory_bytes: gib(95),
        peaks: &[(Bf16, 459.0)],
        peak_source: "Google Cloud TPU v5p docs, per chip",
        no_bf16: None,
        mig: &[],
        memory_modes: &[],
        price: estimate(
            4.20,
            "estimate: Google Cloud TPU v5p on-demand list price per chip-hour, about $4.20",
        ),
    },
];
