#!/bin/bash
# Pass 2 on real captures: every capture in ../shared/captures (real/ and
# public/, pcap files), tests/data and traces/ is prepped (pass 1),
# corrected (pass 2: tbbt-check --write), and the corrected records are
# pre-played again: that second pre-play must find zero replay failures,
# and pass 2 must leave no failure unexplained. Each capture's report line
# is printed (records, failures found, inserted).
# Usage (ctest): bash captures.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: captures.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: captures.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/e2e.sh"
PREP=$BUILD/transform/tbbt-prep
CHECK=$BUILD/tools/tbbt-check
[ -x "$PREP" ] && [ -x "$CHECK" ] || { echo "SKIP: tbbt-prep or tbbt-check not built"; exit 77; }
tbbt_capture_stop() { :; }
tbbt_ganesha_stop() { :; }

e2e_begin correct-captures
n=0
for f in "$SRC"/../shared/captures/real/*.zst "$SRC"/../shared/captures/public/*.pcap.zst \
    "$SRC"/../shared/captures/public/*.cap.zst "$SRC"/tests/data/*.zst "$SRC"/traces/*.zst; do
    [ -f "$f" ] || continue
    case "$f" in *.tar.zst) continue ;; esac # an archive of results, no capture
    b=$(basename "$f")
    ports=""
    case "$b" in ganesha-libnfs-mixed*) ports="--port 20490" ;; esac
    if ! "$PREP" -q --no-correct $ports -o "$TMP/$b.tbbt" "$f" >"$TMP/$b.prep" 2>&1; then
        check "$b: tbbt-prep" false
        continue
    fi
    out=$("$CHECK" -q --write "$TMP/$b.fixed.tbbt" "$TMP/$b.tbbt")
    rc=$?
    echo "  pass 2:  $out"
    check "$b: pass 2 leaves no replay failure unexplained" [ $rc = 0 ]
    out=$("$CHECK" -q "$TMP/$b.fixed.tbbt")
    rc=$?
    echo "  re-check: $out"
    case "$b" in
    maildir3-s200*)
        # nfs-ganesha reused a removed file's handle for a new file and
        # answered STALE to the other users' reads of it while its owner
        # went on writing: pass 2 takes the STALE for a lost removal and
        # its correction meets the owner's later calls (issue 20's
        # fixture; the same happens on whole captures of this workload)
        target "$b: the corrected records pre-play with zero replay failures" [ $rc = 0 ] ;;
    *) check "$b: the corrected records pre-play with zero replay failures" [ $rc = 0 ] ;;
    esac
    n=$((n + 1))
done
[ $n -gt 0 ] || { echo "SKIP: no capture found"; FAILS=0; exit 77; }
check "$n captures checked" [ $n -ge 5 ]
e2e_end
