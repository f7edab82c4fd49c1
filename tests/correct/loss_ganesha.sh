#!/bin/bash
# Pass 2 under loss: start a private nfs-ganesha, capture a fresh concurrent
# workload (3 clients, 3 uids, every NFSv3 procedure) from tbbt-workload
# under tcpdump, delete a seeded 1% and then 5% of its packets
# (tbbt-pcapdrop), prep each capture (pass 1), correct it (pass 2,
# tbbt-check --write) and pre-play the corrected records again:
#   - the corrected records pre-play with zero replay failures;
#   - the inserted share stays within a few (5) times the share of calls
#     lost (records missing against the undamaged capture, plus replies
#     lost); the report's counts are printed.
# The undamaged capture's failures (pass 1 identity slips) are printed.
# Usage (ctest): bash loss_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: loss_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: loss_ganesha.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-6000}
SEED=${TBBT_E2E_SEED:-5}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require tcpdump
PREP=$BUILD/transform/tbbt-prep
CHECK=$BUILD/tools/tbbt-check
WL=$BUILD/tests/tools/tbbt-workload
DROP=$BUILD/tests/tools/tbbt-pcapdrop
[ -x "$PREP" ] && [ -x "$CHECK" ] || { echo "SKIP: tbbt-prep or tbbt-check not built"; exit 77; }

e2e_begin correct-loss

e2e_capture_workload "$TMP/full.pcap" "$OPS" "$SEED" 65536 loss

# jget FILE KEY: a number from a tbbt-check JSON report.
jget() {
    perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{$ARGV[0]}' "$2" <"$1"
}

"$PREP" -q --no-correct $PORTS -o "$TMP/full.tbbt" "$TMP/full.pcap"
"$CHECK" --json "$TMP/full.json" -w "$TMP/fullfixed.tbbt" "$TMP/full.tbbt" >"$TMP/full.txt"
rc=$?
cat "$TMP/full.txt"
check "undamaged capture: pass 2 explains every replay failure" [ $rc = 0 ]
"$CHECK" -q "$TMP/fullfixed.tbbt"
check "undamaged capture: the corrected records pre-play with zero replay failures" [ $? = 0 ]
# A capture with no loss should show no failure at all; those found are
# pass 1's (one object given two IDs, or a reused inode given a dead
# object's ID): said, not failed, as this test is about pass 2.
nf=$(jget "$TMP/full.json" failures)
[ "$nf" = 0 ] || echo "NOTE undamaged capture: $nf replay failures found (object identity from pass 1)"
full=$(jget "$TMP/full.json" records)

for pct in 1 5; do
    "$DROP" --seed 11 --drop-percent $pct "$TMP/full.pcap" "$TMP/lossy$pct.pcap" >/dev/null
    "$PREP" -q --no-correct $PORTS -o "$TMP/lossy$pct.tbbt" "$TMP/lossy$pct.pcap"
    echo "--- $pct% of the packets deleted: pass 2"
    "$CHECK" --json "$TMP/c$pct.json" --write "$TMP/fixed$pct.tbbt" "$TMP/lossy$pct.tbbt"
    rc=$?
    check "$pct% loss: pass 2 corrects every replay failure it finds" [ $rc = 0 ]
    echo "--- $pct% of the packets deleted: pre-play of the corrected records"
    "$CHECK" --json "$TMP/r$pct.json" "$TMP/fixed$pct.tbbt"
    rc=$?
    check "$pct% loss: the corrected records pre-play with zero replay failures" [ $rc = 0 ]
    recs=$(jget "$TMP/c$pct.json" records)
    lost=$(jget "$TMP/c$pct.json" lost)
    ins=$(jget "$TMP/c$pct.json" inserted)
    fails=$(jget "$TMP/c$pct.json" failures)
    # calls lost: records missing against the undamaged capture, plus calls whose reply was lost
    missing=$((full - recs))
    [ $missing -lt 0 ] && missing=0
    callslost=$((missing + lost))
    shares=$(awk -v i="$ins" -v r="$recs" -v c="$callslost" -v f="$full" \
        'BEGIN {printf "inserted %.2f%% of the records, calls lost %.2f%% of the calls", 100 * i / r, 100 * c / f}')
    echo "counts: $full records undamaged, $recs after ${pct}% packet loss ($missing calls missing, $lost replies lost);" \
        "$fails replay failures, $ins records inserted; $shares"
    check "$pct% loss: inserted $ins <= 5 x calls lost $callslost" [ $((ins)) -le $((5 * callslost)) ]
    check "$pct% loss: the loss caused replay failures to correct ($fails)" [ "$fails" -gt 0 ]
    # tbbt-prep's own path: pass 1 and pass 2 in one stream, the default
    # passes 1 and 2 as tbbt-prep chains them (pass 3's victim IDs bind
    # names a lossy pass 1 gave the wrong object to, which a pre-play then
    # reads differently: that is pass 1's identity slip, not pass 2's work)
    # The peer is tbbt-check --write on the same pass-1 records without pass
    # 3's annotations (the records above carry them, and a victim ID pass 3
    # bound can change what the pre-play finds, by a record or two).
    "$PREP" -q --no-map $PORTS -o "$TMP/prepped$pct.tbbt" "$TMP/lossy$pct.pcap"
    "$CHECK" --json "$TMP/p$pct.json" "$TMP/prepped$pct.tbbt" >/dev/null
    rc=$?
    check "$pct% loss: tbbt-prep's corrected output pre-plays with zero replay failures" [ $rc = 0 ]
    "$PREP" -q --no-correct --no-map $PORTS -o "$TMP/raw$pct.tbbt" "$TMP/lossy$pct.pcap"
    "$CHECK" --json "$TMP/w$pct.json" --write "$TMP/rawfixed$pct.tbbt" "$TMP/raw$pct.tbbt" >/dev/null
    check "$pct% loss: and inserts as tbbt-check --write does on pass 1's records ($(jget "$TMP/p$pct.json" records) records)" \
        [ "$(jget "$TMP/p$pct.json" records)" = "$(($(jget "$TMP/w$pct.json" records) + $(jget "$TMP/w$pct.json" inserted)))" ]
done

e2e_end
