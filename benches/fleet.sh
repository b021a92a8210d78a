#!/usr/bin/env bash
# Side-by-side benchmark: `gpuaudit report` against one DuckDB query computing the
# same figures, on demo fleets of 1M / 10M / 100M rows, each as one parquet file
# and as a hive-partitioned directory by day. See benches/README.md.
#
#   benches/fleet.sh [SIZE...]      SIZE: 1M, 10M, 100M, or any N / Nk / NM (default: 1M 10M)
#
# Environment (all optional):
#   BENCH_DIR      scratch dir for the venv, data and logs   (/var/tmp/gpuaudit-bench)
#   GPUAUDIT_BIN   use this binary instead of building the release one
#   CARGO_TARGET_DIR  where the release binary is built      (/var/tmp/gpuaudit-release)
#   GPUS, INTERVAL the fleet shape: rows = GPUS x samples    (1000, 30s)
#   LAYOUTS        which layouts to run                      ("file dir")
#   DUCKDB_MEMORY_LIMIT  e.g. 4GB (default: DuckDB's own, 80% of RAM; it spills beyond)
#   RSS_CAP_MIB    kill a run (either tool) whose resident memory passes this (default: none)
# Exit: 0 all figures agree, 1 a mismatch or a failed run, 2 a setup error.
set -euo pipefail

me=fleet.sh
# shellcheck source=benches/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
venv=$bench_dir/venv
layouts=${LAYOUTS:-file dir}
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1M 10M)

for s in "${sizes[@]}"; do parse_size "$s" >/dev/null; done

mkdir -p "$data_dir" "$log_dir" "$bench_dir/duckdb-tmp"

require_gnu_time

# --- DuckDB in a venv (kept between runs) ------------------------------------------
if ! "$venv/bin/python" -c 'import duckdb' 2>/dev/null; then
    say "creating $venv with duckdb"
    python3 -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    "$venv/bin/pip" install --quiet duckdb || die "pip install duckdb failed"
fi

# --- gpuaudit release binary ---------------------------------------------------------
release_bin
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$repo" diff --quiet HEAD -- src Cargo.toml 2>/dev/null || commit="$commit+uncommitted"

# --- the machine ---------------------------------------------------------------------
cpu=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
mem=$(free -g | awk '/^Mem:/{printf "total %s GiB, used %s, free %s, available %s", $2, $3, $4, $7}')
echo "machine: nproc=$(nproc) ($cpu); memory (free -g): $mem"
echo "gpuaudit: $bin ($build, $("$bin" --version), tree at commit $commit); $("$venv/bin/python" "$here/duckdb_report.py" version)"
echo "fleet: $gpus GPUs sampled every $interval (demo generator, seed 42); rows = GPUs x samples"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# --- timing --------------------------------------------------------------------------
# runs a command under /usr/bin/time -v; $1 = log prefix; stdout -> $1.out. With
# RSS_CAP_MIB set, the command is killed (and the run counts as failed) when its
# resident memory passes the cap: a shared machine must not be pushed into the OOM killer.
timed() {
    local prefix=$1; shift
    /usr/bin/time -v -o "$prefix.time" nice "$@" >"$prefix.out" 2>"$prefix.err" &
    local tpid=$! child rss
    if [[ -n ${RSS_CAP_MIB:-} ]]; then
        while kill -0 "$tpid" 2>/dev/null; do
            child=$(pgrep -P "$tpid" | head -1 || true)
            if [[ -n $child ]]; then
                rss=$(awk '/^VmRSS/{print int($2 / 1024)}' "/proc/$child/status" 2>/dev/null || true)
                if [[ -n $rss ]] && (( rss > RSS_CAP_MIB )); then
                    echo "fleet.sh: killed at ${rss} MiB resident (RSS_CAP_MIB=$RSS_CAP_MIB)" >>"$prefix.err"
                    kill "$child" 2>/dev/null || true
                fi
            fi
            sleep 0.5
        done
    fi
    wait "$tpid"
}

