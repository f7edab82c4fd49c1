#!/bin/bash
# A full disk: every writer, with its output on a small file system (a
# tmpfs with a size limit; a loop-mounted ext4 image where tmpfs cannot be
# mounted; skipped, saying why, when neither can: both need root) that
# fills part-way through the write. Before each run the output's name
# holds a previous version (a marker file), and a filler file leaves
# free half of what the output needs (nothing, for an output under two
# pages: it cannot fill part-way). Each time:
#   - the command fails: a non-zero exit, by exit code, not by a signal
#     (no crash, no abort);
#   - its last line on stderr names the file and says why (no space);
#   - the previous output is still there, byte for byte;
#   - no temporary file is left on the file system.
# Writers: tbbt-prep (records, map, summary JSON), tbbt-map (map, records,
# report JSON), tbbt-check (records, JSON), tbbt-augment (map, JSON),
# tbbt-split (a part's records and map), tbbt-dump (text, records from
# text), tbbt-play --simulate (results JSON), tbbt-report (the report's
# pages), the Perl transforms (tbbt-ellard, tbbt-anonymize and its map,
# tbbt-filter, tbbt-merge, tbbt-summary's JSON); tbbt-split's four
# outputs (each its previous version or whole after the failure); the
# workspace file of the current directory (tbbt-prep's trace line; with
# nfs-ganesha, tbbt-init's server line); and, where nfs-ganesha runs
# (its export on the ordinary disk), tbbt-init's manifest and JSON and a
# replay's result file in the workspace's tbbt-results/.
# A directory of outputs (tbbt-report's pages and plots) is not replaced
# as a whole: each file in it is whole or absent, never cut.
# Usage (ctest): bash disk_full.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: disk_full.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: disk_full.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_begin disk-full
B=$BUILD
S=$SRC/scripts
export TBBT_BUILD=$BUILD
FS=$TMP/fs
REF=$TMP/ref
mkdir -p "$FS" "$REF" "$TMP/other"

# the small file system
mounted=
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: not root: cannot mount a small file system (tmpfs or loop image) to fill"
    FAILS=0
    exit 77
fi
if mount -t tmpfs -o size=4m,nr_inodes=256,mode=0755 tmpfs "$FS" 2>/dev/null; then
    mounted=tmpfs
elif command -v mkfs.ext4 >/dev/null && truncate -s 8m "$TMP/fs.img" && mkfs.ext4 -q -m 0 "$TMP/fs.img" &&
    mount -o loop "$TMP/fs.img" "$FS" 2>/dev/null; then
    mounted=ext4
else
    echo "SKIP: root, but neither a tmpfs nor a loop-mounted image can be mounted here"
    exit 77
fi
echo "(file system: $mounted, $(df -k --output=size "$FS" | tail -1) KB)"
trap 'umount "$FS" 2>/dev/null; _e2e_cleanup' EXIT

# inputs, on the ordinary disk
TRACE=$SRC/traces/ganesha-libnfs-mixed.pcap.zst
"$B/transform/tbbt-prep" -q -o "$TMP/in.tbbt" "$TRACE" ||
    { check "tbbt-prep made the input" false; e2e_end; exit 1; }
"$B/transform/tbbt-prep" -q --no-map -o "$TMP/raw.tbbt" "$TRACE"
"$B/tools/tbbt-dump" -o "$TMP/in.txt" "$TMP/in.tbbt"
"$B/player/tbbt-play" --simulate --sim-windows 100 --json "$TMP/res.json" "$TMP/in.tbbt" >/dev/null
check "the inputs were made" [ -s "$TMP/in.tbbt" -a -s "$TMP/in.hmap" -a -s "$TMP/in.txt" -a -s "$TMP/raw.tbbt" \
    -a -s "$TMP/res.json" ]

# fill FREE: the filler leaves FREE bytes free on FS
fill() {
    local avail
    rm -f "$FS/.filler"
    sync -f "$FS" 2>/dev/null
    avail=$(df -B1 --output=avail "$FS" | tail -1)
    [ "$avail" -gt "$1" ] && head -c $((avail - $1)) /dev/zero >"$FS/.filler" 2>/dev/null
    sync -f "$FS" 2>/dev/null
    return 0
}

