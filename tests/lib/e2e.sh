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
#   e2e_end           prints the count and returns 0 only if none failed
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

e2e_end() {
    echo "$FAILS failure(s)"
    [ "$FAILS" = 0 ]
}
