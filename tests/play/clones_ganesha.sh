#!/bin/bash
# End-to-end for tbbt-play --clones on nfs-ganesha, with the bundled trace
# (traces/ganesha-libnfs-mixed.pcap.zst, 1.6k records, 0.22 s):
#   1. a single run: tbbt-init, tbbt-play (conservative, full speed); its
#      per-procedure counts, matched count and the tree it leaves in
#      clone.0 (tree_compare.pl: paths, types, modes, owners, links, sizes)
#      are the reference;
#   2. tbbt-init --clones 3, tbbt-play --clones 3 in both orders: every
#      procedure's count and the matched total are 3x the single run's,
#      each clone (per_clone in the JSON) has the single run's records and
#      matched counts, each clone's final tree equals the single run's, and
#      (--send-log) each clone got every record once; in conservative order
#      in trace order;
#   3. --clone 1 --clones 2 on a 3-clone image (a share of the clones, as an
#      MPI rank plays): clones 1 and 2 end as the single run's tree, clone 0
#      is left as tbbt-init built it;
#   4. --clones 4 --speedup 3, conservative: 4x the single run's totals, each
#      clone's requests sent in trace order.
# Usage (ctest): bash clones_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: clones_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: clones_ganesha.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_require perl
PREP=$BUILD/transform/tbbt-prep INIT=$BUILD/hierarchy/tbbt-init PLAY=$BUILD/player/tbbt-play
TREE=(perl "$SRC/tests/play/tree_compare.pl")
for b in "$PREP" "$INIT" "$PLAY"; do
    [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done
perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }
e2e_begin play-clones

"$PREP" -q -o "$TMP/s.tbbt" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst"
check "tbbt-prep wrote the records and the map" [ -s "$TMP/s.tbbt" -a -s "$TMP/s.hmap" ]
RUN=$TMP/srv/export/tbbt-run

# image N: a fresh server and tbbt-init --clones N of the trace's map.
image() {
    tbbt_ganesha_stop "$TMP/srv"
    rm -rf "$TMP/srv/export"
    tbbt_ganesha_start "$TMP/srv" >/dev/null || return 1
    "$INIT" -q --clones "$1" --map "$TMP/s.hmap" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT" \
        "127.0.0.1:$TBBT_EXPORT"
}

# play TAG OPTIONS...: tbbt-play into $TMP/TAG.json and $TMP/TAG.log (the
# send log), then stops the server.
play() {
    local tag=$1
    shift
    "$PLAY" -q --no-live "$@" --send-log "$TMP/$tag.log" --nfs-port "$TBBT_NFS_PORT" --json "$TMP/$tag.json" \
        "$TMP/s.tbbt" "127.0.0.1:$TBBT_EXPORT"
    local rc=$?
    tbbt_ganesha_stop "$TMP/srv"
    return $rc
}

# counts FILE: "vers proc count matched" per procedure, then "total
# records matched", then "clone C records sent matched failed skipped" per
# clone, from a tbbt-play JSON document.
counts() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
        print "$_->{vers} $_->{proc} $_->{count} $_->{matched}\n" for @{$j->{procedures}};
        print "total $j->{totals}{records} $j->{totals}{matched} clones $j->{meta}{clones} from $j->{meta}{clone}\n";
        print "clone $_->{clone} $_->{records} $_->{sent} $_->{matched} $_->{failed} $_->{skipped}\n"
            for @{$j->{per_clone}}' <"$1"
}

# scaled N FILE: the single run's procedure lines and totals, counts x N.
scaled() {
    awk -v n="$1" '$1 == "total" { print "total", n * $2, n * $3; next }
        $1 != "clone" { print $1, $2, n * $3, n * $4 }' "$2"
}

# same_counts WHAT N TAG: TAG's per-procedure counts and totals are N times
# the single run's; each of its clones has the single run's records and
# matched counts (and sent each of them).
same_counts() {
    local what=$1 n=$2 tag=$3
    counts "$TMP/$tag.json" >"$TMP/$tag.counts"
    check "$what: per-procedure counts and matched are ${n}x the single run's" \
        diff <(scaled "$n" "$TMP/single.counts") \
        <(grep -v '^clone' "$TMP/$tag.counts" | sed 's/ clones.*//')
    read -r _ recs matched _ <<<"$(grep '^total' "$TMP/single.counts")"
    local bad
    bad=$(awk -v r="$recs" -v m="$matched" '$1 == "clone" && ($3 != r || $4 != r || $5 != m)' "$TMP/$tag.counts")
    check "$what: $n clones, each $recs records sent, $matched matched ($(grep -c '^clone' "$TMP/$tag.counts") listed)" \
        [ -z "$bad" -a "$(grep -c '^clone' "$TMP/$tag.counts")" = "$n" ]
    grep '^clone\|^total' "$TMP/$tag.counts" | sed 's/^/    /'
}

