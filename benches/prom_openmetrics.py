#!/usr/bin/env python3
"""A demo fleet CSV (gpuaudit demo --out X.csv) as dcgm-exporter series scraped by
Prometheus, in OpenMetrics text for `promtool tsdb create-blocks-from openmetrics`:
DCGM names and units, Hostname/UUID/gpu/modelName labels, the workload as
exported_pod/exported_namespace, the scrape target's job/instance labels.
The same mapping as tests/prometheus.rs (write_openmetrics).

    prom_openmetrics.py FLEET.csv OUT.om
"""
import csv
import sys
from datetime import datetime, timezone

METRICS = [  # csv column, DCGM name, scale
    ("device_util", "DCGM_FI_DEV_GPU_UTIL", 100.0),
    ("sm_active", "DCGM_FI_PROF_SM_ACTIVE", 1.0),
    ("sm_occupancy", "DCGM_FI_PROF_SM_OCCUPANCY", 1.0),
    ("tensor_active", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", 1.0),
    ("dram_active", "DCGM_FI_PROF_DRAM_ACTIVE", 1.0),
    ("mem_used_bytes", "DCGM_FI_DEV_FB_USED", 1.0 / 1048576.0),
    ("power_w", "DCGM_FI_DEV_POWER_USAGE", 1.0),
]


def epoch(text):
    t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    return int(t.timestamp())


def main(src, dst):
    index = {}
    per_host = {}
    series = [dict() for _ in METRICS]  # labels -> [(t, v)]
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["host"], row["gpu"])
            if key not in index:
                index[key] = per_host.get(row["host"], 0)
                per_host[row["host"]] = index[key] + 1
            labels = (
                f'gpu="{index[key]}",UUID="{row["gpu"]}",Hostname="{row["host"]}",'
                f'modelName="{row["model"]}",job="dcgm-exporter",instance="{row["host"]}:9400"'
            )
            if row.get("job"):
                labels += f',exported_pod="{row["job"]}",exported_namespace="{row.get("team", "")}"'
            t = epoch(row["time"])
            for m, (column, _, scale) in enumerate(METRICS):
                v = row.get(column, "")
                if v == "":
                    continue
                series[m].setdefault(labels, []).append((t, float(v) * scale))
    with open(dst, "w") as out:
        for m, (_, name, _) in enumerate(METRICS):
            out.write(f"# TYPE {name} gauge\n")
            for labels, points in series[m].items():
                for t, v in points:
                    out.write(f"{name}{{{labels}}} {v!r} {t}\n")
        out.write("# EOF\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
