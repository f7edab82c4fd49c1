#!/bin/bash
# tests/lib/replay.sh -- replay a prepared trace on a fresh nfs-ganesha and
# judge it by the share of ALL its records that got their traced status
# (sourced, bash, after ganesha.sh, capture.sh and e2e.sh).
#
#   prep NAME PCAP [TBBT-PREP OPTIONS]   tbbt-prep into $TMP/NAME.tbbt/.hmap,
#                     the records' text in $TMP/NAME.txt; sets NRECS[NAME]
#   replay NAME ORDER SPEEDUP MIN%       a fresh server ($TMP/srv), tbbt-init
#                     of NAME.hmap, tbbt-play of NAME.tbbt (SPEEDUP 0: full
#                     speed): checks the share matched against MIN%, prints
#                     "figures ...", leaves $TMP/NAME-ORDER-SPEEDUP.json and
#                     .tree; returns 1 when the replay could not run
#   jtotals FILE      "records matched mismatched skipped timeouts
#                     not_replayable ops_per_s partial" of a tbbt-play JSON
#   jmismatches FILE  one line per procedure that lost records
#   replay_setup      sets PREP INIT PLAY DUMP WL DROP (the programs in $BUILD)
#                     and TREE (tree_compare.pl, as an array); exits 77
#                     (skipped, saying why) when one is missing, or tcpdump,
#                     perl's JSON::PP or a runnable nfs-ganesha
# The share is matched / totals.records of tbbt-play's JSON: every record
# the trace holds is in the denominator, so skipped requests, timeouts,
# mismatches and records the player would not send all count against it;
# totals.records is checked against the record count tbbt-dump gives.

replay_setup() {
    e2e_require tcpdump perl
    PREP=$BUILD/transform/tbbt-prep
    INIT=$BUILD/hierarchy/tbbt-init
    PLAY=$BUILD/player/tbbt-play
    DUMP=$BUILD/tools/tbbt-dump
    WL=$BUILD/tests/tools/tbbt-workload
    DROP=$BUILD/tests/tools/tbbt-pcapdrop
    TREE=(perl "$SRC/tests/play/tree_compare.pl")
    local b
    for b in "$PREP" "$INIT" "$PLAY" "$DUMP" "$WL" "$DROP"; do
        [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
    done
    perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }
}

# jtotals FILE: "records matched mismatched skipped timeouts not_replayable
# ops_per_s partial" from a tbbt-play JSON document.
jtotals() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $t = $j->{totals};
        print join(" ", (map { $t->{$_} } qw(records matched mismatched skipped timeouts not_replayable)),
            sprintf("%.0f", $t->{ops_per_s}), $j->{meta}{partial} ? 1 : 0), "\n"' <"$1"
}

# jmismatches FILE: one line per procedure that lost records: its counts and
# its most frequent (traced, got) status pairs.
jmismatches() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
        for my $p (@{$j->{procedures}}) {
            next if $p->{matched} == $p->{count};
            printf "    v%d %-12s %d of %d matched, %d mismatched, %d skipped, %d timeouts; traced/got: %s\n",
                $p->{vers}, $p->{proc}, $p->{matched}, $p->{count}, $p->{mismatched}, $p->{skipped},
                $p->{timeouts}, join(", ", map { "$_->{traced}/$_->{got} x$_->{n}" } @{$p->{mismatches}});
        }' <"$1"
}

# fresh_server: stop the server of $TMP/srv, empty its export, start it again.
fresh_server() {
    tbbt_ganesha_stop "$TMP/srv"
    rm -rf "$TMP/srv/export"
    tbbt_ganesha_start "$TMP/srv"
}

# init_image HMAP: tbbt-init's image of HMAP on the running server (the
# manifest next to HMAP). One retry (--replace) after a second: a
# just-started server was seen to hang up tbbt-init's first MOUNT connection
# ("Socket failed with POLLHUP") while other servers were starting.
init_image() {
    local args=(-q --map "$1" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$TBBT_EXPORT")
    "$INIT" "${args[@]}" 2>"$TMP/init.err" && return 0
    echo "NOTE tbbt-init failed ($(head -1 "$TMP/init.err")); retrying once"
    sleep 1
    "$INIT" --replace "${args[@]}"
}

# replay NAME ORDER SPEEDUP MIN%: a fresh server, tbbt-init of NAME.hmap,
# tbbt-play of NAME.tbbt (SPEEDUP 0: full speed); checks the share of all
# records matched against MIN% and leaves the image's listing in
# $TMP/NAME-ORDER-SPEEDUP.tree. Returns 1 when the replay could not run.
replay() {
    local name=$1 order=$2 sp=$3 min=$4 tag="$1-$2-$3" timing="full speed" rc
    local spopt=()
    [ "$sp" != 0 ] && spopt=(--speedup "$sp") && timing="timestamps x$sp"
    local what="$name, $order, $timing"
    fresh_server || { check "$what: the server started" false; return 1; }
    init_image "$TMP/$name.hmap"
    rc=$?
    check "$what: tbbt-init built the image" [ $rc = 0 ]
    [ $rc = 0 ] || return 1
    "$PLAY" -q --order "$order" "${spopt[@]}" --nfs-port "$TBBT_NFS_PORT" --json "$TMP/$tag.json" \
        "$TMP/$name.tbbt" "127.0.0.1:$TBBT_EXPORT"
    rc=$?
    tbbt_ganesha_stop "$TMP/srv"
    check "$what: tbbt-play exit 0" [ $rc = 0 ]
    [ -s "$TMP/$tag.json" ] || { check "$what: tbbt-play wrote its JSON" false; return 1; }
    local recs matched mism skip tmo nrep ops partial
    read -r recs matched mism skip tmo nrep ops partial < <(jtotals "$TMP/$tag.json")
    local pct
    pct=$(awk -v m="$matched" -v r="$recs" 'BEGIN { printf "%.3f", r ? 100 * m / r : 0 }')
    echo "figures $what: $recs records, $matched matched = $pct% of all records;" \
        "$mism mismatched ($tmo timeouts), $skip skipped, $nrep not replayable; $ops ops/s"
    check "$what: every record of the trace replayed ($recs of ${NRECS[$name]}), not partial" \
        [ "$recs" = "${NRECS[$name]}" -a "$partial" = 0 -a $((matched + mism + skip + nrep)) = "$recs" ]
    check "$what: $pct% of all records matched >= $min%" \
        awk -v m="$matched" -v r="$recs" -v min="$min" 'BEGIN { exit !(r > 0 && 100 * m >= min * r) }'
    [ "$matched" = "$recs" ] || jmismatches "$TMP/$tag.json"
    "${TREE[@]}" list "$TMP/srv/export/tbbt-run/clone.0" >"$TMP/$tag.tree"
}

# prep NAME PCAP [OPTIONS]: see the header.
declare -A NRECS
prep() {
    local name=$1 pcap=$2
    shift 2
    "$PREP" -q "$@" -o "$TMP/$name.tbbt" "$pcap"
    local rc=$?
    check "tbbt-prep $name: records and map written" [ $rc = 0 -a -s "$TMP/$name.tbbt" -a -s "$TMP/$name.hmap" ]
    "$DUMP" "$TMP/$name.tbbt" >"$TMP/$name.txt"
    NRECS[$name]=$(wc -l <"$TMP/$name.txt")
    echo "$name: ${NRECS[$name]} records"
}

