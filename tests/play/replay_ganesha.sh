#!/bin/bash
# End-to-end for tbbt-play on nfs-ganesha: capture -> tbbt-prep -> tbbt-init
# -> tbbt-play, in both orders (conservative, fsdep) and both timing modes
# (full speed, --speedup 1), each replay against a fresh server and image.
#
#   1. A fresh concurrent capture: tbbt-workload (3 clients, uids 0, 1000,
#      1001, every NFSv3 procedure) under tcpdump against an empty export,
#      MOUNT included (so the map's root is the export root and the image
#      root is RUN/clone.0). The export the workload leaves is the tree the
#      trace implies; its listing (tree_compare.pl: paths, types, modes,
#      owners, link counts, sizes, symlink targets; not times, not contents)
#      is kept. Each of the 4 replays must give
#        - at least 99.9% of ALL records with the traced status;
#        - a final image (RUN/clone.0) whose listing equals the original's.
#   2. ../shared/captures/real/*.pcap.zst (skipped when absent): the same 4
#      replays, at least 99.9% each; no original tree exists, so the 4 final
#      images must equal each other (both orders make the same changes).
#   3. The fresh capture with a seeded 5% of its packets deleted
#      (tbbt-pcapdrop) before tbbt-prep (whose pass 2 corrects): the 4
#      replays, at least 99.5% each (the issue's target). Measured: 20
#      fresh captures of this test with drop seed 11: 99.71-100% in both
#      orders (the lowest was 99.37% before pass 2 took directories whose
#      mkdir was lost as begun empty). What is left: handles the server
#      reused for a new object whose creating call and the old one's
#      removal were both lost, lost chmods/chowns no later reply reveals,
#      owners no reply shows; fsdep skips a failed record's dependants,
#      so it loses a little more (one CI capture: 98.69%, a failed rename
#      skipping its file's records, which it no longer does). The
#      final tree is compared with the original's and the differences
#      counted, not failed (the lost calls' effects are guesses).
# The share is matched / totals.records of tbbt-play's JSON: every record
# the trace holds is in the denominator, so skipped requests, timeouts,
# mismatches and records the player would not send all count against it;
# totals.records is checked against the record count tbbt-dump gives.
# Each replay prints records, matched, %, ops/s and the failure counts, and
# on a shortfall the procedures' (traced, got) status pairs.
# Knobs: TBBT_E2E_OPS (workload calls, default 4000), TBBT_E2E_SEED.
# Usage (ctest): bash replay_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: replay_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: replay_ganesha.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-4000}
SEED=${TBBT_E2E_SEED:-17}
DROP_SEED=11

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
. "$SRC/tests/lib/replay.sh"

replay_setup
T0=$SECONDS

e2e_begin play-replay

# same_tree WHAT EXPECTED ACTUAL: check that two listings are equal.
same_tree() {
    check "$1" "${TREE[@]}" diff "$2" "$3"
}

ORDERS="conservative fsdep"
SPEEDS="0 1"

# 1. The fresh capture, and the tree it implies.
e2e_capture_workload "$TMP/wl.pcap" "$OPS" "$SEED" 65536 wl
"${TREE[@]}" list "$TMP/srv/export" >"$TMP/truth.tree"
echo "the trace implies $(wc -l <"$TMP/truth.tree") names:" \
    "$(cut -f2 "$TMP/truth.tree" | sort | uniq -c | tr -s ' \n' ' ')(type counts)," \
    "owners $(cut -f4 "$TMP/truth.tree" | sort -u | tr '\n' ' ')"
rm -rf "$TMP/srv/export"
read -r -a CAPPORTS <<<"$PORTS"
prep wl "$TMP/wl.pcap" "${CAPPORTS[@]}"
nclients=$(awk '{ print $3 }' "$TMP/wl.txt" | sort -u | wc -l)
nuids=$(grep -o ' cred=[0-9]*:[0-9]*' "$TMP/wl.txt" | cut -d: -f2 | sort -u | wc -l)
check "the capture is concurrent: $nclients clients (>= 3), $nuids uids (>= 2)" [ "$nclients" -ge 3 -a "$nuids" -ge 2 ]
for order in $ORDERS; do
    for sp in $SPEEDS; do
        replay wl "$order" "$sp" 99.9 || continue
        same_tree "wl, $order, speedup $sp: the final tree is the tree the trace implies" \
            "$TMP/truth.tree" "$TMP/wl-$order-$sp.tree"
    done
done

# 2. The real captures: thresholds, and the 4 replays leave one tree.
REAL=$SRC/../shared/captures/real
if compgen -G "$REAL/*.pcap.zst" >/dev/null; then
    i=0
    for cap in "$REAL"/*.pcap.zst; do
        name=real$i
        i=$((i + 1))
        echo "--- $name: $(basename "$cap")"
        prep "$name" "$cap"
        for order in $ORDERS; do
            for sp in $SPEEDS; do replay "$name" "$order" "$sp" 99.9; done
        done
        for t in "$name-fsdep-0" "$name-conservative-1" "$name-fsdep-1"; do
            [ -s "$TMP/$name-conservative-0.tree" ] && [ -s "$TMP/$t.tree" ] &&
                same_tree "$name: $t leaves the tree the conservative full-speed replay leaves" \
                    "$TMP/$name-conservative-0.tree" "$TMP/$t.tree"
        done
    done
else
    echo "NOTE no ../shared/captures/real/*.pcap.zst: the real-capture replays are skipped"
fi

# 3. 5% of the fresh capture's packets deleted.
"$DROP" --seed "$DROP_SEED" --drop-percent 5 "$TMP/wl.pcap" "$TMP/lossy.pcap" >"$TMP/drop.txt"
check "tbbt-pcapdrop deleted 5% of the packets" [ $? = 0 ]
cat "$TMP/drop.txt"
prep lossy "$TMP/lossy.pcap" "${CAPPORTS[@]}"
for order in $ORDERS; do
    for sp in $SPEEDS; do
        replay lossy "$order" "$sp" 99.5 || continue
        "${TREE[@]}" diff "$TMP/truth.tree" "$TMP/lossy-$order-$sp.tree" 0 | sed -n 's/^  trees differ/  NOTE lossy trees differ/p'
    done
done

echo "runtime $((SECONDS - T0)) s"
e2e_end
