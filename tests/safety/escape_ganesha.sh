#!/bin/bash
# Data safety on nfs-ganesha: whatever a trace or a map says, tbbt-init
# creates, changes and removes nothing outside its run directory.
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
# end 8
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
tbbt_ganesha_stop "$TMP/srv"

e2e_end
