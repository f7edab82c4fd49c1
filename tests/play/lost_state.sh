#!/bin/bash
# Lost state changes on a multi-user workload (issue 21): a fresh capture
# of the workload generator in which three users (uids 0, 1000, 1001, each
# with its own umask) share directories and chmod, chown and chgrp each
# other's files and directories, damaged as a site's capture loses packets:
# three drop seeds, each with 5% of the packets deleted uniformly and in
# bursts of 10 to 500 (tbbt-pcapdrop). Pass 2 repairs what later replies
# reveal (a lost chmod, chown, chgrp, link, rename, removal) and decides
# what lost replies got, and each trace is replayed in both orders, three
# times, each on a fresh server and image. Checked: at least 98.5% of all
# records match every time (73 traces of 14 kept captures measured
# 99.864-100% in conservative order on 2026-11-27 after that day's fixes,
# 72 at least 99.9%; the two traces below 99% seen that day, 97.8% and
# 98.65%, fixed; docs/validation.md; on 2026-11-26 98.5-100%, before that
# 94.5-100%).
# Issue 21's targets,
# printed as MISS lines while they are not met (not failures): 99.9% every
# time, and the three runs of one trace and order giving the same matched
# count (the result does not depend on how the server schedules pipelined
# requests).
# Printed: the repairs pass 2 made per rule, and every replay's figures.
# Knobs: TBBT_E2E_OPS (workload calls, default 3000), TBBT_E2E_SEED (the
# workload's seed), TBBT_LOST_SEEDS (drop seeds, default "11 12 13"),
# TBBT_KEEP (keep the directory: the captures, the traces and each run's
# JSON as NAME-ORDER-runN.json, for tbbt-play --fail-log replays).
# Usage (ctest): bash lost_state.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: lost_state.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: lost_state.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-3000}
SEED=${TBBT_E2E_SEED:-31}
MIN=98.5
TARGET=99.9

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
. "$SRC/tests/lib/replay.sh"

replay_setup
T0=$SECONDS
e2e_begin lost-state

# 1. The capture: shared directories, permissions changed among the users.
tbbt_ganesha_start "$TMP/srv" || { check "ganesha started" false; e2e_end; exit 1; }
tbbt_capture_run "$TMP/wl.pcap" 0 "$(tbbt_capture_nfs_filter)" "$WL" --quiet --clients 3 \
    --uids 0:0,1000:1000,1001:1001 --umask 022,002,077 --shared 2 --names mixed --max-io 65536 \
    --ops "$OPS" --seed "$SEED" --dir wl "$TBBT_NFS_URL" >"$TMP/workload.txt"
rc=$?
PORTS=(--port "$TBBT_NFS_PORT" --port "$TBBT_MNT_PORT")
tbbt_ganesha_stop "$TMP/srv"
rm -rf "$TMP/srv/export"
check "the workload ran under tcpdump" [ $rc = 0 ]
[ $rc = 0 ] || { e2e_end; exit 1; }
tail -2 "$TMP/workload.txt"

# rules FILE.json: pass 2's repairs, "rule failures inserted" per rule.
rules() {
    perl -MJSON::PP -e 'local $/; my $c = decode_json(<STDIN>)->{correct};
        printf "  pass 2: %d inserted (%.3f%% of the trace); %s; %d outcomes of overlapping calls the server " .
            "ran in the other order, %d of them sent so; %d lost replies, %d resolved\n", $c->{inserted},
            100 * $c->{inserted_share}, join(", ", map { "$_ $c->{rules}{$_}{inserted}" } sort keys %{$c->{rules}}),
            $c->{concurrent}, $c->{reordered}, $c->{lost}, $c->{lost_by_model} + $c->{lost_by_later};' <"$1"
}

# 2. The damaged traces, each replayed three times per order.
for dseed in ${TBBT_LOST_SEEDS:-11 12 13}; do
    for kind in uniform burst; do
        name=$kind$dseed
        if [ "$kind" = uniform ]; then
            args=(--drop-percent 5)
        else
            args=(--burst-percent 5 --burst-min 10 --burst-max 500)
        fi
        "$DROP" --seed "$dseed" "${args[@]}" "$TMP/wl.pcap" "$TMP/$name.pcap" >"$TMP/$name.drop" ||
            { check "$name: tbbt-pcapdrop ${args[*]}" false; continue; }
        echo "--- $name: $(cat "$TMP/$name.drop")"
        prep "$name" "$TMP/$name.pcap" "${PORTS[@]}" --summary-json "$TMP/$name.json"
        rules "$TMP/$name.json"
        for order in conservative fsdep; do
            got=()
            for run in 1 2 3; do
                replay "$name" "$order" 0 "$MIN" || continue
                read -r recs matched _ <<<"$(jtotals "$TMP/$name-$order-0.json")"
                cp "$TMP/$name-$order-0.json" "$TMP/$name-$order-run$run.json"
                got+=("$matched")
                target "$name, $order, run $run: $matched of $recs matched >= $TARGET%" \
                    awk -v m="$matched" -v r="$recs" -v t="$TARGET" 'BEGIN { exit !(r && 100 * m >= t * r) }'
            done
            target "$name, $order: three runs on fresh servers give one result (${got[*]} matched)" \
                [ "${#got[@]}" = 3 -a "${got[0]}" = "${got[1]:-x}" -a "${got[0]}" = "${got[2]:-y}" ]
        done
    done
done

echo "runtime $((SECONDS - T0)) s"
e2e_end
