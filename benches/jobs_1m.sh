#!/usr/bin/env bash
# A fleet of a million distinct jobs (issue 36): every sample its own job, as an
# array-job scheduler or per-request pods produce. `gpuaudit report --format json`
# writes every job (complete by default) as it is produced; wall / CPU / peak RSS
# from GNU time, the document's size, and the same with --top 100.
#
#   benches/jobs_1m.sh [JOBS]      default 1000000 (1,000 GPUs x 1,000 samples)
#
# Environment: BENCH_DIR, GPUAUDIT_BIN as in benches/common.sh; GPUAUDIT_BASE_BIN:
# a second build run alternately with the first ("base" then "new"), each
# document compared byte for byte with cmp (the change must not show).
set -euo pipefail

me=jobs_1m.sh
# shellcheck source=benches/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
jobs=$(parse_size "${1:-1000000}")
require_gnu_time
mkdir -p "$data_dir" "$log_dir"
python=python3
$python -c 'import duckdb' 2>/dev/null || python=$bench_dir/venv/bin/python
$python -c 'import duckdb' 2>/dev/null || die "duckdb is missing (pip install duckdb, or run benches/fleet.sh once)"
release_bin

gpus=1000
samples=$(( (jobs + gpus - 1) / gpus ))
data=$data_dir/jobs-${gpus}g-${samples}s.parquet
if [[ ! -e $data.done ]]; then
    say "generating $data ($gpus GPUs x $samples samples, one job each)"
    $python - "$data" "$gpus" "$samples" <<'EOF'
import sys, duckdb
out, gpus, samples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
con = duckdb.connect()
con.execute(f"""
COPY (
  SELECT make_timestamptz(2026, 3, 1, 0, 0, 0, 'UTC') + to_seconds(s * 30) AS time,
         printf('gpu-node-%04d.cluster.internal', g // 8) AS host,
         printf('GPU-%08x-0000-0000-0000-%012x', g * 2654435761 % 4294967296, g) AS gpu,
         'NVIDIA H100 80GB HBM3' AS model,
         printf('job-%07d', s * {gpus} + g) AS job,
         printf('user%02d', g % 37) AS user,
         printf('team%d', g % 6) AS team,
         ((s * 7 + g * 13) % 100) / 100.0 AS device_util
  FROM range({samples}) t(s), range({gpus}) u(g)
  ORDER BY s, g
) TO '{out}' (FORMAT parquet, ROW_GROUP_SIZE 1048576)""")
EOF
    touch "$data.done"
fi

echo "gpuaudit: $bin ($build, $("$bin" --version)); data: $data ($(( gpus * samples )) rows, one job each)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
run() {
    local label=$1 exe=$2; shift 2
    local out=$log_dir/jobs-$label.json
    /usr/bin/time -v -o "$out.time" "$exe" report "$data" --format json --quiet -o "$out" "$@"
    awk -v label="$label" -v size="$(stat -c %s "$out")" -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = (n == 3) ? p[1] * 3600 + p[2] * 60 + p[3] : p[1] * 60 + p[2] }
        /User time/ { user = $2 } /System time/ { sys = $2 }
        /Maximum resident set size/ { rss = $2 }
        END { printf "%-16s wall %6.1f s  cpu %6.1f s  peak RSS %6.0f MiB  JSON %7.1f MiB\n", label, wall, user + sys, rss / 1024, size / 1048576 }
    ' "$out.time"
}
# both, base first; the documents byte-identical
pair() {
    local label=$1; shift
    if [[ -n ${GPUAUDIT_BASE_BIN:-} ]]; then
        run "base-$label" "$GPUAUDIT_BASE_BIN" "$@"
        run "new-$label" "$bin" "$@"
        if cmp -s "$log_dir/jobs-base-$label.json" "$log_dir/jobs-new-$label.json"; then
            echo "$label: JSON identical ($(stat -c %s "$log_dir/jobs-new-$label.json") bytes)"
        else
            echo "$label: JSON DIFFERS"
        fi
        rm -f "$log_dir/jobs-base-$label.json"
    else
        run "$label" "$bin" "$@"
    fi
    rm -f "$log_dir/jobs-new-$label.json" "$log_dir/jobs-$label.json"
}
pair all
pair top100 --top 100
