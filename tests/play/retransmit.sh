#!/bin/bash
# A request the server drops is sent again (tbbt-play --retransmit), as an
# NFS client sends it: nfs-ganesha drops a request it cannot serve now
# ("Drop request", seen on a READ of a just-removed file's handle in
# fsdep replays of play.lost_state) and counts on the retransmission; the
# player used to wait out --timeout and count the record failed.
#
# The server is tests/tools/tbbt-nullserver --drop-proc read: it reads the
# first READ and never answers it. A hand-made trace (a getattr, a read,
# a getattr of one file, every reply traced OK). For conservative and
# fsdep order:
#   1. with --retransmit 1 --timeout 10: exit 0, every record matched, the
#      JSON counts one retransmission, no timeout, and the responder's log
#      shows the read's XID called twice (dropped once) and answered once;
#   2. with --retransmit 0 --timeout 2: the read times out (the drop is
#      real: without the retransmission the record fails).
# And one trace of 130 records whose two READs (the 1st and the 129th) use
# the same slot of the player's ring (128 slots at a window of 64), both
# dropped once: both are sent again and every record matches (a slot's
# "sent again" belonged to the record it held, not to the next one).
# Usage (ctest): bash retransmit.sh BUILD_DIR SRC_DIR
set -u
BUILD=${1:?usage: retransmit.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: retransmit.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/nullserver.sh"
nullsrv_setup retransmit "$BUILD"

cat >"$work/t.txt" <<'EOF'
1700000000.000000000 1700000000.000100000 10.0.0.5:801 10.0.0.1:2049 0x00000001 v3 getattr 0 T cred=1:0:0 obj=2
1700000000.000200000 1700000000.000300000 10.0.0.5:801 10.0.0.1:2049 0x00000002 v3 read 0 T cred=1:0:0 obj=2 offset=0 count=4096
1700000000.000400000 1700000000.000500000 10.0.0.5:801 10.0.0.1:2049 0x00000003 v3 getattr 0 T cred=1:0:0 obj=2
EOF
"$DUMP" --text-in "$work/t.txt" -o "$work/t.tbbt" || {
    echo "FAIL: tbbt-dump --text-in"
    exit 1
}
printf '# tbbt-manifest 1\n# clones 1\n0 1 %s "."\n0 2 %s "f"\n# end 2\n' "$(nullsrv_fh 1)" "$(nullsrv_fh 2)" >"$work/t.manifest"

# the two-READ trace: read, 127 getattrs, read
awk 'BEGIN {
    for (i = 0; i < 130; i++) {
        op = (i == 0 || i == 128) ? "read" : "getattr"
        printf "1700000000.%09d 1700000000.%09d 10.0.0.5:801 10.0.0.1:2049 0x%08x v3 %s 0 T cred=1:0:0 obj=2%s\n",
            i * 1000, i * 1000 + 500, i + 1, op, op == "read" ? " offset=0 count=4096" : ""
    }
}' >"$work/t2.txt"
"$DUMP" --text-in "$work/t2.txt" -o "$work/t2.tbbt" || {
    echo "FAIL: tbbt-dump --text-in t2"
    exit 1
}

# run ORDER ARGS...: one replay of $trace (t) with $drops (1) READs
# dropped; its totals "records matched timeouts retransmits" in $tot,
# tbbt-play's exit in $rc
run() {
    local order=$1
    shift
    nullsrv_start --drop-proc read --drop-count "${drops:-1}" --log "$work/ns.log"
    "$PLAY" -q --no-live --order "$order" "$@" --nfs-port "$port" --manifest "$work/t.manifest" \
        --json "$work/p.json" "$work/${trace:-t}.tbbt" 127.0.0.1:/null >"$work/p.out" 2>&1
    rc=$?
    nullsrv_stop
    tot=$(perl -MJSON::PP -e 'local $/; my $t = decode_json(<STDIN>)->{totals};
        print "$t->{records} $t->{matched} $t->{timeouts} $t->{retransmits}"' <"$work/p.json" 2>/dev/null)
}

for order in conservative fsdep; do
    run "$order" --retransmit 1 --timeout 10
    echo "$order, --retransmit 1: exit $rc, records matched timeouts retransmits: $tot"
    [ $rc = 0 ] || bad "$order: tbbt-play exit $rc: $(cat "$work/p.out")"
    [ "$tot" = "3 3 0 1" ] || bad "$order: totals '$tot', want '3 3 0 1'"
    xid=$(awk '$2 == "drop" { print $3; exit }' "$work/ns.log")
    calls=$(awk -v x="$xid" '$2 == "call" && $3 == x' "$work/ns.log" | wc -l)
    replies=$(awk -v x="$xid" '$2 == "reply" && $3 == x' "$work/ns.log" | wc -l)
    [ -n "$xid" ] && [ "$calls" = 2 ] && [ "$replies" = 1 ] ||
        bad "$order: the dropped read '$xid' called $calls times, answered $replies (want 2 and 1)"

    run "$order" --retransmit 0 --timeout 2
    echo "$order, --retransmit 0: exit $rc, records matched timeouts retransmits: $tot"
    [ "$tot" = "3 2 1 0" ] || bad "$order, no retransmission: totals '$tot', want '3 2 1 0' (the read timed out)"
done
trace=t2 drops=2 run conservative --retransmit 1 --timeout 3 --window 64
echo "two reads in one slot: exit $rc, records matched timeouts retransmits: $tot"
[ "$tot" = "130 130 0 2" ] || bad "two reads in one slot: totals '$tot', want '130 130 0 2'"
[ $fail = 0 ] && echo "PASS: a dropped request is sent again and matches; without --retransmit it times out"
exit $fail
