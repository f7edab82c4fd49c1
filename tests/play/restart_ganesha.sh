#!/bin/bash
# tbbt-play survives its server dying: nfs-ganesha is killed in the middle
# of a timestamp-paced replay of the bundled trace and started again on
# the same ports a second later. The player must make its connection
# again, send again the requests that change state (a create that then
# meets "exists" counts as done), fail the reads that were out, finish
# every record, exit 0 and report what failed: JSON totals.reconnects >= 1,
# every record accounted for (matched + mismatched + skipped +
# not replayable = records), nearly all matching.
# Usage (ctest): bash restart_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: restart_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: restart_ganesha.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_require perl
e2e_begin play-restart
PREP=$BUILD/transform/tbbt-prep INIT=$BUILD/hierarchy/tbbt-init PLAY=$BUILD/player/tbbt-play

"$PREP" -q -o "$TMP/s.tbbt" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst"
check "tbbt-prep wrote the records and the map" [ -s "$TMP/s.tbbt" -a -s "$TMP/s.hmap" ]
tbbt_ganesha_start "$TMP/srv" >/dev/null || { check "ganesha started" false; e2e_end; exit 1; }
PORT=$TBBT_NFS_PORT
"$INIT" -q --map "$TMP/s.hmap" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$TBBT_EXPORT"
check "tbbt-init built the image" [ $? = 0 ]

# the trace lasts 0.225 s; at x0.04 the replay takes about 5.6 s
timeout 120 "$PLAY" --speedup 0.04 --timeout 10 --nfs-port "$PORT" --no-live --json "$TMP/r.json" \
    "$TMP/s.tbbt" "127.0.0.1:$TBBT_EXPORT" >"$TMP/play.txt" 2>&1 &
pid=$!
sleep 2
tbbt_ganesha_stop "$TMP/srv"
sleep 1
TBBT_GANESHA_PORT=$PORT tbbt_ganesha_start "$TMP/srv" >/dev/null
check "ganesha started again on port $PORT" [ $? = 0 ]
wait $pid
rc=$?
cat "$TMP/play.txt" | grep -E "^(Replayed|Status|Connections)"
check "tbbt-play finished (exit 0, not killed by the timeout)" [ $rc = 0 ]
read -r recs matched mism skipped nr reconn partial < <(perl -MJSON::PP -e '
    local $/; my $j = decode_json(<>); my $t = $j->{totals};
    print join(" ", @$t{qw(records matched mismatched skipped not_replayable reconnects)},
               $j->{meta}{partial} ? 1 : 0), "\n"' "$TMP/r.json")
echo "figures: $recs records, $matched matched, $mism mismatched, $skipped skipped, $reconn reconnects"
check "the lost connection was made again ($reconn)" [ "${reconn:-0}" -ge 1 ]
check "every record accounted for" [ $((matched + mism + skipped + nr)) = "$recs" -a "$recs" = 1582 ]
check "the results are complete, not partial" [ "$partial" = 0 ]
check "at least 95% of the records matched across the restart" \
    perl -e 'exit !($ARGV[0] >= 0.95 * $ARGV[1])' "$matched" "$recs"
check "the report says the connection was lost and made again" grep -q "^Connections: [0-9]* lost and made again" "$TMP/play.txt"
e2e_end
