#!/bin/bash
# tests/lib/e2e.sh -- the frame of an end-to-end test (sourced, bash).
#
#   e2e_begin NAME    makes TMP (/tmp/tbbt-e2e-NAME.XXXXXX), sets FAILS=0,
#                     and traps EXIT to stop tcpdump and the server of
#                     $TMP/srv whatever happened; TMP is removed when every
#                     check passed (kept, and its path printed, otherwise
#                     or when TBBT_KEEP is set)
#   check WHAT CMD... runs CMD: prints "ok   WHAT", or "FAIL WHAT" and
#                     counts a failure
#   target WHAT CMD.. a target an issue set that is not met yet, beside
#                     the floor a check guards: prints "ok   target WHAT"
#                     or "MISS target WHAT" and counts misses, which
#                     e2e_end reports and does not fail on
#   e2e_end           prints the count and returns 0 only if none failed
#   e2e_require CMD.. exits 77 (skipped, saying why) unless every command is
#                     installed and nfs-ganesha can run here
#   e2e_capture_workload FILE OPS SEED MAXIO DIR
#                     starts nfs-ganesha in $TMP/srv, captures tbbt-workload
#                     ($WL: 3 clients, uids 0, 1000, 1001) under tcpdump into
#                     FILE, stops the server, checks the run; exits 1 when it
#                     failed. Sets PORTS to tbbt-prep's --port options.
# Source tests/lib/ganesha.sh and tests/lib/capture.sh first.

e2e_begin() {
    TMP=$(mktemp -d "/tmp/tbbt-e2e-$1.XXXXXX")
    FAILS=0
    trap _e2e_cleanup EXIT
    trap 'exit 1' INT TERM
}

# _e2e_cleanup: stop capture and server; keep TMP on failure.
_e2e_cleanup() {
    tbbt_capture_stop >/dev/null 2>&1
    tbbt_ganesha_stop "$TMP/srv"
    if [ "$FAILS" = 0 ] && [ -z "${TBBT_KEEP:-}" ]; then rm -rf "$TMP"; else echo "kept $TMP"; fi
}

check() {
    local what=$1
    shift
    if "$@"; then echo "ok   $what"; else
        echo "FAIL $what"
        FAILS=$((FAILS + 1))
    fi
}

e2e_require() {
    local b
    for b in "$@"; do
        command -v "$b" >/dev/null || { echo "SKIP: $b not installed"; exit 77; }
    done
    tbbt_ganesha_usable || { echo "SKIP: cannot run nfs-ganesha here"; exit 77; }
}

e2e_capture_workload() {
    local file=$1 ops=$2 seed=$3 maxio=$4 dir=$5 rc
    tbbt_ganesha_start "$TMP/srv" || { FAILS=1; echo "FAIL: ganesha did not start"; exit 1; }
    PORTS="--port $TBBT_NFS_PORT --port $TBBT_MNT_PORT"
    tbbt_capture_run "$file" 0 "$(tbbt_capture_nfs_filter)" "$WL" --quiet --clients 3 \
        --uids 0:0,1000:1000,1001:1001 --max-io "$maxio" --ops "$ops" --seed "$seed" --dir "$dir" \
        "$TBBT_NFS_URL" >"$TMP/workload.txt"
    rc=$?
    tbbt_ganesha_stop "$TMP/srv"
    check "workload ran under tcpdump" [ $rc = 0 ]
    [ $rc = 0 ] || exit 1
}

target() {
    local what=$1
    shift
    if "$@"; then echo "ok   target $what"; else
        echo "MISS target $what"
        MISSES=$((${MISSES:-0} + 1))
    fi
}

e2e_end() {
    [ "${MISSES:-0}" = 0 ] || echo "${MISSES} target(s) not met (see MISS lines)"
    echo "$FAILS failure(s)"
    [ "$FAILS" = 0 ]
}
