#!/usr/bin/env bash
# Instructions a report executes, counted by valgrind's callgrind: a figure that
# does not move with the machine's load, for changes too small for wall time on a
# noisy VM (benches/ab.sh). One demo parquet file (1,000 GPUs, 30 s, 2M rows by
# default), `report --format json`, the whole process; with a base build, both,
# and their JSON compared byte for byte.
#
#   [GPUAUDIT_BASE_BIN=OLD] [GPUAUDIT_BIN=NEW] benches/instructions.sh [SIZE] [TOP]
#
# SIZE: rows as N, Nk or NM (default 2M; callgrind runs ~60x slower than native);
# TOP: functions listed by self instructions (default 12). Needs valgrind.
# Exit: 0 counted (and the JSON equal), 1 the JSON differs, 2 a setup error.
set -euo pipefail

me=instructions.sh
# shellcheck source=benches/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
size=${1:-2M}
top=${2:-12}
rows=$(parse_size "$size")
command -v valgrind >/dev/null || die "valgrind is not installed"
release_bin
mkdir -p "$data_dir" "$log_dir/instructions"
logs=$log_dir/instructions
dataset "$rows" "$size" file

# count LABEL BIN: callgrind's total for one report; the listing into $logs/LABEL.top
count() {
    local label=$1 b=$2 out=$logs/$1
    say "$label: $b"
    valgrind --tool=callgrind --callgrind-out-file="$out.callgrind" \
        "$b" report "$ds_file" --format json >"$out.json" 2>"$out.err" \
        || { tail -3 "$out.err" >&2; die "$label: the report failed under valgrind"; }
    callgrind_annotate "$out.callgrind" 2>/dev/null | awk -v n="$top" \
        '/ file:function/{on=1; next} on && NF && !/^-/ && n-- > 0 {print}' | cut -c1-160 >"$out.top"
    awk '/I *refs:/{gsub(",", "", $NF); print $NF}' "$out.err"
}

echo "input: $ds_file ($(du -h "$ds_file" | cut -f1), $rows rows)"
new=$(count new "$bin")
echo "new   $bin: $new instructions"
cat "$logs/new.top"
status=0
if [[ -n ${GPUAUDIT_BASE_BIN:-} ]]; then
    base=$(count base "$GPUAUDIT_BASE_BIN")
    echo "base  $GPUAUDIT_BASE_BIN: $base instructions"
    cat "$logs/base.top"
    awk -v n="$new" -v b="$base" 'BEGIN{printf "new / base: %.4f\n", n / b}'
    if cmp -s "$logs/new.json" "$logs/base.json"; then
        echo "JSON: the same byte for byte"
    else
        echo "JSON: DIFFERS ($logs/new.json, $logs/base.json)"; status=1
    fi
fi
exit $status
