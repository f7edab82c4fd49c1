#!/bin/bash
# tests/lib/netns.sh -- several load hosts on one machine, for tbbt-play under
# Open MPI: network namespaces, each with its own address on a bridge of the
# root namespace; the bridge has an address too, for the server to listen on
# (tests/lib/ganesha.sh: TBBT_GANESHA_ADDR). A rank launched into namespace H
# (tests/lib/netns_agent.sh, mpirun's remote-shell agent) sends from H's
# address only, as a rank on another machine would from that machine's.
#
# Sourced (bash):   . tests/lib/netns.sh
#   tbbt_netns_usable       0 when it can run here: root, iproute2's
#                           `ip netns`, bridges, veth pairs, unshare; else 1
#                           with the reason on stderr (tests exit 77)
#   tbbt_netns_up N         makes the bridge and N namespaces; 0, or 1 with
#                           the reason on stderr (what it made is removed).
#                           Sets:
#     TBBT_NETNS_BR         the bridge (tbbr<pid>)
#     TBBT_NETNS_NET        its subnet, 10.77.L.0/24, L one no route covers
#                           but the default one
#     TBBT_NETNS_SERVER     the bridge's address, 10.77.L.1
#     TBBT_NETNS_HOSTS      array: the namespaces, tbbt<pid>h1..hN, which are
#                           also their hostnames (netns_agent.sh)
#     TBBT_NETNS_ADDRS      array: their addresses, 10.77.L.2..N+1
#     TBBT_NETNS_MPIOPTS    array: mpirun's options to launch into them (the
#                           agent, no tree spawn, Open MPI's own TCP traffic
#                           kept to the subnet); add --hostfile
#   tbbt_netns_hostfile FILE N
#                           writes an Open MPI hostfile naming the first N
#                           namespaces, one slot each
#   tbbt_netns_down         ends what still runs in the namespaces (their
#                           pids: TERM, then KILL after 5 s), deletes them,
#                           their veths and the bridge; 0 always, safe to
#                           call twice or from a trap
# The subnet is chosen and the bridge made under a lock (flock on /tmp
# itself: no lock file is left), so runs at once get different subnets.

TBBT_NETNS_LIB_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TBBT_NETNS_BR=
TBBT_NETNS_HOSTS=()
TBBT_NETNS_ADDRS=()
TBBT_NETNS_MPIOPTS=()
_tbbt_n_veths=() # the bridge's ends of the veth pairs

# _tbbt_n_msg TEXT: one line on stderr, prefixed.
_tbbt_n_msg() {
    echo "netns.sh: $*" >&2
}

# tbbt_netns_usable: see the header. Makes and removes a probe namespace,
# bridge and veth pair, since a container may have `ip` but not the right
# to use it.
tbbt_netns_usable() {
    local b p=tbbtq$$ why=
    for b in ip unshare flock; do
        command -v "$b" >/dev/null 2>&1 || { _tbbt_n_msg "$b not installed (scripts/install-deps.sh)"; return 1; }
    done
    [ "$(id -u)" = 0 ] || { _tbbt_n_msg "must run as root (network namespaces)"; return 1; }
    if ! ip netns add "$p" 2>/dev/null; then
        why="ip netns add fails here (no network namespaces, or no CAP_SYS_ADMIN)"
    elif ! ip link add "$p" type bridge 2>/dev/null; then
        why="cannot make a bridge (ip link add type bridge)"
    elif ! ip link add "${p}v" type veth peer name eth0 netns "$p" 2>/dev/null; then
        why="cannot make a veth pair into a namespace"
    elif ! ip netns exec "$p" unshare --uts true 2>/dev/null; then
        why="unshare --uts fails inside a namespace"
    fi
    ip link del "${p}v" 2>/dev/null
    ip link del "$p" 2>/dev/null
    ip netns del "$p" 2>/dev/null
    [ -z "$why" ] || { _tbbt_n_msg "$why"; return 1; }
    return 0
}

# _tbbt_n_free_net: print a third octet L such that 10.77.L.0/24 is covered
# by no route but the default one; 1 when none is.
_tbbt_n_free_net() {
    local i l
    for i in $(seq 0 255); do
        l=$((($$ + i) % 256))
        if ! ip -4 route show match "10.77.$l.0/24" | grep -qv '^default'; then
            echo "$l"
            return 0
        fi
    done
    return 1
}

