#!/usr/bin/env python3
"""Rebuild testdata/fuzz/seeds/<target>/ (the committed seed corpora of fuzz/).

Seeds are small files from testdata/ (licenses in testdata/SOURCES.md) and a few
real captures from /work/shared/data that carry a license allowing copies
(Apache-2.0, MIT; see testdata/fuzz/SOURCES.md), plus hand-written shapes.
Only files up to 24 KB: libFuzzer's max_len follows the largest seed, and a
larger max_len slows every target down.
"""
import os, shutil, struct, pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEEDS = ROOT / "testdata/fuzz/seeds"
SHARED = pathlib.Path("/work/shared/data")
LIMIT = 24 * 1024


def put(target, name, data):
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (d / name).write_bytes(data)


def copy(target, path, prefix=b""):
    path = pathlib.Path(path)
    data = path.read_bytes()
    if len(data) + len(prefix) > LIMIT:
        return
    put(target, path.name, prefix + data)


def glob(pattern, base=ROOT):
    return sorted(base.glob(pattern))


if SEEDS.exists():
    shutil.rmtree(SEEDS)

for i, s in enumerate([
    "2026-07-14T08:12:53Z", "2026-07-14T08:12:53.123+05:30", "2026-07-14 08:12:53",
    "2026/07/14 08:12:53.456", "2026-07-14", "2026-07-14 08:12:53+00", "2026-07-14 08:12:53 UTC",
    "2026-07-14T08:12", "2026-07-14 08:12:53.5 -0500", "7d", "1h30m", "9999-12-31T23:59:59Z",
]):
    put("timestamp", f"seed{i:02}", s)
for i, s in enumerate(["30s", "5m", "1h30m", "7d", "2w", "850ms", "1y 2months", "0s", " 15min "]):
    put("duration", f"seed{i:02}", s)
for i, s in enumerate(["1GiB", "512MiB", "1G", "1073741824", "1.5 TiB", "0", "10kb", "2TB"]):
    put("size", f"seed{i:02}", s)
for i, s in enumerate(["0.01", "1%", "100%", "0", "1", " 5 % ", "45 %", "8192 MiB", "1e-3"]):
    put("fraction", f"seed{i:02}", s)
for i, s in enumerate(["busy=device_util:percent", "mem=mem_used_bytes:mib", "t=time",
                       "uuid=gpu", "x=sm_active:fraction", "b=mem_total_bytes:bytes", " w = power_w "]):
    put("map_spec", f"seed{i:02}", s)

copy("rules_toml", ROOT / "testdata/check/gpuaudit.toml")
put("rules_toml", "all-kinds.toml",
    '[min]\nmfu = 0.35\nsm_active = "30%"\n[max]\nidle_held_usd = 2\n'
    '[max-drop]\nsm_active = "2pp"\n[max-rise]\nidle_held_gpu_hours = "5%"\n')

put("prices", "csv-header", b"\x00model,usd_per_gpu_hour\nNVIDIA H100 80GB HBM3,3.0\nA100,1.5\n")
put("prices", "csv-quoted", b'\x00"NVIDIA L4",0.8\n# comment\n\nT4,0.35\n')
put("prices", "toml-top", b'\x01"NVIDIA H100 80GB HBM3" = 3.0\nA100 = 2\n')
put("prices", "toml-table", b'\x01[prices]\n"NVIDIA L40S" = 1.25\n')

for f in glob("testdata/mfu/*.csv"):
    copy("jobs", f, b"\x00")
for f in glob("testdata/mfu/*.json"):
    copy("jobs", f, b"\x01")
put("jobs", "ndjson", b'\x01{"job":"a","achieved_tflops":120}\n{"job":"b","model_flops":"1.5e21","dtype":"fp8"}\n')

for f in glob("testdata/captures/*.prom") + glob("testdata/formats/*.prom") + glob("testdata/invalid/formats/*.prom"):
    copy("prom_text", f)
for f in glob("dcgm-exporter/*.prom", SHARED):
    copy("prom_text", f)
