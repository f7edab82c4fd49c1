#!/bin/bash
# bench/split.sh -- records per second through tbbt-split on the
# million-call benchmark capture, beside a peer reading the same file in
# the same run.
#
# Input: BENCH_SPLIT_IN (default bench/cache/bench-1000000.tbbt, which
# bench/hierarchy.sh makes), read in place; its map is IN.hmap beside it
# when there is one, else tbbt-map makes one in the temporary directory
# (not timed). The capture is tbbt-workload's: its set-up writes the
# directories above the clients' subtrees, so as it is the trace is one
# group. Each command runs BENCH_RUNS times (default 3); figures are
# medians of wall and CPU time, peak RSS the largest seen:
#   peer     tbbt-dump IN >/dev/null       read and print every record
#   analyse  tbbt-split IN MAP             read, group, refuse (one group)
#   split    tbbt-split --shared DIR... --force -k 2 IN MAP
#            read, group, deal, check crossings, read again and write two
#            parts with their maps; DIR: every directory of the map at most
#            two levels deep (BENCH_SPLIT_SHARED to say others, one path a
#            line), the workload's shared directories
# Printed: records, seconds, records/s, CPU, peak RSS; the ratio of each
# to the peer's speed; the split's groups and crossings.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
if [ ! -x "$build/hierarchy/tbbt-split" ] || [ ! -x "$build/tools/tbbt-dump" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j2 --target tbbt-split tbbt-map tbbt-dump >/dev/null
fi
runs=${BENCH_RUNS:-3}
trap 'rm -rf "$BENCH_TMP"' EXIT

in=${BENCH_SPLIT_IN:-$here/cache/bench-1000000.tbbt}
[ -s "$in" ] || { echo "bench/split: no $in (run bench/hierarchy.sh once, or set BENCH_SPLIT_IN)" >&2; exit 1; }
map=${in%.tbbt}.hmap
if [ ! -s "$map" ]; then
    map=$BENCH_TMP/in.hmap
    echo "bench/split: no map beside $(basename "$in"); tbbt-map makes one (not timed)"
    "$build/hierarchy/tbbt-map" -q -m "$map" "$in"
fi
shared=()
if [ -n "${BENCH_SPLIT_SHARED:-}" ]; then
    while read -r d; do [ -n "$d" ] && shared+=(--shared "$d"); done <<<"$BENCH_SPLIT_SHARED"
else
    while read -r d; do shared+=(--shared "$d"); done < <(awk '$5 == "dir" && $11 ~ /^"[^\/]*(\/[^\/]*)?"$/ {
        p = substr($11, 2, length($11) - 2); if (!seen[p]++) print p }' "$map")
fi

echo "bench/split: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs, input $in"
split=$build/hierarchy/tbbt-split
bench_run peer "$runs" "$build/tools/tbbt-dump" -o /dev/null "$in"
d_wall=$BENCH_WALL d_cpu=$BENCH_CPU d_rss=$BENCH_RSS
records=$("$build/tools/tbbt-dump" "$in" | wc -l)
# exit 1 is the expected answer here (one group): anything else fails
bench_run analyse "$runs" bash -c '"$0" "$@"; [ $? = 1 ]' "$split" -o "$BENCH_TMP/a" "$in" "$map"
a_wall=$BENCH_WALL a_cpu=$BENCH_CPU a_rss=$BENCH_RSS
groups_one=$(sed -n 's/.* \([0-9]*\) groups\{0,1\} of objects.*/\1/p' "$BENCH_OUT")
bench_run split "$runs" "$split" "${shared[@]}" --force -k 2 -o "$BENCH_TMP/p" "$in" "$map"
s_wall=$BENCH_WALL s_cpu=$BENCH_CPU s_rss=$BENCH_RSS
groups=$(sed -n 's/.* \([0-9]*\) groups\{0,1\} of objects.*/\1/p' "$BENCH_OUT")
cross=$(sed -n 's/^crossing dependencies: //p' "$BENCH_OUT")

row() {
    awk -v l="$1" -v n="$2" -v s="$3" -v c="$4" -v m="$5" -v x="${6:-}" \
        'BEGIN {printf "%-8s %9d records %7.3f s %9.0f records/s %7.3f s CPU %8d KiB peak %s\n", l, n, s, (s > 0) ? n / s : 0, c, m, x}'
}
row peer "$records" "$d_wall" "$d_cpu" "$d_rss" "(tbbt-dump)"
row analyse "$records" "$a_wall" "$a_cpu" "$a_rss" "($groups_one group: refused)"
row split "$records" "$s_wall" "$s_cpu" "$s_rss" "($((${#shared[@]} / 2)) shared dirs, 2 parts written)"
awk -v d="$d_wall" -v a="$a_wall" -v s="$s_wall" 'BEGIN {
    printf "analyse speed / peer speed: %.2f\n", (a > 0) ? d / a : 0
    printf "split speed / peer speed: %.2f\n", (s > 0) ? d / s : 0 }'
echo "split: $groups groups, crossing dependencies: $cross"
