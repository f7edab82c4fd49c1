#!/bin/bash
# bench/clone-mem.sh -- memory of tbbt-init and tbbt-play per object and
# per clone (issue 27 point 1: "memory per object halved, and per clone only
# what differs between clones"), this build beside a peer build (another
# checkout's build directory, e.g. main's) on the same input in the same run.
#
# Input: bench/tools/tbbt-synthcap --objects 20000 --clients 50 (about
# 2,000 of its objects exist before the trace), tbbt-prep'd, and its map
# grown by BENCH_CLONE_MEM_OBJECTS (default 50000) more initial objects:
# empty files in directories of 1,000 under the map's top directory (IDs
# from 10^9). Server: a private nfs-ganesha (tests/lib/ganesha.sh) on a
# fresh export for every run (stopped, emptied, started, not timed).
#
# Per build, each of BENCH_RUNS runs (default 3), K = BENCH_CLONE_MEM_CLONES
# (default 4), each tbbt-init on a fresh export:
#   tbbt-init --clones K of the trace's own map, then tbbt-play --clones K
#     --duration 2 of the trace with that manifest (the reference: the same
#     replay with only the trace's own initial objects)
#   tbbt-init --clones 1 of the grown map
#   tbbt-init --clones K of the grown map, then the same tbbt-play with
#     its manifest (loaded whole before the first request: the table this
#     measures; the replay stops after 2 s)
# Printed, medians of the runs (GNU time): wall, CPU (user + system), peak
# RSS of the grown map at K clones; bytes per object: what the extra
# objects cost (peak with the grown map - peak of the reference, over the
# extra objects; tbbt-play's over the extra objects x K: bytes per manifest
# entry per clone); tbbt-init's bytes per object per clone, (peak at K -
# peak at 1) / ((K - 1) x objects); the ratio of this build to the peer's.
# Knobs: BENCH_RUNS, BENCH_CLONE_MEM_OBJECTS, BENCH_CLONE_MEM_CLONES,
# TBBT_BUILD (this build), BENCH_PEER_BUILD (the peer's build directory;
# without it only this build is measured). Needs root and nfs-ganesha:
# exits 77 saying why otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$src/tests/lib/ganesha.sh"
runs=${BENCH_RUNS:-3}
extra=${BENCH_CLONE_MEM_OBJECTS:-50000}
K=${BENCH_CLONE_MEM_CLONES:-4}
peer=${BENCH_PEER_BUILD:-}

