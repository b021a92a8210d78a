#!/usr/bin/env python3
"""Replays the requests of a GPUAUDIT_PROM_TRACE file against the same server
with a plain HTTP client (http.client, bodies read whole and dropped): the
floor the live pulled report is measured against. Each request asks for the
Accept-Encoding gpuaudit asked for (the trace records it; ENCODING overrides
it: gzip or identity), and a gzip answer is decompressed, as gpuaudit's client
does, so both do the same work. With N > 1, N threads each keep their own
connection and take the next request (what `--prom-concurrency N` does).

    prom_fetch.py URL TRACE.ndjson [N [ENCODING]]
prints: requests, bytes on the wire, bytes decoded, wall seconds
"""
import http.client
import json
import sys
import threading
import time
import urllib.parse
import zlib


def fetch_all(url, lines, next_index, totals, lock, encoding):
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
        headers = {"Accept-Encoding": encoding or r.get("accept_encoding", "identity")}
        if r["post"]:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            conn.request("POST", r["path"], body=form, headers=headers)
        else:
            conn.request("GET", r["path"] + ("?" + form if form else ""), headers=headers)
        resp = conn.getresponse()
        data = resp.read()
        if resp.status != 200:
            sys.exit(f"{r['path']}: HTTP {resp.status}: {data[:200]!r}")
        wire = len(data)
        if resp.getheader("Content-Encoding", "").lower() == "gzip":
            data = zlib.decompress(data, wbits=31)
        with lock:
            totals[0] += 1
            totals[1] += wire
            totals[2] += len(data)


def main(url, trace, concurrency, encoding):
    with open(trace) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    next_index, totals, lock = [0], [0, 0, 0], threading.Lock()
    start = time.perf_counter()
    workers = [threading.Thread(target=fetch_all,
                                args=(url, lines, next_index, totals, lock, encoding))
               for _ in range(concurrency)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall = time.perf_counter() - start
    if totals[0] != len(lines):
        sys.exit(f"fetched {totals[0]} of {len(lines)} requests")
    print(json.dumps({"requests": totals[0], "bytes": totals[1], "decoded_bytes": totals[2],
                      "wall_s": wall, "concurrency": concurrency,
                      "encoding": encoding or "as traced"}))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4, 5):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) >= 4 else 1,
         sys.argv[4] if len(sys.argv) == 5 else None)