# full NAME OUT CMD...: CMD (with @ standing for the output's path) once
# on the ordinary disk for the output's whole size, then with OUT on FS
# over a previous version, FS filled part-way; checks as above. OUT ending
# in / is a directory of outputs (tbbt-report's): its previous version is
# a directory holding one marker page.
full() {
    local name=$1 out=$2 rc size free prev a args=()
    shift 2
    rm -rf "${REF:?}"/* "$FS"/* "$FS/.filler"
    for a in "$@"; do args+=("${a//@/$REF/$out}"); done
    (cd "$TMP/other" && exec timeout 300 "${args[@]}") >"$TMP/$name.ref.out" 2>&1 ||
        { check "$name: runs on the ordinary disk ($(tail -1 "$TMP/$name.ref.out"))" false; return; }
    size=$(du -sb "$REF/${out%/}" | cut -f1)
    free=$((size / 2 / 4096 * 4096))
    [ "$size" -lt 8192 ] && free=0
    if [ "${out%/}" != "$out" ]; then
        mkdir -p "$FS/$out"
        prev=$FS/$out/report.html
    else
        prev=$FS/$out
    fi
    if [ -z "${NOPREV:-}" ]; then
        echo "previous $name $RANDOM" >"$prev"
        cp "$prev" "$TMP/$name.prev"
    fi
    fill "$free"
    args=()
    for a in "$@"; do args+=("${a//@/$FS/$out}"); done
    (cd "$TMP/other" && exec timeout 300 "${args[@]}") >"$TMP/$name.out" 2>"$TMP/$name.err"
    rc=$?
    local last
    last=$(tail -1 "$TMP/$name.err")
    echo "     $name ($size bytes, $free free): exit $rc: $last"
    check "$name: fails by exit code ($rc)" [ "$rc" != 0 -a "$rc" -lt 128 ]
    check "$name: no crash or sanitizer report" \
        bash -c "! grep -q -E 'Sanitizer|runtime error|Segmentation|Aborted|core dumped|panicked' '$TMP/$name.err'"
    check "$name: the last line names the file and why" \
        bash -c "grep -q -F '$(basename "${out%/}")' <<<'${last//\'/}' && grep -q -i -E 'no space|space left' <<<'${last//\'/}'"
    if [ -z "${NOPREV:-}" ]; then
        check "$name: the previous output is intact" cmp -s "$prev" "$TMP/$name.prev"
    else
        check "$name: no output under its name" [ ! -e "$prev" ]
    fi
    if [ "${out%/}" = "$out" ]; then
        check "$name: no temporary file left" \
            [ -z "$(find "$FS" -mindepth 1 ! -name .filler ! -path "$prev" | head -3)" ]
    else # a directory of files: those put in place before the disk filled are whole
        check "$name: no temporary file left" [ -z "$(find "$FS" -name '*.tmp*' | head -3)" ]
        check "$name: every page and plot in the directory is whole" whole_files "$FS/$out"
    fi
}

# whole_files DIR: every PNG in DIR ends with its IEND chunk
whole_files() {
    local f
    for f in "$1"/*.png; do
        [ -e "$f" ] || continue
        [ "$(tail -c 8 "$f" | od -An -tx1 | tr -d ' \n')" = 49454e44ae426082 ] || return 1
    done
}

full prep-records rec "$B/transform/tbbt-prep" -q -o @ -m "$TMP/other/map" --summary-json "$TMP/other/sum" "$TRACE"
full prep-map map "$B/transform/tbbt-prep" -q -o "$TMP/other/rec" -m @ --summary-json "$TMP/other/sum" "$TRACE"
full prep-summary sum "$B/transform/tbbt-prep" -q -o "$TMP/other/rec" -m "$TMP/other/map" --summary-json @ "$TRACE"
full map-map map "$B/hierarchy/tbbt-map" -q -m @ "$TMP/raw.tbbt"
full map-records rec "$B/hierarchy/tbbt-map" -q -m "$TMP/other/map" -w @ "$TMP/raw.tbbt"
full map-json json "$B/hierarchy/tbbt-map" -q -m "$TMP/other/map" --json @ "$TMP/raw.tbbt"
full check-records rec "$B/tools/tbbt-check" -q -w @ "$TMP/in.tbbt"
full check-json json "$B/tools/tbbt-check" -q --json @ "$TMP/in.tbbt"
full augment-map map "$B/hierarchy/tbbt-augment" -q -o @ --total-objects 3000 "$TMP/in.hmap"
full augment-json json "$B/hierarchy/tbbt-augment" -q -o "$TMP/other/map" --json @ --total-objects 500 "$TMP/in.hmap"
full dump-text txt "$B/tools/tbbt-dump" -o @ "$TMP/in.tbbt"
full dump-text-in rec "$B/tools/tbbt-dump" --text-in -o @ "$TMP/in.txt"
full play-results json "$B/player/tbbt-play" --simulate --sim-windows 100 --json @ "$TMP/in.tbbt"
full report-pages report/ perl "$S/tbbt-report" -q -o @ "$SRC"/tests/data/play-A-*.json "$SRC"/tests/data/play-B-*.json
full ellard out perl "$S/tbbt-ellard" -q -o @ "$SRC/tests/data/ellard-quirks.txt"
full anonymize out perl "$S/tbbt-anonymize" --key-string k -o @ "$TMP/in.txt"
full anonymize-map map perl "$S/tbbt-anonymize" --key-string k -o "$TMP/other/anon" --map "$TMP/in.hmap" \
    --map-out @ "$TMP/in.txt"
full filter out perl "$S/tbbt-filter" --raw --proc lookup --proc getattr --proc read --proc write -o @ "$TMP/in.txt"
full merge out perl "$S/tbbt-merge" -q -o @ "$TMP/in.txt" "$TMP/in.txt"
full summary-json json perl "$S/tbbt-summary" -q --json @ "$TMP/in.txt"

# tbbt-split's parts: four outputs (two record files, two maps), written
# one after the other; each is, after the failure, its previous version
# or whole (the split of the run on the ordinary disk), never cut.
split_full() {
    local f rc last total=0 free ok=1
    rm -rf "${REF:?}"/* "$FS"/* "$FS/.filler"
    local args=(-q --shared tbbt-subtree-1/dev --force -k 2)
    "$B/hierarchy/tbbt-split" "${args[@]}" -o "$REF/sp" "$TMP/in.tbbt" >"$TMP/split.ref.out" 2>&1 ||
        { check "split: runs on the ordinary disk ($(tail -1 "$TMP/split.ref.out"))" false; return; }
    for f in sp.part0.tbbt sp.part0.hmap sp.part1.tbbt sp.part1.hmap; do
        total=$((total + $(stat -c %s "$REF/$f")))
        echo "previous $f $RANDOM" >"$FS/$f"
        cp "$FS/$f" "$TMP/$f.prev"
    done
    free=$((total / 2 / 4096 * 4096))
    fill "$free"
    (cd "$TMP/other" && exec timeout 300 "$B/hierarchy/tbbt-split" "${args[@]}" -o "$FS/sp" "$TMP/in.tbbt") \
        >"$TMP/split.out" 2>"$TMP/split.err"
    rc=$?
    last=$(tail -1 "$TMP/split.err")
    echo "     split ($total bytes in 4 files, $free free): exit $rc: $last"
    check "split: fails by exit code ($rc)" [ "$rc" != 0 -a "$rc" -lt 128 ]
    check "split: no crash or sanitizer report" \
        bash -c "! grep -q -E 'Sanitizer|runtime error|Segmentation|Aborted|core dumped' '$TMP/split.err'"
    check "split: the last line names the part and why" \
        bash -c "grep -q -E 'sp\.part[01]\.(tbbt|hmap)' <<<'${last//\'/}' && grep -q -i 'no space' <<<'${last//\'/}'"
    for f in sp.part0.tbbt sp.part0.hmap sp.part1.tbbt sp.part1.hmap; do
        cmp -s "$FS/$f" "$TMP/$f.prev" || cmp -s "$FS/$f" "$REF/$f" || { ok=0; echo "     split: $f cut"; }
    done
    check "split: each part is its previous version or whole" [ $ok = 1 ]
    check "split: no temporary file left" [ -z "$(find "$FS" -mindepth 1 ! -name .filler ! -name 'sp.part[01].*' | head -3)" ]
}
split_full

# ws_full NAME CMD...: the workspace file (docs/workspace.md) of a current
# directory on FS: CMD runs there (its other outputs on the ordinary disk)
# and must record in the workspace, FS full; the previous workspace file
# (WS_PREV's text) must stay as it was. With WS_FILE=tbbt-results: CMD is
# a replay writing its result file there (a previous run's beside it,
# which must stay as it was, and no new one, whole or cut).
ws_full() {
    local name=$1 rc last what=${WS_FILE:-tbbt-workspace}
    shift
    rm -rf "${REF:?}"/* "$FS"/* "$FS/.filler"
    mkdir -p "$FS/ws/tbbt-results"
    printf '%s' "$WS_PREV" >"$FS/ws/tbbt-workspace"
    cp "$FS/ws/tbbt-workspace" "$TMP/$name.prev"
    echo "{\"previous\": $RANDOM}" >"$FS/ws/tbbt-results/old.json"
    cp "$FS/ws/tbbt-results/old.json" "$TMP/$name.prevres"
    fill 0
    (cd "$FS/ws" && exec timeout 300 "$@") >"$TMP/$name.out" 2>"$TMP/$name.err"
    rc=$?
    last=$(tail -1 "$TMP/$name.err")
    echo "     $name ($what, nothing free): exit $rc: $last"
    check "$name: fails by exit code ($rc)" [ "$rc" != 0 -a "$rc" -lt 128 ]
    check "$name: no crash or sanitizer report" \
        bash -c "! grep -q -E 'Sanitizer|runtime error|Segmentation|Aborted|core dumped' '$TMP/$name.err'"
    check "$name: the last line names the $what file and why" \
        bash -c "grep -q -F '$what' <<<'${last//\'/}' && grep -q -i 'no space' <<<'${last//\'/}'"
    check "$name: the previous workspace file is intact" cmp -s "$FS/ws/tbbt-workspace" "$TMP/$name.prev"
    check "$name: the previous result file is intact" cmp -s "$FS/ws/tbbt-results/old.json" "$TMP/$name.prevres"
    check "$name: no temporary or new file left" [ -z "$(find "$FS" -mindepth 1 ! -name .filler ! -name ws \
        ! -path "$FS/ws/tbbt-workspace" ! -path "$FS/ws/tbbt-results" ! -path "$FS/ws/tbbt-results/old.json" | head -3)" ]
}
WS_HEAD=$'# tbbt-workspace 1\n# tbbt\'s memory of this directory: docs/workspace.md\n'
WS_PREV=$WS_HEAD ws_full ws-prep "$B/transform/tbbt-prep" -q -o "$TMP/other/rec.tbbt" -m "$TMP/other/rec.hmap" "$TRACE"

# tbbt-init against nfs-ganesha (its export on the ordinary disk): the
# manifest, the JSON report, and the server's line in the workspace.
if ! tbbt_ganesha_usable 2>/dev/null; then
    echo "     (nfs-ganesha cannot run here: tbbt-init's manifest, JSON and workspace line not tried)"
elif ! tbbt_ganesha_start "$TMP/srv" >/dev/null 2>&1; then
    check "nfs-ganesha started" false
else
    SRV=(--nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT")
    # the manifest: tbbt-init removes a previous one first (the image it
    # described is being rebuilt, tests/e2e cover that), so none here:
    # the write must fail and leave no manifest, neither cut nor stale
    NOPREV=1 full init-manifest manifest "$B/hierarchy/tbbt-init" -q --replace "${SRV[@]}" --map "$TMP/in.hmap" \
        --manifest @ "127.0.0.1:$TBBT_EXPORT"
    full init-json json "$B/hierarchy/tbbt-init" -q --replace "${SRV[@]}" --map "$TMP/in.hmap" \
        --manifest "$TMP/other/m" --json @ "127.0.0.1:$TBBT_EXPORT"
    WS_PREV=$WS_HEAD$'trace\trecords='"$TMP/in.tbbt"$'\tmap='"$TMP/in.hmap"$'\n' \
        ws_full ws-init "$B/hierarchy/tbbt-init" -q --replace "${SRV[@]}" --manifest "$TMP/other/m" \
        "127.0.0.1:$TBBT_EXPORT"
    # a replay's result file in the workspace's tbbt-results/ (no --json):
    # the manifest of the init-json run above, on the ordinary disk
    WS_FILE=tbbt-results WS_PREV=$WS_HEAD$'trace\trecords='"$TMP/in.tbbt"$'\tmap='"$TMP/in.hmap"$'\n' \
        ws_full ws-play "$B/player/tbbt-play" -q "${SRV[@]}" --manifest "$TMP/other/m" "$TMP/in.tbbt" \
        "127.0.0.1:$TBBT_EXPORT"
    tbbt_ganesha_stop "$TMP/srv"
fi
e2e_end
