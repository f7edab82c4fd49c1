#!/bin/bash
# SIGINT and SIGTERM in the middle of every command that writes results:
# tbbt-prep, tbbt-map, tbbt-augment, tbbt-split, tbbt-check, tbbt-dump
# --text-in (on the bench's million-record capture, big enough to be mid
# run), tbbt-init and tbbt-play (on nfs-ganesha). Each time:
#   - the exit code is 3;
#   - no output with its final name looks complete: a record file is absent
#     or fails to read (tbbt-check), a map is absent or lacks "# end N";
#   - no temporary file (NAME.tmp, NAME.tmp.PID) is left behind;
#   - tbbt-init's JSON says "complete": false, its marker "building", and no
#     manifest is beside the map; tbbt-play's JSON says partial.
# Skips (77) when the bench's capture (bench/cache/bench-1000000.pcap of
# the main tree, or TBBT_SIGNALS_PCAP) is absent; the server part skips
# alone when nfs-ganesha cannot run here.
# Usage (ctest): bash signals.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: signals.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: signals.sh BUILD_DIR SRC_DIR}
PCAP=${TBBT_SIGNALS_PCAP:-$SRC/../main/bench/cache/bench-1000000.pcap}
[ -r "$PCAP" ] || { echo "SKIP: $PCAP absent (make it with bench/, or set TBBT_SIGNALS_PCAP)"; exit 77; }
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_begin signals
B=$BUILD

# the inputs, made once without interruption
"$B/transform/tbbt-prep" -q -o "$TMP/in.tbbt" "$PCAP" || { check "tbbt-prep made the input" false; e2e_end; exit 1; }
"$B/tools/tbbt-dump" -o "$TMP/in.txt" "$TMP/in.tbbt"
check "the inputs were made" [ -s "$TMP/in.tbbt" -a -s "$TMP/in.hmap" -a -s "$TMP/in.txt" ]

# interrupt SIG DELAY NAME CMD...: runs CMD in $TMP/NAME (its own directory),
# sends SIG after DELAY seconds, checks the exit code 3 and that no
# temporary is left; the outputs' checks are the caller's
interrupt() {
    local sig=$1 delay=$2 name=$3 pid rc
    shift 3
    mkdir -p "$TMP/$name"
    (cd "$TMP/$name" && exec "$@") >"$TMP/$name.out" 2>&1 &
    pid=$!
    sleep "$delay"
    kill -"$sig" $pid 2>/dev/null || echo "($name had ended before the signal)"
    wait $pid
    rc=$?
    check "$name: exit 3 on SIG$sig (got $rc: $(tail -1 "$TMP/$name.out"))" [ $rc = 3 ]
    check "$name: no temporary file left" [ -z "$(find "$TMP/$name" -name '*.tmp*')" ]
}
# not_complete_rec FILE: absent, or not a readable record file
not_complete_rec() { [ ! -e "$1" ] || ! "$B/tools/tbbt-check" -q "$1" >/dev/null 2>&1; }
# not_complete_map FILE: absent, or without its "# end N" line
not_complete_map() { [ ! -e "$1" ] || ! tail -1 "$1" | grep -q '^# end [0-9]*$'; }

for sig in INT TERM; do
    interrupt $sig 1.5 prep-$sig "$B/transform/tbbt-prep" -q -o out.tbbt "$PCAP"
    check "prep-$sig: no complete record file" not_complete_rec "$TMP/prep-$sig/out.tbbt"
    check "prep-$sig: no complete map" not_complete_map "$TMP/prep-$sig/out.hmap"

    interrupt $sig 0.3 map-$sig "$B/hierarchy/tbbt-map" -q -m out.hmap -w out.tbbt "$TMP/in.tbbt"
    check "map-$sig: no complete map" not_complete_map "$TMP/map-$sig/out.hmap"
    check "map-$sig: no complete record file" not_complete_rec "$TMP/map-$sig/out.tbbt"

    interrupt $sig 0.5 augment-$sig "$B/hierarchy/tbbt-augment" -o out.hmap --total-objects 20000000 "$TMP/in.hmap"
    check "augment-$sig: no complete map" not_complete_map "$TMP/augment-$sig/out.hmap"

    interrupt $sig 0.3 split-$sig "$B/hierarchy/tbbt-split" -q -f -o out "$TMP/in.tbbt"
    check "split-$sig: no complete record file" eval 'not_complete_rec "$TMP/split-$sig/out.0.tbbt" && not_complete_rec "$TMP/split-$sig/out.1.tbbt"'
    check "split-$sig: no complete map" eval 'not_complete_map "$TMP/split-$sig/out.0.hmap" && not_complete_map "$TMP/split-$sig/out.1.hmap"'

    interrupt $sig 0.2 check-$sig "$B/tools/tbbt-check" -q -w out.tbbt "$TMP/in.tbbt"
    check "check-$sig: no complete record file" not_complete_rec "$TMP/check-$sig/out.tbbt"

    interrupt $sig 0.5 dump-$sig "$B/tools/tbbt-dump" --text-in -o out.tbbt "$TMP/in.txt"
    check "dump-$sig: no complete record file" not_complete_rec "$TMP/dump-$sig/out.tbbt"
done

# the server's commands
if ! tbbt_ganesha_usable 2>/dev/null; then
    echo "(nfs-ganesha cannot run here: tbbt-init and tbbt-play not tried)"
    e2e_end
    exit $?
fi
tbbt_ganesha_start "$TMP/srv" >/dev/null || { check "ganesha started" false; e2e_end; exit 1; }
SRV=(--nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT")
perl -e '
    print "# tbbt-hmap 1\n# source signals.sh\n1 0 0 - dir 4096 0755 0 0 r \".\" -\n";
    my ($id, $n) = (2, 1);
    for my $d (0 .. 39) {
        my $did = $id++;
        print "$did 1 0 - dir 4096 0755 0 0 t \"d$d\" -\n";
        $n++;
        for my $f (0 .. 399) { print $id++, " $did 0 - reg 4096 0644 0 0 t \"d$d/f$f\" -\n"; $n++ }
    }
    print "# end $n\n";' >"$TMP/m.hmap"
"$B/transform/tbbt-prep" -q -o "$TMP/s.tbbt" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst"
for sig in INT TERM; do
    rm -f "$TMP/m.manifest"
    interrupt $sig 1 init-$sig "$B/hierarchy/tbbt-init" -q --replace "${SRV[@]}" --json out.json --map "$TMP/m.hmap" \
        "127.0.0.1:$TBBT_EXPORT"
    check "init-$sig: JSON says not complete" grep -q '^{"complete":false,"error":"interrupted' "$TMP/init-$sig/out.json"
    check "init-$sig: the marker says building" grep -q '"state":"building"' "$TBBT_EXPORT_DIR/tbbt-run/.tbbt-run"
    check "init-$sig: no manifest beside the map" [ ! -e "$TMP/m.manifest" ]

    "$B/hierarchy/tbbt-init" -q --replace "${SRV[@]}" --map "$TMP/s.hmap" "127.0.0.1:$TBBT_EXPORT"
    interrupt $sig 2 play-$sig "$B/player/tbbt-play" --speedup 0.04 --no-live --nfs-port "$TBBT_NFS_PORT" --json out.json \
        "$TMP/s.tbbt" "127.0.0.1:$TBBT_EXPORT"
    check "play-$sig: JSON says partial" perl -MJSON::PP -e 'local $/; exit !decode_json(<>)->{meta}{partial}' \
        "$TMP/play-$sig/out.json"
done
e2e_end