put("prom_text", "openmetrics",
    '# TYPE DCGM_FI_DEV_GPU_UTIL gauge\nDCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",Hostname="h",pod="p"} 45 1782864000\n'
    'DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-1"} 8192 1782864000000\n# EOF\n')

for f in glob("testdata/captures/*.json") + glob("testdata/formats/*.json") + glob("testdata/invalid/formats/*.json"):
    copy("prom_json", f)
put("prom_json", "matrix",
    '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL",'
    '"UUID":"GPU-1","Hostname":"h"},"values":[[1782864000,"45"],[1782864060,"NaN"]]}]},"warnings":["w"]}')
put("prom_json", "error", '{"status":"error","errorType":"bad_data","error":"parse error"}')

for f in glob("testdata/captures/*.csv") + glob("testdata/formats/*.csv") + glob("testdata/invalid/formats/*.csv"):
    copy("smi_csv", f)
for f in glob("nvidia-smi/query-csv/*l40s*.csv", SHARED) + glob("nvidia-smi/query-csv/*2080*.csv", SHARED):
    copy("smi_csv", f)

for f in glob("testdata/captures/*.dmon.txt"):
    copy("smi_dmon", f)
for f in glob("nvidia-smi/dmon/*idle*.txt", SHARED)[:3] + glob("nvidia-smi/dmon/*l40s*load*.txt", SHARED):
    copy("smi_dmon", f)

for f in glob("testdata/captures/*.xml") + glob("testdata/invalid/formats/*.xml"):
    copy("smi_xml", f)
for f in glob("nvidia-smi/xml/telegraf_a10g.xml", SHARED):
    copy("smi_xml", f)

# format: gaudi-hlsmi, intel-xpusmi, otel-otlp-json
for f in glob("testdata/gaudi/*.csv"):
    copy("gaudi_hlsmi", f)
for f in glob("testdata/intel/*.csv"):
    copy("intel_xpusmi", f)
for f in glob("testdata/otel/*.jsonl") + glob("testdata/otel/*.json"):
    copy("otel_otlp", f)

for f in glob("testdata/awkward/*.csv") + glob("testdata/invalid/*.csv") + [ROOT / "testdata/small-fleet.csv"]:
    data = f.read_bytes()
    if len(data) <= LIMIT:
        put("normalize", f.name, b"\n".join(data.split(b"\n")[:12]))
put("normalize", "numeric-and-maps",
    "map:busy=device_util:percent\nmap:fb=mem_used_bytes:mib\n"
    "#ts,uuid,#busy,#fb,#power_w,held\n1782864000,GPU-1,45,8192,250.5,true\n"
    "1782864060,GPU-1,,80,,0\n1782864120000,GPU-2,150,-1,300,maybe\n")
put("normalize", "units-in-values",
    "time,gpu,utilization.gpu [%],memory.used [MiB],power.draw [W]\n"
    "2026/07/14 08:12:53.456,0,45 %,8192 MiB,250.30 W\n2026/07/14 08:12:54.456,0,[N/A],[Not Supported],n/a\n")

MIN = 60_000
T0 = 1_782_864_000_000
def weights_seed(flags, max_gap, until, times):
    return struct.pack("<BII", flags, max_gap, until) + b"".join(struct.pack("<q", t) for t in times)
put("weights", "regular", weights_seed(0, 0, 0, [T0 + i * MIN for i in range(5)]))
put("weights", "gap", weights_seed(0, 0, 0, [T0, T0 + MIN, T0 + 2 * MIN, T0 + 12 * MIN, T0 + 13 * MIN]))
put("weights", "max-gap-until", weights_seed(1, 5 * MIN, 22 * MIN, [T0, T0 + 10 * MIN, T0 + 20 * MIN]))
put("weights", "single", weights_seed(0, 0, 0, [T0]))
put("weights", "unsorted-dupes", weights_seed(1, 0, 3 * MIN, [T0 + 2 * MIN, T0, T0, T0 + MIN]))

total = sum(p.stat().st_size for p in SEEDS.rglob("*") if p.is_file())
print(f"{sum(1 for p in SEEDS.rglob('*') if p.is_file())} seeds, {total} bytes")
