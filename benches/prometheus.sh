#!/usr/bin/env bash
# The live path, measured: a demo fleet backfilled into a local Prometheus, then
#   (a) the same query_range requests `report --prometheus` makes, fetched with a
#       plain HTTP client (benches/prom_fetch.py replays GPUAUDIT_PROM_TRACE),
#   (b) `report --prometheus` (pulled: every point fetched, audited here),
#   (c) `report --prometheus --pushdown` (sums computed inside Prometheus).
# Prints wall, CPU and peak RSS of each and (b)/(a); see benches/README.md.
#
#   benches/prometheus.sh
#
# Environment (all optional):
#   BENCH_DIR   scratch dir for data, TSDB and logs          (/var/tmp/gpuaudit-bench)
#   GPUAUDIT_BIN  use this binary instead of building the release one
#   PROM_GPUS, PROM_DAYS, PROM_STEP  the fleet: GPUs, days, sample step (200, 7, 5m)
#   RUNS        timed runs of each of (a), (b), (c); the best is kept   (3)
#   PROM_CONCURRENCY  (a) and (b) run one request at a time and N at once (4)
# Needs prometheus and promtool on PATH (Debian: apt-get install prometheus).
# Exit: 0 done, 1 a run failed, 2 a setup error.
set -euo pipefail

me=prometheus.sh
# shellcheck source=benches/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
p_gpus=${PROM_GPUS:-200}
p_days=${PROM_DAYS:-7}
p_step=${PROM_STEP:-5m}
runs=${RUNS:-3}
conc=${PROM_CONCURRENCY:-4}
command -v prometheus >/dev/null && command -v promtool >/dev/null \
    || die "prometheus and promtool must be on PATH (Debian: apt-get install prometheus)"
require_gnu_time
release_bin

work=$bench_dir/prometheus-${p_gpus}g-${p_days}d-${p_step}
mkdir -p "$work" "$log_dir"
start=2026-07-06T00:00:00Z
until=$(python3 -c "import datetime as d,sys; print((d.datetime(2026,7,6,tzinfo=d.timezone.utc)+d.timedelta(days=float(sys.argv[1]))).strftime('%Y-%m-%dT%H:%M:%SZ'))" "$p_days")

# --- the fleet, backfilled once (kept between runs) ---------------------------------
if [[ ! -e $work/tsdb.done ]]; then
    rm -rf "$work/tsdb" "$work/fleet.csv" "$work/fleet.om"
    say "generating $p_gpus GPUs x $p_days days every $p_step"
    "$bin" demo --gpus "$p_gpus" --days "$p_days" --interval "$p_step" --start "$start" --out "$work/fleet.csv" >&2
    say "writing OpenMetrics"
    python3 "$here/prom_openmetrics.py" "$work/fleet.csv" "$work/fleet.om"
    say "promtool backfill"
    promtool tsdb create-blocks-from openmetrics --max-block-duration=24h "$work/fleet.om" "$work/tsdb" >"$work/backfill.log" 2>&1 \
        || { tail -5 "$work/backfill.log" >&2; die "promtool backfill failed"; }
    rm -f "$work/fleet.om"
    touch "$work/tsdb.done"
fi

# --- a local server ------------------------------------------------------------------
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1m\n' >"$work/prometheus.yml"
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address=127.0.0.1:$port --storage.tsdb.retention.time=100y --log.level=warn \
    >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
url=http://127.0.0.1:$port
for _ in $(seq 1 120); do
    curl -sf "$url/-/ready" >/dev/null 2>&1 && break
    sleep 0.5
done
curl -sf "$url/-/ready" >/dev/null || die "prometheus did not become ready (see $work/server.log)"

live=(--prometheus "$url" --since "$start" --until "$until" --step "$p_step" --format json --quiet)
best() { sort -n | head -1; }
status=0
declare -A wall cpu rss

# (b) first once, to record the requests (a) replays; then the timed runs
trace=$work/trace.ndjson
rm -f "$trace"
GPUAUDIT_PROM_TRACE=$trace "$bin" report "${live[@]}" >"$work/pulled.json" 2>"$work/pulled.err" \
    || { cat "$work/pulled.err" >&2; die "report --prometheus failed"; }
requests=$(wc -l <"$trace")

