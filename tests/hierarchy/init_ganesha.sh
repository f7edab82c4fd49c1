#!/bin/bash
# tbbt-init end to end: nfs-ganesha exporting a loop-mounted 256 MiB ext4
# image (4 KiB blocks), and a map of a known shape (init_check.pl map: 19
# directories, ~250 files of 0 B..1 MiB, ~49 MB, symbolic links, a hard link
# pair, a name with a space and quotes, modes 0600..0755, owners 0:0,
# 1000:100, 1001:1001, entries the trace makes later).
#
# The same map, seed, --appends-per-file 8 and --fullness 0.7 with a small,
# a medium and a large interleaving scope (1, 1024 and 8192 blocks), each on
# a fresh file system (mkfs between runs, server stopped); the layout of
# RUN/clone.0 is read locally (tbbt-layout --device auto: FIEMAP on the
# mounted directory, e2freefrag on the loop device), never through NFS:
#   - as in the paper's Table 5, with scope the layout score falls, the
#     average block distance grows and the free-space extents shrink
#     (average free extent smaller, more of them). Asserted strictly between
#     the small and the large scope and for the score at every step; the
#     medium scope's figures lie close to one neighbour's and vary by several
#     per cent run to run (its block distance, 145..190 blocks, against the
#     small scope's 140..160 and the large's 275..295; its average free
#     extent, 70..77 blocks, against 66..71 and 105..110), so they are
#     asserted loosely: within the interval of its neighbours give or take
#     25% of it (block distance) or 10% (free extent);
#   - fullness (tbbt-init's JSON fullness_after, and statfs locally: 1 -
#     free/total blocks) lands within 0.02 of 0.7;
#   - every initial path of the map exists with its type, size, permission
#     bits, uid, gid and symlink target; the hard link pair is one inode;
#     nothing else is in the clone (not the entries the trace makes later);
#     the clone's root (the map's ".", 0775 1000:100 here) has the map's
#     mode and owner, as the trace's operations in it depend on them;
#   - the manifest (beside the map and RUN/manifest, identical) has one line
#     per initial ID with a non-empty handle, "# end N" right; the marker
#     says complete;
#   - a second tbbt-init into the same RUN without --replace exits 1 with one
#     line naming RUN and changes nothing in it (names, sizes, modes,
#     contents, mtimes, ctimes); a RUN that exists without the marker
#     (made locally, a file in it) and one whose marker is not tbbt-init's
#     are refused the same way and left untouched;
#   - a directory beside RUN (precious/: files, a subdirectory, a symbolic
#     link; contents checksummed) is identical after every run;
#   - finally, on the last file system: --replace --clones 3 empties RUN
#     (the old fillers go) and yields three identical trees RUN/clone.0..2
#     (relative paths, types, sizes, modes, owners, link counts, contents),
#     each the map's, and a manifest for the three.
# The server's threads are pinned to one CPU: ext4 places small files' blocks
# in per-CPU preallocations, so a server spread over several CPUs scatters
# consecutive appends of a small file even with no interleaving, and the
# block distance then varies by a factor of three from run to run.
# Skips (77) when not root, when a tool is missing, or when no loop device
# can be set up. Usage (ctest): bash init_ganesha.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: init_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: init_ganesha.sh BUILD_DIR SRC_DIR}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require perl mkfs.ext4 losetup mount umount mountpoint e2freefrag dumpe2fs taskset
INIT=$BUILD/hierarchy/tbbt-init
LAYOUT=$BUILD/hierarchy/tbbt-layout
for b in "$INIT" "$LAYOUT"; do
    [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done
perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }
CHK="perl $SRC/tests/hierarchy/init_check.pl"
SCOPES="1 1024 8192"
FULL=0.7

e2e_begin init
SRV=$TMP/srv
EXP=$SRV/export
IMG=$TMP/ext4.img
LOOP=

