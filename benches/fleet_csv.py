#!/usr/bin/env python3
"""A fleet CSV of the shape `psql \\copy` or a DCGM-to-CSV job writes, for the CSV
benchmark (benches/csv.sh): GPUS GPUs x SAMPLES samples every 30 s, time-major
(ORDER BY time), long FQDN hosts and GPU UUIDs, RFC 3339 times.

  fleet_csv.py OUT.csv [GPUS [SAMPLES]]     default 2000 x 10000 (20M rows, ~3 GB)

Deterministic (no randomness: a hash of the GPU and sample picks each value). 8 GPUs a
host; 70% of GPUs run a job (one per host per day), 10% of those held idle (0%), the
rest busy between 5% and 95%; the other 30% are unallocated at 0%. Columns: time,
host, gpu, model, job, user, team, device_util, sm_active, tensor_active,
mem_used_bytes, power_w (the demo fleet's, so benches/duckdb_report.sql reads it).
"""
import sys

T0 = 1_772_323_200  # 2026-03-01T00:00:00Z
STEP_S = 30


def rfc3339(t):
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def mix(a, b):
    """A small integer hash (splitmix-like), stable across runs and platforms."""
    x = (a * 0x9E3779B1 + b * 0x85EBCA77 + 0x27D4EB2F) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & 0xFFFFFFFF
    x ^= x >> 12
    return x


def gpu_columns(g):
    """The fixed text of GPU g: host, UUID, model, and whether it runs jobs."""
    node = g // 8
    host = f"gpu-node-{node:04d}.rack-{node % 40:02d}.us-east-1.compute.internal"
    h = mix(g, 7)
    uuid = f"GPU-{h:08x}-{g % 65536:04x}-{(h >> 8) % 65536:04x}-{node % 65536:04x}-{g:012x}"
    allocated = mix(g, 11) % 10 < 7
    idle = allocated and mix(g, 13) % 10 == 0
    return host, uuid, allocated, idle, node


def main(argv):
    if len(argv) not in (1, 2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    gpus = int(argv[1]) if len(argv) > 1 else 2000
    samples = int(argv[2]) if len(argv) > 2 else 10000
    fixed = [gpu_columns(g) for g in range(gpus)]
    per_day = 86400 // STEP_S
    with open(out, "w", buffering=1 << 20) as f:
        f.write("time,host,gpu,model,job,user,team,device_util,sm_active,tensor_active,"
                "mem_used_bytes,power_w\n")
        for s in range(samples):
            t = rfc3339(T0 + s * STEP_S)
            day = s // per_day
            lines = []
            for g, (host, uuid, allocated, idle, node) in enumerate(fixed):
                if allocated:
                    job = f"job-{node}-{day}"
                    user = f"user{node % 37:02d}"
                    team = f"team{node % 6}"
                    util = 0 if idle else 5 + mix(g, s) % 91
                    mem = 61_000_000_000
                else:
                    job = user = team = ""
                    util = 0
                    mem = 0
                lines.append(
                    f"{t},{host},{uuid},NVIDIA H100 80GB HBM3,{job},{user},{team},"
                    f"{util / 100:.2f},{util * 8 // 10 / 100:.2f},{util * 3 // 10 / 100:.2f},"
                    f"{mem},{90 + util * 6}\n")
            f.write("".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
