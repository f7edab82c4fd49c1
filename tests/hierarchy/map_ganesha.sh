#!/bin/bash
# End-to-end for tbbt-prep pass 3 (the hierarchy map, NAME.hmap): build a
# known tree in the export directory of a private nfs-ganesha before it
# starts (map_tree.pl: several levels, files of distinct sizes and modes, a
# symlink, a hard link pair, an empty directory, names with a space and a
# quote), start tcpdump before the client mounts (so MOUNT and the export
# root are in the capture), run a script with a real client (tbbt-nfsscript
# on libnfs) that reads, appends, truncates, renames files within and across
# directories, renames a directory and works inside it under its new name,
# links, removes, creates and removes files and directories, renames over a
# file and removes empty directories; some names it renames or removes are
# never looked up first (libnfs renames and removes by directory and name),
# as happens in real traces; stop, prep, and check the map against
# the tree and the script (map_tree.pl replays the script on its own model
# of the tree; times come from the records, found by procedure and name):
#   - every pre-existing name the script touched: create 0, its path before
#     the capture, type, size, mode, uid and gid before the capture (names it
#     did not touch, or only saw in a listing, may be absent: listed, not
#     failed; when present they are checked too; names the client renamed or
#     removed without a LOOKUP may have "-" for what the trace never showed);
#   - every name made during the capture: create = its record's call time;
#     every name removed: delete = its record's call time;
#   - the hard link pair: two create-0 entries with one ID; a link made
#     during the capture: the original's ID;
#   - renames keep the ID (old path deleted, new created at the rename's
#     time); every LOOKUP resolves through the map, at its time, to the path
#     the tree had then (the renamed directory's files included);
#   - victim=/victim2= of remove, rmdir and rename are the map's IDs;
#   - parents on earlier lines, "# end N".
# Usage (ctest): bash map_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: map_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: map_ganesha.sh BUILD_DIR SRC_DIR}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require tcpdump perl
PREP=$BUILD/transform/tbbt-prep
DUMP=$BUILD/tools/tbbt-dump
NSC=$BUILD/tests/tools/tbbt-nfsscript
TREE="perl $SRC/tests/hierarchy/map_tree.pl"
for b in "$PREP" "$DUMP" "$NSC"; do
    [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done

e2e_begin hiermap

# The tree, made before the server starts (never behind a running server).
mkdir -p "$TMP/srv/export" && chmod 0777 "$TMP/srv/export"
$TREE build "$TMP/srv/export" "$TMP/truth.tsv" || { FAILS=1; echo "FAIL: cannot build the tree"; exit 1; }

cat >"$TMP/script.txt" <<'EOF'
# reads, and names with a space and a quote
stat docs/readme.txt
read docs/readme.txt
read "docs/it's \"q\".txt"
stat "docs/my file.txt"
readlink sym
read docs/notes/deep/leaf.dat
# a rename within a directory, three across directories: plan.txt looked
# up before, todo.txt only after (under its new name), memo.txt never (the
# trace shows its names but not its attributes or handle)
rename docs/notes/deep/leaf.dat docs/notes/deep/leaf2.dat
stat docs/notes/deep/leaf2.dat
stat docs/notes/plan.txt
rename docs/notes/plan.txt data/plan.txt
rename docs/notes/todo.txt data/todo.txt
stat data/todo.txt
rename docs/notes/memo.txt data/memo.txt
# append to one file, truncate another: the map keeps their sizes at the start
append data/log.txt 1000
truncate data/big.bin 100
# both names of the pre-existing hard link pair
stat data/hard1
stat data/sub/hard2
# a link made during the capture
link linkme data/linked
# a directory renamed, then used under its new name
stat src/main.c
rename src src2
read src2/main.c
stat src2/inc/defs.h
create src2/new.c
write src2/new.c 0 300
# a directory renamed before it was ever looked up, then used
rename proj proj2
stat proj2/f.txt
# removes: a pre-existing file, one never looked up, a created one
stat data/sub/victim.txt
remove data/sub/victim.txt
remove data/sub/blind.txt
create data/tmp1
remove data/tmp1
# a new directory, some of its contents removed again
mkdir newdir
create newdir/a 0600
mkdir newdir/gone
rmdir newdir/gone
symlink ../docs newdir/sym2
# a rename over a pre-existing file (which it replaces)
stat data/over.txt
create data/repl
rename data/repl data/over.txt
# pre-existing empty directories removed (one never looked up); a mode changed
stat empty
rmdir empty
rmdir empty2
chmod mode600 0644
ls docs
ls listed
stat "docs/my file.txt"
EOF

tbbt_ganesha_start "$TMP/srv" || { FAILS=1; echo "FAIL: ganesha did not start"; exit 1; }
PORTS="--port $TBBT_NFS_PORT --port $TBBT_MNT_PORT"
tbbt_capture_start "$TMP/map.pcap" "$(tbbt_capture_nfs_filter)" || { FAILS=1; echo "FAIL: tcpdump"; exit 1; }
"$NSC" --quiet "$TBBT_NFS_URL" "$TMP/script.txt"
rc=$?
tbbt_capture_stop
crc=$?
tbbt_ganesha_stop "$TMP/srv"
check "tbbt-nfsscript ran the whole script" [ $rc = 0 ]
check "the capture is complete (MOUNT included)" [ $crc = 0 ]
[ $rc = 0 ] && [ $crc = 0 ] || exit 1

"$PREP" -q $PORTS -o "$TMP/map.tbbt" "$TMP/map.pcap"
check "tbbt-prep wrote the records and the map" [ $? = 0 -a -s "$TMP/map.hmap" ]
"$DUMP" "$TMP/map.tbbt" >"$TMP/map.txt" || { FAILS=$((FAILS + 1)); echo "FAIL: tbbt-dump"; exit 1; }

# area WHAT: one area of map_tree.pl's checks.
area() {
    $TREE check "$1" "$TMP/truth.tsv" "$TMP/script.txt" "$TMP/map.hmap" "$TMP/map.txt"
}
check "map format: version line, parents before children, '# end N' with N the entries" area format
check "the export root (from MOUNT) is the entry \".\" with origin r" area root
check "one ID per object and one object per ID; each entry's parent is its directory's ID" area ids
check "every touched pre-existing name: create 0, path, type, size, mode, uid, gid before the capture" area initial
check "every name made during the capture: create = its record's call time" area created
check "every name removed: delete = its record's call time, the others never" area deleted
check "hard links: the pre-existing pair is one ID twice; a new link has the original's ID" area links
check "renames keep the ID (old path deleted, new created at the rename's time)" area renames
check "remove/rmdir/rename records' victim IDs are the map's IDs" area victims
check "every LOOKUP resolves through the map, at its time, to the path the tree had then" area paths
check "every map entry is a name of the tree or of the script" area explained

e2e_end
