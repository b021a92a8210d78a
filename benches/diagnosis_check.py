#!/usr/bin/env python3
"""An independent check of the diagnosis figures (issue 16).

Recomputes, from the raw samples and with DuckDB SQL only, the figures of the
diagnosis sections of `gpuaudit report --format json` -- the weights
(docs/semantics.md §2), the timeline per bucket, the leak classes, the node
view and the purchase figures (docs/semantics.md §10: "Buckets and the
timeline", "Leak map", "Node view", "Purchase") -- and compares every figure
with the binary's JSON to a relative 1e-9. Exit 0 when all agree, 1 on any
mismatch, 2 on a setup error.

Time is integer microseconds since the epoch throughout, as in gpuaudit
(docs/semantics.md §1 "Time", §2): epoch_us(time), weights, bucket bounds and
the per-GPU step are whole microseconds; the even-count median step is the
mean of the middle two differences truncated to the microsecond (integer
arithmetic in the SQL, no float median). Each GPU's observed weight is also
compared to the microsecond (gpus[].observed_gpu_hours x 3.6e9 must be the
independent integer sum to within 0.5 us).

  diagnosis_check.py                       the standard cases (cases() below):
                                           generated fleets, perturbed fleets (ms
                                           and us jitter), testdata/demo-fleet.parquet;
                                           then a self-test (tampered figures must
                                           be caught)
  diagnosis_check.py FILE [--bucket 7m|1m30s250us] [--since T] [--until T] [--want N] [--by team|user|job|host]
                     [--idle-below F] [--leak-thresholds TOML]
                                           one case on FILE (a parquet fleet with
                                           the demo's columns)
Options: --bin PATH (default $GPUAUDIT_BIN, else /tmp/gpuaudit-diag-bin),
         --rel 1e-9, --verbose (one table row per bucket / host / job figure),
         --work DIR (where generated fleets go, default /tmp/gpuaudit-diagcheck).

Needs the duckdb python package (benches/fleet.sh's venv has it:
/var/tmp/gpuaudit-bench/venv/bin/python).

What the SQL assumes of the input (what `gpuaudit demo` writes): parquet with
time, host, gpu, model, job, device_util, sm_active, tensor_active,
dram_active; held by the job column (held rule 2, so held is never unknown);
no --max-gap, --interval or --price. Prices are the report's own per-GPU
`gpus[].usd_per_hour` joined by (host, gpu): the check is of the diagnosis
arithmetic, not of the price catalog (benches/duckdb_report.sql checks that).
"""
import datetime as dt
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
HOUR_US = 3_600_000_000
DAY_US = 24 * HOUR_US
CLASSES = [
    "held_unknown", "unallocated", "unmeasured", "idle", "starved", "underfilled",
    "memory_bound", "no_tensor", "effective", "busy_unprofiled",
]
# docs/semantics.md §10 "Leak map" defaults (the report prints the ones it used; checked below)
THRESHOLDS = {
    "idle_below": 0.01, "starved_below": 0.5, "underfilled_below": 0.5,
    "memory_bound_dram_at_least": 0.6, "memory_bound_tensor_below": 0.3,
    "no_tensor_below": 0.15,
}
AUTO_BUCKETS_S = [60, 300, 900, 3600, 21600, 86400]


DURATION_UNITS_US = {"ns": None, "us": 1, "µs": 1, "ms": 1000, "s": 1_000_000, "m": 60_000_000,
                     "min": 60_000_000, "h": HOUR_US, "d": DAY_US, "w": 7 * DAY_US}


def parse_duration_us(text):
    """A duration as gpuaudit reads it (humantime: integer parts such as 7m, 1h30m,
    1m30s250us) -> whole microseconds; nanoseconds are truncated (docs/semantics.md §1)."""
    parts = re.findall(r"\s*(\d+)\s*([a-zµ]+)", text)
    if not parts or "".join(n + u for n, u in parts) != re.sub(r"\s+", "", text):
        raise SystemExit(f"diagnosis_check: cannot read duration {text!r} (e.g. 7m, 1h30m, 250us)")
    ns = 0
    for number, unit in parts:
        if unit not in DURATION_UNITS_US:
            raise SystemExit(f"diagnosis_check: unknown unit {unit!r} in duration {text!r}")
        scale = DURATION_UNITS_US[unit]
        ns += int(number) * (1 if scale is None else scale * 1000)
    return ns // 1000


