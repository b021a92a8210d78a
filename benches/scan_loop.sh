#!/usr/bin/env bash
# CPU time of `gpuaudit scan`'s sampling loop per GPU per tick, against the
# stand-in libnvidia-ml.so (nvml-standin/). Not a timed test: it prints figures.
#
#   benches/scan_loop.sh                 # 8 GPUs, 300 ticks at 100ms, then 20 ticks at 1s
#   GPUS=16 TICKS=600 benches/scan_loop.sh
#   GPUAUDIT_BIN=path NVML_LIB=path ...  # use these instead of building (debug) ones
#
# Method: CPU (user + sys) of a full scan of N ticks minus that of a 1-tick scan
# (start-up, audit and rendering are paid once), divided by (N - 1) ticks and by the
# GPUs. The per-tick cost does not depend on the interval, so a fast run (100ms)
# measures it precisely and a 1 Hz run checks it. Against a real driver each NVML
# call is an ioctl, so real figures are higher than the stand-in's; a debug build
# is slower than a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
GPUS=${GPUS:-8}
TICKS=${TICKS:-300}
SLOW_TICKS=${SLOW_TICKS:-20}
if [[ -z "${GPUAUDIT_BIN:-}" || -z "${NVML_LIB:-}" ]]; then
    cargo build -q --bin gpuaudit
    cargo build -q -p nvml-standin
    target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    GPUAUDIT_BIN=${GPUAUDIT_BIN:-$target/debug/gpuaudit}
    NVML_LIB=${NVML_LIB:-$target/debug/libnvml_standin.so}
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# N Hopper GPUs with GPM and one process each (this script's pid: real /proc lookups).
{
    echo '{ "devices": ['
    for ((i = 0; i < GPUS; i++)); do
        ((i > 0)) && echo ','
        printf '{ "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-bench-%04d", "memory_total_mib": 81559, ' "$i"
        printf '"memory_used_mib": [40960], "utilization": [%d], "power_mw": [500000], ' $((i * 10 % 100))
        printf '"processes": [{ "pid": %d, "used_mib": 40960, "sm_util": 50 }], ' $$
        printf '"gpm": { "graphics_util": [90], "sm_util": [70], "sm_occupancy": [30], "any_tensor_util": [40], "dram_bw_util": [20] } }'
    done
    echo '] }'
} >"$work/scenario.json"
export NVML_STANDIN_SCENARIO="$work/scenario.json"

# CPU seconds (user + sys) of one scan.
cpu() {
    local TIMEFORMAT='%U %S'
    { time "$GPUAUDIT_BIN" scan --quiet --nvml-lib "$NVML_LIB" --format json "$@" >/dev/null 2>"$work/err"; } 2>"$work/time" ||
        { cat "$work/err" >&2; exit 1; }
    awk '{ print $1 + $2 }' "$work/time"
}

once=$(cpu --once --interval 100ms)
fast=$(cpu --interval 100ms --duration "$(awk -v t="$TICKS" 'BEGIN { print t / 10 }')s")
slow=$(cpu --interval 1s --duration "${SLOW_TICKS}s")
report() { # label, cpu seconds of the N-tick run, N
    awk -v l="$1" -v c="$2" -v o="$once" -v n="$3" -v g="$GPUS" 'BEGIN {
        per = (c - o) / (n - 1) / g
        printf "%-22s %8.3f s CPU for %4d ticks: %7.1f us CPU per GPU per tick = %.4f%% of one core per GPU at 1 Hz\n",
            l, c, n, per * 1e6, per * 100
    }'
}
echo "gpuaudit scan sampling loop, $GPUS GPUs (stand-in NVML), binary $GPUAUDIT_BIN"
echo "1 tick (start-up, audit, render): $once s CPU"
report "100ms x $TICKS" "$fast" "$TICKS"
report "1s x $SLOW_TICKS" "$slow" "$SLOW_TICKS"
