#!/bin/bash
# bench/augment.sh -- synthetic objects per second tbbt-augment adds to a
# map, beside a peer measured in the same run on the same output: awk
# reading the augmented map and writing every entry again, its 12 columns
# split and joined (the cost of the lines alone, with nothing generated).
# (Was the last, printed-only section of tests/hierarchy/augment.sh.)
#
# Input: tests/data/hmap-small.hmap grown to BENCH_AUG_OBJECTS objects
# (default 200000, --total-objects, seed 1). Each command runs BENCH_RUNS
# times (default 3); medians of wall and CPU time, the largest peak RSS
# (bench/lib.sh). Printed: entries, seconds, entries/s, CPU, peak RSS, and
# tbbt-augment's speed as a share of the peer's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
aug=$build/hierarchy/tbbt-augment
if [ ! -x "$aug" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j2 --target tbbt-augment >/dev/null
fi
runs=${BENCH_RUNS:-3}
n=${BENCH_AUG_OBJECTS:-200000}
in=$src/tests/data/hmap-small.hmap
trap 'rm -rf "$BENCH_TMP"' EXIT

echo "bench/augment: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs, $(basename "$in") to $n objects"
bench_run augment "$runs" "$aug" "$in" -o "$BENCH_TMP/big.hmap" --total-objects "$n" --seed 1 -q
a_wall=$BENCH_WALL a_cpu=$BENCH_CPU a_rss=$BENCH_RSS
entries=$(grep -vc '^#' "$BENCH_TMP/big.hmap")
added=$(grep -c ' s "' "$BENCH_TMP/big.hmap")
BENCH_WARM=$BENCH_TMP/big.hmap
bench_run peer "$runs" awk -v out="$BENCH_TMP/peer.hmap" '{$1 = $1; print >out}' "$BENCH_TMP/big.hmap"
p_wall=$BENCH_WALL p_cpu=$BENCH_CPU p_rss=$BENCH_RSS

row() {
    awk -v l="$1" -v n="$entries" -v s="$2" -v c="$3" -v m="$4" -v x="${5:-}" \
        'BEGIN {printf "%-8s %9d entries %7.3f s %10.0f entries/s %7.3f s CPU %8d KiB peak %s\n", l, n, s, (s > 0) ? n / s : 0, c, m, x}'
}
row peer "$p_wall" "$p_cpu" "$p_rss" "(awk, read and write the map's lines)"
row augment "$a_wall" "$a_cpu" "$a_rss" "($added synthetic objects added)"
awk -v p="$p_wall" -v a="$a_wall" -v pc="$p_cpu" -v ac="$a_cpu" 'BEGIN {
    printf "augment speed / peer speed: %.2f wall, %.2f CPU\n", (a > 0) ? p / a : 0, (ac > 0) ? pc / ac : 0 }'
