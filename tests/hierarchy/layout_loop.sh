#!/bin/bash
# tbbt-layout end to end on a loop-mounted 96 MiB ext4 image (4 KiB blocks):
#   a. one 2 MiB file written sequentially and fsynced: layout score >= 0.99,
#      average block distance < 1;
#   b. 8 files grown by interleaved 4 KiB appends, each followed by fsync (the
#      TBBT aging pattern): layout score at least 0.3 below (a), average block
#      distance at least 1 above (a), smaller fragments;
#   c. 32 files of 64 KiB, then every other one deleted: e2freefrag's free
#      extents (through tbbt-layout --device) grow, and so do free blocks;
#   and, checked against other tools: the blocks counted are the files'
#   sizes in blocks, the fragments of a file are filefrag -v's extents once
#   physically touching ones are joined, the inode distance is |first block -
#   debugfs imap's block|, the parent distance |first block - debugfs blocks
#   of the directory|, the size buckets hold the files written; the JSON
#   parses (JSON::PP); nothing under the tree changes; no --device: inode
#   distance and free space "not available"; --device auto finds the loop
#   device; a hard-linked file counts once;
#   a tmpfs file (no FIEMAP) exits 1 naming it; a missing path exits 1 with one
#   line naming it; a bad option exits 2; a --device holding another file
#   system exits 1.
# With xfsprogs, the same on XFS (inode distance against xfs_db, free space
# through xfs_spaceman). Skips (77) when not root, when a tool is missing, or when the image cannot
# be loop-mounted. Usage (ctest): bash layout_loop.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: layout_loop.sh BUILD_DIR SRC_DIR}
LAYOUT=$BUILD/hierarchy/tbbt-layout
[ -x "$LAYOUT" ] || { echo "SKIP: $LAYOUT not built"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (losetup, mount)"; exit 77; }
for t in mkfs.ext4 losetup mount umount e2freefrag debugfs filefrag perl; do
    command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done
perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }

