#!/usr/bin/env bash
# Issue 36 items 1 and 3 in one run, one summary table:
#   parquet  `gpuaudit report` on the demo fleet (one parquet file) against the
#            plain scan of the columns it needs (DuckDB, one aggregate each: the
#            floor) and DuckDB's query of the same figures (target: <= 2.5x the floor)
#   threads  --threads 1 against every core on the same rows rewritten with
#            2^20-row and 1,000,000-row groups (target: >= 1.7x on both)
#   csv      the same rows' shape as a fleet CSV (benches/fleet_csv.py, 2,000 GPUs)
#            streamed, beside DuckDB's read_csv computing the same figures
#            (target: no slower than DuckDB)
# Every gpuaudit run's figures are compared with DuckDB's to 1e-9 (and --threads 1
# with every core's to 1e-12).
#
#   benches/issue36.sh [SIZE...]     SIZE: N, Nk or NM rows (default 20M); each size
#                                    runs every case: `benches/issue36.sh 2M 20M`
#
# Environment (all optional): BENCH_DIR, GPUAUDIT_BIN, CARGO_TARGET_DIR, GPUS and
# INTERVAL as benches/fleet.sh (common.sh); CASES (default "parquet threads csv");
# CSV_GPUS (default 2000). Wall, CPU (user+sys) and peak RSS from GNU time.
# Exit: 0 every figure agrees, 1 a mismatch or a failed run, 2 a setup error.
set -euo pipefail

me=issue36.sh
# shellcheck source=benches/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(20M)
cases=${CASES:-parquet threads csv}
csv_gpus=${CSV_GPUS:-2000}
for s in "${sizes[@]}"; do parse_size "$s" >/dev/null; done
require_gnu_time
mkdir -p "$data_dir" "$log_dir/issue36"
logs=$log_dir/issue36

python=python3
if ! $python -c 'import duckdb, pyarrow' 2>/dev/null; then
    python=$bench_dir/venv/bin/python
    if ! $python -c 'import duckdb, pyarrow' 2>/dev/null; then
        say "creating $bench_dir/venv with duckdb and pyarrow"
        python3 -m venv "$bench_dir/venv" || die "python3 -m venv failed"
        "$bench_dir/venv/bin/pip" install --quiet duckdb pyarrow || die "pip install duckdb pyarrow failed"
    fi
fi
release_bin

echo "machine: nproc=$(nproc) ($(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo))"
echo "gpuaudit: $bin ($build, $("$bin" --version), tree at commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown))"
echo "$($python "$here/duckdb_report.py" version)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# run LABEL CMD...: GNU time into $logs/LABEL.{time,out,err}; sets w c r (wall, CPU, RSS MiB)
run() {
    local label=$1; shift
    local p=$logs/$label ok=0
    say "$label"
    nice /usr/bin/time -v -o "$p.time" "$@" >"$p.out" 2>"$p.err" || ok=1
    w=$(wall_s "$p.time"); c=$(cpu_s "$p.time"); r=$(rss_mib "$p.time")
    if [[ $ok -ne 0 ]]; then
        echo "!!!!!!!! $label FAILED (see $p.err) !!!!!!!!" >&2; tail -3 "$p.err" >&2
        w=FAIL; status=1
    fi
}

# agree GA DB [REL]: the figures of gpuaudit's JSON and DuckDB's agree (yes/no; the caller counts a no);
# agree_ga A B REL: the same for two gpuaudit outputs
agree() {
    local out=$logs/$(basename "$1" .out)-vs-$(basename "$2" .out).compare
    if $python "$here/duckdb_report.py" compare "$1" "$2" ${3:+--rel "$3"} >"$out" 2>&1; then
        echo yes
    else
        echo "!!!!!!!! MISMATCH: $1 and $2 disagree (see $out) !!!!!!!!" >&2; cat "$out" >&2
        echo no
    fi
}
agree_ga() {
    local out=$logs/$(basename "$1" .out)-vs-$(basename "$2" .out).compare
    if $python "$here/compare_figures.py" "$1" "$2" "$3" >"$out" 2>&1; then
        echo yes
    else
        echo "!!!!!!!! MISMATCH: $1 and $2 disagree (see $out) !!!!!!!!" >&2; cat "$out" >&2
        echo no
    fi
}

# rewrite SRC OUT ROWS: the same rows with row groups of ROWS rows (pyarrow)
rewrite() {
    [[ -e $2.done ]] && return
    say "rewriting $1 with $3-row groups"
    $python - "$1" "$2.tmp" "$3" <<'EOF'
import sys, pyarrow as pa, pyarrow.parquet as pq
src, out, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
f = pq.ParquetFile(src)
# every group exactly `rows` rows (the last the rest), whatever the source's groups
held = []
with pq.ParquetWriter(out, f.schema_arrow, compression="zstd") as w:
    for b in f.iter_batches(batch_size=rows):
        held.append(b)
        t = pa.Table.from_batches(held)
        while t.num_rows >= rows:
            w.write_table(t.slice(0, rows), row_group_size=rows)
            t = t.slice(rows)
        held = t.to_batches()
    t = pa.Table.from_batches(held, schema=f.schema_arrow)
    if t.num_rows:
        w.write_table(t, row_group_size=rows)
g = pq.ParquetFile(out).metadata
print("row groups:", sorted({g.row_group(i).num_rows for i in range(g.num_row_groups)}), file=sys.stderr)
EOF
    mv "$2.tmp" "$2" && touch "$2.done"
}