status=0
results=()
for size in "${sizes[@]}"; do
    rows=$(parse_size "$size")
    dataset "$rows" "$size" $layouts
    for layout in $layouts; do
        case $layout in
            file) input=$ds_file ;; dir) input=$ds_dir ;;
            *) die "LAYOUTS: '$layout' is neither file nor dir" ;;
        esac
        log=$log_dir/$size-$layout
        # Same footing for both: the input is in the page cache before either runs.
        find "$input" -type f -name '*.parquet' -exec cat {} + >/dev/null
        say "$size $layout: gpuaudit report"
        ga_ok=yes; timed "$log.gpuaudit" "$bin" report "$input" --format json --quiet || ga_ok=no
        say "$size $layout: gpuaudit report --threads 1"
        ga1_ok=yes; timed "$log.gpuaudit1" "$bin" report "$input" --format json --quiet --threads 1 || ga1_ok=no
        say "$size $layout: duckdb plain scan (the floor)"
        "$venv/bin/python" "$here/duckdb_report.py" scan "$input" >"$log.scan" 2>"$log.scan.err" || true
        floor=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["scan_s"])' "$log.scan" 2>/dev/null || echo -)
        say "$size $layout: duckdb"
        db_ok=yes; DUCKDB_TEMP_DIRECTORY=$bench_dir/duckdb-tmp timed "$log.duckdb" "$venv/bin/python" "$here/duckdb_report.py" query "$input" || db_ok=no
        agree=no
        if [[ $ga_ok == yes && $db_ok == yes ]]; then
            if python3 "$here/duckdb_report.py" compare "$log.gpuaudit.out" "$log.duckdb.out" >"$log.compare" 2>&1; then
                agree=yes
            else
                echo "!!!!!!!! MISMATCH at $size $layout: gpuaudit and DuckDB disagree !!!!!!!!" >&2
                cat "$log.compare" >&2
                status=1
            fi
        else
            [[ $ga_ok == yes ]] || { echo "!!!!!!!! gpuaudit FAILED at $size $layout (see $log.gpuaudit.err) !!!!!!!!" >&2; tail -3 "$log.gpuaudit.err" >&2; }
            [[ $db_ok == yes ]] || { echo "!!!!!!!! duckdb FAILED at $size $layout (see $log.duckdb.err) !!!!!!!!" >&2; tail -3 "$log.duckdb.err" >&2; }
            status=1
        fi
        n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows_used"])' "$log.duckdb.out" 2>/dev/null || echo "$rows")
        if [[ $ga1_ok == yes ]] && ! cmp -s "$log.gpuaudit.out" "$log.gpuaudit1.out"; then
            # the figures must not depend on the thread count (to 1e-12)
            python3 "$here/duckdb_report.py" compare "$log.gpuaudit.out" "$log.gpuaudit1.out" --rel 1e-12 >"$log.compare1" 2>&1 \
                || { echo "!!!!!!!! --threads 1 and --threads $(nproc) disagree at $size $layout !!!!!!!!" >&2; cat "$log.compare1" >&2; status=1; }
        fi
        ga_s=$(wall_s "$log.gpuaudit.time"); db_s=$(wall_s "$log.duckdb.time"); ga1_s=$(wall_s "$log.gpuaudit1.time")
        [[ $ga_ok == yes ]] || ga_s=FAIL
        [[ $ga1_ok == yes ]] || ga1_s=FAIL
        [[ $db_ok == yes ]] || db_s=FAIL
        results+=("$(awk -v size="$size" -v layout="$layout" -v n="$n" -v ga="$ga_s" -v db="$db_s" -v ga1="$ga1_s" -v floor="$floor" \
            -v garss="$(rss_mib "$log.gpuaudit.time")" -v dbrss="$(rss_mib "$log.duckdb.time")" -v agree="$agree" \
            -v gacpu="$(cpu_s "$log.gpuaudit.time")" -v dbcpu="$(cpu_s "$log.duckdb.time")" '
            function rate(t) { if (t+0 <= 0) return "-"; r = n/t; return r >= 1e6 ? sprintf("%.2fM", r/1e6) : sprintf("%.0fk", r/1e3) }
            function div(a, b) { return (a+0 > 0 && b+0 > 0) ? sprintf("%.2f", a/b) : "-" }
            BEGIN{
            printf "%-5s %-4s %11d %9s %9s %6s %9s %7s %8s %7s %8s %8s %9s %9s %11s  %s", size, layout, n, ga, db, div(ga, db), ga1, div(ga1, ga), floor, div(ga, floor), gacpu, dbcpu, garss, dbrss, rate(gacpu), agree }')")
        echo "${results[-1]}" >&2
    done
done

echo
printf "%-5s %-4s %11s %9s %9s %6s %9s %7s %8s %7s %8s %8s %9s %9s %11s  %s\n" size layout rows ga_wall_s db_wall_s ratio ga_1t_s speedup floor_s x_floor ga_cpu_s db_cpu_s ga_rssMiB db_rssMiB ga_rows/cpu-s agree
printf "%s\n" "${results[@]}"
echo "(ga = gpuaudit at every core ($(nproc) threads), ga_1t = --threads 1, speedup = ga_1t / ga; ratio = ga wall / DuckDB wall;"
echo " floor = DuckDB reading the same columns with one aggregate each (query time, all cores), x_floor = ga wall / floor;"
echo " wall, CPU (user+sys) and peak RSS from /usr/bin/time -v of each whole process; rows per CPU second = rows/s per core; logs in $log_dir)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ $status -eq 0 ]] || echo "!!! FAILED: a run failed or the figures disagree (see above) !!!"
exit $status