TMP=$(mktemp -d)
MNT=$TMP/mnt
MNT2=$TMP/xfs
LOOP=
LOOP2=
cleanup() {
    mountpoint -q "$MNT" && umount "$MNT"
    mountpoint -q "$MNT2" && umount "$MNT2"
    [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
    [ -n "$LOOP2" ] && losetup -d "$LOOP2" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

truncate -s 96M "$TMP/img" && mkfs.ext4 -F -q -b 4096 "$TMP/img" || { echo "SKIP: mkfs.ext4 failed"; exit 77; }
LOOP=$(losetup -f --show "$TMP/img" 2>/dev/null) || { LOOP=; echo "SKIP: losetup failed"; exit 77; }
mkdir -p "$MNT"
mount -t ext4 "$LOOP" "$MNT" 2>/dev/null || { echo "SKIP: cannot mount $LOOP"; exit 77; }
echo "image $TMP/img on $LOOP at $MNT"

# jget FILE PERL-EXPR: evaluates the expression with $j the decoded JSON
# (undef printed as "null").
jget() {
    perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>);
        my $v = eval $ARGV[1]; die $@ if $@; print defined $v ? $v : "null", "\n"' "$1" "$2"
}
# cmp_num A OP B: numeric comparison with perl (OP: < <= > >= ==).
cmp_num() { perl -e 'exit !(eval "$ARGV[0] $ARGV[1] $ARGV[2]")' "$1" "$2" "$3"; }

# --- a. one sequential file ---
mkdir "$MNT/seq"
dd if=/dev/urandom of="$MNT/seq/big" bs=1M count=2 conv=fsync status=none
# --- b. interleaved appends: 8 files x 48 appends of 4 KiB, fsync each ---
mkdir "$MNT/aged"
perl -e 'use IO::Handle; my ($d, $k, $n) = @ARGV; my $buf = "x" x 4096;
    for my $r (1 .. $n) { for my $i (1 .. $k) {
        open my $f, ">>", "$d/f$i" or die "$d/f$i: $!"; print $f $buf; $f->flush; $f->sync or die; close $f } }' \
    "$MNT/aged" 8 48
# --- c. the free-space pattern, first part: 32 files of 64 KiB ---
mkdir "$MNT/holes"
for i in $(seq 1 32); do
    dd if=/dev/zero of="$MNT/holes/h$i" bs=64k count=1 conv=fsync status=none
done
sync

before=$(find "$MNT" -printf '%p %s %Y %T@ %C@\n' | sort | md5sum)
"$LAYOUT" "$MNT/seq" --device "$LOOP" --files --json "$TMP/seq.json" >"$TMP/seq.txt"
rc=$?
cat "$TMP/seq.txt"
[ $rc -eq 0 ] || fail "seq run exited $rc"
"$LAYOUT" "$MNT/aged" --device "$LOOP" --files --json "$TMP/aged.json" >"$TMP/aged.txt"
rc=$?
cat "$TMP/aged.txt"
[ $rc -eq 0 ] || fail "aged run exited $rc"
"$LAYOUT" "$MNT" --device "$TMP/img" --json "$TMP/free1.json" -q || fail "whole-image run (device = image file)"
after=$(find "$MNT" -printf '%p %s %Y %T@ %C@\n' | sort | md5sum)
[ "$before" = "$after" ] && ok "tree unchanged (names, sizes, mtimes, ctimes)" || fail "tree changed by tbbt-layout"

for f in seq aged free1; do
    perl -MJSON::PP -e 'local $/; decode_json(<STDIN>)' <"$TMP/$f.json" && ok "$f.json parses" ||
        fail "$f.json is not JSON"
done

# (a) and (b): the relations the aging must show.
s_a=$(jget "$TMP/seq.json" '$j->{all}{layout_score}')
s_b=$(jget "$TMP/aged.json" '$j->{all}{layout_score}')
d_a=$(jget "$TMP/seq.json" '$j->{all}{avg_block_distance}')
d_b=$(jget "$TMP/aged.json" '$j->{all}{avg_block_distance}')
z_a=$(jget "$TMP/seq.json" '$j->{all}{avg_fragment_size}')
z_b=$(jget "$TMP/aged.json" '$j->{all}{avg_fragment_size}')
echo "sequential: score $s_a, block distance $d_a, fragment size $z_a"
echo "interleaved: score $s_b, block distance $d_b, fragment size $z_b"
cmp_num "$s_a" '>=' 0.99 && ok "sequential file: layout score $s_a >= 0.99" || fail "sequential layout score $s_a"
cmp_num "$d_a" '<' 1 && ok "sequential file: block distance $d_a < 1" || fail "sequential block distance $d_a"
cmp_num "$s_b" '<=' "$s_a - 0.3" && ok "interleaved appends: layout score $s_b <= $s_a - 0.3" ||
    fail "interleaved layout score $s_b not clearly below $s_a"
cmp_num "$d_b" '>=' "$d_a + 1" && ok "interleaved appends: block distance $d_b >= $d_a + 1" ||
    fail "interleaved block distance $d_b not clearly above $d_a"
cmp_num "$z_b" '<' "$z_a" && ok "interleaved appends: fragments smaller ($z_b < $z_a)" ||
    fail "fragment size $z_b not below $z_a"

# Counts against what was written: blocks = sizes in blocks, buckets.
[ "$(jget "$TMP/seq.json" '$j->{all}{blocks}')" = 512 ] && ok "seq: 512 blocks" || fail "seq: blocks"
[ "$(jget "$TMP/aged.json" '$j->{all}{blocks}')" = $((8 * 48)) ] && ok "aged: 384 blocks" || fail "aged: blocks"
[ "$(jget "$TMP/aged.json" '$j->{all}{files}')" = 8 ] && ok "aged: 8 files" || fail "aged: files"
[ "$(jget "$TMP/seq.json" '(grep { $_->{label} eq "<=4M" } @{$j->{buckets}})[0]{files}')" = 1 ] &&
    ok "seq: the 2 MiB file in bucket <=4M" || fail "seq: bucket"
[ "$(jget "$TMP/aged.json" '(grep { $_->{label} eq "<=256K" } @{$j->{buckets}})[0]{files}')" = 8 ] &&
    ok "aged: the 192 KiB files in bucket <=256K" || fail "aged: bucket"
[ "$(jget "$TMP/aged.json" 'my $s = 0; $s += $_->{blocks} for @{$j->{buckets}}; $s')" = 384 ] &&
    ok "aged: buckets add up to all" || fail "aged: buckets do not add up"

# Fragments of each aged file against filefrag -v (extents, touching ones
# joined).
ff_frags() {
    filefrag -v "$1" | awk -F'[:. ]+' '/^ *[0-9]+: / {
        s = $5; e = $6; if (n == 0 || s != prev + 1) n++; prev = e } END { print n + 0 }'
}
bad=0
for i in 1 4 8; do
    want=$(ff_frags "$MNT/aged/f$i")
    got=$(jget "$TMP/aged.json" "(grep { \$_->{path} =~ m{/f$i\$} } @{\$j->{per_file}})[0]{fragments}")
    [ "$want" = "$got" ] || { bad=1; echo "f$i: filefrag $want fragments, tbbt-layout $got"; }
done
[ $bad = 0 ] && ok "fragments per file match filefrag -v" || fail "fragments differ from filefrag"