status=0
rows_out=()
row() { rows_out+=("$(printf '%-8s %-6s %-16s %9s %8s %8s %8s  %-22s %7s  %-16s %s' "$@")"); echo "${rows_out[-1]}" >&2; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.2f", a/b; else print "-" }'; }
meets() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN{ if (v == "-") print "-"; else if ((op == "<=" && v+0 <= t+0) || (op == ">=" && v+0 >= t+0)) print "yes"; else print "NO" }'; }

for size in "${sizes[@]}"; do
    rows=$(parse_size "$size")
    if [[ " $cases " == *" parquet "* || " $cases " == *" threads "* ]]; then
        dataset "$rows" "$size" file
        cat "$ds_file" >/dev/null
    fi
    if [[ " $cases " == *" parquet "* ]]; then
        run "$size-parquet-ga" "$bin" report "$ds_file" --format json --quiet; ga_w=$w ga_c=$c ga_r=$r
        $python "$here/duckdb_report.py" scan "$ds_file" >"$logs/$size-scan.out" 2>"$logs/$size-scan.err" || true
        floor=$(python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["scan_s"])' "$logs/$size-scan.out" 2>/dev/null || echo -)
        run "$size-parquet-db" "$python" "$here/duckdb_report.py" query "$ds_file"
        ok=$(agree "$logs/$size-parquet-ga.out" "$logs/$size-parquet-db.out")
        [[ $ok == yes ]] || status=1
        x=$(ratio "$ga_w" "$floor")
        row parquet "$size" "gpuaudit" "$ga_w" "$ga_c" "$ga_r" "$x" "x floor ($floor s)" "<=2.5" "$(meets "$x" "<=" 2.5)" "agree $ok"
        row parquet "$size" "duckdb query" "$w" "$c" "$r" "$(ratio "$ga_w" "$w")" "ga / duckdb" "" "" ""
    fi
    if [[ " $cases " == *" threads "* ]]; then
        for g in 1048576 1000000; do
            f=$data_dir/$(basename "$ds_file" .parquet)-rg$g.parquet
            rewrite "$ds_file" "$f" "$g"
            cat "$f" >/dev/null
            run "$size-rg$g-t1" "$bin" report "$f" --format json --quiet --threads 1; t1_w=$w t1_c=$c t1_r=$r
            run "$size-rg$g-tn" "$bin" report "$f" --format json --quiet
            ok=$(agree_ga "$logs/$size-rg$g-t1.out" "$logs/$size-rg$g-tn.out" 1e-12)
            [[ $ok == yes ]] || status=1
            s=$(ratio "$t1_w" "$w")
            row threads "$size" "rg $g t1" "$t1_w" "$t1_c" "$t1_r" "" "" "" "" ""
            row threads "$size" "rg $g t$(nproc)" "$w" "$c" "$r" "$s" "speedup t1 / t$(nproc)" ">=1.7" "$(meets "$s" ">=" 1.7)" "same figures $ok"
        done
    fi
    if [[ " $cases " == *" csv "* ]]; then
        samples=$(( (rows + csv_gpus - 1) / csv_gpus ))
        csv=$data_dir/fleet-${csv_gpus}g-${samples}s.csv
        if [[ ! -e $csv.done ]]; then
            say "generating $csv ($csv_gpus GPUs x $samples samples)"
            nice "$python" "$here/fleet_csv.py" "$csv" "$csv_gpus" "$samples"
            touch "$csv.done"
        fi
        cat "$csv" >/dev/null
        run "$size-csv-ga" "$bin" report "$csv" --format json --quiet; ga_w=$w ga_c=$c ga_r=$r
        run "$size-csv-db" "$python" "$here/duckdb_report.py" query "$csv"
        ok=$(agree "$logs/$size-csv-ga.out" "$logs/$size-csv-db.out")
        [[ $ok == yes ]] || status=1
        x=$(ratio "$ga_w" "$w")
        row csv "$size" "gpuaudit streamed" "$ga_w" "$ga_c" "$ga_r" "$x" "ga / duckdb read_csv" "<=1.0" "$(meets "$x" "<=" 1.0)" "agree $ok"
        row csv "$size" "duckdb read_csv" "$w" "$c" "$r" "" "" "" "" ""
    fi
done

echo
printf '%-8s %-6s %-16s %9s %8s %8s %8s  %-22s %7s  %-16s %s\n' case size run wall_s cpu_s rss_MiB ratio "ratio is" target met check
printf '%s\n' "${rows_out[@]}"
echo "(wall/CPU/RSS of each whole process, GNU time; floor = DuckDB's plain scan of the columns the audit reads,"
echo " query time only, every core; logs in $logs)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ $status -eq 0 ]] || echo "!!! FAILED: a run failed or the figures disagree (see above) !!!"
exit $status
