# tests/lib/nullserver.sh -- the player's mechanics tests against
# tests/tools/tbbt-nullserver (a minimal responder from memory, never an
# NFS server: tests that claim to test replay use nfs-ganesha).
# A test calls nullsrv_setup first; the responder's stdout goes to
# $work/ns.out.

# nullsrv_setup NAME BUILD: sets PLAY (TBBT_PLAY, or BUILD's tbbt-play),
# DUMP, NULLSRV, a fresh $work (/tmp/tbbt-NAME.*) removed at exit with the
# responder, and fail=0 with bad() to count a failure; exits 77 without
# perl's JSON::PP, 1 when a program is not built.
nullsrv_setup() {
    PLAY=${TBBT_PLAY:-$2/player/tbbt-play}
    DUMP=$2/tools/tbbt-dump
    NULLSRV=$2/tests/tools/tbbt-nullserver
    work=$(mktemp -d "/tmp/tbbt-$1.XXXXXX")
    nspid=
    trap '[ -n "$nspid" ] && kill "$nspid" 2>/dev/null; rm -rf "$work"' EXIT
    fail=0
    perl -MJSON::PP -e 1 2>/dev/null || {
        echo "skipped: perl JSON::PP missing"
        exit 77
    }
    for p in "$PLAY" "$DUMP" "$NULLSRV"; do
        [ -x "$p" ] || {
            echo "FAIL: $p not built"
            exit 1
        }
    done
}

# bad WHAT: says FAIL and counts it
bad() {
    echo "FAIL: $*"
    fail=1
}

# nullsrv_fh ID: the handle bench/play-fakemanifest.pl gives TBBT-ID ID
# ("tbbtfake" and the ID), in hex, as a fake manifest lists it.
nullsrv_fh() { printf '7462627466616b65%016x' "$1"; }

# nullsrv_start ARGS...: starts the responder with ARGS on a free port;
# sets $port and $nspid, or says FAIL and exits 1 after five ports.
nullsrv_start() {
    for _ in 1 2 3 4 5; do
        port=$((21000 + RANDOM % 8000))
        "$NULLSRV" --port "$port" "$@" >"$work/ns.out" 2>&1 &
        nspid=$!
        for _ in $(seq 1 40); do
            grep -q 'MINIMAL RESPONDER' "$work/ns.out" && sleep 0.05 && kill -0 "$nspid" 2>/dev/null && return 0
            kill -0 "$nspid" 2>/dev/null || break
            sleep 0.05
        done
        kill "$nspid" 2>/dev/null
        wait "$nspid" 2>/dev/null
        nspid=
    done
    echo "FAIL: tbbt-nullserver would not start: $(cat "$work/ns.out")"
    exit 1
}

# nullsrv_stop: stops the responder started last (SIGINT: it prints its figures).
nullsrv_stop() {
    kill -INT "$nspid"
    wait "$nspid"
    nspid=
}
