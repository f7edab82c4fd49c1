#!/bin/bash
# bench/scale-prep.sh -- the default tbbt-prep (passes 1, 2 and 3) on
# synthetic captures of growing size (issue 27, its Benchmark part).
#
# Captures: bench/tools/tbbt-synthcap --objects N (N files in directories of
# 1,000, 500 clients over TCP; each file looked up, created or found,
# written, read, examined; 10% renamed, 10% removed: about 5.2 records per
# file), for N = 10^5 and 10^6, and 10^7 too with BENCH_SCALE_PREP_MAX=7
# (BENCH_SCALE_PREP_MAX=5 for a quick look). Each is made once and kept in
# bench/cache/synth-N.pcap.zst, remade only when the parameters or the
# generator's source change (its checksum is kept beside it, as
# bench/make-capture.sh does). For the timed runs it is decompressed to a
# plain pcap under BENCH_TMP, so that no run pays for zstd, and read once
# before each run (BENCH_WARM, lib.sh). Making them: about 3 s and 30 MB
# for 10^5, 30 s and 300 MB for 10^6, 5 minutes and 3 GB for 10^7
# (plus 30 GB of plain pcap under BENCH_TMP while its rows run).
#
# Per size, medians of BENCH_RUNS (default 3) runs, CPU = user + system,
# peak RSS the largest (GNU time, lib.sh):
#   tbbt-prep -q -o X.tbbt -m X.hmap IN                 the default: passes 1, 2, 3,
#                                                       on two threads (--threads 2)
#   tbbt-prep -q --threads 1 -o X.tbbt -m X.hmap IN     the same on one thread
#     (run in turn with the default, one of each per round, so that the
#     load of a shared machine weighs on both alike; their records are
#     compared byte for byte)
#   tbbt-prep -q --no-correct --no-map -o X.tbbt IN     the peer: pass 1 alone
#     (decoding, pairing, handles to IDs, records written: what any
#     reader of the capture must do; the ratio says what the model
#     passes cost on top)
# Printed: records, objects (TBBT-IDs, from --summary-json), wall, CPU,
# peak MiB, bytes per object (peak RSS / objects), calls per second (wall)
# and per CPU second, the default's CPU over the peer's; then the growth
# exponents between consecutive sizes, log(t2/t1)/log(n2/n1) for CPU and
# peak RSS (1.0: linear); then, per size, single-threaded beside parallel:
# wall, CPU, peak MiB and calls per second (wall) of each, and parallel
# over single (the calls-per-second ratio, single's wall over parallel's).
# With perf installed, BENCH_PERF_RUNS (default 3) more runs of each, in
# turn, under `perf record -e task-clock` give the CPU of the parallel
# run's busiest thread (the decoding and pass 1, or passes 2 and 3 with
# the map: the critical path when both cores are free) and single's CPU
# over it, medians: the ratio an idle machine would show, which a loaded
# one's walls cannot.
# Targets (issue 27): <= 250 bytes per object at 10^7, time exponent
# <= 1.05, parallel over single >= 1.7.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=$(bench_build "$src")
runs=${BENCH_RUNS:-3}
max=${BENCH_SCALE_PREP_MAX:-6}
cache=$here/cache
PREP=$build/transform/tbbt-prep SYNTH=$build/bench/tools/tbbt-synthcap
mkdir -p "$cache"
trap 'rm -rf "$BENCH_TMP"' EXIT
cd "$BENCH_TMP" # tbbt-prep records a trace in the current directory's workspace only: none here

# capture N: the cached capture of N files (made if missing or stale); its path.
capture() {
    local n=$1 out=$cache/synth-$1.pcap.zst t0
    local params="objects=$n clients=500 per-dir=1000 gen=$(md5sum <"$here/tools/tbbt-synthcap.c" | cut -c1-12)"
    if [ -s "$out" ] && [ "$(cat "$out.params" 2>/dev/null)" = "$params" ]; then
        echo "$out"
        return
    fi
    echo "bench: making the synthetic capture of $n files..." >&2
    t0=$(date +%s)
    "$SYNTH" --objects "$n" --clients 500 --per-dir 1000 | zstd -q -3 -T2 >"$out.tmp"
    mv "$out.tmp" "$out"
    echo "$params" >"$out.params"
    echo "bench: made $out in $(($(date +%s) - t0)) s ($(du -h "$out" | cut -f1))" >&2
    echo "$out"
}

