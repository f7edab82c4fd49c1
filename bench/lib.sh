#!/bin/bash
# bench/lib.sh -- shared helpers for the benchmarks (sourced).
#
# bench_run LABEL RUNS CMD...   runs CMD RUNS times under GNU time and sets
#   BENCH_WALL  median wall seconds
#   BENCH_CPU   median user+system CPU seconds
#   BENCH_RSS   largest peak resident set, KiB
#   BENCH_OUT   the last run's standard output file (kept until the next call)
# Medians, because this machine is shared and noisy.
# With BENCH_WARM set to a file, each run starts with that file read once
# (not timed): this machine's page cache is drained in the background
# (about 25 MB/s seen, with 22 GB free), so a capture read a minute ago
# comes from disk again, and the disk's system time, seconds for the
# million-call capture, would be charged to whichever run met it. Every
# tool of a comparison gets the same warm file.

BENCH_TMP=${BENCH_TMP:-$(mktemp -d /tmp/tbbt-bench.XXXXXX)}

# _bench_median: median of the numbers on stdin.
_bench_median() {
    sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.6f\n", (v[NR/2]+v[NR/2+1])/2}'
}

bench_run() {
    local label=$1 runs=$2 i
    shift 2
    : >"$BENCH_TMP/times"
    for i in $(seq 1 "$runs"); do
        if [ -n "${BENCH_WARM:-}" ]; then cat "$BENCH_WARM" >/dev/null; fi
        /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/t1" "$@" >"$BENCH_TMP/out" 2>"$BENCH_TMP/err" || {
            echo "bench: $label: command failed: $*" >&2
            tail -3 "$BENCH_TMP/err" >&2
            return 1
        }
        cat "$BENCH_TMP/t1" >>"$BENCH_TMP/times"
    done
    BENCH_WALL=$(awk '{print $1}' "$BENCH_TMP/times" | _bench_median)
    BENCH_CPU=$(awk '{print $2 + $3}' "$BENCH_TMP/times" | _bench_median)
    BENCH_RSS=$(awk '$4 > m {m = $4} END {print m}' "$BENCH_TMP/times")
    BENCH_OUT=$BENCH_TMP/out
}

# bench_build: the build directory with the programs, built if needed.
bench_build() {
    local src=$1 build=${TBBT_BUILD:-$1/build}
    if [ ! -x "$build/transform/tbbt-prep" ]; then
        cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build "$build" -j2 >/dev/null ||
            return 1
    fi
    echo "$build"
}
