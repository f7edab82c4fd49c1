#!/bin/bash
# tests/lib/capture.sh: run a command under tcpdump on loopback so that every
# packet the command causes is in the capture file: tcpdump is started and
# waited for ("listening on" on its stderr) before the command starts, and is
# stopped with SIGINT and waited for after it ends, so it flushes. The
# capture uses --immediate-mode and -U (no packet waits in a kernel block or
# in tcpdump's buffer) and fails when the kernel reports dropped packets.
#
# Sourced (bash):   . tests/lib/capture.sh
#   tbbt_capture_start FILE FILTER [SNAPLEN]
#         starts tcpdump -i lo (or TBBT_CAPTURE_IF) -w FILE -s SNAPLEN (default 0 = whole packets)
#         with the BPF FILTER; returns 0 once it is capturing (sets
#         TBBT_CAPTURE_PID, TBBT_CAPTURE_FILE), 1 on failure (stderr says why)
#   tbbt_capture_stop
#         SIGINT, wait (10 s, then KILL); returns 0 when FILE is complete and
#         no packet was dropped, 1 otherwise. Safe to call twice or in a trap.
#   tbbt_capture_run FILE SNAPLEN FILTER CMD [ARGS...]
#         start, run CMD, stop; returns CMD's exit status, or 1 when the
#         capture itself failed (then the command's status is lost).
#   tbbt_capture_nfs_filter [NFSPORT [MNTPORT]]
#         prints "port N or port M" (defaults: TBBT_NFS_PORT, TBBT_MNT_PORT
#         as set by tests/lib/ganesha.sh)
# Run:   capture.sh [-s SNAPLEN] [-f FILTER] FILE -- CMD [ARGS...]
#         (FILTER defaults to the NFS and MOUNT ports from the environment)
# TBBT_CAPTURE_SETTLE (seconds, default 0.3) is waited after CMD ends and
# before SIGINT, so the last replies are through the loopback.
# TBBT_CAPTURE_IF (default lo) is the interface captured, e.g. a bridge.
# TBBT_CAPTURE_BUFFER_KIB (default 262144 = 256 MiB) is tcpdump's -B: a
# 100k-call tbbt-workload run writes ~1 GB in ~9 s, and 128 MiB was seen to
# drop packets at that rate.

# _tbbt_c_msg TEXT: one line on stderr, prefixed.
_tbbt_c_msg() {
    echo "capture.sh: $*" >&2
}

# tbbt_capture_nfs_filter [NFSPORT [MNTPORT]]: print the BPF filter for the
# server's NFS and MOUNT ports.
tbbt_capture_nfs_filter() {
    local n=${1:-${TBBT_NFS_PORT:-}} m=${2:-${TBBT_MNT_PORT:-}}
    if [ -z "$n" ]; then
        _tbbt_c_msg "no NFS port (TBBT_NFS_PORT unset)"
        return 1
    fi
    if [ -n "$m" ]; then echo "port $n or port $m"; else echo "port $n"; fi
}

