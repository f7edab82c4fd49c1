#!/bin/bash
# bench/transforms.sh -- records per second through each Perl trace
# transform on the largest capture's records (the first BENCH_XFORM_RECORDS,
# default 200000, of the million-call benchmark capture), beside the floor
# measured in the same run on the same input: tbbt-dump writing the same
# records as text (what every transform reads). Medians of BENCH_RUNS
# (default 3), CPU and peak RSS from bench/lib.sh. The issue's bar: a tool
# below about 200 thousand records a second is the bottleneck of a real
# workflow and should move its hot path to C.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
export TBBT_BUILD=$build
runs=${BENCH_RUNS:-3}
n=${BENCH_XFORM_RECORDS:-200000}
trap 'rm -rf "$BENCH_TMP"' EXIT
pcap=$here/cache/bench-1000000.pcap
[ -s "$pcap" ] || pcap=$("$here/make-capture.sh")
in=$here/cache/$(basename "$pcap" .pcap).tbbt
[ -s "$in" ] || "$build/transform/tbbt-prep" -q --no-correct --no-map -o "$in" "$pcap"
( set +o pipefail; "$build/tools/tbbt-dump" "$in" | head -n "$n" >"$BENCH_TMP/in.txt" )
half=$(awk -v n="$n" 'NR == int(n / 2) {print $1; exit}' "$BENCH_TMP/in.txt")
awk -v h="$half" '$1 < h' "$BENCH_TMP/in.txt" >"$BENCH_TMP/a.txt"
awk -v h="$half" '$1 >= h' "$BENCH_TMP/in.txt" >"$BENCH_TMP/b.txt"
"$build/tools/tbbt-dump" --text-in "$BENCH_TMP/in.txt" -o "$BENCH_TMP/in.tbbt"
echo "bench/transforms: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs, $n records"
row() {
    awk -v l="$1" -v n="$n" -v s="$2" -v c="$3" -v m="$4" -v f="$5" \
        'BEGIN {printf "%-16s %8.3f s %10.0f records/s %7.3f s CPU %8d KiB peak  %5.2fx the floor\n", l, s, n / s, c, m, (f > 0 ? f / s : 0)}'
}
bench_run floor "$runs" "$build/tools/tbbt-dump" "$BENCH_TMP/in.tbbt"
fw=$BENCH_WALL
row "floor (dump)" "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "$fw"
bench_run summary "$runs" "$src/scripts/tbbt-summary" --json "$BENCH_TMP/s.json" "$BENCH_TMP/in.txt"
row tbbt-summary "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "$fw"
bench_run anonymize "$runs" "$src/scripts/tbbt-anonymize" -q --key-string bench -o "$BENCH_TMP/an.txt" "$BENCH_TMP/in.txt"
row tbbt-anonymize "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "$fw"
bench_run filter "$runs" "$src/scripts/tbbt-filter" -q --raw --proc write --exclude-proc -o "$BENCH_TMP/f.txt" "$BENCH_TMP/in.txt"
row "tbbt-filter --raw" "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "$fw"
bench_run merge "$runs" "$src/scripts/tbbt-merge" -q -o "$BENCH_TMP/m.txt" "$BENCH_TMP/a.txt" "$BENCH_TMP/b.txt"
row tbbt-merge "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "$fw"
echo "below 200000 records/s a tool is the bottleneck of a real workflow (the issue's bar for moving its hot path to C)"
