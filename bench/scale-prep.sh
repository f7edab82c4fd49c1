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
#   tbbt-prep -q -o X.tbbt -m X.hmap IN                 the default: passes 1, 2, 3
#   tbbt-prep -q --no-correct --no-map -o X.tbbt IN     the peer: pass 1 alone
#     (decoding, pairing, handles to IDs, records written: what any
#     reader of the capture must do; the ratio says what the model
#     passes cost on top)
# Printed: records, objects (TBBT-IDs, from --summary-json), wall, CPU,
# peak MiB, bytes per object (peak RSS / objects), calls per second (wall)
# and per CPU second, the default's CPU over the peer's; then the growth
# exponents between consecutive sizes, log(t2/t1)/log(n2/n1) for CPU and
# peak RSS (1.0: linear). "Parallel over single" is said to be not
# available: tbbt-prep has no parallel mode yet (issue 27, point 2).
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
declare -A CPU RSS
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
echo "parallel over single: not available (tbbt-prep runs its passes on one core; issue 27 point 2)"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
