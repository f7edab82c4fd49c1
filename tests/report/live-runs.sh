#!/bin/bash
# tests/report/live-runs.sh -- runs made invalid on purpose, and a sweep
# with a known knee, on real nfs-ganesha servers, for tests/report/validity.t:
#   A  a plain directory export. Timestamp mode at 1/16 of the traced pace,
#      the sample trace looped to last over 11 s, on a fresh image each:
#        A-1.json, A-2.json  two ordinary runs;
#        A-3.json            the server paused (SIGSTOP) 3 s mid-run;
#        A-4.json            another trace (the same capture without its
#                            READs, tbbt-filter), same settings.
#      Then tbbt-compare --runs 2 at full speed, unlooped (runs of a
#      fraction of a second): short/ and short.err, its warning that the
#      runs are too short for their interval (it refuses nothing).
#   B  an ext4 loop image mounted -o sync: tbbt-compare --sweep at speedups
#      asking 100, 200 and 20000 ops/s, the trace looped twice (31.6 and
#      15.8 s at the first two): it sustains the first two and cannot reach
#      the third, so the peak must be the 200 point even though the 20000
#      point achieves more (sweep/A/*.json: B is the sweep's only server;
#      knee.txt: the rates and speedups).
# Usage: bash tests/report/live-runs.sh BUILD_DIR SRC_DIR OUT_DIR
# Exit 0 done, 1 failed, 77 cannot run here (no ganesha, no loop mounts).
BUILD=${1:?usage: live-runs.sh BUILD SRC OUT}
SRC=${2:?usage: live-runs.sh BUILD SRC OUT}
OUT=${3:?usage: live-runs.sh BUILD SRC OUT}
BUILD=$(cd "$BUILD" && pwd)
. "$SRC/tests/lib/ganesha.sh"
for b in transform/tbbt-prep hierarchy/tbbt-init player/tbbt-play tools/tbbt-dump; do
    [ -x "$BUILD/$b" ] || { echo "live-runs: $b not built" >&2; exit 77; }
done
tbbt_ganesha_usable || exit 77
command -v mkfs.ext4 >/dev/null || { echo "live-runs: mkfs.ext4 missing" >&2; exit 77; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd -P)
export TBBT_BUILD=$BUILD
INIT=$BUILD/hierarchy/tbbt-init
PLAY=$BUILD/player/tbbt-play

cleanup() {
    tbbt_ganesha_stop "$OUT/A"
    tbbt_ganesha_stop "$OUT/B"
    mountpoint -q "$OUT/B/export" 2>/dev/null && umount "$OUT/B/export"
    rm -f "$OUT/B.img"
}
trap cleanup EXIT

# the servers: A plain, B ext4 -o sync (no loop mount: cannot run here)
tbbt_ganesha_start "$OUT/A" || exit 1
A_NFS=$TBBT_NFS_PORT A_MNT=$TBBT_MNT_PORT A_EXP=$TBBT_EXPORT A_PID=$TBBT_GANESHA_PID A_URL=$TBBT_NFS_URL
mkdir -p "$OUT/B/export"
truncate -s 256M "$OUT/B.img"
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$OUT/B.img" || exit 1
mount -o loop,sync "$OUT/B.img" "$OUT/B/export" || { echo "live-runs: no loop mount here" >&2; exit 77; }
tbbt_ganesha_start "$OUT/B" || exit 1
B_NFS=$TBBT_NFS_PORT B_MNT=$TBBT_MNT_PORT B_EXP=$TBBT_EXPORT B_URL=$TBBT_NFS_URL

# the traces: the sample, and the sample without its READs
"$BUILD/transform/tbbt-prep" -q -o "$OUT/trace.tbbt" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst" || exit 1
perl "$SRC/scripts/tbbt-filter" --proc read --exclude-proc -o "$OUT/noread.tbbt" "$OUT/trace.tbbt" || exit 1

# span TRACE: seconds from its first call to its last.
span() {
    "$BUILD/tools/tbbt-dump" "$1" | awk 'NR == 1 { f = $1 } { l = $1 } END { printf "%.6f", l - f }'
}

# run_a NAME TRACE: a fresh image on A and one replay at speedup X of
# TRACE looped to last over 11 s, into OUT/NAME.json; the command line in
# the background when BG is set (its pid in PLAY_PID).
X=0.0625
run_a() {
    local name=$1 trace=$2 loops
    loops=$(perl -MPOSIX -e 'print POSIX::ceil(11 * $ARGV[0] / $ARGV[1])' "$X" "$(span "$trace")")
    "$INIT" -q --replace --map "${trace%.tbbt}.hmap" --manifest "$OUT/$name.manifest" --run-dir tbbt-run \
        --scope 64 --clones "$loops" --nfs-port "$A_NFS" --mount-port "$A_MNT" "127.0.0.1:$A_EXP" || return 1
    local cmd=("$PLAY" -q --no-live --speedup "$X" --loop "$loops" --manifest "$OUT/$name.manifest"
        --nfs-port "$A_NFS" --json "$OUT/$name.json" "$trace" "127.0.0.1:$A_EXP")
    if [ -n "${BG:-}" ]; then
        "${cmd[@]}" &
        PLAY_PID=$!
    else
        "${cmd[@]}"
    fi
}
run_a A-1 "$OUT/trace.tbbt" || exit 1
run_a A-2 "$OUT/trace.tbbt" || exit 1
BG=1 run_a A-3 "$OUT/trace.tbbt" || exit 1
sleep 5
kill -STOP "$A_PID"
sleep 3
kill -CONT "$A_PID"
wait "$PLAY_PID" || exit 1
run_a A-4 "$OUT/noread.tbbt" || exit 1

# tbbt-compare on runs far too short for their interval: it warns, and
# still makes the runs and the report (exit 1: the report's warnings)
perl "$SRC/scripts/tbbt-compare" --runs 2 --scope 64 -o "$OUT/short" "$OUT/trace.tbbt" "$A_URL" \
    >"$OUT/short.out" 2>"$OUT/short.err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || { cat "$OUT/short.err" >&2; exit 1; }

# B's sweep: 100 and 200 ops/s, which the -o sync server sustains (it
# keeps up with over 400 here), and 20000, far beyond it (loaded, it
# reaches 1300 to 2100; on a quiet machine it reached 4908 of 5000 asked,
# which made 5000 a valid point): the knee lies between 200 and 20000.
# The trace looped twice, the same for every step: 31.6 s at 100 ops/s,
# 15.8 s at 200, and at 20000 as long as B takes for 3164 calls (a few
# seconds). Not --duration: it loops for the rate asked, and B, far
# behind it, took over 5 minutes for the 20000 point on a loaded machine.
read -r X1 X2 X3 < <(perl -e 'my $r1 = 1582 / $ARGV[0];    # ops/s at speedup 1
    printf "%.6g %.6g %.6g\n", 100 / $r1, 200 / $r1, 20000 / $r1' "$(span "$OUT/trace.tbbt")")
echo "rates 100 200 20000 speedups $X1 $X2 $X3" >"$OUT/knee.txt"
perl "$SRC/scripts/tbbt-compare" -q --sweep --speedups "$X1,$X2,$X3" --loop 2 --p99-from send \
    --p99-limit 1000 --scope 64 -o "$OUT/sweep" "$OUT/trace.tbbt" "$B_URL"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || exit 1    # 1: the report's own warnings are fine, failures are checked below
[ -s "$OUT/sweep/failures.txt" ] && { cat "$OUT/sweep/failures.txt" >&2; exit 1; }
cat "$OUT/knee.txt"
exit 0