# json KEY FILE: a number from the summary JSON's top level.
json() {
    perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[1] or die; print decode_json(<$f>)->{$ARGV[0]}' "$1" "$2"
}

sizes=()
for e in $(seq 5 "$max"); do sizes+=("1$(printf '%0*d' "$e" 0)"); done
printf '%-9s %9s %9s %8s %8s %8s %9s %10s %12s %10s  %s\n' objects records TBBT-IDs wall_s cpu_s peak_MiB \
    B/object calls/s calls/CPU-s p1_cpu_s "default/pass-1 CPU"
declare -A CPU RSS PAR
# pair N PLAIN: --threads 1 and the default in turn, BENCH_RUNS rounds; sets
# S_WALL S_CPU S_RSS (single) and P_* (parallel), medians (RSS: the largest).
pair() {
    local n=$1 plain=$2 i
    : >"$BENCH_TMP/single" && : >"$BENCH_TMP/par"
    for i in $(seq 1 "$runs"); do
        bench_run "single $n" 1 "$PREP" -q --threads 1 -o "$BENCH_TMP/s1.tbbt" -m "$BENCH_TMP/s1.hmap" "$plain"
        echo "$BENCH_WALL $BENCH_CPU $BENCH_RSS" >>"$BENCH_TMP/single"
        bench_run "parallel $n" 1 "$PREP" -q -o "$BENCH_TMP/s1.tbbt.p" -m "$BENCH_TMP/s1.hmap.p" "$plain"
        echo "$BENCH_WALL $BENCH_CPU $BENCH_RSS" >>"$BENCH_TMP/par"
        cmp -s "$BENCH_TMP/s1.tbbt" "$BENCH_TMP/s1.tbbt.p" || {
            echo "bench: $n objects: --threads 1 and the default wrote different records" >&2
            exit 1
        }
    done
    S_WALL=$(cut -d' ' -f1 "$BENCH_TMP/single" | _bench_median) S_CPU=$(cut -d' ' -f2 "$BENCH_TMP/single" | _bench_median)
    S_RSS=$(awk '$3 > m {m = $3} END {print m}' "$BENCH_TMP/single")
    P_WALL=$(cut -d' ' -f1 "$BENCH_TMP/par" | _bench_median) P_CPU=$(cut -d' ' -f2 "$BENCH_TMP/par" | _bench_median)
    P_RSS=$(awk '$3 > m {m = $3} END {print m}' "$BENCH_TMP/par")
    rm -f "$BENCH_TMP"/s1.*
}

