#!/bin/bash
# bench/scale.sh -- scaling (issue "Scaling", its Benchmark part). Parts,
# chosen by BENCH_SCALE_PARTS (default "sim"):
#
# sim    The simulator's speed: tbbt-play --simulate (default windows 100 ...
#        10000, fsdep) on the large benchmark capture's records
#        (BENCH_SCALE_TRACE, default bench/cache/bench-1000000.tbbt, made
#        from bench/make-capture.sh's capture by tbbt-prep when missing),
#        in records/s, beside the floor measured in the same run on the
#        same file: tbbt-dump reading it to /dev/null (decoding every
#        record and formatting it: reading the records costs at least
#        that). Two variants: the latencies taken from the trace (the
#        default: one more pass over the file for the medians) and given
#        (--sim-latency 200: one pass). Medians of BENCH_RUNS (default 3),
#        CPU and peak RSS from GNU time (bench/lib.sh), interleaved so the
#        shared machine's noise falls on every variant alike. The last
#        run's answer (the throughput table) is printed too.
#
# clones (not written yet) One player with --clones 1, 2, 4, 8 against
#        nfs-ganesha at full speed, ops/s and latency for each, and the
#        simulator's prediction for the same window beside each (the
#        ratio of prediction to measurement). See the placeholder below.
#
# Knobs: BENCH_RUNS, BENCH_SCALE_TRACE, BENCH_SCALE_PARTS, TBBT_BUILD.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
runs=${BENCH_RUNS:-3}
parts=${BENCH_SCALE_PARTS:-sim}
trace=${BENCH_SCALE_TRACE:-$here/cache/bench-1000000.tbbt}
PLAY=$build/player/tbbt-play DUMP=$build/tools/tbbt-dump PREP=$build/transform/tbbt-prep
for b in "$PLAY" "$DUMP" "$PREP"; do
    if [ ! -x "$b" ]; then
        cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
        cmake --build "$build" -j2 --target tbbt-play tbbt-dump tbbt-prep >/dev/null
        break
    fi
done
trap 'rm -rf "$BENCH_TMP"' EXIT
echo "bench/scale: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs"

# timed LABEL CMD...: one run under GNU time, appended to LABEL.times;
# its standard output kept in LABEL.out.
timed() {
    local label=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/t1" "$@" >"$BENCH_TMP/$label.out" 2>"$BENCH_TMP/$label.err" || {
        echo "bench/scale: $label: command failed: $*" >&2
        tail -3 "$BENCH_TMP/$label.err" >&2
        return 1
    }
    cat "$BENCH_TMP/t1" >>"$BENCH_TMP/$label.times"
}

# figs LABEL: sets WALL, CPU (medians, s) and RSS (largest, KiB) of LABEL's runs.
figs() {
    WALL=$(awk '{print $1}' "$BENCH_TMP/$1.times" | _bench_median)
    CPU=$(awk '{print $2 + $3}' "$BENCH_TMP/$1.times" | _bench_median)
    RSS=$(awk '$4 > m {m = $4} END {print m}' "$BENCH_TMP/$1.times")
}

# ---- part sim: the simulator's speed ----
part_sim() {
    if [ ! -s "$trace" ]; then
        local pcap=$here/cache/bench-1000000.pcap
        [ -s "$pcap" ] || pcap=$("$here/make-capture.sh")
        echo "bench/scale: prepping $(basename "$pcap") once to $trace"
        "$PREP" -q --no-correct -o "$trace" "$pcap"
    fi
    local i n
    for i in $(seq 1 "$runs"); do
        timed floor sh -c 'exec "$0" "$1" >/dev/null' "$DUMP" "$trace"
        timed sim_trace "$PLAY" --simulate --json "$BENCH_TMP/sim.json" "$trace"
        timed sim_given "$PLAY" --simulate --sim-latency 200 "$trace"
    done
    n=$(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{records}' <"$BENCH_TMP/sim.json")
    echo "Simulator on $(basename "$trace") ($n records; $(tbbt_meta)):"
    figs floor
    local fwall=$WALL fcpu=$CPU
    row() {
        awk -v l="$1" -v n="$n" -v w="$WALL" -v c="$CPU" -v m="$RSS" -v fw="$fwall" -v fc="$fcpu" 'BEGIN {
            printf "  %-44s %7.3f s %10.0f records/s  CPU %7.3f s %10.0f records/CPU-s  %7.1f MiB peak  %5.2fx the floor wall, %5.2fx CPU\n",
                l, w, n / w, c, n / c, m / 1024, w / fw, c / fc}'
    }
    row "floor: tbbt-dump > /dev/null"
    figs sim_trace
    row "--simulate, 7 windows, latencies from trace"
    figs sim_given
    row "--simulate, 7 windows, --sim-latency 200"
    echo "The answer (last run, latencies from the trace):"
    sed 's/^/  /' "$BENCH_TMP/sim_trace.out" | grep -v '^  (outstanding'
}

# tbbt_meta: what the records file says it is.
tbbt_meta() {
    "$DUMP" -m "$trace" | tr -d '\n'
}

# ---- part clones: PLACEHOLDER, to be written with tbbt-play --clones ----
# One player with --clones 1, 2, 4, 8 against nfs-ganesha at full speed
# (tests/lib/ganesha.sh; tbbt-init --clones N for the image), ops/s and
# latency for each from tbbt-play's JSON, and beside each the simulator's
# prediction for the same window and cap (tbbt-play --simulate --window W
# --sim-windows W, the N clones' records interleaved as the player plays
# them), printed as the ratio of prediction to measurement. Not written:
# --clones is being added to the player separately.
part_clones() {
    echo "bench/scale: part clones: not written yet (needs tbbt-play --clones)"
}

for p in $parts; do
    case $p in
    sim) part_sim ;;
    clones) part_clones ;;
    *)
        echo "bench/scale: unknown part '$p' (sim, clones)" >&2
        exit 2
        ;;
    esac
done