# -plain: answers asked for uncompressed (--prom-compression none), both sides
modes=(fetch-1 pulled-1 "fetch-$conc" "pulled-$conc" fetch-1-plain pulled-1-plain "fetch-$conc-plain" "pulled-$conc-plain" pushdown)
for mode in "${modes[@]}"; do
    ws=() cs=() rs=()
    for r in $(seq 1 "$runs"); do
        log=$log_dir/prometheus-$mode-$r
        case $mode in
            fetch-*-plain) n=${mode#fetch-}; cmd=(python3 "$here/prom_fetch.py" "$url" "$trace" "${n%-plain}" identity) ;;
            pulled-*-plain) n=${mode#pulled-}; cmd=("$bin" report "${live[@]}" --prom-concurrency "${n%-plain}" --prom-compression none) ;;
            fetch-*) cmd=(python3 "$here/prom_fetch.py" "$url" "$trace" "${mode#fetch-}") ;;
            pulled-*) cmd=("$bin" report "${live[@]}" --prom-concurrency "${mode#pulled-}") ;;
            pushdown) cmd=("$bin" report "${live[@]}" --pushdown) ;;
        esac
        if ! /usr/bin/time -v -o "$log.time" "${cmd[@]}" >"$log.out" 2>"$log.err"; then
            echo "!!! $mode failed (see $log.err)" >&2; tail -3 "$log.err" >&2; status=1; continue
        fi
        ws+=("$(wall_s "$log.time")"); cs+=("$(cpu_s "$log.time")"); rs+=("$(rss_mib "$log.time")")
        say "$mode run $r: $(wall_s "$log.time") s wall, $(cpu_s "$log.time") s CPU"
    done
    wall[$mode]=$(printf '%s\n' "${ws[@]:-0}" | best)
    cpu[$mode]=$(printf '%s\n' "${cs[@]:-0}" | best)
    rss[$mode]=$(printf '%s\n' "${rs[@]:-0}" | best)
done
# the report must not depend on the concurrency
for other in "pulled-$conc" pulled-1-plain "pulled-$conc-plain"; do
    if ! cmp -s "$log_dir/prometheus-pulled-1-1.out" "$log_dir/prometheus-$other-1.out"; then
        echo "!!! pulled-1 and $other gave different reports" >&2; status=1
    fi
done
bytes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes"])' "$log_dir/prometheus-fetch-1-1.out" 2>/dev/null || echo 0)
bytes_plain=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes"])' "$log_dir/prometheus-fetch-1-plain-1.out" 2>/dev/null || echo 0)
held_pulled=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layers"]["held_gpu_hours"])' "$work/pulled.json")
held_push=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["layers"]["held_gpu_hours"])' "$log_dir/prometheus-pushdown-1.out" 2>/dev/null || echo -)

echo
echo "machine: nproc=$(nproc) ($(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)); $(prometheus --version 2>&1 | sed -n 1p)"
echo "gpuaudit: $bin ($build, $("$bin" --version)); fleet: $p_gpus GPUs x $p_days days every $p_step; $requests requests"
printf "%-18s %9s %9s %9s %9s\n" mode wall_s cpu_s rss_MiB x_fetch
for mode in "${modes[@]}"; do
    # each pulled run against the plain fetch at the same concurrency; pushdown against fetch-1
    floor=fetch-1; [[ $mode == pulled-* ]] && floor=fetch-${mode#pulled-}
    printf "%-18s %9s %9s %9s %9s\n" "$mode" "${wall[$mode]}" "${cpu[$mode]}" "${rss[$mode]}" \
        "$(awk -v a="${wall[$mode]}" -v b="${wall[$floor]}" 'BEGIN{ if (b+0 > 0) printf "%.2f", a/b; else print "-" }')"
done
echo "(best of $runs; fetch-N = the same requests replayed by a plain client on N connections, answers read and dropped;"
echo " pulled-N = report --prometheus --prom-concurrency N; -plain: both ask for uncompressed answers (--prom-compression none);"
echo " x_fetch = wall / the fetch wall at the same N and encoding (pushdown: / fetch-1))"
echo "bytes on the wire: gzip $bytes, plain $bytes_plain"
echo "held GPU-h: pulled $held_pulled, pushdown $held_push"
exit $status
