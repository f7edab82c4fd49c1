#!/bin/bash
# Outputs that are not regular files: every command that writes a file,
# given as its output a character device (a private copy of /dev/null,
# made with mknod when run as root), a FIFO with a reader, or a symlink to
# a regular file. Each time:
#   - the command succeeds;
#   - the name is still what it was (device, FIFO, symlink): a command that
#     writes NAME.tmp and renames it over NAME replaced the device with a
#     plain file -- run with "--json /dev/null" as root, that turned the
#     machine's /dev/null into a regular file and no daemon (rpcbind) could
#     start afterwards;
#   - what was written reached the FIFO's reader or the symlink's target;
#   - no temporary file is left in the directory.
# No server needed (tbbt-play runs --simulate).
# Usage (ctest): bash special_outputs.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: special_outputs.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: special_outputs.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_begin special-outputs
B=$BUILD
S=$SRC/scripts
export TBBT_BUILD=$BUILD

# inputs, written as plain files
"$B/transform/tbbt-prep" -q -o "$TMP/in.tbbt" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst" ||
    { check "tbbt-prep made the input" false; e2e_end; exit 1; }
"$B/transform/tbbt-prep" -q --no-map -o "$TMP/raw.tbbt" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst"
"$B/tools/tbbt-dump" -o "$TMP/in.txt" "$TMP/in.tbbt"
check "the inputs were made" [ -s "$TMP/in.tbbt" -a -s "$TMP/in.hmap" -a -s "$TMP/in.txt" -a -s "$TMP/raw.tbbt" ]

KINDS="fifo symlink"
if mknod "$TMP/probe" c 1 3 2>/dev/null; then KINDS="device $KINDS"; else echo "(not root: no device case)"; fi
rm -f "$TMP/probe"

declare -A READER # FIFO reader's pid -> its FIFO

# make KIND PATH: makes PATH a KIND; a FIFO gets a reader copying into
# PATH.got, a symlink points at PATH.target
make_out() {
    case $1 in
    device) mknod "$2" c 1 3 ;;
    fifo)
        mkfifo "$2"
        cat "$2" >"$2.got" &
        READER[$!]=$2
        ;;
    symlink) ln -s "$(basename "$2").target" "$2" ;;
    esac
}

# kept KIND PATH: PATH is still a KIND, and what was written reached it
kept() {
    case $1 in
    device) [ -c "$2" ] ;;
    fifo) [ -p "$2" ] && [ -s "$2.got" ] ;;
    symlink) [ -L "$2" ] && [ -s "$2.target" ] ;;
    esac
}

# release_readers: ends every FIFO reader: one whose FIFO the command never
# opened is released by opening it for writing; one stuck on a FIFO that
# was renamed over (the bug this test is about) is killed
release_readers() {
    local p i
    for p in "${!READER[@]}"; do
        kill -0 "$p" 2>/dev/null && [ -p "${READER[$p]}" ] && timeout 2 bash -c ": >'${READER[$p]}'" 2>/dev/null
        for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
        unset "READER[$p]"
    done
}

# run KIND NAME OUTS CMD...: in a directory of its own, makes each of OUTS
# (names, comma-separated) a KIND, runs CMD there and checks the outputs
run() {
    local kind=$1 name=$2 outs=$3 d o rc
    shift 3
    d=$TMP/$kind-$name
    mkdir -p "$d"
    for o in ${outs//,/ }; do make_out "$kind" "$d/$o"; done
    (cd "$d" && exec timeout 120 "$@") >"$d.out" 2>&1
    rc=$?
    release_readers
    check "$kind $name: exit 0 (got $rc: $(tail -1 "$d.out"))" [ $rc = 0 ]
    for o in ${outs//,/ }; do check "$kind $name: $o is still a $kind and got the output" kept "$kind" "$d/$o"; done
    check "$kind $name: no temporary file left" [ -z "$(find "$d" -name '*.tmp*' -o -name '.*tmp*' -o -name 'tbbt-out-*')" ]
}

for k in $KINDS; do
    run $k prep rec,map,sum "$B/transform/tbbt-prep" -q -o rec -m map --summary-json sum \
        "$SRC/traces/ganesha-libnfs-mixed.pcap.zst"
    run $k map map,rec,json "$B/hierarchy/tbbt-map" -q -m map -w rec --json json "$TMP/raw.tbbt"
    run $k augment map,json "$B/hierarchy/tbbt-augment" -q -o map --json json --total-objects 500 "$TMP/in.hmap"
    run $k check rec,json "$B/tools/tbbt-check" -q -w rec --json json "$TMP/in.tbbt"
    run $k dump txt "$B/tools/tbbt-dump" -o txt "$TMP/in.tbbt"
    run $k text-in rec "$B/tools/tbbt-dump" --text-in -o rec "$TMP/in.txt"
    run $k simulate json "$B/player/tbbt-play" --simulate --sim-windows 100 --json json "$TMP/in.tbbt"
    run $k ellard out perl "$S/tbbt-ellard" -q -o out "$SRC/tests/data/ellard-quirks.txt"
    run $k anonymize out,map perl "$S/tbbt-anonymize" --key-string k -o out --map "$TMP/in.hmap" --map-out map \
        "$TMP/in.txt"
    run $k filter out perl "$S/tbbt-filter" --raw --proc lookup -o out "$TMP/in.txt"
    run $k merge out perl "$S/tbbt-merge" -q -o out "$TMP/in.txt" "$TMP/in.txt"
done
e2e_end