# cleanup: server first, then the mount and the loop device, then e2e's.
cleanup() {
    tbbt_ganesha_stop "$SRV"
    mountpoint -q "$EXP" && umount "$EXP"
    [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
    [ -z "${TBBT_KEEP:-}" ] && rm -f "$IMG"
    _e2e_cleanup
}
trap cleanup EXIT

mkdir -p "$EXP"
truncate -s 256M "$IMG" || { echo "SKIP: cannot make a 256 MiB image in $TMP"; exit 77; }
if ! LOOP=$(losetup -f --show "$IMG" 2>"$TMP/losetup.err"); then
    LOOP=
    echo "SKIP: loop devices unavailable here (losetup: $(head -1 "$TMP/losetup.err"))"
    exit 77
fi

# num A OP B: numeric comparison (perl: < <= > >= ==).
num() { perl -e 'exit !(eval "$ARGV[0] $ARGV[1] $ARGV[2]")' "$1" "$2" "$3"; }
# jget FILE EXPR: EXPR with $j the decoded JSON of FILE.
jget() { $CHK json "$1" "$2"; }
# same A B: files A and B are identical (a diff on stdout when not).
same() { diff "$1" "$2" | head -20; cmp -s "$1" "$2"; }

# fresh_fs: a new ext4 on the loop device, mounted on the export, with the
# neighbour precious/ and two foreign would-be run directories; their
# listings (contents' MD5, mtimes, ctimes) saved. The server must be stopped.
fresh_fs() {
    mountpoint -q "$EXP" && { umount "$EXP" || return 1; }
    mkfs.ext4 -F -q -b 4096 "$LOOP" && mount -t ext4 "$LOOP" "$EXP" && chmod 0777 "$EXP" || return 1
    perl -e 'my $d = shift; mkdir "$d/$_" or die "$_: $!" for qw(precious precious/sub foreign foreign2);
        my $x = 7; my $b = join "", map { $x = ($x * 1103515245 + 12345) % 2147483648; chr($x >> 16 & 255) } 1 .. 300000;
        my %f = ("precious/notes.txt" => "keep me\n", "precious/data.bin" => $b,
                 "precious/sub/deep.txt" => "deeper\n" x 1000, "foreign/mine.txt" => "not tbbt-init\x27s\n",
                 "foreign2/.tbbt-run" => "{\"tool\":\"someone-else\"}\n", "foreign2/x" => "x\n");
        for my $k (sort keys %f) { open my $h, ">", "$d/$k" or die "$k: $!"; print $h $f{$k}; close $h or die }
        chmod 0600, "$d/precious/notes.txt"; chown 1000, 100, "$d/precious/data.bin";
        symlink "notes.txt", "$d/precious/link" or die' "$EXP" || return 1
    sync
    $CHK snap "$EXP/precious" --times >"$TMP/precious.before"
    $CHK snap "$EXP/foreign" --times >"$TMP/foreign.before"
    $CHK snap "$EXP/foreign2" --times >"$TMP/foreign2.before"
}

# start_srv: the server, its threads pinned to the first CPU this test may use.
start_srv() {
    tbbt_ganesha_start "$SRV" >/dev/null || return 1
    local cpu
    cpu=$(taskset -cp $$ | sed 's/.*: *//; s/[-,].*//')
    taskset -a -cp "$cpu" "$TBBT_GANESHA_PID" >/dev/null || echo "NOTE: could not pin ganesha to CPU $cpu"
    return 0
}

# init NAME ARGS...: tbbt-init against the server; stdout in NAME.out,
# stderr in NAME.err; sets rc.
init() {
    local name=$1
    shift
    "$INIT" "$@" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$EXP" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
    rc=$?
    [ $rc = 0 ] || { echo "  tbbt-init exited $rc:"; sed 's/^/    /' "$TMP/$name.err"; }
}

# refused NAME RUNDIR: the last init exited 1 with one line naming RUNDIR.
refused() {
    local lines
    lines=$(wc -l <"$TMP/$1.err")
    [ "$rc" = 1 ] && [ "$lines" = 1 ] && grep -q -- "$2" "$TMP/$1.err" ||
        { echo "  exit $rc, $lines line(s): $(head -3 "$TMP/$1.err")"; return 1; }
}

# fullness_ok JSON: tbbt-init's fullness_after and statfs's, within 0.02
# of the target (and of each other within 0.01).
fullness_ok() {
    local fj fl
    fj=$(jget "$1" '$j->{fullness_after}')
    fl=$(stat -f -c '%b %f' "$EXP" | perl -ane 'printf "%.6f", 1 - $F[1] / $F[0]')
    echo "  fullness: tbbt-init $fj, statfs $fl, asked $FULL"
    num "abs($fj - $FULL)" '<=' 0.02 && num "abs($fl - $FULL)" '<=' 0.02 && num "abs($fj - $fl)" '<=' 0.01
}

# marker_complete: RUN/.tbbt-run is tbbt-init's and says complete.
marker_complete() {
    grep -q '"tool":"tbbt-init"' "$EXP/tbbt-run/.tbbt-run" && grep -q '"state":"complete"' "$EXP/tbbt-run/.tbbt-run"
}

# neighbours_same: precious/, foreign/ and foreign2/ as fresh_fs left them.
neighbours_same() {
    local d ok=0
    for d in precious foreign foreign2; do
        $CHK snap "$EXP/$d" --times >"$TMP/$d.after"
        same "$TMP/$d.before" "$TMP/$d.after" || ok=1
    done
    return $ok
}

MAP=$TMP/known.hmap
$CHK map "$MAP" || { FAILS=1; echo "FAIL: cannot write the map"; exit 1; }

for s in $SCOPES; do
    echo "--- scope $s: a fresh file system, tbbt-init --scope $s --appends-per-file 8 --fullness $FULL"
    fresh_fs && start_srv || { FAILS=$((FAILS + 1)); echo "FAIL: scope $s: file system or server"; exit 1; }
    rm -f "$TMP/known.manifest"
    init scope$s --map "$MAP" --scope "$s" --appends-per-file 8 --fullness $FULL --seed 7 --json "$TMP/init$s.json"
    cat "$TMP/scope$s.out"
    check "scope $s: tbbt-init exits 0" [ $rc = 0 ]
    if [ "$s" = 1 ]; then
        # Refusals, the server running (the listings are read locally).
        $CHK snap "$EXP/tbbt-run" --times >"$TMP/run.before"
        init again --map "$MAP" --scope 1 --manifest "$TMP/again.manifest"
        check "a second tbbt-init into tbbt-run without --replace exits 1, one line naming it" refused again tbbt-run
        $CHK snap "$EXP/tbbt-run" --times >"$TMP/run.after"
        check "... and changes nothing in tbbt-run (names, sizes, contents, times)" same "$TMP/run.before" "$TMP/run.after"
        check "... and writes no manifest" [ ! -e "$TMP/again.manifest" ]
        init foreign --map "$MAP" --run-dir foreign --manifest "$TMP/foreign.manifest"
        check "a run directory without the marker is refused: exit 1, one line naming it" refused foreign foreign
        init foreign2 --replace --map "$MAP" --run-dir foreign2 --manifest "$TMP/foreign2.manifest"
        check "a run directory with a marker not tbbt-init's is refused even with --replace" refused foreign2 foreign2
    fi
    tbbt_ganesha_stop "$SRV"
    check "scope $s: fullness within 0.02 of $FULL (tbbt-init's JSON and statfs)" fullness_ok "$TMP/init$s.json"
    check "scope $s: every initial path of the map: type, size, mode, uid, gid, target; hard links one inode" \
        $CHK tree "$MAP" "$EXP/tbbt-run/clone.0"
    check "scope $s: the clone holds nothing but the map's initial paths" $CHK exact "$MAP" "$EXP/tbbt-run/clone.0"
    check "scope $s: the clone's root has the mode and owner of the map's \".\"" $CHK root "$MAP" "$EXP/tbbt-run/clone.0"
    check "scope $s: manifest: one line per initial ID with a handle, '# end N'" \
        $CHK manifest "$MAP" "$TMP/known.manifest" 1
    check "scope $s: the manifest in tbbt-run is the one beside the map" \
        cmp -s "$TMP/known.manifest" "$EXP/tbbt-run/manifest"
    check "scope $s: the marker is tbbt-init's and says complete" marker_complete
    check "scope $s: the neighbours (precious/, foreign/, foreign2/) are untouched" neighbours_same
    "$LAYOUT" "$EXP/tbbt-run/clone.0" --device auto --json "$TMP/layout$s.json" >"$TMP/layout$s.txt"
    check "scope $s: tbbt-layout measured clone.0 and the free space" \
        [ $? = 0 -a "$(jget "$TMP/layout$s.json" '$j->{free_space}{available} ? 1 : 0')" = 1 ]
done

# The figures, and how they move with scope.
declare -A SCORE DIST FREE NFREE
for s in $SCOPES; do
    SCORE[$s]=$(jget "$TMP/layout$s.json" '$j->{all}{layout_score}')
    DIST[$s]=$(jget "$TMP/layout$s.json" '$j->{all}{avg_block_distance}')
    FREE[$s]=$(jget "$TMP/layout$s.json" '$j->{free_space}{avg_free_extent_blocks}')
    NFREE[$s]=$(jget "$TMP/layout$s.json" '$j->{free_space}{free_extents}')
    jget "$TMP/layout$s.json" 'my $a = $j->{all}; my $f = $j->{free_space}; my $n = sub { defined $_[0] ? sprintf($_[1], $_[0]) : "-" };
        sprintf "scope %5s: layout score %s, avg block distance %s, avg fragment size %s, free extents %s of %s blocks on average",
        '"$s"', $n->($a->{layout_score}, "%.4f"), $n->($a->{avg_block_distance}, "%.1f"),
        $n->($a->{avg_fragment_size}, "%.2f"), $f->{free_extents}, $n->($f->{avg_free_extent_blocks}, "%.1f")'
done
# between LO MID HI TOL: MID within LO..HI, give or take TOL times the interval.
between() {
    num "$2" '>=' "$1 - $4 * abs($3 - $1)" && num "$2" '<=' "$3 + $4 * abs($3 - $1)"
}
check "layout score falls with scope: ${SCORE[1]} > ${SCORE[1024]} > ${SCORE[8192]}" \
    num "${SCORE[1]} > ${SCORE[1024]} && ${SCORE[1024]}" '>' "${SCORE[8192]}"
check "avg block distance grows from scope 1 to 8192: ${DIST[1]} < ${DIST[8192]}" num "${DIST[1]}" '<' "${DIST[8192]}"
check "... scope 1024's lies between (give or take 25%): ${DIST[1024]}" \
    between "${DIST[1]}" "${DIST[1024]}" "${DIST[8192]}" 0.25
check "free extents shrink from scope 1 to 8192: avg ${FREE[1]} > ${FREE[8192]} blocks" \
    num "${FREE[1]}" '>' "${FREE[8192]}"
check "... and there are more of them: ${NFREE[1]} < ${NFREE[8192]}" num "${NFREE[1]}" '<' "${NFREE[8192]}"
check "... scope 1024's average lies between (within 10%): ${FREE[1024]}" \
    between "${FREE[8192]}" "${FREE[1024]}" "${FREE[1]}" 0.1

# --replace and --clones 3 on the last file system (its tbbt-run: scope 8192's).
echo "--- --replace --clones 3 into the same tbbt-run"
start_srv || { FAILS=$((FAILS + 1)); echo "FAIL: the server did not start"; exit 1; }
init clones --replace --clones 3 --map "$MAP" --scope 1024 --appends-per-file 4 \
    --manifest "$TMP/clones.manifest" --json "$TMP/clones.json"
cat "$TMP/clones.out"
tbbt_ganesha_stop "$SRV"
check "--replace --clones 3: exit 0" [ $rc = 0 ]
check "--replace removed the previous image first (removed_before > 0)" \
    num "$(jget "$TMP/clones.json" '$j->{removed_before} // 0')" '>' 0
check "tbbt-run holds the marker, the manifest and clone.0..2 only (the old fillers gone)" \
    [ "$(cd "$EXP/tbbt-run" && ls -A | sort | tr '\n' ' ')" = ".tbbt-run clone.0 clone.1 clone.2 manifest " ]
for c in 0 1 2; do
    check "clone.$c: every initial path of the map, right" $CHK tree "$MAP" "$EXP/tbbt-run/clone.$c"
    check "clone.$c: nothing else" $CHK exact "$MAP" "$EXP/tbbt-run/clone.$c"
    check "clone.$c: its root has the mode and owner of the map's \".\"" $CHK root "$MAP" "$EXP/tbbt-run/clone.$c"
    $CHK snap "$EXP/tbbt-run/clone.$c" >"$TMP/clone$c.snap"
done
for c in 0 1 2; do
    sed 's/ md5=[0-9a-f]*$//' "$TMP/clone$c.snap" >"$TMP/clone$c.shape"
done
check "the three clones have the same tree (paths, types, sizes, modes, owners, link counts, targets)" \
    eval 'same "$TMP/clone0.shape" "$TMP/clone1.shape" && same "$TMP/clone0.shape" "$TMP/clone2.shape"'
check "the three clones' files have the same contents" \
    eval 'same "$TMP/clone0.snap" "$TMP/clone1.snap" && same "$TMP/clone0.snap" "$TMP/clone2.snap"'
check "the manifest covers the three clones" $CHK manifest "$MAP" "$TMP/clones.manifest" 3
check "the manifest in tbbt-run is the one written locally" cmp -s "$TMP/clones.manifest" "$EXP/tbbt-run/manifest"
check "the marker says complete" marker_complete
check "the neighbours are untouched after --replace" neighbours_same

echo "time: ${SECONDS} s"
e2e_end