skip() {
    echo "bench/clone-mem: skipped: $*"
    exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (nfs-ganesha's VFS FSAL)"
tbbt_ganesha_usable 2>/dev/null || skip "$(tbbt_ganesha_usable 2>&1)"
[ "$K" -ge 2 ] || skip "BENCH_CLONE_MEM_CLONES must be at least 2"
. "$here/lib.sh"
build=$(bench_build "$src")
gdir=$BENCH_TMP/g
trap 'tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true; rm -rf "$BENCH_TMP"' EXIT
trap 'exit 130' INT TERM

# the input: the trace, its map, the map grown by $extra initial objects
cd "$BENCH_TMP"
"$build/bench/tools/tbbt-synthcap" --objects 20000 --clients 50 --per-dir 1000 >s.pcap
"$build/transform/tbbt-prep" -q -o s.tbbt -m s.hmap s.pcap
{
    grep -v '^# end ' s.hmap
    awk -v n="$extra" 'BEGIN { id = 1000000000; d = -1
        for (i = 0; i < n; i++) {
            if (i % 1000 == 0) { d++; did = ++id
                printf "%d 1 0 - dir 4096 0755 1000 1000 t \"tbbt-subtree-1/x%04d\" -\n", did, d }
            printf "%d %d 0 - reg 0 0644 1000 1000 t \"tbbt-subtree-1/x%04d/e%06d\" -\n", ++id, did, d, i
        } }'
    echo "# end $(($(sed -n 's/^# end //p' s.hmap) + extra + (extra + 999) / 1000))"
} >big.hmap
objs=$(awk '!/^#/ && $3 == "0"' big.hmap | wc -l)

# timed B TAG CMD...: one run of CMD under GNU time, its "wall cpu rss" appended to TAG.t
timed() {
    local tag=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o t1 "$@" >out 2>err || {
        echo "bench/clone-mem: $tag: failed: $*" >&2
        tail -3 err >&2
        return 1
    }
    awk '{print $1, $2 + $3, $4}' t1 >>"$tag.t"
}

# fresh: a new server on an empty export.
fresh() {
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true
    rm -rf "$gdir"
    tbbt_ganesha_start "$gdir" >/dev/null || {
        echo "bench/clone-mem: nfs-ganesha did not start" >&2
        return 1
    }
}

# measure NAME BUILD: the runs of one build: NAME.init.MAP.K.t, NAME.play.MAP.K.t
measure() {
    local name=$1 b=$2 r m k
    for r in $(seq 1 "$runs"); do
        for m in s:"$K" big:1 big:"$K"; do
            k=${m#*:} m=${m%:*}
            fresh
            timed "$name.init.$m.$k" "$b/hierarchy/tbbt-init" -q --map "$m.hmap" --clones "$k" \
                --manifest "$m$k.manifest" "$TBBT_NFS_URL"
            [ "$k" = 1 ] && continue
            timed "$name.play.$m.$k" "$b/player/tbbt-play" -q --clones "$k" --duration 2 -m "$m$k.manifest" \
                -j "p.json" s.tbbt "$TBBT_NFS_URL"
        done
    done
}

# med FILE COLUMN: the median of a column of a .t file
med() { awk -v c="$2" '{print $c}' "$1" | _bench_median; }

# report NAME TOOL: "wall cpu MiB B/object B/object/clone" of a build's tool
# at K clones of the grown map; B/object: what an extra object costs (peak
# with the grown map - peak with the trace's own, over the extra objects),
# for all K clones (init) or for one (play: one manifest entry); per clone
# (init): what one more clone costs an object (peak at K - peak at 1, over
# (K - 1) x the objects)
report() {
    local n=$1 t=$2 f=$1.$2.big.$K.t
    awk -v w="$(med "$f" 1)" -v c="$(med "$f" 2)" -v rk="$(med "$f" 3)" -v rs="$(med "$n.$t.s.$K.t" 3)" \
        -v r1="$(med "$n.init.big.1.t" 3)" -v x="$extra" -v o="$objs" -v k="$K" -v t="$t" 'BEGIN {
            bo = (rk - rs) * 1024 / x; if (t == "play") bo /= k
            pc = t == "init" ? sprintf("%.1f", (rk - r1) * 1024 / ((k - 1) * o)) : "-"
            printf "%.2f %.2f %.1f %.1f %s\n", w, c, rk / 1024, bo, pc }'
}

echo "bench/clone-mem: $objs initial objects (trace: $(wc -c <s.tbbt) bytes of records), clones $K (and 1)," \
    "$runs runs each, medians; load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure this "$build"
[ -z "$peer" ] || measure peer "$peer"
printf '%-10s %-5s %8s %8s %9s %10s %12s\n' build tool wall_s cpu_s peak_MiB B/object B/obj/clone
echo "(init: B/object for all $K clones; play: B/object = bytes per manifest entry per clone)"
for n in peer this; do
    [ -f "$n.init.big.1.t" ] || continue
    for t in init play; do
        read -r w c m bo bc < <(report $n $t)
        printf '%-10s %-5s %8s %8s %9s %10s %12s\n' "$n" "$t" "$w" "$c" "$m" "$bo" "$bc"
        eval "${n}_${t}=\"$bo $bc\""
    done
done
if [ -n "$peer" ]; then
    for t in init play; do
        eval "a=(\$this_$t) b=(\$peer_$t)"
        awk -v t="$t" -v a0="${a[0]}" -v a1="${a[1]}" -v b0="${b[0]}" -v b1="${b[1]}" 'BEGIN {
            printf "%s: this/peer bytes per object %.2f", t, a0 / b0
            if (b1 != "-") printf ", per object per clone %.2f", a1 / b1
            printf "\n" }'
    done
fi
