#!/bin/bash
# tbbt-play gives each traced client its own connection, as the trace had
# them, past the old 64: a capture of several hundred NFS clients (tbbt-workload
# runs one after another under one tcpdump, 64 clients each, every client its
# own TCP connection from its own source port) is replayed on nfs-ganesha
#   - by default: the server sees one connection per traced client (the
#     replay's SYNs to the NFS port, counted under tcpdump, less the one the
#     server check makes), and every record gets its traced status;
#   - the result's connections_opened is the count the server saw;
#   - with --connections 16: 16 connections, the one line saying what the cap
#     merges (clients over connections, per-client order kept), and every
#     record still gets its traced status.
# Knobs: TBBT_MANY_RUNS (workload runs, default 8: 512 clients),
# TBBT_MANY_OPS (calls per run, default 640).
# Usage (ctest): bash many_clients.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: many_clients.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: many_clients.sh BUILD_DIR SRC_DIR}
RUNS=${TBBT_MANY_RUNS:-8}
OPS=${TBBT_MANY_OPS:-640}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
. "$SRC/tests/lib/replay.sh"
replay_setup
e2e_begin play-many

# workloads: RUNS tbbt-workload runs one after another (at once, tcpdump
# dropped packets on 2 loaded cores), each 64 clients in its own directory
# and seed; fails when one did. The trace holds RUNS x 64 clients, 64 at a
# time; the player keeps each one's connection open to the end. As root,
# libnfs binds a reserved source port (about 500 of them, reused run after
# run): the runs go as nobody, from distinct unprivileged ports, as a site's
# many hosts give distinct endpoints.
workloads() {
    local i as=()
    [ "$(id -u)" = 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    for ((i = 0; i < RUNS; i++)); do
        "${as[@]}" "$WL" --quiet --clients 64 --ops "$OPS" --seed $((i + 1)) --dir "w$i" "$TBBT_NFS_URL" \
            >"$TMP/wl$i.txt" 2>&1 || return 1
    done
}

# syns PCAP: the connections opened to the NFS port in PCAP.
syns() {
    tcpdump -nr "$1" "tcp dst port $TBBT_NFS_PORT and tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn" 2>/dev/null |
        wc -l
}

# endpoints PCAP: the distinct client endpoints (address.port) that opened a
# connection to the NFS port in PCAP.
endpoints() {
    tcpdump -nr "$1" "tcp dst port $TBBT_NFS_PORT and tcp[tcpflags] & (tcp-syn|tcp-ack) == tcp-syn" 2>/dev/null |
        awk '{print $3}' | sort -u | wc -l
}

# play TAG [OPTIONS]: a fresh server and image, tbbt-play under tcpdump (SYNs
# to the NFS port only); sets REC MATCHED PARTIAL CONNS.
play() {
    local tag=$1 rc
    shift
    fresh_server >/dev/null || { check "$tag: the server started" false; return 1; }
    init_image "$TMP/m.hmap" || { check "$tag: tbbt-init built the image" false; return 1; }
    tbbt_capture_run "$TMP/$tag.pcap" 96 "tcp dst port $TBBT_NFS_PORT and tcp[tcpflags] & tcp-syn != 0" \
        "$PLAY" --no-live "$@" --nfs-port "$TBBT_NFS_PORT" --json "$TMP/$tag.json" \
        "$TMP/m.tbbt" "127.0.0.1:$TBBT_EXPORT" >"$TMP/$tag.out" 2>"$TMP/$tag.err"
    rc=$?
    tbbt_ganesha_stop "$TMP/srv"
    check "$tag: tbbt-play exit 0" [ $rc = 0 ]
    local x
    read -r REC MATCHED x x x x x PARTIAL < <(jtotals "$TMP/$tag.json")
    CONNS=$(($(syns "$TMP/$tag.pcap") - 1)) # the server check's probe is one
    OPENED=$(grep -o '"connections_opened":[0-9]*' "$TMP/$tag.json" | cut -d: -f2)
    echo "figures $tag: $REC records, $MATCHED matched, $CONNS connections; stderr: $(head -3 "$TMP/$tag.err")"
    [ "$MATCHED" = "$REC" ] || jmismatches "$TMP/$tag.json"
}

tbbt_ganesha_start "$TMP/srv" >/dev/null || { check "ganesha started" false; e2e_end; exit 1; }
tbbt_capture_run "$TMP/many.pcap" 0 "$(tbbt_capture_nfs_filter)" workloads
check "$RUNS workload runs of 64 clients ran under tcpdump" [ $? = 0 ]
tbbt_ganesha_stop "$TMP/srv"
prep m "$TMP/many.pcap"
CLIENTS=$(awk '{print $3}' "$TMP/m.txt" | sort -u | wc -l)
ENDS=$(endpoints "$TMP/many.pcap")
echo "figures: ${NRECS[m]} records from $CLIENTS traced clients, $ENDS client endpoints in the capture"
# On loopback Linux may hand a later run a source port an earlier run's
# closed connection used (tcp_tw_reuse): two workload clients, one endpoint,
# one traced client -- as a site's hosts reuse ports. So the trace is held
# to the capture's endpoints, and to more than seven runs' worth of clients.
check "the trace has one client per client endpoint ($CLIENTS = $ENDS)" [ "$CLIENTS" = "$ENDS" ]
check "the trace has hundreds of clients ($CLIENTS > $(((RUNS - 1) * 64)))" [ "$CLIENTS" -gt $(((RUNS - 1) * 64)) ]

play default
check "default: one connection per traced client ($CONNS = $CLIENTS)" [ "$CONNS" = "$CLIENTS" ]
check "default: the result says the connections opened ($OPENED = $CONNS)" [ "$OPENED" = "$CONNS" ]
check "default: every record matched ($MATCHED of $REC = ${NRECS[m]}), not partial" \
    [ "$MATCHED" = "$REC" -a "$REC" = "${NRECS[m]}" -a "$PARTIAL" = 0 ]
check "default: no note about shared connections" [ ! -s "$TMP/default.err" ]

play capped --connections 16
check "--connections 16: 16 connections ($CONNS)" [ "$CONNS" = 16 ]
check "--connections 16: the result says so ($OPENED)" [ "$OPENED" = 16 ]
check "--connections 16: every record matched ($MATCHED of $REC), not partial" \
    [ "$MATCHED" = "$REC" -a "$REC" = "${NRECS[m]}" -a "$PARTIAL" = 0 ]
per=$(awk -v c="$CLIENTS" 'BEGIN { printf "%.0f", c / 16 }')
said=$(grep -cF "tbbt-play: $CLIENTS traced clients over 16 connections (--connections 16): about $per clients a connection, per-client order kept, concurrency on the wire merged" "$TMP/capped.err")
check "--connections 16: one line says what it merges" [ "$(grep -c . "$TMP/capped.err")" = 1 -a "$said" = 1 ]
e2e_end
