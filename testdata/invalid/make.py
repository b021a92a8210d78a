#!/usr/bin/env python3
"""Writes the second round of invalid-input fixtures (issue 12) in
testdata/invalid/: a truncated zstd file and values, timestamps and headers
far longer than an error line. Run: python3 make.py (needs the zstd CLI)."""
import os, subprocess

base = open("../awkward/baseline.csv", "rb").read()
z = subprocess.run(["zstd", "-q", "-c", "-19"], input=base * 4, capture_output=True, check=True).stdout
with open("corrupt.csv.zst", "wb") as f:
    f.write(z[: len(z) // 2])
# every device_util a 10,000-character text: the column is text, refused
# quoting one value
with open("long-value.ndjson", "w") as f:
    for m in (0, 1):
        f.write('{"time":"2026-07-06T10:%d0:00Z","gpu":"g0","held":true,"device_util":"' % m + "busy" * 2_500 + '"}\n')
# a 10,000-digit JSON number: out of any float's range
with open("long-number.ndjson", "w") as f:
    f.write('{"time":"2026-07-06T10:00:00Z","gpu":"g0","held":true,"device_util":0.5}\n')
    f.write('{"time":"2026-07-06T10:10:00Z","gpu":"g0","held":true,"device_util":' + "9" * 10_000 + '}\n')
with open("long-timestamp.csv", "w") as f:
    f.write("time,gpu,held,device_util\n")
    f.write("2026-07-06T10:00:00Z,g0,true,0.5\n")
    f.write("2026-07-06T10:10:00Z" + "7" * 4980 + ",g0,true,0.5\n")
with open("wide-header.csv", "w") as f:
    f.write("c" * 20_000 + "\n1\n")
# a directory holding only a CSV (read as a parquet dataset: refused in words)
os.makedirs("csv-only", exist_ok=True)
with open("csv-only/baseline.csv", "wb") as f:
    f.write(base)
# classic Mac line endings (a bare CR ends each line): one header, no rows
with open("cr-only.csv", "wb") as f:
    f.write(base.replace(b"\n", b"\r"))
