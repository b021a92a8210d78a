#!/usr/bin/env bash
# CSV at fleet scale (issue 36): `gpuaudit report` on a generated fleet CSV
# (benches/fleet_csv.py: long FQDN hosts, GPU UUIDs, RFC 3339 times, time-major)
# beside one DuckDB query computing the same twelve figures from the same CSV
# (read_csv), wall / CPU / peak RSS from GNU time, figures compared to 1e-9.
#
#   benches/csv.sh [GPUS [SAMPLES]]     default 2000 x 10000 (20M rows, ~3.5 GB)
#
# Environment (all optional):
#   BENCH_DIR        scratch dir for data and logs            (/var/tmp/gpuaudit-bench)
#   GPUAUDIT_BIN     use this binary instead of building the release one
#   IN_MEMORY=1      also run gpuaudit with the text read whole (the old path)
#   DUCKDB_THREADS   cap DuckDB's threads (default: every core)
# Exit: 0 all figures agree, 1 a mismatch or a failed run, 2 a setup error.
set -euo pipefail

me=csv.sh
# shellcheck source=benches/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
csv_gpus=${1:-2000}
csv_samples=${2:-10000}
require_gnu_time
mkdir -p "$data_dir" "$log_dir"

python=python3
if ! $python -c 'import duckdb' 2>/dev/null; then
    python=$bench_dir/venv/bin/python
    if ! $python -c 'import duckdb' 2>/dev/null; then
        say "creating $bench_dir/venv with duckdb"
        python3 -m venv "$bench_dir/venv" || die "python3 -m venv failed"
        "$bench_dir/venv/bin/pip" install --quiet duckdb || die "pip install duckdb failed"
    fi
fi

release_bin
csv=$data_dir/fleet-${csv_gpus}g-${csv_samples}s.csv
if [[ ! -e $csv.done ]]; then
    say "generating $csv ($csv_gpus GPUs x $csv_samples samples)"
    nice "$python" "$here/fleet_csv.py" "$csv" "$csv_gpus" "$csv_samples"
    touch "$csv.done"
fi
rows=$(( csv_gpus * csv_samples ))
bytes=$(stat -c %s "$csv")

echo "machine: nproc=$(nproc) ($(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo))"
echo "gpuaudit: $bin ($build, $("$bin" --version)); $("$python" "$here/duckdb_report.py" version)"
echo "csv: $csv: $rows rows, $bytes bytes"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# one run under GNU time: $1 label, rest the command; prints wall, CPU, RSS
timed() {
    local label=$1; shift
    local prefix=$log_dir/csv-$label
    /usr/bin/time -v -o "$prefix.time" "$@" >"$prefix.out" 2>"$prefix.err" || {
        echo "$label: failed (see $prefix.err)"; return 1; }
    awk -v label="$label" -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = (n == 3) ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2] }
        /User time/ { user = $2 } /System time/ { sys = $2 }
        /Maximum resident set size/ { rss = $2 }
        END { printf "%-22s wall %7.1f s  cpu %7.1f s  peak RSS %6.0f MiB\n", label, wall, user + sys, rss / 1024 }
    ' "$prefix.time"
}

status=0
timed gpuaudit-streamed "$bin" report "$csv" --format json --quiet || status=1
if [[ ${IN_MEMORY:-0} == 1 ]]; then
    GPUAUDIT_STREAM_TEXT_ABOVE=1TB timed gpuaudit-in-memory "$bin" report "$csv" --format json --quiet || status=1
fi
timed duckdb-read_csv "$python" "$here/duckdb_report.py" query "$csv" || status=1
"$python" "$here/duckdb_report.py" compare "$log_dir/csv-gpuaudit-streamed.out" "$log_dir/csv-duckdb-read_csv.out" \
    || status=1
echo "streamed rows: $("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["sources"].get("text_rows_streamed"))' "$log_dir/csv-gpuaudit-streamed.out")"
exit $status
