#!/bin/bash
# bench/nfsenc.sh -- calls per second the player's encoder (lib/nfsenc.h:
# a record to an RPC call message) writes, for each call of the mix the
# player sends, beside its floor measured in the same run on the same
# call: the same bytes written straight by libtirpc's xdr_callmsg and
# rpcgen's argument routine (no record, no handle callback), which
# bench/tools/tbbt-encrate checks give the identical message first.
# (Was test_rate in tests/unit/test_nfsenc.c, printed inside the unit suite.)
#
# Each run encodes BENCH_ENC_CALLS calls (default 2000000) of one kind;
# BENCH_RUNS runs (default 3); medians of wall and CPU time, the largest
# peak RSS (bench/lib.sh). Printed per kind: message bytes, calls/s, CPU,
# peak RSS for nfsenc and the floor, and nfsenc's speed as a share of the
# floor's, from CPU time (user + system: on a shared, loaded machine the
# wall time of a sub-second run is mostly other people's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
enc=$build/bench/tools/tbbt-encrate
if [ ! -x "$enc" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j2 --target tbbt-encrate >/dev/null
fi
runs=${BENCH_RUNS:-3}
n=${BENCH_ENC_CALLS:-2000000}
trap 'rm -rf "$BENCH_TMP"' EXIT

echo "bench/nfsenc: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs, $n calls a run"
printf '%-13s %6s  %-7s %8s %12s %8s %9s  %s\n' kind bytes tool wall_s calls/s cpu_s peak_KiB "nfsenc/floor (CPU)"
row() { # KIND BYTES TOOL WALL CPU RSS [RATIO]
    awk -v k="$1" -v b="$2" -v t="$3" -v s="$4" -v c="$5" -v m="$6" -v r="${7:-}" -v n="$n" \
        'BEGIN {printf "%-13s %6d  %-7s %8.3f %12.0f %8.3f %9d  %s\n", k, b, t, s, n / s, c, m, r}'
}
for kind in getattr3 lookup3 write3 readdirplus3 write2; do
    bench_run "floor $kind" "$runs" "$enc" --xdr "$kind" "$n"
    f_wall=$BENCH_WALL f_cpu=$BENCH_CPU f_rss=$BENCH_RSS
    bytes=$(awk '{print $3}' "$BENCH_OUT")
    bench_run "nfsenc $kind" "$runs" "$enc" "$kind" "$n"
    ratio=$(awk -v f="$f_cpu" -v s="$BENCH_CPU" 'BEGIN {printf "%.2f", f / s}')
    row "$kind" "$bytes" floor "$f_wall" "$f_cpu" "$f_rss"
    row "$kind" "$bytes" nfsenc "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "${ratio}x"
done