# tbbt_capture_start FILE FILTER [SNAPLEN]: see the header.
tbbt_capture_start() {
    local file=$1 filter=$2 snap=${3:-0} i
    if [ -n "${TBBT_CAPTURE_PID:-}" ] && kill -0 "$TBBT_CAPTURE_PID" 2>/dev/null; then
        _tbbt_c_msg "a capture is already running (pid $TBBT_CAPTURE_PID)"
        return 1
    fi
    command -v tcpdump >/dev/null || { _tbbt_c_msg "tcpdump not installed"; return 1; }
    TBBT_CAPTURE_FILE=$file
    TBBT_CAPTURE_ERR="$file.tcpdump.log"
    rm -f "$file" "$TBBT_CAPTURE_ERR"
    # -Z root: stay root so a root-only directory is writable
    tcpdump -i "${TBBT_CAPTURE_IF:-lo}" -n -U --immediate-mode -B "${TBBT_CAPTURE_BUFFER_KIB:-262144}" -Z root -s "$snap" -w "$file" "$filter" \
        </dev/null >/dev/null 2>"$TBBT_CAPTURE_ERR" &
    TBBT_CAPTURE_PID=$!
    for i in $(seq 1 100); do
        if grep -q "listening on" "$TBBT_CAPTURE_ERR" 2>/dev/null; then
            export TBBT_CAPTURE_PID TBBT_CAPTURE_FILE
            return 0
        fi
        kill -0 "$TBBT_CAPTURE_PID" 2>/dev/null || break
        sleep 0.1
    done
    _tbbt_c_msg "tcpdump did not start: $(tr '\n' ' ' <"$TBBT_CAPTURE_ERR" 2>/dev/null)"
    kill -KILL "$TBBT_CAPTURE_PID" 2>/dev/null
    wait "$TBBT_CAPTURE_PID" 2>/dev/null
    TBBT_CAPTURE_PID=
    return 1
}

# tbbt_capture_stop: see the header. Prints tcpdump's packet counts on stderr
# when TBBT_CAPTURE_VERBOSE is set.
tbbt_capture_stop() {
    local pid=${TBBT_CAPTURE_PID:-} i
    [ -n "$pid" ] || return 0
    sleep "${TBBT_CAPTURE_SETTLE:-0.3}"
    kill -INT "$pid" 2>/dev/null
    for i in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        _tbbt_c_msg "tcpdump ignored SIGINT for 10 s, killing it"
        kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
    TBBT_CAPTURE_PID=
    [ -n "${TBBT_CAPTURE_VERBOSE:-}" ] && grep -E "packets" "$TBBT_CAPTURE_ERR" >&2
    if ! grep -q "packets captured" "$TBBT_CAPTURE_ERR" 2>/dev/null; then
        _tbbt_c_msg "tcpdump did not finish cleanly: $(tr '\n' ' ' <"$TBBT_CAPTURE_ERR")"
        return 1
    fi
    local dropped
    dropped=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$TBBT_CAPTURE_ERR")
    if [ -n "$dropped" ] && [ "$dropped" != 0 ]; then
        _tbbt_c_msg "$dropped packets dropped by kernel: $TBBT_CAPTURE_FILE is incomplete"
        return 1
    fi
    [ -s "$TBBT_CAPTURE_FILE" ] || { _tbbt_c_msg "$TBBT_CAPTURE_FILE is empty"; return 1; }
    return 0
}

# tbbt_capture_run FILE SNAPLEN FILTER CMD [ARGS...]: see the header.
tbbt_capture_run() {
    local file=$1 snap=$2 filter=$3 rc
    shift 3
    tbbt_capture_start "$file" "$filter" "$snap" || return 1
    "$@"
    rc=$?
    tbbt_capture_stop || return 1
    return $rc
}

# Run as a program: capture.sh [-s SNAPLEN] [-f FILTER] FILE -- CMD [ARGS...]
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    snap=0
    filter=
    while getopts "s:f:" opt; do
        case $opt in
        s) snap=$OPTARG ;;
        f) filter=$OPTARG ;;
        *)
            echo "usage: capture.sh [-s SNAPLEN] [-f FILTER] FILE -- CMD [ARGS...]" >&2
            exit 2
            ;;
        esac
    done
    shift $((OPTIND - 1))
    file=${1:-}
    shift
    [ "${1:-}" = "--" ] && shift
    if [ -z "$file" ] || [ $# -eq 0 ]; then
        echo "usage: capture.sh [-s SNAPLEN] [-f FILTER] FILE -- CMD [ARGS...]" >&2
        exit 2
    fi
    [ -n "$filter" ] || filter=$(tbbt_capture_nfs_filter) || exit 2
    trap 'tbbt_capture_stop' EXIT
    tbbt_capture_run "$file" "$snap" "$filter" "$@"
    rc=$?
    trap - EXIT
    exit $rc
fi
