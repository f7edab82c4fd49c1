#!/bin/bash
# tests/lib/ganesha.sh: start and stop a private nfs-ganesha (VFS FSAL, NFSv3)
# on 127.0.0.1 (or TBBT_GANESHA_ADDR), on free non-standard ports, with its
# config, export directory, log, pid file and recovery state all under one
# directory DIR.
#
# Sourced (bash):   . tests/lib/ganesha.sh
#   tbbt_ganesha_usable              0 if a server can be started here, else 1
#                                    with the reason on stderr (tests exit 77)
#   tbbt_ganesha_start DIR           start, wait until NFS and MOUNT answer;
#                                    0 on success (variables below exported),
#                                    1 on failure (log tail on stderr)
#   tbbt_ganesha_stop DIR            stop the server of DIR (TERM, wait, KILL),
#                                    0 always; safe to call twice or in a trap
# Run:              ganesha.sh start DIR | ganesha.sh stop DIR | ganesha.sh usable
#   "start" prints the variables as shell assignments (eval-able) and leaves
#   them in DIR/env.sh as well.
#
# Exported after a successful start (also written to DIR/env.sh):
#   TBBT_NFS_ADDR     the address it listens on (TBBT_GANESHA_ADDR, default 127.0.0.1)
#   TBBT_NFS_PORT     NFS (100003 v3) port, TCP and UDP, on TBBT_NFS_ADDR
#   TBBT_MNT_PORT     MOUNT (100005 v3) port, TCP and UDP
#   TBBT_EXPORT       export path as clients name it (absolute, = Pseudo)
#   TBBT_EXPORT_DIR   the local directory behind it (same path here), mode 0777
#   TBBT_NFS_URL      nfs://ADDREXPORT?nfsport=..&mountport=..&version=3
#   TBBT_GANESHA_PID  pid of ganesha.nfsd
#   TBBT_GANESHA_DIR  DIR (absolute)
# Files in DIR: ganesha.conf ganesha.log ganesha.pid ganesha.out env.sh
# export/ recovery/ and rpcbind.started when this script had to start rpcbind.
#
# Environment knobs: TBBT_GANESHA_PORT=N fixes the NFS port (MOUNT = N+1);
# TBBT_GANESHA_ADDR=A listens on local address A instead of 127.0.0.1 (one
# address: e.g. a bridge's, for clients in other network namespaces);
# TBBT_GANESHA_TIMEOUT (seconds to wait for the server, default 30).
# ganesha 4.3 needs: root (VFS uses open_by_handle_at), rpcbind running (it
# registers NFS/MOUNT and dies if it cannot), no systemd; D-Bus is optional
# (it logs CRIT lines without a bus and goes on).

TBBT_GANESHA_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# _tbbt_g_msg TEXT: one line on stderr, prefixed.
_tbbt_g_msg() {
    echo "ganesha.sh: $*" >&2
}

# _tbbt_g_port_free PORT: 0 when nobody listens on PORT (TCP or UDP, any address).
_tbbt_g_port_free() {
    # awk reads all of ss's output (no early exit: safe under pipefail)
    ss -Htanu 2>/dev/null | awk -v p="$1" '{ n = split($5, a, ":"); if (a[n] == p) used = 1 } END { exit used }'
}

# _tbbt_g_pick_base: print a port P with P..P+3 all free (20000..29996), or
# TBBT_GANESHA_PORT when set; returns 1 when no free range was found.
_tbbt_g_pick_base() {
    if [ -n "${TBBT_GANESHA_PORT:-}" ]; then
        echo "$TBBT_GANESHA_PORT"
        return 0
    fi
    local i base ok k
    for i in $(seq 1 50); do
        base=$((20000 + (RANDOM * 32768 + RANDOM) % 2499 * 4))
        ok=1
        for k in 0 1 2 3; do
            _tbbt_g_port_free $((base + k)) || ok=0
        done
        [ "$ok" = 1 ] && { echo "$base"; return 0; }
    done
    return 1
}

# tbbt_ganesha_usable: 0 when ganesha, its VFS FSAL, rpcbind, rpcinfo and root
# (or password-less sudo: not supported, we need root) are available.
tbbt_ganesha_usable() {
    local b
    for b in ganesha.nfsd rpcinfo rpcbind ss; do
        if ! command -v "$b" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$b" ]; then
            _tbbt_g_msg "$b not installed (dev/install-deps.sh)"
            return 1
        fi
    done
    if ! compgen -G "/usr/lib*/ganesha/libfsalvfs.so" >/dev/null &&
        ! compgen -G "/usr/lib/*/ganesha/libfsalvfs.so" >/dev/null; then
        _tbbt_g_msg "VFS FSAL (nfs-ganesha-vfs) not installed"
        return 1
    fi
    if [ "$(id -u)" != 0 ]; then
        _tbbt_g_msg "must run as root (ganesha's VFS FSAL needs open_by_handle_at)"
        return 1
    fi
    return 0
}

