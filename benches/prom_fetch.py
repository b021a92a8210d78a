#!/usr/bin/env python3
"""Replays the requests of a GPUAUDIT_PROM_TRACE file against the same server
with a plain HTTP client (urllib, one connection at a time, bodies read whole
and dropped): the floor the live pulled report is measured against.

    prom_fetch.py URL TRACE.ndjson     prints: requests, bytes, wall seconds
"""
import http.client
import json
import sys
import time
import urllib.parse


def main(url, trace):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80)
    requests = 0
    body_bytes = 0
    with open(trace) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    start = time.perf_counter()
    for r in lines:
        form = urllib.parse.urlencode([tuple(p) for p in r["params"]])
        if r["post"]:
            conn.request("POST", r["path"], body=form,
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        else:
            conn.request("GET", r["path"] + ("?" + form if form else ""))
        resp = conn.getresponse()
        data = resp.read()
        if resp.status != 200:
            sys.exit(f"{r['path']}: HTTP {resp.status}: {data[:200]!r}")
        requests += 1
        body_bytes += len(data)
    wall = time.perf_counter() - start
    print(json.dumps({"requests": requests, "bytes": body_bytes, "wall_s": wall}))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