# critical N PLAIN: "SINGLE_CPU BUSIEST_CPU" (s) from task-clock samples
# (perf's pid column is the thread), medians of BENCH_PERF_RUNS rounds
# (one of each per round), or "".
critical() {
    command -v perf >/dev/null || return 0
    local f=$BENCH_TMP/perf.data i
    : >"$BENCH_TMP/c.one" && : >"$BENCH_TMP/c.busy"
    for i in $(seq 1 "${BENCH_PERF_RUNS:-3}"); do
        perf record -q -e task-clock -c 1000000 -o "$f" -- "$PREP" -q --threads 1 -o "$BENCH_TMP/c.tbbt" \
            -m "$BENCH_TMP/c.hmap" "$2" >/dev/null 2>&1 || return 0
        perf report -i "$f" -s pid --stdio -F sample 2>/dev/null |
            awk '/^ *[0-9]/ {s += $1} END {print s / 1000}' >>"$BENCH_TMP/c.one"
        perf record -q -e task-clock -c 1000000 -o "$f" -- "$PREP" -q -o "$BENCH_TMP/c.tbbt" \
            -m "$BENCH_TMP/c.hmap" "$2" >/dev/null 2>&1 || return 0
        perf report -i "$f" -s pid --stdio -F sample 2>/dev/null |
            awk '/^ *[0-9]/ {if ($1 > m) m = $1} END {print m / 1000}' >>"$BENCH_TMP/c.busy"
    done
    echo "$(_bench_median <"$BENCH_TMP/c.one") $(_bench_median <"$BENCH_TMP/c.busy")"
    rm -f "$f" "$BENCH_TMP"/c.*
}
for n in "${sizes[@]}"; do
    z=$(capture "$n")
    plain=$BENCH_TMP/synth-$n.pcap
    zstd -dcq "$z" >"$plain"
    export BENCH_WARM=$plain
    bench_run "tbbt-prep $n" "$runs" "$PREP" -q --summary-json "$BENCH_TMP/s.json" -o "$BENCH_TMP/x.tbbt" \
        -m "$BENCH_TMP/x.hmap" "$plain"
    wall=$BENCH_WALL cpu=$BENCH_CPU rss=$BENCH_RSS
    records=$(json records "$BENCH_TMP/s.json") objects=$(json objects "$BENCH_TMP/s.json")
    bench_run "pass 1 $n" "$runs" "$PREP" -q --no-correct --no-map -o "$BENCH_TMP/p1.tbbt" "$plain"
    p1cpu=$BENCH_CPU
    pair "$n" "$plain"
    PAR[$n]=$(awk -v r="$records" -v sw="$S_WALL" -v sc="$S_CPU" -v sm="$S_RSS" -v pw="$P_WALL" -v pc="$P_CPU" \
        -v pm="$P_RSS" 'BEGIN { printf "%8.2f %8.2f %8.0f %10.0f | %8.2f %8.2f %8.0f %10.0f | %6.2fx",
            sw, sc, sm / 1024, r / sw, pw, pc, pm / 1024, r / pw, sw / pw }')
    read -r c1 cm <<<"$(critical "$n" "$plain")" || true
    [ -n "${c1:-}" ] && PAR[$n]+=$(awk -v r="${BENCH_PERF_RUNS:-3}" -v a="$c1" -v b="$cm" 'BEGIN { printf "   (perf, medians of %d: single %.2f CPU s, busiest thread %.2f: %.2fx when idle)", r, a, b, a / b }')
    unset BENCH_WARM
    rm -f "$plain" "$BENCH_TMP"/x.* "$BENCH_TMP"/p1.*
    CPU[$n]=$cpu RSS[$n]=$rss
    awk -v n="$n" -v r="$records" -v o="$objects" -v w="$wall" -v c="$cpu" -v m="$rss" -v p="$p1cpu" 'BEGIN {
        printf "%-9d %9d %9d %8.2f %8.2f %8.0f %9.0f %10.0f %12.0f %10.2f  %.2fx\n",
            n, r, o, w, c, m / 1024, m * 1024 / o, r / w, r / c, p, c / p }'
done
echo
echo "growth exponents (log ratio of the figure over log ratio of objects; 1.00 = linear):"
prev=
for n in "${sizes[@]}"; do
    if [ -n "$prev" ]; then
        awk -v a="$prev" -v b="$n" -v ca="${CPU[$prev]}" -v cb="${CPU[$n]}" -v ra="${RSS[$prev]}" -v rb="${RSS[$n]}" \
            'BEGIN { printf "  %d -> %d objects: CPU time %.3f, peak memory %.3f\n", a, b,
                     log(cb / ca) / log(b / a), log(rb / ra) / log(b / a) }'
    fi
    prev=$n
done
echo
echo "single-threaded (--threads 1) beside parallel (the default, --threads 2), medians of $runs rounds, the same records:"
printf '%-9s %8s %8s %8s %10s | %8s %8s %8s %10s | %s\n' objects wall_s cpu_s peak_MiB calls/s wall_s cpu_s \
    peak_MiB calls/s "parallel/single (calls/s; target >= 1.7)"
for n in "${sizes[@]}"; do printf '%-9d %s\n' "$n" "${PAR[$n]}"; done
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