def parse_time_us(text):
    """RFC 3339 -> epoch microseconds, exactly (integer arithmetic; digits past the
    sixth are truncated, docs/semantics.md §1 "Time"). The only --since/--until form
    this check passes."""
    m = re.fullmatch(r"([^.]+?)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)", text)
    if not m:
        raise SystemExit(f"diagnosis_check: cannot read time {text!r} (RFC 3339 with an offset)")
    whole, frac, offset = m.groups()
    stamp = dt.datetime.fromisoformat(whole + ("+00:00" if offset == "Z" else offset))
    seconds = (stamp - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(seconds=1)
    return seconds * 1_000_000 + int((frac or "")[:6].ljust(6, "0"))


def format_time_us(us):
    """RFC 3339 in UTC as gpuaudit writes report times (docs/semantics.md §1 "Time"):
    no fraction for whole seconds, else 3 digits for whole milliseconds, else 6."""
    seconds, micros = divmod(us, 1_000_000)
    text = (dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
    if micros == 0:
        return text + "Z"
    if micros % 1000 == 0:
        return f"{text}.{micros // 1000:03d}Z"
    return f"{text}.{micros:06d}Z"


def median_by_rank(values):
    """Median (docs/semantics.md §2); with an even count the mean of the middle two,
    truncated to whole microseconds (the values are integer microseconds)."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return None
    if n % 2:
        return ordered[n // 2]
    return (ordered[n // 2 - 1] + ordered[n // 2]) // 2


def nearest_rank(values, pct):
    """pX = the value at rank ceil(X/100 * n), 1-based, over values sorted ascending."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, -(-pct * len(ordered) // 100))
    return ordered[rank - 1]


# ---------------------------------------------------------------- the SQL side
def load_intervals(con, path, since_us, until_us, prices):
    """Weighed samples (docs/semantics.md §2) as table iv: one row per kept sample, times
    and weights in integer microseconds, with each GPU's step (and whether its even-count
    median was truncated)."""
    quoted = path.replace("'", "''")
    columns = {r[0] for r in con.execute(f"DESCRIBE SELECT * FROM read_parquet('{quoted}')").fetchall()}
    if "held" in columns:
        # held rule 1: true/false, 1/0; anything else is unknown (NULL): observed only
        held = ("CASE lower(trim(held::VARCHAR)) WHEN 'true' THEN TRUE WHEN '1' THEN TRUE "
                "WHEN 'false' THEN FALSE WHEN '0' THEN FALSE END")
    else:
        held = "job IS NOT NULL AND job <> ''"  # held rule 2
    def metric(name):
        # a column the input lacks is never measured: every figure built on it is null
        return name if name in columns else "NULL::DOUBLE"

    # epoch_us: the canonical tick (a ms column converts exactly, ns is truncated)
    lo = "TRUE" if since_us is None else f"epoch_us(time) >= {since_us}"
    hi = "TRUE" if until_us is None else f"epoch_us(time) < {until_us}"
    cap = "" if until_us is None else f", {until_us} - t"
    con.execute("CREATE OR REPLACE TABLE price (host VARCHAR, gpu VARCHAR, usd DOUBLE)")
    con.executemany("INSERT INTO price VALUES (?, ?, ?)", prices)
    con.execute(f"""
    CREATE OR REPLACE TABLE iv AS
    WITH raw AS (
        SELECT coalesce(host, '') AS host, gpu, job, "user" AS owner, team, {held} AS held,
               {metric('device_util')} AS du, {metric('sm_active')} AS sm,
               {metric('tensor_active')} AS ta, {metric('dram_active')} AS dram, epoch_us(time) AS t,
               file_index::BIGINT * 4294967296 + file_row_number AS ord
        FROM read_parquet('{quoted}') WHERE {lo} AND {hi}
    ),
    seq AS (
        SELECT *, ord = min(ord) OVER peers AS kept,
               first_value(t) OVER after - t AS diff
        FROM raw
        WINDOW peers AS (PARTITION BY host, gpu ORDER BY t
                         RANGE BETWEEN CURRENT ROW AND CURRENT ROW),
               after AS (PARTITION BY host, gpu ORDER BY t
                         RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
    ),
    diffs AS (
        -- the positive differences of a GPU's kept samples, sorted (integer us)
        SELECT host, gpu, list_sort(list(diff)) AS d, count(*) AS n
        FROM seq WHERE kept AND diff IS NOT NULL GROUP BY host, gpu
    ),
    steps AS (
        -- median by rank; an even count takes the mean of the middle two, truncated
        -- to the microsecond by integer division (docs/semantics.md §2)
        SELECT host, gpu, n,
               CASE WHEN n % 2 = 1 THEN d[n // 2 + 1] ELSE (d[n // 2] + d[n // 2 + 1]) // 2 END AS step,
               n % 2 = 0 AND (d[n // 2] + d[n // 2 + 1]) % 2 = 1 AS truncated
        FROM diffs
    ),
    stepped AS (
        SELECT seq.*, steps.step, steps.truncated FROM seq LEFT JOIN steps USING (host, gpu)
    )
    SELECT s.host, s.gpu, s.job, s.owner, s.team, s.du, s.sm, s.ta, s.dram, s.t, s.step, s.truncated,
           CASE WHEN s.step IS NULL THEN least({HOUR_US}{cap})
                ELSE least(coalesce(s.diff, s.step), 3 * s.step{cap}) END AS w,
           CASE WHEN s.diff > 3 * s.step THEN s.diff - 3 * s.step ELSE 0 END AS unobserved,
           s.held,
           p.usd AS price
    FROM stepped s LEFT JOIN price p ON p.host = s.host AND p.gpu = s.gpu
    WHERE s.kept
    """)
    duplicates = con.execute(
        f"SELECT count(*) - count(DISTINCT (coalesce(host, ''), gpu, epoch_us(time))) "
        f"FROM read_parquet('{quoted}') WHERE {lo} AND {hi}").fetchone()[0]
    return duplicates


def classify_sql(t):
    """The leak class of a sample: the first row of the cascade that holds, held_unknown
    first (docs/semantics.md §10 "Leak map")."""
    return f"""CASE
        WHEN held IS NULL THEN 'held_unknown'
        WHEN NOT held THEN 'unallocated'
        WHEN du IS NULL THEN 'unmeasured'
        WHEN du < {t['idle_below']} THEN 'idle'
        WHEN du < {t['starved_below']} THEN 'starved'
        WHEN sm IS NOT NULL AND sm < {t['underfilled_below']} THEN 'underfilled'
        WHEN dram IS NOT NULL AND dram >= {t['memory_bound_dram_at_least']}
             AND (ta IS NULL OR ta < {t['memory_bound_tensor_below']}) THEN 'memory_bound'
        WHEN ta IS NOT NULL AND ta < {t['no_tensor_below']} THEN 'no_tensor'
        WHEN sm IS NOT NULL AND ta IS NOT NULL THEN 'effective'
        ELSE 'busy_unprofiled' END"""


def fleet_step_us(con):
    """The fleet step: the median (by rank, truncated) of the GPUs' steps, in us."""
    steps = [r[2] for r in con.execute("SELECT DISTINCT host, gpu, step FROM iv WHERE step IS NOT NULL").fetchall()]
    return median_by_rank(steps)


def auto_bucket_us(fleet_step, window_us):
    """docs/semantics.md §10 "Buckets and the timeline": the smallest of 1m ... 1d that is
    >= 4 x the fleet step with ceil(window / B) <= 720, else the fewest whole days.
    Without any step (every GPU a snapshot) the step is the snapshot interval, 1 h."""
    step = HOUR_US if fleet_step is None else fleet_step
    for seconds in AUTO_BUCKETS_S:
        b = seconds * 1_000_000
        if b >= 4 * step and -(-window_us // b) <= 720:
            return b
    days = 1
    while -(-window_us // (days * DAY_US)) > 720 or days * DAY_US < 4 * step:
        days += 1
    return days * DAY_US


def independent(path, bucket_us, since_us, until_us, want, prices, by=None, thresholds=THRESHOLDS):
    """Every compared figure, recomputed from the raw samples, keyed like the JSON."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads TO 1")  # a shared machine; and fsum's last bits stay put
    duplicates = load_intervals(con, path, since_us, until_us, prices)
    ws, we = con.execute("SELECT min(t), max(t + w) FROM iv").fetchone()
    # the window: the first sample (or --since) to the end of the last weight, capped by --until
    ws = since_us if since_us is not None else ws
    we = we if until_us is None else min(we, until_us)
    step = fleet_step_us(con)
    auto = bucket_us is None
    ctx = {
        "con": con, "ws": ws, "we": we, "thresholds": thresholds,
        "B": auto_bucket_us(step, we - ws) if auto else bucket_us,
        "measured": {m: con.execute(f"SELECT count({m}) > 0 FROM iv").fetchone()[0] for m in ("du", "sm", "ta")},
        "any_priced": con.execute("SELECT count(price) > 0 FROM iv").fetchone()[0],
    }
    out = {"window.hours": (we - ws) / HOUR_US, "fleet_step_us": step, "auto_bucket": auto,
           "timeline.bucket_seconds": ctx["B"] / 1_000_000, "data_quality.duplicates": duplicates,
           "leaks.thresholds": thresholds}
    # how much of the microsecond rule this input exercises (printed; required by "us" cases)
    out["us_rule"] = con.execute("""SELECT count(DISTINCT (host, gpu)) FILTER (WHERE step % 1000 <> 0),
        count(DISTINCT (host, gpu)) FILTER (WHERE truncated), count(*) FILTER (WHERE t % 1000 <> 0)
        FROM iv""").fetchone()
    out["gpus"] = {(h, g): (obs, held) for h, g, obs, held in con.execute(
        "SELECT host, gpu, sum(w), coalesce(sum(w) FILTER (WHERE held), 0) FROM iv GROUP BY host, gpu").fetchall()}
    base_layers(ctx, out)
    timeline(ctx, out)
    leak_map(ctx, out, by)
    node_view(ctx, out)
    purchase(ctx, out, want)
    return out


def base_layers(ctx, out):
    """Weights and layers, as a base: if these disagree, everything after will."""
    measured = ctx["measured"]
    lay = ctx["con"].execute("""SELECT sum(w), sum(w) FILTER (WHERE held),
        fsum(w * du / 3600000000.0) FILTER (WHERE held), fsum(w * sm / 3600000000.0) FILTER (WHERE held),
        fsum(w * ta / 3600000000.0) FILTER (WHERE held),
        sum(w) FILTER (WHERE held AND du < ?), sum(unobserved), count(*), count(DISTINCT (host, gpu))
        FROM iv""", [ctx["thresholds"]["idle_below"]]).fetchone()
    out["layers.observed_gpu_hours"] = lay[0] / HOUR_US
    out["layers.held_gpu_hours"] = (lay[1] or 0) / HOUR_US
    out["layers.active_gpu_hours"] = lay[2] if measured["du"] else None
    out["layers.sm_active_gpu_hours"] = lay[3] if measured["sm"] else None
    out["layers.tensor_active_gpu_hours"] = lay[4] if measured["ta"] else None
    out["layers.idle_held_gpu_hours"] = (lay[5] or 0) / HOUR_US if measured["du"] else None
    out["data_quality.unobserved_gpu_hours"] = lay[6] / HOUR_US
    out["sources.rows_used"] = lay[7]
    out["purchase.owned"] = lay[8]


def timeline(ctx, out):
    """docs/semantics.md §10 "Buckets and the timeline": every interval split at the
    epoch-aligned bucket boundaries (integer us; each bucket gets the part inside it)."""
    con, B, ws, we, measured = ctx["con"], ctx["B"], ctx["ws"], ctx["we"], ctx["measured"]
    con.execute(f"""CREATE OR REPLACE TABLE parts AS
        SELECT host, gpu, held, du, sm, ta, price, k,
               least(t + w, (k + 1) * {B}) - greatest(t, k * {B}) AS part
        FROM (SELECT *, unnest(generate_series(t // {B}, (t + w - 1) // {B})) AS k FROM iv WHERE w > 0)""")
    rows = con.execute(f"""
        WITH b AS (SELECT unnest(generate_series({ws} // {B}, ({we} - 1) // {B})) AS k),
        agg AS (
            SELECT k, sum(part) AS obs,
                   coalesce(sum(part) FILTER (WHERE held), 0) AS held,
                   coalesce(sum(part) FILTER (WHERE NOT held), 0) AS unalloc,
                   coalesce(sum(part) FILTER (WHERE held AND du < {ctx['thresholds']['idle_below']}), 0) AS idle,
                   fsum(part * du) FILTER (WHERE held) AS act, count(du) FILTER (WHERE held) AS act_n,
                   fsum(part * sm) FILTER (WHERE held) AS sm, count(sm) FILTER (WHERE held) AS sm_n,
                   fsum(part * ta) FILTER (WHERE held) AS ta, count(ta) FILTER (WHERE held) AS ta_n
            FROM parts GROUP BY k)
        SELECT b.k, least({we}, (b.k + 1) * {B}) - greatest({ws}, b.k * {B}) AS len,
               coalesce(obs, 0), coalesce(held, 0), coalesce(unalloc, 0), coalesce(idle, 0),
               act, coalesce(act_n, 0), sm, coalesce(sm_n, 0), ta, coalesce(ta_n, 0)
        FROM b LEFT JOIN agg USING (k) ORDER BY b.k""").fetchall()
    buckets = []
    for k, length, obs, held, unalloc, idle, act, act_n, sm, sm_n, ta, ta_n in rows:
        def layer(total, n, metric):
            # null: metric never measured, bucket empty, or held weight none of which carried it
            if not measured[metric] or obs == 0 or (held > 0 and n == 0):
                return None
            return (total or 0.0) / length
        idle_gpus = idle / length if measured["du"] else None
        buckets.append({
            "start": format_time_us(k * B),  # the bucket's own epoch-aligned start
            "observed": obs / length, "held": held / length,
            "active": layer(act, act_n, "du"), "sm_active": layer(sm, sm_n, "sm"),
            "tensor_active": layer(ta, ta_n, "ta"), "idle_held": idle_gpus,
            "unallocated": unalloc / length,
            "spare": None if idle_gpus is None else (unalloc + idle) / length,
        })
    out["timeline.buckets"] = buckets
    out["timeline.unobserved_buckets"] = sum(1 for b in buckets if b["observed"] == 0)


def classes_by(ctx, key_sql):
    """Leak classes per value of key_sql: {key: {class: (hours, usd)}}, {key: held us}.
    gpuaudit reads "null when nothing was priced" per row (a job on unpriced cards has
    null dollars, not 0), so the check does too; the "priced" flag is per key."""
    con, cls = ctx["con"], classify_sql(ctx["thresholds"])
    meta = {k: (priced, held) for k, priced, held in con.execute(
        f"SELECT {key_sql} AS g, count(price) > 0, coalesce(sum(w) FILTER (WHERE held), 0) "
        f"FROM iv WHERE {key_sql} IS NOT NULL GROUP BY g").fetchall()}
    found = {k: {name: (0.0, 0.0 if priced else None) for name in CLASSES} for k, (priced, _) in meta.items()}
    for k, c, us, usd in con.execute(
            f"SELECT {key_sql} AS g, {cls} AS c, sum(w), fsum(w / 3600000000.0 * price) FROM iv "
            f"WHERE {key_sql} IS NOT NULL GROUP BY g, c").fetchall():
        found[k][c] = (us / HOUR_US, (usd or 0.0) if meta[k][0] else None)
    return found, {k: held for k, (_, held) in meta.items()}


def leak_map(ctx, out, by):
    """docs/semantics.md §10 "Leak map": every weight to exactly one class; fleet, per job,
    per --by group."""
    fleet, _ = classes_by(ctx, "'fleet'")
    observed_h = out["layers.observed_gpu_hours"]
    held_h = out["layers.held_gpu_hours"]
    for name, (hours, usd) in fleet["fleet"].items():
        out[f"leaks.{name}.gpu_hours"] = hours
        out[f"leaks.{name}.share_of_observed"] = hours / observed_h if observed_h else None
        out[f"leaks.{name}.share_of_held"] = (
            None if name in ("held_unknown", "unallocated") or not held_h else hours / held_h)
        out[f"leaks.{name}.usd"] = usd
    out["leaks.jobs"], _ = classes_by(ctx, "job")
    if by is not None:
        # a sample without the label goes to group "-"; rows by held hours, then name
        label = {"team": "team", "user": "owner", "job": "job", "host": "host"}[by]
        out["leaks.groups"], held = classes_by(ctx, f"coalesce(nullif({label}, ''), '-')")
        out["leaks.group_order"] = [g for g, _ in sorted(held.items(), key=lambda kv: (-kv[1], kv[0]))]


def node_view(ctx, out):
    """docs/semantics.md §10 "Node view": a host is node-held in a bucket when one of its
    GPUs has held weight there."""
    con, any_priced = ctx["con"], ctx["any_priced"]
    node_rows = con.execute("""
        WITH hb AS (
            SELECT host, k, sum(part) FILTER (WHERE held) AS held,
                   coalesce(sum(part) FILTER (WHERE NOT held), 0) AS unalloc,
                   fsum(part / 3600000000.0 * price) FILTER (WHERE NOT held) AS unalloc_usd
            FROM parts GROUP BY host, k)
        SELECT host, coalesce(held, 0) > 0, coalesce(held, 0), unalloc, unalloc_usd FROM hb""").fetchall()
    gpus_per_host = dict(con.execute("SELECT host, count(DISTINCT gpu) FROM iv GROUP BY host").fetchall())
    hosts = {h: {"gpus": n, "node_held": 0, "held": 0, "stranded": 0, "stranded_usd": 0.0}
             for h, n in gpus_per_host.items()}
    node_held_us = stranded_us = free_us = 0
    stranded_usd = free_usd = 0.0
    for host, node_held, held, unalloc, unalloc_usd in node_rows:
        h = hosts[host]
        h["held"] += held
        if node_held:
            # held-unknown weight is not counted: node-held = held + unallocated weight
            node_held_us += held + unalloc
            stranded_us += unalloc
            stranded_usd += unalloc_usd or 0.0
            h["node_held"] += held + unalloc
            h["stranded"] += unalloc
            h["stranded_usd"] += unalloc_usd or 0.0
        else:
            free_us += unalloc
            free_usd += unalloc_usd or 0.0
    out["nodes.node_held_gpu_hours"] = node_held_us / HOUR_US
    out["nodes.stranded_gpu_hours"] = stranded_us / HOUR_US
    out["nodes.free_node_gpu_hours"] = free_us / HOUR_US
    out["nodes.stranded_usd"] = stranded_usd if any_priced else None
    out["nodes.free_node_usd"] = free_usd if any_priced else None
    out["nodes.hosts_total"] = len(hosts)
    out["nodes.host_order"] = [h for h, _ in sorted(hosts.items(), key=lambda kv: (-kv[1]["stranded"], kv[0]))]
    out["nodes.hosts"] = {
        h: {"gpus": v["gpus"], "node_held_gpu_hours": v["node_held"] / HOUR_US,
            "held_gpu_hours": v["held"] / HOUR_US, "stranded_gpu_hours": v["stranded"] / HOUR_US,
            "stranded_usd": v["stranded_usd"] if any_priced else None}
        for h, v in hosts.items()}


def purchase(ctx, out, want):
    """docs/semantics.md §10 "Purchase" (and "Percentiles"): over buckets with observed > 0,
    nearest rank; the verdict's first rule that holds."""
    measured = ctx["measured"]
    seen = [b for b in out["timeline.buckets"] if b["observed"] > 0]
    held_series = [b["held"] for b in seen]
    owned = out["purchase.owned"]
    out["purchase.observed_buckets"] = len(seen)
    out["purchase.held_p50"] = nearest_rank(held_series, 50)
    out["purchase.held_p95"] = nearest_rank(held_series, 95)
    out["purchase.held_max"] = nearest_rank(held_series, 100)
    spare_p5 = nearest_rank([b["spare"] for b in seen], 5) if measured["du"] else None
    out["purchase.spare_p5"] = spare_p5
    deepest = next((out[f"layers.{m}_gpu_hours"] for m in ("tensor_active", "sm_active", "active")
                    if out[f"layers.{m}_gpu_hours"] is not None), None)
    out["purchase.output_equivalent_gpus"] = None if deepest is None else deepest / out["window.hours"]
    out["purchase.output_basis"] = next(
        (label for m, label in (("ta", "tensor-active"), ("sm", "SM-active"), ("du", "device-active"))
         if measured[m]), None)
    out["purchase.want"] = want
    uncovered = None
    if len(seen) < 24 or out["window.hours"] < 24 or spare_p5 is None:
        verdict = "insufficient_data"  # too short, or spare cannot be counted
    elif want is not None and spare_p5 >= want:
        verdict = "reclaim_first"
    elif want is None and spare_p5 >= 0.10 * owned:
        verdict = "reclaim_first"
    else:
        verdict = "saturated"
        uncovered = None if want is None else want - spare_p5
    out["purchase.verdict"] = verdict
    out["purchase.uncovered_gpus"] = uncovered


# ------------------------------------------------------- gpuaudit's side, compared
def run_gpuaudit(binary, path, opts):
    cmd = [binary, "report", path, "--format", "json", "--quiet"]
    for flag in ("bucket", "since", "until", "want", "by", "idle-below", "leak-thresholds"):
        value = opts.get(flag)
        if value is not None:
            cmd += [f"--{flag}", str(value)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"diagnosis_check: {' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    return cmd, json.loads(done.stdout)


def dig(doc, dotted):
    node = doc
    for key in dotted.split("."):
        node = node.get(key) if isinstance(node, dict) else None
    return node


class Comparison:
    def __init__(self, rel, verbose):
        self.rel, self.verbose = rel, verbose
        self.rows, self.checked, self.bad = [], 0, []
        self.worst_rel = (0.0, "-")  # the largest |diff| / max(|a|, |b|) among agreeing numbers

    def agree(self, a, b):
        if a is None or b is None or isinstance(a, (str, bool, list)) or isinstance(b, (str, bool, list)):
            return a == b
        return a == b or abs(a - b) <= self.rel * max(abs(a), abs(b))

    def one(self, figure, ours, theirs, show=True):
        self.checked += 1
        ok = self.agree(ours, theirs)
        diff = abs(ours - theirs) if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)) \
            and not isinstance(ours, bool) else None
        if not ok:
            self.bad.append((figure, ours, theirs))
        elif diff:
            relative = diff / max(abs(ours), abs(theirs))
            if relative > self.worst_rel[0]:
                self.worst_rel = (relative, figure)
        if show or not ok or self.verbose:
            self.rows.append((figure, ours, theirs, diff, ok))
        return ok, diff

    def series(self, figure, pairs):
        """Many figures (per bucket, host, job): one table row with the worst |diff|."""
        worst, count, fails, first = None, 0, 0, (None, "-", "-")
        for name, ours, theirs in pairs:
            if count == 0:
                first = (None, ours, theirs)
            ok, diff = self.one(name, ours, theirs, show=False)
            count += 1
            fails += not ok
            if diff is not None and (worst is None or diff > worst[0]):
                worst = (diff, ours, theirs)
        if worst is None:
            worst = first  # no numbers (all null): show the first pair
        self.rows.append((f"{figure} [{count}, worst]", worst[1], worst[2], worst[0], fails == 0))

    def table(self):
        def fmt(v):
            if isinstance(v, (list, dict)):
                return f"[{len(v)} items]"
            return "null" if v is None else (repr(v) if not isinstance(v, float) else f"{v:.12g}")
        width = max(len(r[0]) for r in self.rows)
        print(f"  {'figure':<{width}}  {'gpuaudit':>20}  {'independent':>20}  {'|diff|':>9}")
        for figure, ours, theirs, diff, ok in self.rows:
            mark = "" if ok else "  <-- MISMATCH"
            d = "-" if diff is None else f"{diff:.2e}"
            print(f"  {figure:<{width}}  {fmt(ours):>20}  {fmt(theirs):>20}  {d:>9}{mark}")


def compare(ga, mine, rel, verbose):
    c = Comparison(rel, verbose)
    scalars = ["window.hours", "sources.rows_used", "data_quality.duplicates",
               "data_quality.unobserved_gpu_hours", "layers.observed_gpu_hours", "layers.held_gpu_hours",
               "layers.active_gpu_hours", "layers.sm_active_gpu_hours", "layers.tensor_active_gpu_hours",
               "layers.idle_held_gpu_hours", "timeline.bucket_seconds", "timeline.unobserved_buckets"]
    for name in scalars:
        c.one(name, dig(ga, name), mine[name])
    c.one("leaks.thresholds", dig(ga, "leaks.thresholds"), mine["leaks.thresholds"])
    # per GPU: the weights summed, in hours to 1e-9 and in whole microseconds exactly
    # (a step off by 1 us moves the last sample's weight by 1 us: caught here)
    ggpus = {(g.get("host") or "", g["gpu"]): g for g in ga.get("gpus", [])}
    c.one("gpus (host, gpu)", sorted(ggpus), sorted(mine["gpus"]), show=False)
    pairs, exact = [], []
    for key, (obs_us, held_us) in sorted(mine["gpus"].items()):
        g = ggpus.get(key, {})
        name = f"gpus[{key[0]}/{key[1]}]"
        pairs.append((f"{name}.observed_gpu_hours", g.get("observed_gpu_hours"), obs_us / HOUR_US))
        pairs.append((f"{name}.held_gpu_hours", g.get("held_gpu_hours"), held_us / HOUR_US))
        ga_us = None if g.get("observed_gpu_hours") is None else round(g["observed_gpu_hours"] * HOUR_US)
        exact.append((f"{name}.observed (us)", ga_us, obs_us))
    c.series("gpus.{observed,held}_gpu_hours", pairs)
    c.series("gpus.observed in whole us", exact)
    gb = dig(ga, "timeline.buckets") or []
    c.one("timeline.buckets (count)", len(gb), len(mine["timeline.buckets"]))
    c.one("timeline.buckets (starts)", [b.get("start") for b in gb], [b["start"] for b in mine["timeline.buckets"]],
          show=False)
    for field in ("observed", "held", "active", "sm_active", "tensor_active", "idle_held", "unallocated", "spare"):
        c.series(f"timeline.{field}", [
            (f"timeline[{i}].{field}", g.get(field), m[field])
            for i, (g, m) in enumerate(zip(gb, mine["timeline.buckets"]))])
    by_class = {x["class"]: x for x in dig(ga, "leaks.classes") or []}
    c.one("leaks.classes (names, in order)", [x["class"] for x in dig(ga, "leaks.classes") or []], CLASSES)
    for name in CLASSES:
        for field in ("gpu_hours", "usd", "share_of_held", "share_of_observed"):
            c.one(f"leaks.{name}.{field}", by_class.get(name, {}).get(field), mine[f"leaks.{name}.{field}"],
                  show=field in ("gpu_hours", "usd"))
    gjobs = {j["name"]: {x["class"]: x for x in j["classes"]} for j in dig(ga, "leaks.jobs") or []}
    c.one("leaks.jobs (names)", sorted(gjobs), sorted(mine["leaks.jobs"]))
    pairs = []
    for job, classes in sorted(mine["leaks.jobs"].items()):
        for name in CLASSES:
            hours, usd = classes[name]
            g = gjobs.get(job, {}).get(name, {})
            pairs.append((f"leaks.jobs[{job}].{name}.gpu_hours", g.get("gpu_hours"), hours))
            pairs.append((f"leaks.jobs[{job}].{name}.usd", g.get("usd"), usd))
    c.series("leaks.jobs.*.{gpu_hours,usd}", pairs)
    if "leaks.groups" in mine:
        c.one("leaks.by", dig(ga, "leaks.by"), mine["leaks.by"])
        glist = dig(ga, "leaks.groups") or []
        c.one("leaks.groups (order)", [g["name"] for g in glist], mine["leaks.group_order"])
        ggroups = {g["name"]: {x["class"]: x for x in g["classes"]} for g in glist}
        pairs = []
        for group, classes in sorted(mine["leaks.groups"].items()):
            for name in CLASSES:
                hours, usd = classes[name]
                g = ggroups.get(group, {}).get(name, {})
                pairs.append((f"leaks.groups[{group}].{name}.gpu_hours", g.get("gpu_hours"), hours))
                pairs.append((f"leaks.groups[{group}].{name}.usd", g.get("usd"), usd))
        c.series("leaks.groups.*.{gpu_hours,usd}", pairs)
    for name in ("node_held_gpu_hours", "stranded_gpu_hours", "free_node_gpu_hours", "stranded_usd",
                 "free_node_usd", "hosts_total"):
        c.one(f"nodes.{name}", dig(ga, f"nodes.{name}"), mine[f"nodes.{name}"])
    ghosts = dig(ga, "nodes.hosts") or []
    c.one("nodes.hosts (order)", [h["host"] for h in ghosts], mine["nodes.host_order"][:len(ghosts)])
    pairs = []
    for h in ghosts:
        m = mine["nodes.hosts"].get(h["host"], {})
        for field in ("gpus", "node_held_gpu_hours", "held_gpu_hours", "stranded_gpu_hours", "stranded_usd"):
            pairs.append((f"nodes.hosts[{h['host']}].{field}", h.get(field), m.get(field)))
    c.series("nodes.hosts.*", pairs)
    for name in ("owned", "observed_buckets", "held_p50", "held_p95", "held_max", "spare_p5",
                 "output_equivalent_gpus", "output_basis", "want", "verdict", "uncovered_gpus"):
        c.one(f"purchase.{name}", dig(ga, f"purchase.{name}"), mine[f"purchase.{name}"])
    return c


# ----------------------------------------------------------------- the fleets
def generate(binary, out, gpus, days, interval):
    if not os.path.exists(out):
        subprocess.run([binary, "demo", "--out", out, "--gpus", str(gpus), "--days", str(days),
                        "--interval", interval], check=True, capture_output=True)
    return out


def perturb(src, out, precision="ms"):
    """A rougher copy of a demo fleet, so that the splitting and the null rules are exercised:
    times jittered by up to ±90 s at ms precision, or with precision="us" to the microsecond
    (sub-ms steps and times, even-count medians truncated; parquet timestamp[us] either
    way, as DuckDB writes TIMESTAMP) (intervals straddle bucket boundaries,
    steps differ per GPU), 2% of the rows dropped, every GPU silent 02:00-02:50 on day 2
    (unobserved time and empty buckets), node-004 silent for its first 6 hours (a GPU that
    appears late), device_util missing on 1% (the unmeasured class), sm_active and
    dram_active missing on 5% (tests skipped), dram_active 0.7 on 20% (memory_bound),
    sm_active 0.8 and tensor_active 0.5 on 10% (effective), tensor_active missing on
    node-002 (busy_unprofiled) and on every GPU 04:00-05:30 on day 3 (buckets whose held
    weight carries no tensor signal: null), no job anywhere 10:00-10:40 on day 2 (buckets
    with nothing held: active 0, not null; no node held), node-001's model renamed to a
    card the catalog does not know (unpriced), a repeat of every 500th row
    (duplicates: the first read is kept), and a one-GPU host seen once (a single
    sample at 12:00:00.500, .500250 with us: it weighs one hour, across two buckets of
    most sizes)."""
    import duckdb

    # rewritten every run (well under a second), so a changed recipe never meets a stale cache
    q = src.replace("'", "''")
    jitter = {"ms": "to_milliseconds(((hash(gpu || time::VARCHAR || 'j') % 180001)::BIGINT - 90000))",
              "us": "to_microseconds(((hash(gpu || time::VARCHAR || 'j') % 180000001)::BIGINT - 90000000))",
              }[precision]
    lone_time = {"ms": "2026-07-07 12:00:00.500", "us": "2026-07-07 12:00:00.500250"}[precision]
    con = duckdb.connect()
    con.execute("SET threads TO 1")
    # hash(...) is deterministic for a given DuckDB version: the fleet is cached by path anyway
    con.execute(f"""
    CREATE TABLE base AS
    SELECT *, row_number() OVER (ORDER BY time, host, gpu) AS rn,
           (hash(host || gpu || time::VARCHAR) % 1000000) / 1000000.0 AS u
    FROM read_parquet('{q}')""")
    con.execute(f"""
    COPY (
      WITH j AS (
        SELECT
          time + {jitter} AS time,
          host, gpu,
          CASE WHEN host = 'node-001' THEN 'NVIDIA Imaginary X9' ELSE model END AS model,
          CASE WHEN time >= TIMESTAMP '2026-07-07 10:00:00' AND time < TIMESTAMP '2026-07-07 10:40:00'
               THEN NULL ELSE job END AS job,
          "user", team,
          CASE WHEN u < 0.01 THEN NULL ELSE device_util END AS device_util,
          CASE WHEN u >= 0.01 AND u < 0.06 THEN NULL
               WHEN u >= 0.40 AND u < 0.50 THEN 0.8 ELSE sm_active END AS sm_active,
          sm_occupancy,
          CASE WHEN host = 'node-002' THEN NULL
               WHEN time >= TIMESTAMP '2026-07-08 04:00:00' AND time < TIMESTAMP '2026-07-08 05:30:00' THEN NULL
               WHEN u >= 0.40 AND u < 0.50 THEN 0.5 ELSE tensor_active END AS tensor_active,
          CASE WHEN u >= 0.06 AND u < 0.11 THEN NULL
               WHEN u >= 0.20 AND u < 0.40 THEN 0.7 ELSE dram_active END AS dram_active,
          mem_used_bytes, mem_total_bytes, power_w, rn, u
        FROM base
        WHERE NOT (u >= 0.11 AND u < 0.13)
          AND NOT (time >= TIMESTAMP '2026-07-07 02:00:00' AND time < TIMESTAMP '2026-07-07 02:50:00')
          AND NOT (host = 'node-004' AND time < TIMESTAMP '2026-07-06 06:00:00')
      ),
      dup AS (
        SELECT time, host, gpu, model, job, "user", team, 1.0 - coalesce(device_util, 0) AS device_util,
               sm_active, sm_occupancy, tensor_active, dram_active, mem_used_bytes, mem_total_bytes,
               power_w, rn, 2 AS copy
        FROM j WHERE rn % 500 = 0
      ),
      lone AS (
        SELECT TIMESTAMP '{lone_time}' AS time, 'node-099' AS host, 'GPU-snapshot-0' AS gpu,
               'NVIDIA H100 80GB HBM3' AS model, 'probe-0' AS job, 'carol' AS "user", 'data' AS team,
               0.0 AS device_util, 0.0 AS sm_active, 0.0 AS sm_occupancy, 0.0 AS tensor_active,
               0.0 AS dram_active, 2000000000::UBIGINT AS mem_used_bytes,
               85899345920::UBIGINT AS mem_total_bytes, 70.0 AS power_w, 1000000000 AS rn, 1 AS copy
      )
      SELECT * EXCLUDE (rn, copy) FROM (
        SELECT * EXCLUDE (u), 1 AS copy FROM j UNION ALL SELECT * FROM dup UNION ALL SELECT * FROM lone)
      ORDER BY rn, copy
    ) TO '{out.replace("'", "''")}' (FORMAT parquet)""")
    return out


def with_held_column(src, out):
    """The perturbed fleet with a held column (held rule 1): "true" where a job is set,
    "false" where none, and "maybe" (unreadable: held unknown) on 3% of the rows."""
    import duckdb

    q = src.replace("'", "''")
    duckdb.connect(config={"threads": 1}).execute(f"""
    COPY (SELECT * EXCLUDE (n), CASE WHEN hash(gpu || time::VARCHAR || 'h') % 100 < 3 THEN 'maybe'
                          WHEN job IS NOT NULL AND job <> '' THEN 'true' ELSE 'false' END AS held
          FROM (SELECT *, row_number() OVER () AS n FROM read_parquet('{q}', file_row_number = false)) ORDER BY n)
    TO '{out.replace("'", "''")}' (FORMAT parquet)""")
    return out


def without(src, out, dropped):
    """A copy of a fleet without some metric columns (never measured)."""
    import duckdb

    q = src.replace("'", "''")
    duckdb.connect(config={"threads": 1}).execute(
        f"COPY (SELECT * EXCLUDE ({', '.join(dropped)}) FROM read_parquet('{q}')) "
        f"TO '{out.replace(chr(39), chr(39) * 2)}' (FORMAT parquet)")
    return out


def cases(binary, work):
    os.makedirs(work, exist_ok=True)
    strict = os.path.join(work, "strict-thresholds.toml")
    with open(strict, "w") as f:
        f.write("# every threshold moved, so that samples change class\n"
                "starved_below = 0.6\nunderfilled_below = 0.42\nmemory_bound_dram_at_least = 0.3\n"
                "memory_bound_tensor_below = 0.22\nno_tensor_below = 0.25\n")
    small = generate(binary, os.path.join(work, "demo-40g-3d-5m.parquet"), 40, 3, "5m")
    rough = perturb(small, os.path.join(work, "demo-40g-3d-5m-perturbed.parquet"))
    held = with_held_column(rough, os.path.join(work, "demo-40g-3d-5m-perturbed-held.parquet"))
    no_util = without(rough, os.path.join(work, "demo-40g-3d-5m-perturbed-no-util.parquet"),
                      ["device_util", "tensor_active"])
    fine = generate(binary, os.path.join(work, "demo-40g-1d-1m.parquet"), 40, 1, "1m")
    dense = generate(binary, os.path.join(work, "demo-8g-1d-15s.parquet"), 8, 1, "15s")
    month = generate(binary, os.path.join(work, "demo-8g-31d-5m.parquet"), 8, 31, "5m")
    shipped = os.path.join(REPO, "testdata", "demo-fleet.parquet")
    # the microsecond rule (docs/semantics.md §2): times, steps and medians off the ms
    rough_us = perturb(small, os.path.join(work, "demo-40g-3d-5m-perturbed-us.parquet"), precision="us")
    sys.path.insert(0, HERE)
    from duckdb_report import jitter  # noqa: E402 (benches/duckdb_report.py jitter)
    dense_us = jitter(dense, os.path.join(work, "demo-8g-1d-15s-us-jitter.parquet"), 3_000_000)
    return [
        ("generated 40 GPUs x 3 d x 5 m, automatic bucket", small, {}),
        ("generated, --bucket 7m (boundaries cut samples)", small, {"bucket": "7m"}),
        ("generated, --bucket 15m --since/--until mid-bucket, --want 8", small,
         {"bucket": "15m", "since": "2026-07-06T01:07:30Z", "until": "2026-07-08T20:52:10Z", "want": 8}),
        ("generated, --want 30 (saturated)", small, {"want": 30}),
        ("perturbed (jitter, gaps, nulls, unpriced, duplicates), automatic bucket", rough, {}),
        ("perturbed, --bucket 7m", rough, {"bucket": "7m"}),
        ("perturbed, --bucket 1h --since/--until mid-bucket, --want 12", rough,
         {"bucket": "1h", "since": "2026-07-06T03:20:00.250Z", "until": "2026-07-08T22:41:07Z", "want": 12}),
        ("perturbed with a held column, 3% unreadable (held_unknown), --bucket 7m --by team", held,
         {"bucket": "7m", "by": "team"}),
        ("perturbed, --by host", rough, {"by": "host"}),
        ("perturbed, --leak-thresholds (every threshold moved) --idle-below 0.05, --bucket 7m", rough,
         {"bucket": "7m", "leak-thresholds": strict, "idle-below": 0.05}),
        ("perturbed without device_util and tensor_active (no idle, no spare; SM-active basis)", no_util,
         {"bucket": "15m"}),
        ("perturbed, window under 24 h (insufficient_data)", rough,
         {"since": "2026-07-06T00:00:00Z", "until": "2026-07-06T20:00:00Z"}),
        ("generated 40 GPUs x 1 d x 1 m, automatic bucket (5 min)", fine, {}),
        ("generated 8 GPUs x 1 d x 15 s, automatic bucket (5 min: 1 min would be 1,440 buckets)", dense, {}),
        ("generated 8 GPUs x 31 d x 5 m, automatic bucket (6 h: 1 h would be 744 buckets)", month, {}),
        ("testdata/demo-fleet.parquet, automatic bucket", shipped, {}),
        ("testdata/demo-fleet.parquet, --bucket 6h", shipped, {"bucket": "6h"}),
        ("perturbed to the microsecond (times jittered +-90 s to the us), automatic bucket", rough_us,
         {"us": True}),
        ("perturbed to the us, --bucket 1m30s250us (starts off the second), --since/--until with us, --want 12",
         rough_us, {"bucket": "1m30s250us", "since": "2026-07-06T03:20:00.250125Z",
                    "until": "2026-07-08T22:41:07.000999Z", "want": 12, "us": True}),
        ("perturbed to the us, --by team --bucket 7m", rough_us, {"bucket": "7m", "by": "team", "us": True}),
        ("generated 8 GPUs x 1 d x 15 s, times +-3 s to the us, 3% dropped, timestamp[us, UTC], automatic bucket",
         dense_us, {"us": True}),
    ]


def read_thresholds(path):
    """key = number lines of a --leak-thresholds TOML (the only form this check writes)."""
    found = {}
    with open(path) as f:
        for line in f:
            key, sep, value = line.partition("=")
            if sep and not line.lstrip().startswith("#"):
                found[key.strip()] = float(value)
    return found


def tamper(ga):
    """Self-test: change four figures of gpuaudit's JSON, each just past the tolerance or
    in kind, so that a run proves the comparison can fail (it must count exactly four)."""
    bucket = ga["timeline"]["buckets"][len(ga["timeline"]["buckets"]) // 2]
    bucket["held"] *= 1 + 1e-8
    idle = next(x for x in ga["leaks"]["classes"] if x["class"] == "idle")
    idle["usd"] = None
    hosts = ga["nodes"]["hosts"]
    hosts[0], hosts[1] = hosts[1], hosts[0]
    ga["purchase"]["spare_p5"] += 1e-6
    return 4


def check(binary, title, path, opts, rel, verbose, self_test=False):
    cmd, ga = run_gpuaudit(binary, path, opts)
    tampered = tamper(ga) if self_test else 0
    prices = [(g.get("host", ""), g["gpu"], g.get("usd_per_hour")) for g in ga.get("gpus", [])]
    if ga.get("gpu_count") is not None and ga["gpu_count"] != len(prices):
        raise SystemExit("diagnosis_check: the report's gpus[] is cut; the prices cannot be joined")
    if not str(ga.get("held_rule", "")).startswith(("job column", "held column")):
        raise SystemExit(f"diagnosis_check: held rule {ga.get('held_rule')!r}: this check reads "
                         "a held column or the job column only")
    bucket_us = parse_duration_us(opts["bucket"]) if opts.get("bucket") else None
    since_us = parse_time_us(opts["since"]) if opts.get("since") else None
    until_us = parse_time_us(opts["until"]) if opts.get("until") else None
    thresholds = dict(THRESHOLDS)
    if opts.get("idle-below") is not None:
        thresholds["idle_below"] = float(opts["idle-below"])
    if opts.get("leak-thresholds"):
        thresholds.update(read_thresholds(opts["leak-thresholds"]))
    mine = independent(path, bucket_us, since_us, until_us, opts.get("want"), prices, opts.get("by"),
                       thresholds)
    mine["leaks.by"] = opts.get("by")
    result = compare(ga, mine, rel, verbose)
    if self_test:
        found = len(result.bad)
        print(f"\n== self-test on {title}: {tampered} figures of gpuaudit's JSON tampered, "
              f"{found} mismatches found: {'ok' if found == tampered else 'FAILED'}")
        for figure, ours, theirs in result.bad:
            print(f"   caught {figure}: {ours!r} vs {theirs!r}")
        result.self_test_ok = found == tampered
        return result
    print(f"\n== {title}")
    print(f"   {' '.join(cmd)}")
    sub_ms, truncated, sub_ms_times = mine["us_rule"]
    print(f"   fleet step {mine['fleet_step_us'] / 1e6:.9g} s, bucket {mine['timeline.bucket_seconds']:.9g} s"
          f"{' (automatic rule)' if mine['auto_bucket'] else ''}, {len(mine['timeline.buckets'])} buckets")
    print(f"   microsecond rule: {sub_ms} GPU(s) with a step that is not a whole ms, {truncated} whose "
          f"even-count median was truncated by 1/2 us, {sub_ms_times} sample time(s) off the ms")
    if opts.get("us") and not (sub_ms and truncated and sub_ms_times):
        raise SystemExit(f"diagnosis_check: case {title!r} is meant to exercise the microsecond rule, "
                         "but its fleet does not (no sub-ms step, truncated median or sub-ms time)")
    result.table()
    verdict = "all agree" if not result.bad else f"{len(result.bad)} MISMATCH(ES)"
    print(f"   {result.checked} figures compared: {verdict} (relative {rel:g}; worst relative "
          f"{result.worst_rel[0]:.2e} at {result.worst_rel[1]})")
    return result


def main(argv):
    opts, args = {}, []
    binary = os.environ.get("GPUAUDIT_BIN", "/tmp/gpuaudit-diag-bin")
    rel, verbose, work = 1e-9, False, "/tmp/gpuaudit-diagcheck"
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--bucket", "--since", "--until", "--want", "--by", "--idle-below", "--leak-thresholds",
                 "--bin", "--rel", "--work"):
            if i + 1 >= len(argv):
                print(f"diagnosis_check: {a} needs a value", file=sys.stderr)
                return 2
            v = argv[i + 1]
            if a == "--bin":
                binary = v
            elif a == "--rel":
                rel = float(v)
            elif a == "--work":
                work = v
            else:
                opts[a[2:]] = int(v) if a == "--want" else v
            i += 2
        elif a == "--verbose":
            verbose, i = True, i + 1
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
            i += 1
    try:
        import duckdb  # noqa: F401
    except ImportError:
        print("diagnosis_check: needs the duckdb package, e.g. "
              "/var/tmp/gpuaudit-bench/venv/bin/python benches/diagnosis_check.py "
              "(python3 -m venv V && V/bin/pip install duckdb)", file=sys.stderr)
        return 2
    if not os.access(binary, os.X_OK):
        print(f"diagnosis_check: no gpuaudit binary at {binary} (--bin or GPUAUDIT_BIN)", file=sys.stderr)
        return 2
    runs = [(args[0], args[0], opts)] if args else cases(binary, work)
    results = [(title, check(binary, title, path, o, rel, verbose)) for title, path, o in runs]
    if not args:
        title, path, o = runs[0]
        probe = check(binary, title, path, o, rel, verbose, self_test=True)
        if not probe.self_test_ok:
            print("diagnosis_check: the self-test did not catch the tampered figures", file=sys.stderr)
            return 1
    total = sum(r.checked for _, r in results)
    bad = [(t, f, a, b) for t, r in results for f, a, b in r.bad]
    worst = max(((r.worst_rel[0], r.worst_rel[1], t) for t, r in results), default=(0.0, "-", "-"))
    print(f"\n{len(results)} case(s), {total} figures compared, {len(bad)} mismatch(es); worst relative "
          f"difference among agreeing figures {worst[0]:.2e} ({worst[1]}, in [{worst[2]}])")
    for title, figure, ours, theirs in bad[:40]:
        print(f"  MISMATCH [{title}] {figure}: gpuaudit {ours!r} vs independent {theirs!r}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
