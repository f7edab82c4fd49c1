#!/bin/bash
# Data safety on nfs-ganesha: whatever a trace or a map says, tbbt-init
# and tbbt-play create, change and remove nothing outside the run
# directory.
#
# A hand-written map whose entries try to leave RUN/clone.0: a directory
# named ".." with a file under it, a file named "..", an entry named ".",
# beside ordinary entries. The export holds a neighbour directory
# (precious/: files, a subdirectory, a symbolic link) and a file at its top.
#   - tbbt-init exits 0, makes the ordinary entries, and reports the four
#     refused entries (text and JSON "refused": 4);
#   - nothing outside RUN changed: a listing of the export outside RUN
#     (paths, types, sizes, modes, owners, mtimes, contents' checksums) is
#     identical before and after; nothing named like a refused entry exists
#     anywhere in the export.
# Then a hand-written trace on that image that climbs out: LOOKUP ".." of
# the image root and ".." again above it, then a create, a remove of the
# export's top file x and a rename of d/f into what those lookups found;
# a create named "../y" and a rename to "../../g2"; beside them ordinary
# records (LOOKUP ".." of d, which stays inside, a create in d, a remove).
# tbbt-play, in both orders:
#   - exits 0, refuses the three records whose names leave the clone
#     (JSON totals.refused 3, the text report says so) and sends none of
#     the records that need the handles they would have revealed;
#   - matches the three ordinary records (d/ok made, h removed);
#   - nothing outside RUN changed (the same listing as before tbbt-init):
#     x is still there, d/f and g are where they were, and RUN holds only
#     the clone, the manifest and the marker.
# Usage (ctest): bash escape_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: escape_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: escape_ganesha.sh BUILD_DIR SRC_DIR}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require perl
INIT=$BUILD/hierarchy/tbbt-init
[ -x "$INIT" ] || { echo "SKIP: $INIT not built"; exit 77; }
perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }

e2e_begin safety-escape

# snap DIR: every path under DIR but RUN (and DIR itself, whose mtime
# RUN's creation moves), with type, size, mode, owner,
# mtime and the content's checksum.
snap() {
    (cd "$1" && find . -mindepth 1 -path ./RUN -prune -o -print0 | sort -z | while IFS= read -r -d '' p; do
        if [ -f "$p" ] && [ ! -L "$p" ]; then s=$(md5sum <"$p" | cut -c1-32); else s=-; fi
        stat -c "%n %F %s %a %u:%g %Y $s" "$p"
    done)
}

tbbt_ganesha_start "$TMP/srv" || { echo "FAIL: ganesha did not start"; exit 1; }
EXP=$TBBT_EXPORT_DIR
mkdir -p "$EXP/precious/sub"
echo "keep me" >"$EXP/precious/notes.txt"
head -c 100000 /dev/urandom >"$EXP/precious/sub/data.bin"
ln -s notes.txt "$EXP/precious/link"
echo top >"$EXP/x"
snap "$EXP" >"$TMP/before"

cat >"$TMP/evil.hmap" <<'MAP'
# tbbt-hmap 1
1 0 0 - dir - 0755 0 0 r "." -
2 1 0 - dir - 0755 0 0 t "d" -
3 2 0 - reg 10 0644 0 0 t "d/f" -
4 1 0 - dir - 0755 0 0 t ".." -
5 4 0 - reg 20 0644 0 0 t "../x" -
6 2 0 - reg 30 0644 0 0 t "d/.." -
7 2 0 - reg 40 0644 0 0 t "d/." -
8 1 0 - reg 50 0644 0 0 t "g" -
20 1 0 - reg 60 0644 0 0 t "h" -
# end 9
MAP
"$INIT" --run-dir RUN --map "$TMP/evil.hmap" --json "$TMP/init.json" --nfs-port "$TBBT_NFS_PORT" \
    --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$TBBT_EXPORT" >"$TMP/init.out" 2>&1