# _tbbt_g_rpcbind: make sure rpcbind answers; start it when needed and record
# that in DIR/rpcbind.started. 0 when rpcbind answers, 1 otherwise.
_tbbt_g_rpcbind() {
    local dir=$1 i
    if timeout 3 rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
        return 0
    fi
    local rb
    rb=$(command -v rpcbind || echo /usr/sbin/rpcbind)
    # daemon(3) fails with ENODEV ("fork failed: No such device") when
    # /dev/null is not the null device; say so rather than time out
    if [ ! -c /dev/null ]; then
        _tbbt_g_msg "/dev/null is not a character device (replaced by a plain file?): rpcbind and ganesha cannot daemonize; as root: rm /dev/null && mknod -m 666 /dev/null c 1 3"
        return 1
    fi
    mkdir -p /run/rpcbind 2>/dev/null
    "$rb" -w || { _tbbt_g_msg "cannot start rpcbind"; return 1; }
    for i in $(seq 1 50); do
        if timeout 3 rpcinfo -p 127.0.0.1 >/dev/null 2>&1; then
            pgrep -x rpcbind | head -1 >"$dir/rpcbind.started"
            return 0
        fi
        sleep 0.1
    done
    _tbbt_g_msg "rpcbind started but does not answer"
    return 1
}

# _tbbt_g_addr: the address the server listens on.
_tbbt_g_addr() {
    echo "${TBBT_GANESHA_ADDR:-127.0.0.1}"
}

# _tbbt_g_write_conf DIR BASE: fill the template into DIR/ganesha.conf.
_tbbt_g_write_conf() {
    local dir=$1 base=$2
    sed -e "s|@NFS_PORT@|$base|g" -e "s|@MNT_PORT@|$((base + 1))|g" \
        -e "s|@NLM_PORT@|$((base + 2))|g" -e "s|@RQUOTA_PORT@|$((base + 3))|g" \
        -e "s|@BIND_ADDR@|$(_tbbt_g_addr)|g" -e "s|@DIR@|$dir|g" -e "s|@EXPORT_DIR@|$dir/export|g" \
        "$TBBT_GANESHA_LIB_DIR/ganesha.conf.in" >"$dir/ganesha.conf"
}

# _tbbt_g_ping PORT PROG: 0 when program PROG version 3 answers its NULL
# procedure over TCP on this server's address and PORT. By universal address
# (rpcinfo -a), not -n PORT: libtirpc's rpcinfo asks rpcbind for the port
# despite -n, and rpcbind holds whichever server registered last (every
# server on this machine registers NFS and MOUNT v3 with the one rpcbind).
_tbbt_g_ping() {
    local port=$1 prog=$2
    timeout 3 rpcinfo -a "$(_tbbt_g_addr).$((port / 256)).$((port % 256))" -T tcp "$prog" 3 >/dev/null 2>&1
}

# _tbbt_g_wait_ready PID NFSPORT MNTPORT: 0 once NFS v3 and MOUNT v3 answer
# over TCP; 1 when PID died or TBBT_GANESHA_TIMEOUT passed.
_tbbt_g_wait_ready() {
    local pid=$1 nport=$2 mport=$3 deadline
    deadline=$((SECONDS + ${TBBT_GANESHA_TIMEOUT:-30}))
    while [ $SECONDS -lt $deadline ]; do
        kill -0 "$pid" 2>/dev/null || return 1
        if _tbbt_g_ping "$nport" 100003 && _tbbt_g_ping "$mport" 100005; then
            return 0
        fi
        sleep 0.2
    done
    return 1
}

# _tbbt_g_export_vars DIR BASE PID: set, export and save the caller's variables.
_tbbt_g_export_vars() {
    local dir=$1 base=$2 pid=$3
    export TBBT_NFS_ADDR
    TBBT_NFS_ADDR=$(_tbbt_g_addr)
    export TBBT_NFS_PORT=$base TBBT_MNT_PORT=$((base + 1))
    export TBBT_EXPORT="$dir/export" TBBT_EXPORT_DIR="$dir/export"
    export TBBT_NFS_URL="nfs://$TBBT_NFS_ADDR$dir/export?nfsport=$base&mountport=$((base + 1))&version=3"
    export TBBT_GANESHA_PID=$pid TBBT_GANESHA_DIR="$dir"
    local v
    for v in TBBT_NFS_ADDR TBBT_NFS_PORT TBBT_MNT_PORT TBBT_EXPORT TBBT_EXPORT_DIR TBBT_NFS_URL \
        TBBT_GANESHA_PID TBBT_GANESHA_DIR; do
        printf "%s='%s'\n" "$v" "${!v}"
    done >"$dir/env.sh"
}