# in_order TAG CLONE...: each clone's requests in the send log are records
# 0, 1, 2, ... in trace order, each once.
in_order() {
    local tag=$1 c
    shift
    for c in "$@"; do
        awk -v c="$c" -v want="$NREC" 'BEGIN { n = 0 } $1 == c { if ($2 != n) exit 1; n++ } END { exit n != want }' \
            "$TMP/$tag.log" ||
            return 1
    done
}

# each_once TAG CLONE...: each clone sent every record once (any order).
each_once() {
    local tag=$1 c
    shift
    for c in "$@"; do
        [ "$(awk -v c="$c" '$1 == c { print $2 }' "$TMP/$tag.log" | sort -n | uniq | wc -l)" = "$NREC" ] &&
            [ "$(awk -v c="$c" '$1 == c' "$TMP/$tag.log" | wc -l)" = "$NREC" ] || return 1
    done
}

# 1. the single run
image 1
check "tbbt-init built one clone" [ $? = 0 ]
"${TREE[@]}" list "$RUN/clone.0" >"$TMP/init.tree"
play single --order conservative
check "single run: tbbt-play exit 0" [ $? = 0 ]
"${TREE[@]}" list "$RUN/clone.0" >"$TMP/single.tree"
counts "$TMP/single.json" >"$TMP/single.counts"
read -r _ NREC SMATCHED _ <<<"$(grep '^total' "$TMP/single.counts")"
echo "single run: $NREC records, $SMATCHED matched; $(wc -l <"$TMP/single.tree") names in the final tree"
check "single run: records sent (send log)" [ "$(wc -l <"$TMP/single.log")" = "$NREC" -a "$NREC" -gt 1000 ]
differ() { ! "${TREE[@]}" diff "$1" "$2" 0 >/dev/null; }
check "single run: the trace changes the tree" differ "$TMP/init.tree" "$TMP/single.tree"

# 2. three clones, both orders
for order in conservative fsdep; do
    image 3
    check "$order: tbbt-init --clones 3 built three clones" [ $? = 0 -a -d "$RUN/clone.2" ]
    play "c3-$order" --clones 3 --order "$order"
    check "$order: tbbt-play --clones 3 exit 0" [ $? = 0 ]
    same_counts "$order, 3 clones" 3 "c3-$order"
    for c in 0 1 2; do
        "${TREE[@]}" list "$RUN/clone.$c" >"$TMP/c3-$order-$c.tree"
        check "$order: clone $c's final tree equals the single run's" \
            "${TREE[@]}" diff "$TMP/single.tree" "$TMP/c3-$order-$c.tree"
    done
    check "$order: each clone sent every record once (send log)" each_once "c3-$order" 0 1 2
done
check "conservative: each clone sent in trace order" in_order c3-conservative 0 1 2

# 3. a share of the clones: 1 and 2 of 3
image 3
check "share: tbbt-init --clones 3" [ $? = 0 ]
play share --clone 1 --clones 2 --order fsdep
check "share: tbbt-play --clone 1 --clones 2 exit 0" [ $? = 0 ]
same_counts "share (clones 1, 2)" 2 share
check "share: the JSON says clones 2 from clone 1, per_clone 1 and 2" \
    [ "$(grep -c '^clone [12] ' "$TMP/share.counts")" = 2 -a -n "$(grep 'clones 2 from 1$' "$TMP/share.counts")" ]
for c in 1 2; do
    "${TREE[@]}" list "$RUN/clone.$c" >"$TMP/share-$c.tree"
    check "share: clone $c's final tree equals the single run's" \
        "${TREE[@]}" diff "$TMP/single.tree" "$TMP/share-$c.tree"
done
"${TREE[@]}" list "$RUN/clone.0" >"$TMP/share-0.tree"
check "share: clone 0 is left as tbbt-init built it" "${TREE[@]}" diff "$TMP/init.tree" "$TMP/share-0.tree"

# 4. combined: 4 clones at speedup 3
image 4
check "combined: tbbt-init --clones 4" [ $? = 0 ]
play combined --clones 4 --speedup 3 --order conservative
check "combined: tbbt-play --clones 4 --speedup 3 exit 0" [ $? = 0 ]
same_counts "combined (4 clones, speedup 3)" 4 combined
check "combined: each clone sent in trace order" in_order combined 0 1 2 3

e2e_end
