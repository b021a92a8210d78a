#!/usr/bin/env bash
# Run every cargo-fuzz target in fuzz/ for SECONDS each (default 60), one after
# the other, and print per target: runs, exec/s, corpus size, crashes.
#
#   benches/fuzz.sh            # 60 s per target
#   benches/fuzz.sh 600        # 10 minutes per target
#   FUZZ_TARGETS="prom_text smi_xml" benches/fuzz.sh 30
#
# Needs nightly Rust and cargo-fuzz (`cargo install cargo-fuzz`). Builds once,
# then runs; everything under `nice -n 19` so it only takes idle CPU. Knobs:
#   CARGO_TARGET_DIR  where the nightly build goes (default fuzz/target)
#   FUZZ_BUILD_FLAGS  default "--sanitizer none --codegen-units 16": the crate is
#                     safe Rust, so ASan finds little here and doubles build time;
#                     set it to "" for cargo-fuzz's defaults (ASan)
#   FUZZ_JOBS         cargo build jobs (default 1)
#   FUZZ_LOG_DIR      libFuzzer logs (default fuzz/logs)
# The corpus grows in fuzz/corpus/<target>/ (seeded from
# testdata/fuzz/seeds/<target>/); a crash lands in fuzz/artifacts/<target>/ and
# ends that target's run: copy it to testdata/fuzz/regressions/<target>/, fix
# the parser, and `cargo test --test fuzz_regressions` keeps it fixed.
# Exit: 0 when no target crashed, 1 when one did, 2 when it cannot run.
set -uo pipefail
me=fuzz.sh
seconds=${1:-60}
case $seconds in *[!0-9]* | "") echo "$me: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fuzz="$repo/fuzz"
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "$me: needs nightly Rust and cargo-fuzz (rustup toolchain install nightly; cargo install cargo-fuzz)" >&2
    exit 2
fi
flags=${FUZZ_BUILD_FLAGS---sanitizer none --codegen-units 16}
logs=${FUZZ_LOG_DIR:-$fuzz/logs}
mkdir -p "$logs"
cd "$fuzz" || exit 2
# shellcheck disable=SC2086  # flags are words
targets=${FUZZ_TARGETS:-$(cargo +nightly fuzz list 2>/dev/null)}
[ -n "$targets" ] || { echo "$me: no fuzz targets" >&2; exit 2; }

echo "== building the fuzz targets (nightly, $flags)" >&2
# shellcheck disable=SC2086
if ! CARGO_BUILD_JOBS=${FUZZ_JOBS:-1} nice -n 19 cargo +nightly fuzz build $flags >"$logs/build.log" 2>&1; then
    tail -20 "$logs/build.log" >&2
    echo "$me: the build failed (log: $logs/build.log)" >&2
    exit 2
fi

crashed=0
printf '%-12s %12s %9s %8s %8s\n' target runs exec/s corpus crashes
for t in $targets; do
    mkdir -p "corpus/$t" "artifacts/$t"
    before=$(find "artifacts/$t" -type f | wc -l)
    # -timeout: one input taking over 10 s is a hang; -rss_limit_mb: a runaway allocation
    # shellcheck disable=SC2086
    nice -n 19 cargo +nightly fuzz run $flags "$t" "corpus/$t" "$repo/testdata/fuzz/seeds/$t" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        >"$logs/$t.log" 2>&1
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/$t.log" | tail -1)
    corpus=$(find "corpus/$t" -type f | wc -l)
    found=$(( $(find "artifacts/$t" -type f | wc -l) - before ))
    [ "$found" -gt 0 ] && crashed=1
    printf '%-12s %12s %9s %8s %8s\n' "$t" "${runs:-?}" "${rate:-?}" "$corpus" "$found"
    if [ "$found" -gt 0 ]; then
        find "artifacts/$t" -type f -newer "$logs/build.log" | sed 's/^/    /'
    fi
done
exit $crashed