# Inode and parent distance of the sequential file against debugfs.
first=$(filefrag -v "$MNT/seq/big" | awk -F'[:. ]+' '/^ *0: / { print $5 }')
ino=$(stat -c %i "$MNT/seq/big")
iblk=$(debugfs -R "imap <$ino>" "$LOOP" 2>/dev/null | awk '/located at block/ { sub(",", "", $4); print $4 }')
dblk=$(debugfs -R "blocks /seq" "$LOOP" 2>/dev/null | awk '{ print $1 }')
idist=$(jget "$TMP/seq.json" '$j->{per_file}[0]{avg_inode_distance}')
pdist=$(jget "$TMP/seq.json" '$j->{per_file}[0]{avg_parent_distance}')
echo "seq/big: first block $first, inode $ino in block $iblk, directory block $dblk"
[ -n "$first" ] && [ -n "$iblk" ] && cmp_num "$idist" == "abs($first - $iblk)" &&
    ok "inode distance $idist = |$first - $iblk|" || fail "inode distance $idist (first $first, inode block $iblk)"
[ -n "$dblk" ] && cmp_num "$pdist" == "abs($first - $dblk)" &&
    ok "parent distance $pdist = |$first - $dblk|" || fail "parent distance $pdist (first $first, dir $dblk)"

# (c) free space: delete every other file, compare e2freefrag's counts.
x1=$(jget "$TMP/free1.json" '$j->{free_space}{free_extents}')
b1=$(jget "$TMP/free1.json" '$j->{free_space}{free_blocks}')
for i in $(seq 1 2 32); do rm "$MNT/holes/h$i"; done
sync
"$LAYOUT" "$MNT" --device "$LOOP" --json "$TMP/free2.json" >"$TMP/free2.txt" || fail "run after deletes"
cat "$TMP/free2.txt"
x2=$(jget "$TMP/free2.json" '$j->{free_space}{free_extents}')
b2=$(jget "$TMP/free2.json" '$j->{free_space}{free_blocks}')
echo "free space: $x1 extents, $b1 blocks before; $x2 extents, $b2 blocks after deleting 16 of 32 files"
[ "$(jget "$TMP/free1.json" '$j->{free_space}{available} ? 1 : 0')" = 1 ] && ok "free space available" ||
    fail "free space not available: $(jget "$TMP/free1.json" '$j->{free_space}{why}')"
cmp_num "$x2" '>' "$x1" && ok "free extents grew $x1 -> $x2" || fail "free extents $x1 -> $x2"
cmp_num "$b2" '>=' "$b1 + 16 * 16" && ok "free blocks grew by >= 256: $b1 -> $b2" || fail "free blocks $b1 -> $b2"
e2x=$(e2freefrag "$LOOP" | awk -F: '/^Num. free extent/ { print $2 + 0 }')
[ "$e2x" = "$x2" ] && ok "free extents = e2freefrag's ($e2x)" || fail "free extents $x2, e2freefrag $e2x"
[ "$(jget "$TMP/free2.json" 'my $s = 0; $s += $_->{extents} for @{$j->{free_space}{histogram}}; $s')" = "$x2" ] &&
    ok "free-space histogram adds up" || fail "histogram does not add up to $x2"

# No --device: inode distance and free space not available, still exit 0.
"$LAYOUT" "$MNT/seq" --json "$TMP/nodev.json" >/dev/null && ok "no --device: exit 0" || fail "no --device: exit"
[ "$(jget "$TMP/nodev.json" '($j->{inode_distance}{available} ? 1 : 0) . ($j->{free_space}{available} ? 1 : 0)')" = 00 ] &&
    grep -q "not available" "$TMP/nodev.json" && ok "no --device: not available, with a reason" ||
    fail "no --device: availability"

# --device auto finds the loop device through sysfs.
"$LAYOUT" "$MNT/seq" --device auto --json "$TMP/auto.json" >/dev/null || fail "--device auto run"
[ "$(jget "$TMP/auto.json" '$j->{device} . " " . ($j->{inode_distance}{available} ? 1 : 0)')" = "$LOOP 1" ] &&
    ok "--device auto: $LOOP" || fail "--device auto: $(jget "$TMP/auto.json" '$j->{device}')"

# A file with two names counts once.
mkdir "$MNT/links"
dd if=/dev/zero of="$MNT/links/a" bs=4k count=3 conv=fsync status=none
ln "$MNT/links/a" "$MNT/links/b"
"$LAYOUT" "$MNT/links" --json "$TMP/links.json" >/dev/null || fail "links run"
[ "$(jget "$TMP/links.json" '"$j->{all}{files} $j->{all}{blocks} $j->{hard_links_skipped}"')" = "1 3 1" ] &&
    ok "hard links: one file of 3 blocks, one name skipped" || fail "hard links counted twice"

