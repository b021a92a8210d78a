#!/usr/bin/env bash
# Two builds of gpuaudit on the same input, alternately (base, new, base, new...),
# so that drift on the machine falls on both: the median wall time, CPU seconds
# and peak RSS of each, the new/base ratio, and the figures of every run compared
# (benches/compare_figures.py: the twelve figures checked against DuckDB elsewhere,
# relative 1e-9, REL=1e-12 for a tighter bound).
#
#   GPUAUDIT_BASE_BIN=OLD GPUAUDIT_BIN=NEW benches/ab.sh INPUT [RUNS] [-- REPORT FLAGS...]
#
# RUNS: runs of each build (default 5). The first run of each is a warm-up
# (page cache, allocator) and is not counted. Exit: 0 when every run agreed,
# 1 when figures differ or a run failed, 2 on a setup error.
set -euo pipefail
me=ab.sh
# shellcheck source=benches/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[[ $# -ge 1 ]] || die "usage: GPUAUDIT_BASE_BIN=OLD GPUAUDIT_BIN=NEW benches/ab.sh INPUT [RUNS] [-- FLAGS...]"
input=$1; shift
runs=5
if [[ $# -gt 0 && $1 != -- ]]; then runs=$1; shift; fi
[[ ${1:-} == -- ]] && shift
flags=("$@")
[[ -n ${GPUAUDIT_BASE_BIN:-} && -x $GPUAUDIT_BASE_BIN ]] || die "GPUAUDIT_BASE_BIN: an executable base build is needed"
[[ -n ${GPUAUDIT_BIN:-} && -x $GPUAUDIT_BIN ]] || die "GPUAUDIT_BIN: an executable new build is needed"
[[ -e $input ]] || die "$input: no such input"
require_gnu_time
python=python3
$python -c 'import duckdb' 2>/dev/null || python=$bench_dir/venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "input: $input ($(du -sh "$input" | cut -f1)); flags: ${flags[*]:-(none)}; $runs runs each after a warm-up"
echo "base: $GPUAUDIT_BASE_BIN; new: $GPUAUDIT_BIN"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$input" >/dev/null 2>&1 || true
status=0
for i in $(seq 0 "$runs"); do
    for which in base new; do
        exe=$GPUAUDIT_BASE_BIN
        [[ $which == new ]] && exe=$GPUAUDIT_BIN
        nice /usr/bin/time -v -o "$work/$which-$i.time" "$exe" report "$input" --format json --quiet "${flags[@]}" \
            >"$work/$which-$i.json" 2>"$work/$which-$i.err" || { echo "!!! $which run $i failed:" >&2; tail -3 "$work/$which-$i.err" >&2; status=1; }
    done
    if ! $python "$here/compare_figures.py" "$work/base-$i.json" "$work/new-$i.json" ${REL:-1e-9} >"$work/cmp-$i" 2>&1; then
        echo "!!! run $i: the figures differ:" >&2; cat "$work/cmp-$i" >&2; status=1
    fi
done
median() { sort -n | awk '{a[NR]=$1} END{ if (NR % 2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2 }'; }
declare -A med
for which in base new; do
    for i in $(seq 1 "$runs"); do wall_s "$work/$which-$i.time"; done | median >"$work/$which.wall"
    for i in $(seq 1 "$runs"); do cpu_s "$work/$which-$i.time"; echo; done | grep . | median >"$work/$which.cpu"
    for i in $(seq 1 "$runs"); do rss_mib "$work/$which-$i.time"; echo; done | grep . | median >"$work/$which.rss"
    med[$which-wall]=$(cat "$work/$which.wall"); med[$which-cpu]=$(cat "$work/$which.cpu"); med[$which-rss]=$(cat "$work/$which.rss")
    printf '%-5s median wall %8s s   CPU %8s s   peak RSS %6s MiB   (walls: %s)\n' "$which" "${med[$which-wall]}" "${med[$which-cpu]}" "${med[$which-rss]}" \
        "$(for i in $(seq 1 "$runs"); do printf '%s ' "$(wall_s "$work/$which-$i.time")"; done)"
done
awk -v b="${med[base-wall]}" -v n="${med[new-wall]}" -v bc="${med[base-cpu]}" -v nc="${med[new-cpu]}" \
    'BEGIN{ printf "new / base: wall %.3f, CPU %.3f\n", n / b, nc / bc }'
[[ $status -eq 0 ]] && echo "figures: every run agrees ($(tail -1 "$work/cmp-1"))"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
