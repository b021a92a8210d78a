#!/usr/bin/env bash
# `gpuaudit report` on a hive-partitioned fleet dump whose decoded size is larger
# than this machine's available memory: it must finish with peak RSS bounded by
# the fleet's GPUs, not its rows. See benches/README.md.
#
#   benches/larger_than_ram.sh [SIZE]     SIZE: rows, N / Nk / NM / NG (default 300M)
#
# Environment (all optional): BENCH_DIR, GPUAUDIT_BIN, CARGO_TARGET_DIR, GPUS,
# INTERVAL as for benches/fleet.sh (and the same cached data), plus
#   MEMORY_CAP     also run once inside a cgroup memory limit, e.g. 1G (needs root
#                  and cgroup v1 or v2 with the memory controller; skipped otherwise)
# Exit: 0 the report finished; 1 it failed; 2 a setup error.
set -euo pipefail

me=larger_than_ram.sh
# shellcheck source=benches/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
size=${1:-300M}
rows=$(parse_size "$size")
require_gnu_time
mkdir -p "$data_dir" "$log_dir"
release_bin

dataset "$rows" "$size" dir
dir=$ds_dir

# What the data would take in memory, decoded: the smallest Arrow form of its
# columns (8 bytes per number or timestamp, a 4-byte dictionary key per label).
# gpuaudit reads fewer columns than there are, so this is the bar for a tool
# that loads the table, not for gpuaudit.
on_disk=$(du -sb "$dir" | cut -f1)
decoded=$(python3 - "$rows" <<'EOF'
import sys
rows = int(sys.argv[1])
# demo columns: time, 6 floats, 2 integers (8 bytes); host, gpu, model, job, user, team (4-byte keys)
print(rows * (9 * 8 + 6 * 4))
EOF
)
avail=$(awk '/^MemAvailable/{printf "%.0f", $2 * 1024}' /proc/meminfo)
gib() { awk -v b="$1" 'BEGIN{printf "%.1f GiB", b / 2^30}'; }
echo "machine: nproc=$(nproc); MemTotal $(gib "$(awk '/^MemTotal/{printf "%.0f", $2 * 1024}' /proc/meminfo)"), MemAvailable $(gib "$avail")"
echo "gpuaudit: $bin ($("$bin" --version)), tree at $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "data: $dir ($rows rows, $gpus_total GPUs, $(find "$dir" -name '*.parquet' | wc -l) parquet files, $(gib "$on_disk") on disk)"
echo "decoded (at least 96 bytes a row): $(gib "$decoded"); available memory: $(gib "$avail")"
(( decoded > avail )) || echo "!!! the decoded data fits in available memory: pick a larger SIZE to test what this script is for !!!"

run() { # label, then the command prefix (may be empty)
    local label=$1; shift
    local log=$log_dir/larger-$size-$label
    say "$label: gpuaudit report $dir --format json"
    if /usr/bin/time -v -o "$log.time" nice "$@" "$bin" report "$dir" --format json --quiet >"$log.out" 2>"$log.err"; then
        local wall rss
        wall=$(wall_s "$log.time")
        rss=$(rss_mib "$log.time")
        python3 - "$log.out" "$label" "$wall" "$rss" "$rows" <<'EOF'
import json, sys
out, label, wall, rss, rows = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
r = json.load(open(out))
l, c = r["layers"], r["cost"]
print(f"{label}: {r['sources']['rows_used']} rows in {wall:.0f} s ({rows / wall / 1e6:.2f}M rows/s), peak RSS {rss} MiB; "
      f"held {l['held_gpu_hours']:.1f} GPU-h, idle held {l['idle_held_gpu_hours']:.1f} GPU-h, held ${c['held_usd']:.2f}")
EOF
    else
        echo "!!! $label: gpuaudit report failed (see $log.err):" >&2
        tail -3 "$log.err" >&2
        return 1
    fi
}

status=0
run plain || status=1

if [[ -n ${MEMORY_CAP:-} ]]; then
    cg=""
    if [[ -w /sys/fs/cgroup/memory ]]; then           # cgroup v1
        cg=/sys/fs/cgroup/memory/gpuaudit-bench-$$
        mkdir "$cg" && echo "$MEMORY_CAP" >"$cg/memory.limit_in_bytes"
        echo 0 >"$cg/memory.swappiness" 2>/dev/null || true
    elif [[ -w /sys/fs/cgroup/cgroup.subtree_control ]] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then  # v2
        cg=/sys/fs/cgroup/gpuaudit-bench-$$
        mkdir "$cg" && echo "$MEMORY_CAP" >"$cg/memory.max"
    fi
    if [[ -n $cg ]]; then
        echo "cgroup: $cg, memory limit $MEMORY_CAP (the process is killed if it needs more)"
        # the shell joins the cgroup, then execs the run: everything it starts is capped
        run "cap-$MEMORY_CAP" sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" || status=1
        rmdir "$cg" 2>/dev/null || true
    else
        echo "MEMORY_CAP: no writable cgroup memory controller here; the capped run is skipped"
    fi
fi
exit $status
