#!/bin/bash
# SIGINT and SIGTERM in the middle of every command that writes results:
# tbbt-prep, tbbt-map, tbbt-check and tbbt-dump --text-in (each reading
# its input from a FIFO whose writer stops short of the end and waits, so
# the command is stopped mid-input on any machine), tbbt-augment (a large
# synthetic map), tbbt-split (only with a large trace: the bench's
# million-call capture, bench/make-capture.sh, or TBBT_SIGNALS_PCAP: split
# reads its trace twice, so it cannot read a FIFO), tbbt-init and
# tbbt-play (on nfs-ganesha). Each time:
#   - the exit code is 3;
#   - no output with its final name looks complete: a record file is absent
#     or fails to read (tbbt-check), a map is absent or lacks "# end N";
#   - no temporary file (NAME.tmp, NAME.tmp.PID) is left behind;
#   - tbbt-init's JSON says "complete": false, its marker "building", and no
#     manifest is beside the map; tbbt-play's JSON says partial.
# The server part skips alone when nfs-ganesha cannot run here.
# Usage (ctest): bash signals.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: signals.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: signals.sh BUILD_DIR SRC_DIR}
BIG=${TBBT_SIGNALS_PCAP:-$SRC/bench/cache/bench-1000000.pcap}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_begin signals
B=$BUILD
CAP=$SRC/traces/ganesha-libnfs-mixed.pcap.zst

# the inputs, made once without interruption
zstdcat "$CAP" >"$TMP/in.pcap"
"$B/transform/tbbt-prep" -q -o "$TMP/in.tbbt" "$TMP/in.pcap" || { check "tbbt-prep made the input" false; e2e_end; exit 1; }
"$B/transform/tbbt-prep" -q --no-map -o "$TMP/raw.tbbt" "$TMP/in.pcap"
"$B/tools/tbbt-dump" -o "$TMP/in.txt" "$TMP/in.tbbt"
check "the inputs were made" [ -s "$TMP/in.tbbt" -a -s "$TMP/in.hmap" -a -s "$TMP/in.txt" -a -s "$TMP/raw.tbbt" ]

# stall FILE FIFO: writes FILE but its last 100 bytes into the new FIFO,
# then holds it open: its reader waits mid-input until unstall
stall() {
    mkfifo "$2"
    { head -c $(($(stat -c %s "$1") - 100)) "$1"; exec sleep 600; } >"$2" &
    STALL=$!
}
unstall() { kill "$STALL" 2>/dev/null; wait "$STALL" 2>/dev/null; }

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
    stall "$TMP/in.pcap" "$TMP/prep-$sig.fifo"
    interrupt $sig 1 prep-$sig "$B/transform/tbbt-prep" -q -o out.tbbt "$TMP/prep-$sig.fifo"
    unstall
    check "prep-$sig: no complete record file" not_complete_rec "$TMP/prep-$sig/out.tbbt"
    check "prep-$sig: no complete map" not_complete_map "$TMP/prep-$sig/out.hmap"

    stall "$TMP/raw.tbbt" "$TMP/map-$sig.fifo"
    interrupt $sig 1 map-$sig "$B/hierarchy/tbbt-map" -q -m out.hmap -w out.tbbt "$TMP/map-$sig.fifo"
    unstall
    check "map-$sig: no complete map" not_complete_map "$TMP/map-$sig/out.hmap"
    check "map-$sig: no complete record file" not_complete_rec "$TMP/map-$sig/out.tbbt"

    interrupt $sig 0.5 augment-$sig "$B/hierarchy/tbbt-augment" -o out.hmap --total-objects 20000000 "$TMP/in.hmap"
    check "augment-$sig: no complete map" not_complete_map "$TMP/augment-$sig/out.hmap"

    stall "$TMP/in.tbbt" "$TMP/check-$sig.fifo"
    interrupt $sig 1 check-$sig "$B/tools/tbbt-check" -q -w out.tbbt "$TMP/check-$sig.fifo"
    unstall
    check "check-$sig: no complete record file" not_complete_rec "$TMP/check-$sig/out.tbbt"

    stall "$TMP/in.txt" "$TMP/dump-$sig.fifo"
    interrupt $sig 1 dump-$sig "$B/tools/tbbt-dump" --text-in -o out.tbbt "$TMP/dump-$sig.fifo"
    unstall
    check "dump-$sig: no complete record file" not_complete_rec "$TMP/dump-$sig/out.tbbt"

    stall "$TMP/in.tbbt" "$TMP/text-$sig.fifo"
    interrupt $sig 1 text-$sig "$B/tools/tbbt-dump" -o out.txt "$TMP/text-$sig.fifo"
    unstall
    check "text-$sig: no text output left (it would look like a shorter trace)" [ ! -e "$TMP/text-$sig/out.txt" ]
done

# tbbt-split, timed, on a large trace
if [ -r "$BIG" ]; then
    "$B/transform/tbbt-prep" -q -o "$TMP/big.tbbt" "$BIG"
    for sig in INT TERM; do
        interrupt $sig 0.3 split-$sig "$B/hierarchy/tbbt-split" -q -f -o out "$TMP/big.tbbt"
        check "split-$sig: no complete record file" eval 'not_complete_rec "$TMP/split-$sig/out.0.tbbt" && not_complete_rec "$TMP/split-$sig/out.1.tbbt"'
        check "split-$sig: no complete map" eval 'not_complete_map "$TMP/split-$sig/out.0.hmap" && not_complete_map "$TMP/split-$sig/out.1.hmap"'
    done
else
    echo "(tbbt-split not tried: $BIG absent; bench/make-capture.sh makes it)"
fi

# the server's commands
if ! tbbt_ganesha_usable 2>/dev/null; then
    echo "(nfs-ganesha cannot run here: tbbt-init and tbbt-play not tried)"
    e2e_end
    exit $?
fi
tbbt_ganesha_start "$TMP/srv" >/dev/null || { check "ganesha started" false; e2e_end; exit 1; }
SRV=(--nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT")
perl "$SRC/tests/lib/grid_hmap.pl" signals.sh 40 400 >"$TMP/m.hmap"
"$B/transform/tbbt-prep" -q -o "$TMP/s.tbbt" "$CAP"
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