# A file system without FIEMAP (tmpfs) is an error naming the file.
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
    SHM=$(mktemp -d /dev/shm/layout.XXXXXX)
    echo data >"$SHM/x"
    err=$("$LAYOUT" "$SHM" 2>&1 >/dev/null)
    rc=$?
    rm -rf "$SHM"
    [ $rc -eq 1 ] && echo "$err" | grep -q "$SHM/x: FIEMAP not supported" && ok "tmpfs: exit 1, \"$err\"" ||
        fail "tmpfs: rc $rc, \"$err\""
fi

# Errors: missing path 1 (one line naming it), bad option 2, wrong device 1.
err=$("$LAYOUT" "$TMP/nonexistent" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && [ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "$TMP/nonexistent" &&
    ok "missing path: exit 1, \"$err\"" || fail "missing path: rc $rc, \"$err\""
"$LAYOUT" --no-such-option "$MNT" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && ok "bad option: exit 2" || fail "bad option: rc $rc"
"$LAYOUT" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && ok "no PATH: exit 2" || fail "no PATH: rc $rc"
truncate -s 16M "$TMP/other.img" && mkfs.ext4 -F -q "$TMP/other.img"
err=$("$LAYOUT" "$MNT" --device "$TMP/other.img" 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && echo "$err" | grep -q "other.img" && ok "another file system's device: exit 1, \"$err\"" ||
    fail "wrong device: rc $rc, \"$err\""

# XFS, when xfsprogs is installed: a sequential file scores 1, its inode
# distance is |first block - xfs_db's daddr of the inode / 8|, free space
# comes from xfs_spaceman (no --device needed) and grows after deletes.
xfs_part() {
    truncate -s 320M "$TMP/xfs.img" && mkfs.xfs -f -q "$TMP/xfs.img" || { echo "xfs: mkfs.xfs failed"; return; }
    LOOP2=$(losetup -f --show "$TMP/xfs.img") || { LOOP2=; echo "xfs: losetup failed"; return; }
    mkdir -p "$MNT2" && mount -t xfs "$LOOP2" "$MNT2" 2>/dev/null || { echo "xfs: cannot mount"; return; }
    mkdir "$MNT2/d"
    dd if=/dev/urandom of="$MNT2/d/big" bs=1M count=2 conv=fsync status=none
    for i in $(seq 1 16); do dd if=/dev/zero of="$MNT2/d/h$i" bs=64k count=1 conv=fsync status=none; done
    "$LAYOUT" "$MNT2" --device "$LOOP2" --files --json "$TMP/xfs1.json" >"$TMP/xfs1.txt" || fail "xfs run"
    cat "$TMP/xfs1.txt"
    local first ino daddr want got x1 x2
    first=$(filefrag -v "$MNT2/d/big" | awk -F'[:. ]+' '/^ *0: / { print $5 }')
    ino=$(stat -c %i "$MNT2/d/big")
    daddr=$(xfs_db -r -c "convert inode $ino daddr" "$LOOP2" | awk '{ gsub(/[()]/, "", $2); print $2 }')
    want=$((daddr / 8)) # 512-byte sectors to 4 KiB blocks
    got=$(jget "$TMP/xfs1.json" '(grep { $_->{path} =~ m{/big$} } @{$j->{per_file}})[0]{avg_inode_distance}')
    cmp_num "$got" == "abs($first - $want)" && ok "xfs: inode distance $got = |$first - $want|" ||
        fail "xfs: inode distance $got (first $first, inode block $want)"
    [ "$(jget "$TMP/xfs1.json" '(grep { $_->{path} =~ m{/big$} } @{$j->{per_file}})[0]{layout_score}')" = 1 ] &&
        ok "xfs: sequential file scores 1" || fail "xfs: sequential file score"
    x1=$(jget "$TMP/xfs1.json" '$j->{free_space}{free_extents}')
    for i in $(seq 1 2 16); do rm "$MNT2/d/h$i"; done
    sync
    "$LAYOUT" "$MNT2" --json "$TMP/xfs2.json" >/dev/null || fail "xfs run without --device"
    x2=$(jget "$TMP/xfs2.json" '$j->{free_space}{free_extents}')
    [ "$(jget "$TMP/xfs2.json" '$j->{free_space}{source}')" = xfs_spaceman ] && cmp_num "$x2" '>' "$x1" &&
        ok "xfs: free extents (xfs_spaceman, no --device) grew $x1 -> $x2" || fail "xfs: free extents $x1 -> $x2"
}
if command -v mkfs.xfs >/dev/null && command -v xfs_db >/dev/null && command -v xfs_spaceman >/dev/null &&
    grep -qw xfs /proc/filesystems; then
    xfs_part
else
    echo "xfs part skipped: xfsprogs not installed or no xfs in the kernel"
fi

if [ $fails -ne 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all checks passed"
