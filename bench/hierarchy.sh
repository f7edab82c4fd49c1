#!/bin/bash
# bench/hierarchy.sh -- records per second through pass 3 (the hierarchy
# map and the victim IDs) on the million-call benchmark capture, beside
# the floor measured in the same run on the same records.
#
# Input: bench/cache/bench-1000000.tbbt, the capture's records after pass 1
# (made by bench/correct.sh's rule: redone when missing or older than the
# capture). Each command runs BENCH_RUNS times (default 3); figures are
# medians of wall and CPU time, peak RSS the largest seen:
#   floor   tbbt-check --copy -w OUT IN   read and write the records, no pass
#   pass3   tbbt-map -w OUT -m MAP IN     read, apply, write records and map
#   tenth   the same on the first tenth of the records (peak memory against
#           the trace's length: the map holds objects and paths, never
#           records)
# Printed: records, seconds, records/s, CPU, peak RSS, and the ratios
#   pass3 speed / floor speed
#   pass 3's own rate = records / (pass3 wall - floor wall)
# Target: pass3 >= 500 000 records/s end to end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
if [ ! -x "$build/tools/tbbt-check" ] || [ ! -x "$build/hierarchy/tbbt-map" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j2 --target tbbt-check tbbt-map tbbt-prep tbbt-dump >/dev/null
fi
runs=${BENCH_RUNS:-3}
cache=$here/cache
trap 'rm -rf "$BENCH_TMP"' EXIT

pcap=${BENCH_HIER_PCAP:-$cache/bench-1000000.pcap}
[ -s "$pcap" ] || pcap=$("$here/make-capture.sh")
in=$cache/$(basename "$pcap" .pcap).tbbt
if [ ! -s "$in" ] || [ "$in" -ot "$pcap" ] || ! "$build/tools/tbbt-check" --copy -w "$BENCH_TMP/probe.tbbt" "$in" >/dev/null 2>&1; then
    echo "bench/hierarchy: prepping $(basename "$pcap") once to $in"
    "$build/transform/tbbt-prep" -q --no-correct --no-map -o "$in" "$pcap"
fi
tenth=$cache/$(basename "$in" .tbbt)-tenth.tbbt
if [ ! -s "$tenth" ] || [ "$tenth" -ot "$in" ]; then
    n=$("$build/tools/tbbt-dump" "$in" | wc -l)
    "$build/tools/tbbt-dump" "$in" | awk -v lim=$((n / 10)) 'NR <= lim' |
        "$build/tools/tbbt-dump" --text-in -o "$tenth" -
fi

echo "bench/hierarchy: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs, input $(basename "$in")"
map=$build/hierarchy/tbbt-map
BENCH_WARM=$in # each run starts with its input in the page cache (lib.sh)
bench_run floor "$runs" "$build/tools/tbbt-check" --copy -w "$BENCH_TMP/floor.tbbt" "$in"
f_wall=$BENCH_WALL f_cpu=$BENCH_CPU f_rss=$BENCH_RSS
records=$(awk '{print $2}' "$BENCH_OUT")
bench_run pass3 "$runs" "$map" --json "$BENCH_TMP/p.json" -w "$BENCH_TMP/out.tbbt" -m "$BENCH_TMP/out.hmap" "$in"
p_wall=$BENCH_WALL p_cpu=$BENCH_CPU p_rss=$BENCH_RSS
BENCH_WARM=$tenth
bench_run tenth "$runs" "$map" -q -m "$BENCH_TMP/tenth.hmap" "$tenth"
t_wall=$BENCH_WALL t_cpu=$BENCH_CPU t_rss=$BENCH_RSS
t_records=$("$build/tools/tbbt-dump" "$tenth" | wc -l)

row() {
    awk -v l="$1" -v n="$2" -v s="$3" -v c="$4" -v m="$5" -v x="${6:-}" \
        'BEGIN {printf "%-6s %9d records %7.3f s %9.0f records/s %7.3f s CPU %8d KiB peak %s\n", l, n, s, (s > 0) ? n / s : 0, c, m, x}'
}
row floor "$records" "$f_wall" "$f_cpu" "$f_rss"
row pass3 "$records" "$p_wall" "$p_cpu" "$p_rss"
row tenth "$t_records" "$t_wall" "$t_cpu" "$t_rss" "(pass3 on the first tenth)"
awk -v f="$f_wall" -v p="$p_wall" -v n="$records" 'BEGIN {
    printf "pass3 speed / floor speed: %.2f\n", (p > 0) ? f / p : 0
    printf "pass 3 own rate (records / (pass3 - floor)): %.0f records/s\n", (p > f) ? n / (p - f) : 0
    printf "pass3 end to end: %.0f records/s (target >= 500000)\n", (p > 0) ? n / p : 0 }'
perl -MJSON::PP -e 'local $/; my $j = decode_json(<>);
    printf "map: %d entries (%d initial, %d made and %d removed during the trace, %d renames), %d subtrees, %d victim IDs\n",
    @$j{qw(entries initial created deleted renamed subtrees victims)}' "$BENCH_TMP/p.json"
