#!/bin/bash
# tbbt-init survives its server restarting: nfs-ganesha is killed twice in
# the middle of a build (once while the objects are being made, once while
# their data is being written) and started again on the same ports a
# second later. NFS is stateless and tbbt-init's calls go by handle, so it
# must make its connection again, send again the calls that were out (a
# creation sent again that meets EXIST counts as made when the name holds
# the object expected), finish and exit 0, and what it built must be the
# image a build without faults makes:
#   - its JSON: "complete": true, reconnects >= 2, every object counted,
#     appends out across the restart written again (the write verifier
#     changed: RFC 1813 says their UNSTABLE data may be lost);
#   - the manifest beside the map: one line per initial ID, "# end N";
#   - the marker says complete;
#   - the tree (paths, types, sizes, modes, link counts, symlink targets,
#     the content's MD5 of every file) is identical to a build of the same
#     map without faults (--run-dir ref), read locally, never through NFS.
# Then a build whose server is killed and not started again must fail with
# one line (exit 1) within its --timeout, its JSON "complete": false with
# the error, no manifest beside the map, the marker saying "building".
# Usage (ctest): bash init_restart.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: init_restart.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: init_restart.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_require perl
e2e_begin init-restart
INIT=$BUILD/hierarchy/tbbt-init
CHK="perl $SRC/tests/hierarchy/init_check.pl"

# 40 directories of 400 files of 4 KiB, a symbolic link and a hard link
# pair each: ~16000 creations and as many appends, several seconds.
perl "$SRC/tests/lib/grid_hmap.pl" --links init_restart.sh 40 400 >"$TMP/m.hmap"
tbbt_ganesha_start "$TMP/srv" >/dev/null || { check "ganesha started" false; e2e_end; exit 1; }
PORT=$TBBT_NFS_PORT EXP=$TBBT_EXPORT_DIR
OPTS=(--nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT" --timeout 30)

"$INIT" -q "${OPTS[@]}" --run-dir ref --manifest "$TMP/ref.manifest" --map "$TMP/m.hmap" "127.0.0.1:$TBBT_EXPORT"
check "the reference build (no faults) finished" [ $? = 0 ]

# restart: kill the server, start it again on the same ports a second later
restart() {
    tbbt_ganesha_stop "$TMP/srv"
    sleep 1
    TBBT_GANESHA_PORT=$PORT tbbt_ganesha_start "$TMP/srv" >/dev/null 2>&1 </dev/null
}
# wait_for WHAT CMD...: polls CMD (at most 60 s); 0 when it held
wait_for() {
    local i
    for i in $(seq 1 600); do
        "$@" && return 0
        sleep 0.1
    done
    echo "never: $*"
    return 1
}
made_some() { [ "$(ls "$EXP/tbbt-run/clone.0/d5" 2>/dev/null | wc -l)" -gt 100 ]; }
data_some() { [ -n "$(find "$EXP/tbbt-run/clone.0/d3" -type f -size +0 2>/dev/null | head -1)" ]; }

"$INIT" "${OPTS[@]}" --json "$TMP/r.json" --map "$TMP/m.hmap" "127.0.0.1:$TBBT_EXPORT" >"$TMP/init.txt" 2>&1 &
pid=$!
check "the build began making objects" wait_for made_some
restart
check "ganesha started again on port $PORT (1)" [ $? = 0 ]
check "the build began writing data" wait_for data_some
restart
check "ganesha started again on port $PORT (2)" [ $? = 0 ]
wait $pid
rc=$?
grep -E "^(tbbt-init: connection|Reconnections)" "$TMP/init.txt"
check "tbbt-init finished across two restarts (exit 0)" [ $rc = 0 ]
J() { $CHK json "$TMP/r.json" "$1"; }
check "its JSON is whole and says complete" [ "$(J '$j->{complete} ? 1 : 0')" = 1 ]
reconn=$(J '$j->{reconnects}')
rewr=$(J '$j->{rewritten}')
echo "figures: $reconn reconnects, $(J '$j->{resent}') calls sent again, $(J '$j->{exist_after_retry}') creations found made, $rewr appends written again"
check "two connections lost and made again ($reconn)" [ "${reconn:-0}" -ge 2 ]
# the restart during the data: appends acknowledged UNSTABLE before it and
# committed after it meet a new write verifier and are written again
check "appends out across the restart written again ($rewr)" [ "${rewr:-0}" -ge 1 ]
check "every object made (40 dirs, 16000 files, 40 symlinks, 40 links)" [ "$(J '$j->{objects}')" = 16120 ]
check "the manifest is whole, one line per initial ID" $CHK manifest "$TMP/m.hmap" "$TMP/m.manifest" 1
check "the marker says complete" grep -q '"state":"complete"' "$EXP/tbbt-run/.tbbt-run"
check "the tree is the map's" $CHK tree "$TMP/m.hmap" "$EXP/tbbt-run/clone.0"
$CHK snap "$EXP/ref/clone.0" >"$TMP/ref.snap"
$CHK snap "$EXP/tbbt-run/clone.0" >"$TMP/run.snap"
check "the tree and every file's content match a build without faults" cmp -s "$TMP/ref.snap" "$TMP/run.snap"

# a server that does not come back: one line, exit 1, nothing looks complete
"$INIT" "${OPTS[@]}" --timeout 3 --replace --json "$TMP/f.json" --map "$TMP/m.hmap" "127.0.0.1:$TBBT_EXPORT" \
    >"$TMP/fail.txt" 2>&1 &
pid=$!
check "the third build emptied RUN and began making objects" wait_for grep -q "^tbbt-init: making" "$TMP/fail.txt"
sleep 0.5
tbbt_ganesha_stop "$TMP/srv"
wait $pid
rc=$?
grep -v "^tbbt-init: \(making\|writing\|connection 0 lost\)" "$TMP/fail.txt"
check "with the server gone, tbbt-init fails (exit 1)" [ $rc = 1 ]
check "... saying so in one line" [ "$(grep -c "not made again" "$TMP/fail.txt")" = 1 ]
check "... its JSON says not complete, with the error" \
    [ "$($CHK json "$TMP/f.json" '($j->{complete} ? 1 : 0) . ($j->{error} =~ /not made again/ ? "e" : "")')" = 0e ]
check "... no manifest beside the map" [ ! -e "$TMP/m.manifest" ]
check "... the marker says building" grep -q '"state":"building"' "$EXP/tbbt-run/.tbbt-run"
e2e_end
