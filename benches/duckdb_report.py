#!/usr/bin/env python3
"""DuckDB side of the fleet benchmark (benches/fleet.sh).

  duckdb_report.py query PATH           run benches/duckdb_report.sql on a parquet
                                         file or a hive-partitioned directory; print
                                         the figures as one JSON object
  duckdb_report.py scan PATH            the plain-scan floor: read every column the
                                         audit reads (one cheap aggregate each, so
                                         each is decoded) and print the seconds
  duckdb_report.py version               print DuckDB's version and thread count
  duckdb_report.py compare GA.json DB.json [--rel 1e-9]
                                         compare `gpuaudit report --format json`
                                         with the query's figures; exit 1 on any
                                         mismatch
  duckdb_report.py jitter SRC OUT [MAX_US]
                                         a copy of a parquet fleet whose times are
                                         moved by up to +-MAX_US microseconds
                                         (default 3,000,000), 3% of rows dropped,
                                         written as timestamp[us, tz=UTC]: sub-ms
                                         steps and truncated even-count medians

Environment: DUCKDB_THREADS caps DuckDB's threads (default: every core);
DUCKDB_TEMP_DIRECTORY, DUCKDB_MEMORY_LIMIT as below.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# figure in the DuckDB result -> where gpuaudit's JSON has it
FIGURES = {
    "rows_used": ("sources", "rows_used"),
    "duplicates": ("data_quality", "duplicates"),
    "observed_gpu_hours": ("layers", "observed_gpu_hours"),
    "held_gpu_hours": ("layers", "held_gpu_hours"),
    "active_gpu_hours": ("layers", "active_gpu_hours"),
    "sm_active_gpu_hours": ("layers", "sm_active_gpu_hours"),
    "tensor_active_gpu_hours": ("layers", "tensor_active_gpu_hours"),
    "idle_held_gpu_hours": ("layers", "idle_held_gpu_hours"),
    "unobserved_gpu_hours": ("data_quality", "unobserved_gpu_hours"),
    "held_usd": ("cost", "held_usd"),
    "idle_held_usd": ("cost", "idle_held_usd"),
    "unallocated_usd": ("cost", "unallocated_usd"),
}


def is_csv(path):
    return path.lower().endswith((".csv", ".csv.gz", ".csv.zst"))


def source_sql(path):
    """A read_parquet(...) call for a file or a hive-partitioned directory, or a
    read_csv(...) one for a CSV (benches/csv.sh)."""
    quoted = path.replace("'", "''")
    if is_csv(path):
        return f"read_csv('{quoted}', header = true)"
    if os.path.isdir(path):
        return f"read_parquet('{quoted}/**/*.parquet', hive_partitioning = true)"
    return f"read_parquet('{quoted}')"


def query(path):
    import duckdb  # only this mode needs the venv

    with open(os.path.join(HERE, "duckdb_report.sql")) as f:
        sql = f.read().replace("{source}", source_sql(path))
    if is_csv(path):
        # read_csv has no row numbers: every row counts as first read, which is
        # right for the generated CSV (benches/fleet_csv.py writes no duplicates)
        sql = sql.replace("file_index::BIGINT * 4294967296 + file_row_number", "0")
    con = duckdb.connect()
    threads = os.environ.get("DUCKDB_THREADS")
    if threads:
        con.execute(f"SET threads TO {int(threads)}")
    # a scratch dir for spilling when the window does not fit in memory
    spill = os.environ.get("DUCKDB_TEMP_DIRECTORY")
    if spill:
        con.execute(f"SET temp_directory = '{spill}'")
    # optional cap (e.g. "4GB"); unset = DuckDB's default, 80% of physical memory
    limit = os.environ.get("DUCKDB_MEMORY_LIMIT")
    if limit:
        con.execute(f"SET memory_limit = '{limit}'")
    started = time.perf_counter()
    cur = con.execute(sql)
    row = cur.fetchone()
    names = [d[0] for d in cur.description]
    result = {n: (float(v) if v is not None and n not in ("rows_used", "duplicates") else v) for n, v in zip(names, row)}
    result["query_s"] = time.perf_counter() - started
    result["duckdb_version"] = duckdb.__version__
    result["threads"] = con.execute("SELECT current_setting('threads')").fetchone()[0]
    result["memory_limit"] = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    json.dump(result, sys.stdout, indent=1)
    print()


def close(a, b, rel):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b)) or a == b


def compare(ga_path, db_path, rel):
    with open(ga_path) as f:
        ga = json.load(f)
    with open(db_path) as f:
        db = json.load(f)
    bad, worst = 0, (0.0, "-")
    for name, (section, key) in FIGURES.items():
        mine = ga.get(section, {}).get(key)
        theirs = db.get(name)
        ok = close(mine, theirs, rel)
        if not ok:
            bad += 1
            print(f"MISMATCH {name}: gpuaudit {mine!r} vs duckdb {theirs!r}", file=sys.stderr)
        elif mine is not None and mine != theirs:
            worst = max(worst, (abs(mine - theirs) / max(abs(mine), abs(theirs)), name))
    if bad:
        print(f"!!! {bad} of {len(FIGURES)} figures differ beyond relative {rel:g} !!!", file=sys.stderr)
        return 1
    print(f"all {len(FIGURES)} figures agree within relative {rel:g} (worst relative difference "
          f"{worst[0]:.2e}, {worst[1]})")
    return 0


# the columns the audit reads; the scan forces each to be decoded
SCAN_COLUMNS = ["time", "host", "gpu", "model", "job", "user", "team", "held", "device_util",
                "sm_active", "sm_occupancy", "tensor_active", "dram_active", "mem_used_bytes",
                "mem_total_bytes", "power_w"]


def scan(path):
    import duckdb

    con = duckdb.connect()
    source = source_sql(path)
    present = [r[0] for r in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]
    aggs = []
    for c in SCAN_COLUMNS:
        if c not in present:
            continue
        kind = con.execute(f"SELECT typeof(\"{c}\") FROM {source} LIMIT 1").fetchone()[0]
        numeric = any(k in kind for k in ("INT", "DOUBLE", "FLOAT", "DECIMAL"))
        aggs.append(f'sum("{c}")' if numeric else f'max("{c}")')
    sql = f"SELECT count(*), {', '.join(aggs)} FROM {source}"
    started = time.perf_counter()
    con.execute(sql).fetchone()
    took = time.perf_counter() - started
    print(json.dumps({"scan_s": took, "columns": len(aggs),
                      "threads": con.execute("SELECT current_setting('threads')").fetchone()[0]}))


def jitter(src, out, max_us=3_000_000):
    """Times moved by a deterministic +-max_us (whole microseconds, so steps and times
    fall off the millisecond, and even-count medians are truncated by 1/2 us), 3% of the
    rows dropped (GPUs with even and odd sample counts), the order of the rows kept."""
    import duckdb

    con = duckdb.connect(config={"threads": 1})
    con.execute("SET TimeZone = 'UTC'")
    q = src.replace("'", "''")
    span = 2 * int(max_us) + 1
    con.execute(f"""
    COPY (
      SELECT * REPLACE (timezone('UTC', time
                 + to_microseconds((hash(gpu || time::VARCHAR || 'us') % {span})::BIGINT - {int(max_us)})) AS time)
      FROM read_parquet('{q}')
      WHERE hash(host || gpu || time::VARCHAR || 'drop') % 100 >= 3
      ORDER BY file_row_number
    ) TO '{out.replace("'", "''")}' (FORMAT parquet)""")
    return out


def version():
    import duckdb

    con = duckdb.connect()
    limit = os.environ.get("DUCKDB_MEMORY_LIMIT")
    if limit:
        con.execute(f"SET memory_limit = '{limit}'")
    threads, memory = con.execute("SELECT current_setting('threads'), current_setting('memory_limit')").fetchone()
    print(f"duckdb {duckdb.__version__} (python package, {threads} threads, memory_limit {memory})")


def main(argv):
    if argv == ["version"]:
        version()
        return 0
    if len(argv) == 2 and argv[0] == "scan":
        scan(argv[1])
        return 0
    if len(argv) == 2 and argv[0] == "query":
        query(argv[1])
        return 0
    if len(argv) in (3, 4) and argv[0] == "jitter":
        jitter(argv[1], argv[2], *(int(a) for a in argv[3:]))
        return 0
    if len(argv) in (3, 5) and argv[0] == "compare":
        rel = 1e-9
        if len(argv) == 5:
            if argv[3] != "--rel":
                print(__doc__, file=sys.stderr)
                return 2
            rel = float(argv[4])
        return compare(argv[1], argv[2], rel)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
