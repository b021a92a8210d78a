#!/usr/bin/env python3
"""Writes the awkward-input fixtures (testdata/awkward/): one small fleet, two
GPUs x 4 samples 10 min apart, written the ways real exports write it.
g0 is held at 50% device activity, g1 unallocated at 0. Run: python3 make.py"""
import gzip, json, os

TIMES = ["2026-07-06T10:00:00Z", "2026-07-06T10:10:00Z", "2026-07-06T10:20:00Z", "2026-07-06T10:30:00Z"]
ROWS = [(t, g, held, util, mem) for t in TIMES for (g, held, util, mem) in
        [("g0", "true", 0.5, 8589934592), ("g1", "false", 0.0, 0)]]


def csv(name, header, rows):
    with open(name, "w") as f:
        f.write(header + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")


def base(fmt_util=lambda u: u, fmt_mem=lambda m: m, times=TIMES):
    out = []
    for i, t in enumerate(times):
        for (g, held, util, mem) in [("g0", "true", 0.5, 8589934592), ("g1", "false", 0.0, 0)]:
            out.append((t, "h", g, "NVIDIA H100 80GB HBM3", held, fmt_util(util), fmt_mem(mem)))
    return out

H = "time,host,gpu,model,held,device_util,mem_used_bytes"
csv("baseline.csv", H, base())
csv("percent-device-util.csv", H, base(lambda u: round(u * 100)))
csv("percent-text-values.csv", H, base(lambda u: f"{round(u*100)} %", lambda m: f"{m // 1048576} MiB"))
csv("gib-text-values.csv", H, base(fmt_mem=lambda m: f"{m / 1073741824} GiB"))
csv("mem-in-mib-unlabelled.csv", H, base(fmt_mem=lambda m: m // 1048576))
csv("device-util-all-na.csv", H, base(lambda u: "[N/A]"))
csv("device-util-all-out-of-range.csv", H, base(lambda u: 150))
csv("watts-in-device-util.csv", H, base(lambda u: f"{u} W"))
# PostgreSQL / DuckDB text output of timestamptz
pg = [t.replace("T", " ").replace("Z", ".000000+00") for t in TIMES]
csv("postgres-timestamps.csv", H, base(times=pg))
csv("offset-no-colon.csv", H, base(times=[t.replace("Z", "+0000") for t in TIMES]))
ist = ["2026-07-06T15:30:00+05:30", "2026-07-06T15:40:00+05:30", "2026-07-06T15:50:00+05:30", "2026-07-06T16:00:00+05:30"]
csv("offset-half-hour.csv", H, base(times=ist))
csv("nanosecond-timestamps.csv", H, base(times=[t.replace("Z", ".000000000Z") for t in TIMES]))
csv("naive-timestamps.csv", H, base(times=[t.replace("T", " ").replace("Z", "") for t in TIMES]))
# held that cannot be read
rows = base()
rows[0] = rows[0][:4] + ("maybe",) + rows[0][5:]
csv("held-maybe.csv", H, rows)
# one sample from 1970 in a 2026 dump
rows = base()
rows.insert(0, ("1970-01-01T00:00:00Z", "h", "g1", "NVIDIA H100 80GB HBM3", "false", 0.0, 0))
csv("outlier-1970.csv", H, rows)
# same canonical column twice
csv("device-util-twice-agree.csv", "time,host,gpu,model,held,device_util,DCGM_FI_DEV_GPU_UTIL",
    [r[:6] + (round(r[5] * 100),) for r in base()])
# compressed
data = open("baseline.csv", "rb").read()
with gzip.GzipFile("baseline.csv.gz", "wb", mtime=0) as f:
    f.write(data)
with gzip.GzipFile("baseline-gzip-no-extension", "wb", mtime=0) as f:
    f.write(data)
nd = "".join(json.dumps(dict(zip(H.split(","), r))) + "\n" for r in base())
with gzip.GzipFile("baseline.ndjson.gz", "wb", mtime=0) as f:
    f.write(nd.encode())
with open("baseline.json", "w") as f:
    json.dump([dict(zip(H.split(","), r)) for r in base()], f, indent=1)

# Shaped like Alibaba's GenTD26 sample (header and value forms; synthetic
# values, the real trace is not copied): device_util in percent with many
# values <= 1, job = host id, memory in an unmapped MiB column, 57 s steps.
import datetime
t0 = datetime.datetime(2022, 9, 11, 1, 12, 0, tzinfo=datetime.timezone.utc)
hosts = ["00800b6d2cabe5b9ce855ec9eab6e9ff", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"]
utils = [[0.0, 0.5, 0.75, 50.0], [10.0, 1.0, 0.25, 99.6667]]
lines = ["time,host,gpu,job,device_util,mem_used_mib"]
for i in range(8):
    t = (t0 + datetime.timedelta(seconds=57 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for h, host in enumerate(hosts):
        lines.append(f"{t},{host},0,{host},{utils[h][i % 4]},20618.2")
with gzip.GzipFile("gentd26-shaped.csv.gz", "wb", mtime=0) as f:
    f.write(("\n".join(lines) + "\n").encode())
# tab-separated, and a UTF-8 byte-order mark as Excel writes
with open("baseline.tsv", "w") as f:
    f.write(open("baseline.csv").read().replace(",", "\t"))
with open("baseline-bom.csv", "wb") as f:
    f.write(b"\xef\xbb\xbf" + data)

# --- issue 12, second round ---
import subprocess
# Windows line endings
with open("crlf.csv", "wb") as f:
    f.write(data.replace(b"\n", b"\r\n"))
# gzip bytes under a .csv name; zstd with no extension (zstd CLI: no
# zstandard module needed)
with gzip.GzipFile("gzip-misnamed.csv", "wb", mtime=0) as f:
    f.write(data)
def zstd(src_bytes, dest):
    out = subprocess.run(["zstd", "-q", "-c", "-19"], input=src_bytes, capture_output=True, check=True).stdout
    with open(dest, "wb") as f:
        f.write(out)
    return out
zstd(data, "baseline-zstd-no-extension")
with open("baseline.ndjson", "w") as f:
    f.write(nd)
zstd(nd.encode(), "baseline.ndjson.zst")
# sm_active in percent (g0 25 %, g1 0) and all [N/A]
HS = H + ",sm_active"
csv("sm-active-percent.csv", HS, [r + (25 if r[2] == "g0" else 0,) for r in base()])
csv("sm-active-all-na.csv", HS, [r + ("[N/A]",) for r in base()])
# one column, three spellings of the offset: +00, +05:30, Z (same instants)
mixed = ["2026-07-06 10:00:00+00", "2026-07-06T15:40:00+05:30", "2026-07-06T10:20:00Z", "2026-07-06T16:00:00+05:30"]
csv("offset-mixed.csv", H, base(times=mixed))
# samples with 6 fractional digits and uneven steps: 250, 600, 350 us
us_times = ["2026-07-06T10:00:00.000250Z", "2026-07-06T10:00:00.000500Z",
            "2026-07-06T10:00:00.001100Z", "2026-07-06T10:00:00.001450Z"]
csv("microsecond-step.csv", H, base(times=us_times))
# the same column twice, equal values
csv("duplicate-header-agree.csv", H + ",device_util", [r + (r[5],) for r in base()])
# units decided with a margin (issue 35): one float-noise value above 1 in a
# fraction column (a pandas/DCGM round trip), one percent value nvidia-smi
# rounded above 100, one 1e308: each invalid alone, never the column's unit
def first_g0(value, fmt=lambda u: u):
    rows = base(fmt)
    return [r[:5] + (value,) + r[6:] if i == 0 else r for i, r in enumerate(rows)]
csv("fraction-float-noise.csv", H, first_g0(1.0000001))
csv("percent-one-over-100.csv", H, first_g0(100.5, lambda u: round(u * 100)))
csv("percent-one-1e308.csv", H, first_g0("1e308", lambda u: round(u * 100)))
# g2 seen once, at 10:10, inside the 10-minute series: it weighs the fleet's
# step (10 min), not the snapshot hour
csv("lone-sample-in-series.csv", H, base() + [("2026-07-06T10:10:00Z", "h", "g2", "NVIDIA H100 80GB HBM3", "false", 0.0, 0)])
# identity (issue 35): one UUID under two host spellings (two exporters
# labelling the node differently, same instants); a MIG parent exported beside
# its two instances (as dcgm-exporter does), all at 50% busy and held
U0, U1 = "GPU-0a1b2c3d-0000-4000-8000-000000000001", "GPU-0a1b2c3d-0000-4000-8000-000000000002"
uuid_rows = [(t, "node1", U0 if g == "g0" else U1, *rest) for (t, _, g, *rest) in base()]
uuid_rows += [(t, "node1.cluster.local", U0, *rest) for (t, _, g, *rest) in base() if g == "g0"]
csv("uuid-two-host-spellings.csv", H, uuid_rows)
mig_rows = [(t, "h", gpu, "NVIDIA H100 80GB HBM3", "true", 0.5, 8589934592)
            for t in TIMES for gpu in (U0, U0 + "/1/0", U0 + "/2/0")]
csv("mig-parent-and-instances.csv", H, mig_rows)
# an HA pair of exporters: g0 scraped twice, 1 s apart, every 10 min (read
# with --align 1s); and g0 repeated at each instant, not held and idle, in a
# file of its own (disagreeing duplicates, whatever the order of the files)
def plus_1s(t):
    return t.replace(":00Z", ":01Z")
ha = base() + [(plus_1s(t), h, g, *rest) for (t, h, g, *rest) in base() if g == "g0"]
csv("ha-pair-1s-apart.csv", H, sorted(ha, key=lambda r: (r[0], r[2])))
csv("g0-repeated-not-held.csv", H, [(t, h, g, m, "false", 0.0, mem) for (t, h, g, m, held, u, mem) in base() if g == "g0"])