rc=$?
cat "$TMP/init.out"
check "tbbt-init finishes (exit 0) on a map with entries that climb out" [ $rc = 0 ]
refused=$(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{refused}' <"$TMP/init.json" 2>/dev/null)
check "the four entries that climb out or are not one name are refused and counted (JSON refused=$refused)" \
    [ "$refused" = 4 ]
check "the text report says so" grep -q "^Refused: 4 map entries" "$TMP/init.out"
check "the ordinary entries were made" test -d "$EXP/RUN/clone.0/d" -a -f "$EXP/RUN/clone.0/d/f" \
    -a "$(stat -c %s "$EXP/RUN/clone.0/g" 2>/dev/null)" = 50
snap "$EXP" >"$TMP/after"
check "nothing outside RUN changed (listing, modes, owners, mtimes, contents)" cmp -s "$TMP/before" "$TMP/after"
[ -s "$TMP/before" ] || check "the listing is not empty" false
check "x at the export's top is still the neighbour's file" [ "$(cat "$EXP/x")" = top ]
n=$(find "$EXP" -type f \( -size 20c -o -size 30c -o -size 40c \) | wc -l)
check "no refused entry (their sizes 20, 30, 40 bytes) was made anywhere on the export ($n)" [ "$n" = 0 ]

PLAY=$BUILD/player/tbbt-play DUMP=$BUILD/tools/tbbt-dump
cat >"$TMP/evil.txt" <<'TRACE'
100.000000000 100.000100000 127.0.0.1:700 127.0.0.1:2049 0x00000001 v3 lookup 0 T cred=1:0:0 dir=1 name=".." newobj=9 type=2
100.001000000 100.001100000 127.0.0.1:700 127.0.0.1:2049 0x00000002 v3 lookup 0 T cred=1:0:0 dir=9 name=".." newobj=14 type=2
100.002000000 100.002100000 127.0.0.1:700 127.0.0.1:2049 0x00000003 v3 create 0 T cred=1:0:0 dir=14 name="evil" createhow=0 set_mode=420 newobj=10 type=1
100.003000000 100.003100000 127.0.0.1:700 127.0.0.1:2049 0x00000004 v3 remove 0 T cred=1:0:0 dir=14 name="x"
100.004000000 100.004100000 127.0.0.1:700 127.0.0.1:2049 0x00000005 v3 rename 0 T cred=1:0:0 dir=2 name="f" dir2=14 name2="stolen" victim=3
100.005000000 100.005100000 127.0.0.1:700 127.0.0.1:2049 0x00000006 v3 create 0 T cred=1:0:0 dir=1 name="../y" createhow=0 set_mode=420 newobj=11 type=1
100.006000000 100.006100000 127.0.0.1:700 127.0.0.1:2049 0x00000007 v3 rename 0 T cred=1:0:0 dir=1 name="g" dir2=2 name2="../../g2" victim=8
100.007000000 100.007100000 127.0.0.1:700 127.0.0.1:2049 0x00000008 v3 lookup 0 T cred=1:0:0 dir=2 name=".." newobj=1 type=2
100.008000000 100.008100000 127.0.0.1:700 127.0.0.1:2049 0x00000009 v3 create 0 T cred=1:0:0 dir=2 name="ok" createhow=0 set_mode=420 newobj=13 type=1
100.009000000 100.009100000 127.0.0.1:700 127.0.0.1:2049 0x0000000a v3 remove 0 T cred=1:0:0 dir=1 name="h" victim=20
TRACE
"$DUMP" --text-in -o "$TMP/evil.tbbt" "$TMP/evil.txt" || check "the trace converts" false
for order in conservative fsdep; do
    "$INIT" -q --replace --run-dir RUN --map "$TMP/evil.hmap" --nfs-port "$TBBT_NFS_PORT" \
        --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$TBBT_EXPORT" >/dev/null 2>&1 ||
        check "$order: tbbt-init rebuilt the image" false
    "$PLAY" --no-live --order "$order" --nfs-port "$TBBT_NFS_PORT" --json "$TMP/$order.json" "$TMP/evil.tbbt" \
        "127.0.0.1:$TBBT_EXPORT" >"$TMP/$order.out" 2>&1
    rc=$?
    grep -E "^Status" "$TMP/$order.out"
    check "$order: tbbt-play finishes (exit 0)" [ $rc = 0 ]
    read -r ref sent matched < <(perl -MJSON::PP -e 'local $/; my $t = decode_json(<STDIN>)->{totals};
        print join(" ", map { $t->{$_} // "none" } qw(refused sent matched)), "\n"' <"$TMP/$order.json")
    check "$order: the three records naming a way out are refused (refused=$ref)" [ "$ref" = 3 ]
    check "$order: the report says so" grep -q "3 refused" "$TMP/$order.out"
    check "$order: only the three ordinary records went to the server (sent=$sent)" [ "$sent" = 3 ]
    check "$order: and they matched (matched=$matched)" [ "$matched" = 3 ]
    check "$order: d/ok was made and h removed inside the clone" \
        test -f "$EXP/RUN/clone.0/d/ok" -a ! -e "$EXP/RUN/clone.0/h"
    check "$order: d/f and g are where they were" test -f "$EXP/RUN/clone.0/d/f" -a -f "$EXP/RUN/clone.0/g"
    snap "$EXP" >"$TMP/after-$order"
    check "$order: nothing outside RUN changed" cmp -s "$TMP/before" "$TMP/after-$order"
    check "$order: nothing was made in RUN beside the clone" [ "$(ls -A "$EXP/RUN" | grep -vc '^clone\.0$\|^\.tbbt\|^manifest$')" = 0 ]
done
tbbt_ganesha_stop "$TMP/srv"

e2e_end