# tbbt_ganesha_start DIR: start a server for DIR (created if missing; an
# existing DIR/export is kept). Tries up to 5 port ranges in case another
# process takes the port between the check and the bind. 0 on success.
tbbt_ganesha_start() {
    local dir=$1 attempt base pid
    [ -n "$dir" ] || { _tbbt_g_msg "usage: tbbt_ganesha_start DIR"; return 1; }
    tbbt_ganesha_usable || return 1
    mkdir -p "$dir" || return 1
    dir=$(cd "$dir" && pwd -P)
    if [ -f "$dir/ganesha.pid" ] && kill -0 "$(cat "$dir/ganesha.pid")" 2>/dev/null; then
        _tbbt_g_msg "a server already runs for $dir (pid $(cat "$dir/ganesha.pid"))"
        return 1
    fi
    mkdir -p "$dir/export" "$dir/recovery" && chmod 0777 "$dir/export" || return 1
    _tbbt_g_rpcbind "$dir" || return 1
    for attempt in 1 2 3 4 5; do
        base=$(_tbbt_g_pick_base) || { _tbbt_g_msg "no free port range"; return 1; }
        _tbbt_g_write_conf "$dir" "$base"
        rm -f "$dir/ganesha.pid"
        ganesha.nfsd -F -f "$dir/ganesha.conf" -L "$dir/ganesha.log" -p "$dir/ganesha.pid" \
            -N NIV_EVENT </dev/null >>"$dir/ganesha.out" 2>&1 &
        pid=$!
        echo "$pid" >"$dir/ganesha.pid"
        if _tbbt_g_wait_ready "$pid" "$base" $((base + 1)); then
            _tbbt_g_export_vars "$dir" "$base" "$pid"
            return 0
        fi
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        _tbbt_g_msg "attempt $attempt on port $base failed; log tail:"
        tail -n 5 "$dir/ganesha.log" >&2 2>/dev/null
        [ -n "${TBBT_GANESHA_PORT:-}" ] && break
    done
    rm -f "$dir/ganesha.pid"
    return 1
}

# _tbbt_g_stop_rpcbind DIR: stop rpcbind only when this script started it for
# DIR and no ganesha.nfsd is left that might use it.
_tbbt_g_stop_rpcbind() {
    local dir=$1 rpid
    [ -f "$dir/rpcbind.started" ] || return 0
    rpid=$(cat "$dir/rpcbind.started")
    rm -f "$dir/rpcbind.started"
    pgrep -x ganesha.nfsd >/dev/null && return 0
    [ -n "$rpid" ] && [ "$(cat /proc/"$rpid"/comm 2>/dev/null)" = rpcbind ] && kill "$rpid" 2>/dev/null
    return 0
}

# tbbt_ganesha_stop DIR: TERM the server of DIR, wait up to 15 s, then KILL.
# Leaves DIR (log, export) in place for the caller to inspect or delete.
# Without DIR/ganesha.pid it looks for the ganesha.nfsd started with
# DIR/ganesha.conf (pass DIR as the same absolute path then).
tbbt_ganesha_stop() {
    local dir=$1 pid= i
    [ -n "$dir" ] || return 0
    [ -d "$dir" ] && dir=$(cd "$dir" && pwd -P)
    [ -f "$dir/ganesha.pid" ] && pid=$(cat "$dir/ganesha.pid")
    # pid file lost: find the server started with this DIR's config, exactly
    [ -n "$pid" ] || pid=$(pgrep -x -f "ganesha.nfsd -F -f $dir/ganesha.conf .*" | head -1)
    if [ -n "$pid" ]; then
        if [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = ganesha.nfsd ]; then
            kill -TERM "$pid" 2>/dev/null
            for i in $(seq 1 150); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            if kill -0 "$pid" 2>/dev/null; then
                _tbbt_g_msg "pid $pid ignored TERM for 15 s, killing"
                kill -KILL "$pid" 2>/dev/null
            fi
            wait "$pid" 2>/dev/null
        fi
        rm -f "$dir/ganesha.pid" 2>/dev/null
    fi
    _tbbt_g_stop_rpcbind "$dir"
    return 0
}

# Run as a program: ganesha.sh start|stop|usable DIR
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case "${1:-}" in
    start)
        tbbt_ganesha_start "${2:?usage: ganesha.sh start DIR}" || exit 1
        cat "$TBBT_GANESHA_DIR/env.sh"
        ;;
    stop) tbbt_ganesha_stop "${2:?usage: ganesha.sh stop DIR}" ;;
    usable) tbbt_ganesha_usable ;;
    *)
        echo "usage: ganesha.sh start DIR | stop DIR | usable" >&2
        exit 2
        ;;
    esac
fi
