#!/usr/bin/env bash
# The audit pushed down into DuckDB (`gpuaudit sql` + `report --partials`)
# against `report` on the same parquet file: wall time, CPU, peak RSS, and the
# bytes each way moves to the machine that renders the report. The figures
# must agree (tests/sql/compare.py, 1e-9), or the run fails.
#
#   benches/sql.sh [ROWS]        ROWS like 2M (default), 20M, 100M
#   ENGINE=spark benches/sql.sh 20M   the same query on Spark SQL, local mode
#
# Environment: as benches/common.sh (GPUAUDIT_BIN, BENCH_DIR, GPUS, INTERVAL);
# DUCKDB_THREADS caps DuckDB's threads (default: every core).
set -euo pipefail
me=sql.sh
source "$(dirname "$0")/common.sh"

rows=$(parse_size "${1:-2M}")
engine=${ENGINE:-duckdb}
case $engine in duckdb | spark) ;; *) die "ENGINE=$engine: expected duckdb or spark" ;; esac
python3 -c "import duckdb" 2>/dev/null || die "python3 package duckdb is missing (pip install duckdb)"
[[ $engine == duckdb ]] || python3 -c "import pyspark" 2>/dev/null || die "python3 package pyspark is missing (pip install pyspark)"
require_gnu_time
release_bin
mkdir -p "$data_dir" "$log_dir"
dataset "$rows" "$rows" file
work=$(mktemp -d)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
trap 'rm -rf "$work"' EXIT

say "report on the file ($ds_file)"
/usr/bin/time -v -o "$work/pulled.time" "$bin" report "$ds_file" --format json -q > "$work/pulled.json"

say "gpuaudit sql | $engine"
if [[ $engine == spark ]]; then
    # the runner registers the file as the view `samples`; its answer is CSV
    "$bin" sql --dialect spark --table samples > "$work/query.sql"
    answer=$work/partials.csv
    /usr/bin/time -v -o "$work/engine.time" python3 "$repo/tests/sql/engine_run.py" spark "$work/query.sql" "$answer" "$ds_file"
else
    "$bin" sql --dialect duckdb --table "read_parquet('$ds_file')" > "$work/query.sql"
    threads=${DUCKDB_THREADS:-}
    if [[ -n $threads ]]; then
        sed -i "1i SET threads = $threads;" "$work/query.sql" 2>/dev/null || true
    fi
    answer=$work/partials.parquet
    /usr/bin/time -v -o "$work/engine.time" python3 "$repo/tests/sql/engine_run.py" duckdb "$work/query.sql" "$answer"
fi
/usr/bin/time -v -o "$work/partials.time" "$bin" report --partials "$answer" --format json > "$work/pushed.json"

python3 "$repo/tests/sql/compare.py" "$work/pulled.json" "$work/pushed.json" >&2 || die "the figures differ"

input_bytes=$(stat -c %s "$ds_file")
partial_bytes=$(stat -c %s "$answer")
partial_rows=$(python3 -c "import duckdb,sys; print(duckdb.sql(\"select count(*) from '$answer'\").fetchall()[0][0])")
echo "rows: $rows ($gpus_total GPUs, every $interval); input parquet: $input_bytes bytes"
echo "$engine $(python3 -c "import $( [[ $engine == spark ]] && echo pyspark || echo duckdb ) as m; print(m.__version__)"); $(nproc) cores; load before: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %9s %9s %9s %14s\n' "step" "wall s" "CPU s" "RSS MiB" "bytes moved"
printf '%-34s %9s %9s %9s %14s\n' "report FILE" "$(wall_s "$work/pulled.time")" "$(cpu_s "$work/pulled.time")" "$(rss_mib "$work/pulled.time")" "$input_bytes"
printf '%-34s %9s %9s %9s %14s\n' "$engine runs gpuaudit sql" "$(wall_s "$work/engine.time")" "$(cpu_s "$work/engine.time")" "$(rss_mib "$work/engine.time")" "(in the engine)"
printf '%-34s %9s %9s %9s %14s\n' "report --partials ($partial_rows rows)" "$(wall_s "$work/partials.time")" "$(cpu_s "$work/partials.time")" "$(rss_mib "$work/partials.time")" "$partial_bytes"
