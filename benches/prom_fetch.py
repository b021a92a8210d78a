#!/usr/bin/env python3
"""Replays the requests of a GPUAUDIT_PROM_TRACE file against the same server
with a plain HTTP client (http.client, bodies read whole and dropped): the
floor the live pulled report is measured against. With N > 1, N threads each
keep their own connection and take the next request (what
`--prom-concurrency N` does).

    prom_fetch.py URL TRACE.ndjson [N]     prints: requests, bytes, wall seconds
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse


def fetch_all(url, lines, next_index, totals, lock):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80)
    while True:
        with lock:
            i = next_index[0]
            next_index[0] += 1
        if i >= len(lines):
            return
        r = lines[i]
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
        with lock:
            totals[0] += 1
            totals[1] += len(data)


def main(url, trace, concurrency):
    with open(trace) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    next_index, totals, lock = [0], [0, 0], threading.Lock()
    start = time.perf_counter()
    workers = [threading.Thread(target=fetch_all, args=(url, lines, next_index, totals, lock))
               for _ in range(concurrency)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall = time.perf_counter() - start
    if totals[0] != len(lines):
        sys.exit(f"fetched {totals[0]} of {len(lines)} requests")
    print(json.dumps({"requests": totals[0], "bytes": totals[1], "wall_s": wall,
                      "concurrency": concurrency}))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) == 4 else 1)
