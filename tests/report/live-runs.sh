#!/bin/bash
# tests/report/live-runs.sh -- runs made invalid on purpose, and a sweep
# with a known knee, on real nfs-ganesha servers, for tests/report/validity.t:
#   A  a plain directory export. Timestamp mode at 1/16 of the traced pace,
#      the sample trace looped to last over 11 s, on a fresh image each:
#        A-1.json, A-2.json  two ordinary runs;
#        A-3.json            the server paused (SIGSTOP) 3 s mid-run;
#        A-4.json            another trace (the same capture without its
#                            READs, tbbt-filter), same settings.
#   B  an ext4 loop image mounted -o sync. Its capacity C measured first by
#      a full-speed replay (B-capacity.json); then tbbt-compare --sweep at
#      speedups asking 0.08 C, 0.16 C and 2.5 C (11 s or more a step): the
#      knee lies between the last two, so the peak must be the 0.16 C
#      point even though the 2.5 C point achieves more (sweep/B/*.json;
#      knee.txt: the capacity and the speedups).
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
A_NFS=$TBBT_NFS_PORT A_MNT=$TBBT_MNT_PORT A_EXP=$TBBT_EXPORT A_PID=$TBBT_GANESHA_PID
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

# B's capacity at full speed, then the sweep around it
"$INIT" -q --replace --map "$OUT/trace.hmap" --manifest "$OUT/B.manifest" --run-dir tbbt-run --scope 64 \
    --clones 5 --nfs-port "$B_NFS" --mount-port "$B_MNT" "127.0.0.1:$B_EXP" || exit 1
"$PLAY" -q --no-live --loop 5 --manifest "$OUT/B.manifest" --nfs-port "$B_NFS" --json "$OUT/B-capacity.json" \
    "$OUT/trace.tbbt" "127.0.0.1:$B_EXP" || exit 1
read -r C X1 X2 X3 < <(perl -MJSON::PP -e '
    local $/; open(my $f, "<", $ARGV[0]) or die; my $j = decode_json(<$f>);
    my $c = $j->{totals}{ops_per_s}; my $rate1 = $j->{totals}{records} / 5 / $ARGV[1];    # ops/s at speedup 1
    printf "%.1f %.6g %.6g %.6g\n", $c, 0.08 * $c / $rate1, 0.16 * $c / $rate1, 2.5 * $c / $rate1' \
    "$OUT/B-capacity.json" "$(span "$OUT/trace.tbbt")")
echo "capacity $C speedups $X1 $X2 $X3" >"$OUT/knee.txt"
perl "$SRC/scripts/tbbt-compare" -q --sweep --speedups "$X1,$X2,$X3" --duration 11 --p99-from send \
    --p99-limit 1000 --scope 64 -o "$OUT/sweep" "$OUT/trace.tbbt" "$B_URL"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || exit 1    # 1: the report's own warnings are fine, failures are checked below
[ -s "$OUT/sweep/failures.txt" ] && { cat "$OUT/sweep/failures.txt" >&2; exit 1; }
cat "$OUT/knee.txt"
exit 0