# _tbbt_n_bridge: choose the subnet and make the bridge with its address,
# under the lock. 0 or 1.
_tbbt_n_bridge() {
    local l
    exec {_tbbt_n_lock}</tmp || return 1
    flock -w 30 "$_tbbt_n_lock" || { _tbbt_n_msg "the lock on /tmp was held for 30 s"; exec {_tbbt_n_lock}<&-; return 1; }
    if l=$(_tbbt_n_free_net); then
        TBBT_NETNS_BR=tbbr$$
        ip link add "$TBBT_NETNS_BR" type bridge &&
            ip addr add "10.77.$l.1/24" dev "$TBBT_NETNS_BR" &&
            ip link set "$TBBT_NETNS_BR" up || l=
    else
        _tbbt_n_msg "no free subnet in 10.77.0.0/16"
        l=
    fi
    exec {_tbbt_n_lock}<&-
    [ -n "$l" ] || return 1
    TBBT_NETNS_NET=10.77.$l.0/24
    TBBT_NETNS_SERVER=10.77.$l.1
}

# _tbbt_n_host I: namespace I (1-based) with a veth into the bridge and
# address .I+1, loopback up. 0 or 1.
_tbbt_n_host() {
    local ns=tbbt$$h$1 v=tbv$$h$1 a=${TBBT_NETNS_SERVER%.1}.$(($1 + 1))
    ip netns add "$ns" || return 1
    TBBT_NETNS_HOSTS+=("$ns")
    ip link add "$v" type veth peer name eth0 netns "$ns" || return 1
    _tbbt_n_veths+=("$v")
    ip link set "$v" master "$TBBT_NETNS_BR" up &&
        ip -n "$ns" addr add "$a/24" dev eth0 &&
        ip -n "$ns" link set eth0 up &&
        ip -n "$ns" link set lo up || return 1
    TBBT_NETNS_ADDRS+=("$a")
}

# _tbbt_n_reachable I: 0 once namespace I reaches the bridge's address (the
# veth may take a moment to carry traffic), 1 after 5 s. TCP to a port
# nobody listens on: "refused" is an answer.
_tbbt_n_reachable() {
    local ns=${TBBT_NETNS_HOSTS[$1]} out
    for _ in $(seq 1 50); do
        out=$(ip netns exec "$ns" timeout 1 bash -c "exec 3<>/dev/tcp/$TBBT_NETNS_SERVER/9" 2>&1)
        case $out in *refused*) return 0 ;; esac
        [ -z "$out" ] && return 0
        sleep 0.1
    done
    _tbbt_n_msg "$ns cannot reach $TBBT_NETNS_SERVER: $out"
    return 1
}

# tbbt_netns_up N: see the header.
tbbt_netns_up() {
    local n=$1 i
    _tbbt_n_bridge || { _tbbt_n_msg "cannot make the bridge"; tbbt_netns_down; return 1; }
    for i in $(seq 1 "$n"); do
        _tbbt_n_host "$i" || { _tbbt_n_msg "cannot make namespace $i"; tbbt_netns_down; return 1; }
    done
    for i in $(seq 0 $((n - 1))); do
        _tbbt_n_reachable "$i" || { tbbt_netns_down; return 1; }
    done
    # shellcheck disable=SC2034,SC2054 # for the caller; "tcp,self" is one word
    TBBT_NETNS_MPIOPTS=(--mca plm_rsh_agent "$TBBT_NETNS_LIB_DIR/netns_agent.sh" --mca plm_rsh_no_tree_spawn 1
        --mca oob_tcp_if_include "$TBBT_NETNS_NET" --mca btl tcp,self --mca btl_tcp_if_include "$TBBT_NETNS_NET")
    return 0
}

# tbbt_netns_hostfile FILE N: see the header.
tbbt_netns_hostfile() {
    local i
    for i in $(seq 0 $(($2 - 1))); do
        echo "${TBBT_NETNS_HOSTS[$i]} slots=1"
    done >"$1"
}

# _tbbt_n_end NS: TERM what runs in NS, KILL what is left after 5 s.
_tbbt_n_end() {
    local ns=$1 pids
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null
    for _ in $(seq 1 50); do
        pids=$(ip netns pids "$ns" 2>/dev/null)
        [ -n "$pids" ] || return 0
        sleep 0.1
    done
    _tbbt_n_msg "killing what is left in $ns: $pids"
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
}

# tbbt_netns_down: see the header. A veth would go with its namespace, but
# later (the kernel frees a namespace's devices in the background): deleting
# it first makes it gone on return.
tbbt_netns_down() {
    local ns v
    for ns in "${TBBT_NETNS_HOSTS[@]}"; do _tbbt_n_end "$ns"; done
    for v in "${_tbbt_n_veths[@]}"; do ip link del "$v" 2>/dev/null; done
    for ns in "${TBBT_NETNS_HOSTS[@]}"; do ip netns del "$ns" 2>/dev/null; done
    TBBT_NETNS_HOSTS=()
    TBBT_NETNS_ADDRS=()
    _tbbt_n_veths=()
    if [ -n "$TBBT_NETNS_BR" ]; then
        ip link del "$TBBT_NETNS_BR" 2>/dev/null
        TBBT_NETNS_BR=
    fi
    return 0
}
