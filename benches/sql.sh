#!/usr/bin/env bash
# The audit pushed down into DuckDB (`gpuaudit sql` + `report --partials`)
# against `report` on the same parquet file: wall time, CPU, peak RSS, and the
# bytes each way moves to the machine that renders the report. The figures
# must agree (tests/sql/compare.py, 1e-9), or the run fails.
#
#   benches/sql.sh [ROWS]        ROWS like 2M (default), 20M, 100M
#
# Environment: as benches/common.sh (GPUAUDIT_BIN, BENCH_DIR, GPUS, INTERVAL);
# DUCKDB_THREADS caps DuckDB's threads (default: every core).
set -euo pipefail
me=sql.sh
source "$(dirname "$0")/common.sh"

rows=$(parse_size "${1:-2M}")
python3 -c "import duckdb" 2>/dev/null || die "python3 package duckdb is missing (pip install duckdb)"
require_gnu_time
release_bin
mkdir -p "$data_dir" "$log_dir"
dataset "$rows" "$rows" file
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say "report on the file ($ds_file)"
/usr/bin/time -v -o "$work/pulled.time" "$bin" report "$ds_file" --format json -q > "$work/pulled.json"

say "gpuaudit sql | duckdb"
"$bin" sql --dialect duckdb --table "read_parquet('$ds_file')" > "$work/query.sql"
threads=${DUCKDB_THREADS:-}
if [[ -n $threads ]]; then
    sed -i "1i SET threads = $threads;" "$work/query.sql" 2>/dev/null || true
fi
/usr/bin/time -v -o "$work/engine.time" python3 "$repo/tests/sql/engine_run.py" duckdb "$work/query.sql" "$work/partials.parquet"
/usr/bin/time -v -o "$work/partials.time" "$bin" report --partials "$work/partials.parquet" --format json > "$work/pushed.json"

python3 "$repo/tests/sql/compare.py" "$work/pulled.json" "$work/pushed.json" >&2 || die "the figures differ"

input_bytes=$(stat -c %s "$ds_file")
partial_bytes=$(stat -c %s "$work/partials.parquet")
partial_rows=$(python3 -c "import duckdb,sys; print(duckdb.sql(\"select count(*) from read_parquet('$work/partials.parquet')\").fetchall()[0][0])")
echo "rows: $rows ($gpus_total GPUs, every $interval); input parquet: $input_bytes bytes"
echo "duckdb $(python3 -c 'import duckdb; print(duckdb.__version__)'); $(nproc) cores"
printf '%-34s %9s %9s %9s %14s\n' "step" "wall s" "CPU s" "RSS MiB" "bytes moved"
printf '%-34s %9s %9s %9s %14s\n' "report FILE" "$(wall_s "$work/pulled.time")" "$(cpu_s "$work/pulled.time")" "$(rss_mib "$work/pulled.time")" "$input_bytes"
printf '%-34s %9s %9s %9s %14s\n' "duckdb runs gpuaudit sql" "$(wall_s "$work/engine.time")" "$(cpu_s "$work/engine.time")" "$(rss_mib "$work/engine.time")" "(in the engine)"
printf '%-34s %9s %9s %9s %14s\n' "report --partials ($partial_rows rows)" "$(wall_s "$work/partials.time")" "$(cpu_s "$work/partials.time")" "$(rss_mib "$work/partials.time")" "$partial_bytes"
