# Shared by benches/fleet.sh and benches/larger_than_ram.sh (sourced, not run):
# settings, sizes, the release binary, the cached demo datasets and GNU time's figures.
# The sourcing script sets `me` (its name, for messages) first.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
bench_dir=${BENCH_DIR:-/var/tmp/gpuaudit-bench}
data_dir=$bench_dir/data
log_dir=$bench_dir/logs
gpus=${GPUS:-1000}
interval=${INTERVAL:-30s}
gpus_total=$(( (gpus + 7) / 8 * 8 ))   # the demo generator makes whole 8-GPU nodes

die() { echo "$me: $*" >&2; exit 2; }
say() { echo "== $*" >&2; }

# rows from "1M", "250k", "100000"
parse_size() {
    case $1 in
        *[kK]) echo $(( ${1%[kK]} * 1000 )) ;;
        *[mM]) echo $(( ${1%[mM]} * 1000000 )) ;;
        *[gG]) echo $(( ${1%[gG]} * 1000000000 )) ;;
        *[!0-9]* | "") die "size '$1': expected N, Nk, NM or NG (e.g. 1M)" ;;
        *) echo "$1" ;;
    esac
}

interval_s() {
    case $1 in
        *ms) die "INTERVAL: whole seconds please" ;;
        *s) echo "${1%s}" ;; *m) echo $(( ${1%m} * 60 )) ;; *h) echo $(( ${1%h} * 3600 )) ;;
        *) die "INTERVAL '$1': expected e.g. 30s, 5m" ;;
    esac
}
step_s=$(interval_s "$interval")

# GNU time, for peak RSS (installed as root on Debian when missing)
require_gnu_time() {
    /usr/bin/time -v true >/dev/null 2>&1 && return
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        say "installing GNU time (/usr/bin/time -v reports peak RSS)"
        apt-get install -y time >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y time >/dev/null 2>&1; } \
            || die "/usr/bin/time is missing and 'apt-get install -y time' failed: install GNU time (it measures peak RSS)"
    else
        die "/usr/bin/time (GNU time) is missing: install it (Debian: apt-get install time); it measures peak RSS"
    fi
}

# Sets bin (and build: "given" or "release"): GPUAUDIT_BIN, else the release build.
release_bin() {
    if [[ -n ${GPUAUDIT_BIN:-} ]]; then
        bin=$GPUAUDIT_BIN
        build="given"
    else
        export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/var/tmp/gpuaudit-release}
        say "building the release binary in $CARGO_TARGET_DIR (cold: ~15 min)"
        (cd "$repo" && nice cargo build --release --bin gpuaudit) || die "release build failed"
        bin=$CARGO_TARGET_DIR/release/gpuaudit
        build="release"
    fi
    [[ -x $bin ]] || die "$bin: not an executable"
}

# dataset ROWS LABEL LAYOUT...: generates (once) each layout ("file": one
# parquet file, "dir": hive partitions by day) into ds_file / ds_dir. A
# ".done" marker guards against a half-written cache.
dataset() {
    local rows=$1 name=fleet-${gpus_total}g-${interval}-$2 layout
    shift 2
    local ticks=$(( (rows + gpus_total - 1) / gpus_total ))
    local days
    days=$(awk -v t="$ticks" -v s="$step_s" 'BEGIN{printf "%.12f", t * s / 86400}')
    ds_file=$data_dir/$name.parquet ds_dir=$data_dir/$name
    for layout in "$@"; do
        case $layout in
            file)
                if [[ ! -e $ds_file.done ]]; then
                    say "generating $ds_file ($ticks samples x $gpus_total GPUs)"
                    rm -f "$ds_file" "$ds_file.tmp.parquet"
                    nice "$bin" demo --gpus "$gpus" --days "$days" --interval "$interval" --out "$ds_file.tmp.parquet" >&2
                    mv "$ds_file.tmp.parquet" "$ds_file" && touch "$ds_file.done"
                fi ;;
            dir)
                if [[ ! -e $ds_dir.done ]]; then
                    say "generating $ds_dir/ ($ticks samples x $gpus_total GPUs, hive partitions by day)"
                    rm -rf "$ds_dir" "$ds_dir.tmp"
                    nice "$bin" demo --gpus "$gpus" --days "$days" --interval "$interval" --partition-by-day --out "$ds_dir.tmp" >&2
                    mv "$ds_dir.tmp" "$ds_dir" && touch "$ds_dir.done"
                fi ;;
            *) die "layout '$layout' is neither file nor dir" ;;
        esac
    done
}

# figures from a `/usr/bin/time -v -o FILE` log
# seconds from "Elapsed (wall clock) time (h:mm:ss or m:ss): 1:02.03"
wall_s() { awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$1"; }
# user + system CPU seconds: less sensitive than wall time to other work on the machine
cpu_s() { awk -F': ' '/User time \(seconds\)|System time \(seconds\)/{s+=$2} END{printf "%.2f", s}' "$1"; }
rss_mib() { awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$1"; }
