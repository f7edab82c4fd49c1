#!/bin/bash
# The capture-damage matrix: fresh multi-client captures of the workload
# generator (3 clients, uids 0, 1000 and 1001, long maildir-style names,
# shared directories with chmod, chown and chgrp among the users, a umask
# each), taken whole with tcpdump -s 0 against nfs-ganesha, once with one
# call outstanding per client (one message a packet) and once pipelined (a
# busy host), then damaged the ways sites' captures are (tbbt-pcapdrop):
# snaplen 96, 128, 200, 256, 512, 1500; GRO super-segments of the busy
# capture with and without a snaplen; bursts of 10 to 500 packets;
# replies only lost; a capture begun mid-stream; and, on a UDP capture of
# the same trace replayed by tbbt-play --udp and cut into 1500-byte IP
# fragments, fragments lost. For each kind it prints and checks:
#   - calls decoded against the truth (the whole capture's calls);
#   - records pass 2 inserted against the calls really lost;
#   - the estimated missing share (the summary JSON's capture object)
#     against the true one: within 3 points for every kind, or, where
#     streams' openings were lost (their calls before are a guess at their
#     pace, given as a range), the truth within 3 points of the range;
#   - the replay's share of all records matched on a fresh ganesha, in both
#     orders, at full speed.
# Checked: one message a packet at snaplen >= 200: every call decoded; at
# snaplen 96 every call's procedure is in the summary (per-procedure counts
# equal the whole capture's); the estimate within 3 points everywhere (or the
# truth within 3 points of the range where openings were lost); the
# replays' floors: 95% of all records on the burst-loss capture (measured
# 98.6-100%), and FLOOR_S200 and FLOOR_S256 (98.5%; fresh captures
# measured 99.3-99.7% at snaplen 200 and 99.0-99.7% at 256 on 2026-11-27,
# docs/validation.md) on the snaplen-200 and -256 ones, in both orders.
# Targets of issue
# 20 not met yet are printed as such (MISS lines, not failures): no record
# inserted at snaplen >= 200 nor on a whole capture, and 99.9% matched on
# the snaplen-200 and burst-loss captures. The other kinds' replays are
# printed, not bounded.
# Knobs: TBBT_E2E_OPS (workload calls, default 3000), TBBT_E2E_SEED.
# Usage (ctest): bash damage_matrix.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: damage_matrix.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: damage_matrix.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-3000}
SEED=${TBBT_E2E_SEED:-23}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
. "$SRC/tests/lib/replay.sh"

replay_setup
T0=$SECONDS
e2e_begin damage-matrix

# calls FILE.tbbt: "client xid call_time proc" of every captured (not
# inserted) record, sorted by client and xid.
calls() {
    "$DUMP" "$1" | awk '$9 !~ /I/ { print $3, $5, $1, $7 }' | sort -k1,2
}

# jcap FILE KEY...: the capture object's values (or the correct object's,
# for keys given as correct.KEY) of a --summary-json file.
jget() {
    local f=$1
    shift
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
        print join(" ", map { my $v = $j; $v = $v->{$_} for split /\./; $v // "null" } @ARGV), "\n"' "$@" <"$f"
}

# procs FILE.json: "vers proc calls" per procedure of a summary JSON.
procs() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
        print "$_->{vers} $_->{proc} $_->{calls}\n" for @{$j->{procedures}}' <"$1" | sort
}

# 1. Two whole captures of the same workload, and their truth: "whole"
# with one call outstanding per client (--depth 1: one RPC message a
# packet, as most captured traffic is), and "busy" with 16 (pipelined
# messages share TCP segments, as on a busy host; GRO then merges them
# into super-segments).
WLOPTS=(--quiet --clients 3 --uids 0:0,1000:1000,1001:1001 --ops "$OPS" --seed "$SEED" --max-io 65536
    --names maildir --shared 2 --umask 022,002,077)
# capture NAME DEPTH: the workload under tcpdump -s 0 into $TMP/NAME.pcap,
# prepared; NAME.calls holds its calls. One more try, on a fresh server,
# when the workload failed: nfs-ganesha 4.3 was seen to leave a pipelined
# READ of a file another user had just removed unanswered ("Not enough
# memory in nfs3_FhandleToCache" in its log), once in a few runs.
capture() {
    local name=$1 depth=$2 rc try
    for try in 1 2; do
        tbbt_ganesha_start "$TMP/srv" || { check "ganesha started" false; return 1; }
        tbbt_capture_run "$TMP/$name.pcap" 0 "$(tbbt_capture_nfs_filter)" "$WL" "${WLOPTS[@]}" --depth "$depth" \
            --dir "$name" "$TBBT_NFS_URL" >"$TMP/$name.workload"
        rc=$?
        NFSPORT=$TBBT_NFS_PORT MNTPORT=$TBBT_MNT_PORT
        tbbt_ganesha_stop "$TMP/srv"
        [ $rc = 0 ] || grep -v 'DBUS\|dbus\|:EVENT :' "$TMP/srv/ganesha.log" | grep -m2 'CRIT\|MAJ'
        rm -rf "$TMP/srv/export"
        [ $rc = 0 ] && break
        echo "NOTE $name: the workload failed (exit $rc), try $try; trying again on a fresh server"
    done
    check "$name: the workload ran under tcpdump -s 0 (depth $depth)" [ $rc = 0 ]
    [ $rc = 0 ] || return 1
    PORTS=(--port "$NFSPORT" --port "$MNTPORT")
    prep "$name" "$TMP/$name.pcap" "${PORTS[@]}" --summary-json "$TMP/$name.json"
    calls "$TMP/$name.tbbt" >"$TMP/$name.calls"
    local longest
    longest=$(awk '{ for (i = 10; i <= NF; i++) if ($i ~ /^name=/) { l = length($i) - 7; if (l > m) m = l } }
        END { print m + 0 }' "$TMP/$name.txt")
    echo "$name capture: $(wc -l <"$TMP/$name.calls") calls, $(awk '{print $3}' "$TMP/$name.txt" | sort -u | wc -l)" \
        "clients, uids $(grep -o ' cred=[0-9]*:[0-9]*' "$TMP/$name.txt" | cut -d: -f2 | sort -u | tr '\n' ' ')," \
        "longest name $longest bytes, $(grep -c ' setattr ' "$TMP/$name.txt") setattrs"
    check "$name: judged usable, nothing missing" [ "$(jget "$TMP/$name.json" capture.verdict)" = usable ]
    target "$name: no corrective record ($(jget "$TMP/$name.json" correct.inserted))" \
        [ "$(jget "$TMP/$name.json" correct.inserted)" = 0 ]
}
capture whole 1 || { e2e_end; exit 1; }
capture busy 16 || { e2e_end; exit 1; }
NWHOLE=$(wc -l <"$TMP/whole.calls")
# packets whose TCP payload holds more than one RPC message (tshark lists their xids with commas)
multi() {
    tshark -r "$1" -d "tcp.port==$NFSPORT,rpc" -d "tcp.port==$MNTPORT,rpc" -T fields -e rpc.xid 2>/dev/null |
        grep -c ,
}
check "whole: one RPC message a packet ($(multi "$TMP/whole.pcap") packets with more)" [ "$(multi "$TMP/whole.pcap")" = 0 ]
echo "busy: $(multi "$TMP/busy.pcap") packets hold more than one RPC message"

# damage NAME PCAP-IN ARGS...: tbbt-pcapdrop into $TMP/NAME.pcap, tbbt-prep,
# the truth ($BASE: the calls of the undamaged capture) compared; sets
# TRUE_SHARE, EST_SHARE, INSERTED, DECODED.
BASE=$TMP/whole.calls
damage() {
    local name=$1 in=$2
    shift 2
    "$DROP" --seed 5 "$@" "$in" "$TMP/$name.pcap" >"$TMP/$name.drop" ||
        { check "$name: tbbt-pcapdrop $*" false; return 1; }
    prep "$name" "$TMP/$name.pcap" "${PORTS[@]}" --summary-json "$TMP/$name.json" 2>"$TMP/$name.err"
    calls "$TMP/$name.tbbt" >"$TMP/$name.calls"
    local t0 base=$BASE
    if [ "$name" = midstream ]; then # the truth: the calls from the capture's first moment on
        t0=$(awk 'NR == 1 || $3 < m { m = $3 } END { print m }' "$TMP/$name.calls")
        awk -v t0="$t0" '$3 >= t0' "$BASE" >"$TMP/$name.base"
        base=$TMP/$name.base
    fi
    local nbase lost
    nbase=$(wc -l <"$base")
    DECODED=$(join -j1 <(awk '{ print $1 "/" $2 }' "$base" | sort) \
        <(awk '{ print $1 "/" $2 }' "$TMP/$name.calls" | sort) | wc -l)
    lost=$((nbase - DECODED))
    TRUE_SHARE=$(awk -v l="$lost" -v n="$nbase" 'BEGIN { printf "%.4f", n ? l / n : 0 }')
    read -r EST_SHARE verdict <<<"$(jget "$TMP/$name.json" capture.missing_share capture.verdict)"
    local lo hi
    read -r lo hi <<<"$(perl -MJSON::PP -e 'local $/; print join(" ", @{decode_json(<STDIN>)->{capture}{missing_share_range}}), "\n"' <"$TMP/$name.json")"
    INSERTED=$(jget "$TMP/$name.json" correct.inserted)
    echo "figures $name ($*): $DECODED of $nbase calls decoded, $lost lost; inserted $INSERTED;" \
        "missing share true $TRUE_SHARE, estimated $EST_SHARE (range $lo-$hi); verdict $verdict; $(head -1 "$TMP/$name.drop")"
    # Calls lost with a stream's opening are a guess at its pace (the
    # summary gives the range): there the truth must lie in the range.
    if awk -v a="$EST_SHARE" -v b="$TRUE_SHARE" 'BEGIN { d = a - b; exit !(d <= 0.03 && d >= -0.03) }'; then
        check "$name: estimated missing share $EST_SHARE within 3 points of the truth $TRUE_SHARE" true
    else
        check "$name: estimate $EST_SHARE off the truth $TRUE_SHARE by more than 3 points, openings lost: the truth within 3 points of the range $lo-$hi" \
            awk -v l="$lo" -v h="$hi" -v b="$TRUE_SHARE" 'BEGIN { exit !(l < h && b >= l - 0.03 && b <= h + 0.03) }'
    fi
}

# matched_pct FILE: the share of all records a replay matched, in %.
matched_pct() {
    local recs matched
    read -r recs matched _ <<<"$(jtotals "$1")"
    awk -v m="$matched" -v r="$recs" 'BEGIN { printf "%.3f", r ? 100 * m / r : 0 }'
}

# replays NAME FLOOR [TARGET]: both orders at full speed; the share matched
# must reach FLOOR% (0: printed only) and is held against TARGET% (the
# issue's, where it is not met yet).
replays() {
    local order pct
    for order in conservative fsdep; do
        replay "$1" "$order" 0 "$2" || continue
        [ -n "${3:-}" ] || continue
        pct=$(matched_pct "$TMP/$1-$order-0.json")
        target "$1, $order: $pct% of all records matched >= $3%" awk -v p="$pct" -v t="$3" 'BEGIN { exit !(p >= t) }'
    done
}

# 2. Snaplen.
for s in 96 128 200 256 512 1500; do
    damage "s$s" "$TMP/whole.pcap" --snaplen "$s" || continue
    if [ "$s" -ge 200 ]; then
        check "s$s: one message a packet: every call decoded ($DECODED of $NWHOLE)" [ "$DECODED" = "$NWHOLE" ]
        target "s$s: one message a packet: no record inserted ($INSERTED)" [ "$INSERTED" = 0 ]
    fi
done
check "s96: every call's procedure is in the summary" cmp -s <(procs "$TMP/whole.json") <(procs "$TMP/s96.json")
replays s200 "${FLOOR_S200:-98.5}" 99.9
replays s256 "${FLOOR_S256:-98.5}" 99.9

# 3. The busy host: GRO super-segments, whole, and at -s 256 and 1500
# (only the first message of a super-segment survives the cut).
BASE=$TMP/busy.calls
damage busy-s256 "$TMP/busy.pcap" --snaplen 256
damage gro "$TMP/busy.pcap" --gro && replays gro 0
damage gro256 "$TMP/busy.pcap" --gro --snaplen 256
damage gro1500 "$TMP/busy.pcap" --gro --snaplen 1500
BASE=$TMP/whole.calls

# 4. Bursts of 10 to 500 packets, 5% in all; replies only; mid-stream.
damage burst "$TMP/whole.pcap" --burst-percent 5 --burst-min 10 --burst-max 500 && replays burst 95 99.9
damage replies "$TMP/whole.pcap" --replies-only --drop-percent 5 --server-port "$NFSPORT,$MNTPORT" &&
    replays replies 0
npk=$(tshark -r "$TMP/whole.pcap" 2>/dev/null | wc -l)
damage midstream "$TMP/whole.pcap" --start-mid $((npk / 20)) && replays midstream 0

# 5. UDP: a trace of the same workload with NFS-over-UDP sized I/O (8 KiB)
# replayed over UDP by tbbt-play under tcpdump (one socket: the player
# numbers its calls in sequence on it, as a client does), cut into
# 1500-byte IP fragments as its sender would on an Ethernet (loopback
# carries 64 KB datagrams whole), then 3% of the fragments lost.
WLOPTS=(--quiet --clients 3 --uids 0:0,1000:1000,1001:1001 --ops 1000 --seed "$SEED" --max-io 8192 --umask 022,002,077)
capture udpsrc 1 || { e2e_end; exit 1; }
tbbt_ganesha_start "$TMP/srv" || check "ganesha started (UDP)" false
if init_image "$TMP/udpsrc.hmap" >/dev/null; then
    tbbt_capture_run "$TMP/udp.pcap" 0 "$(tbbt_capture_nfs_filter)" "$PLAY" -q --udp --connections 1 \
        --order conservative --nfs-port "$TBBT_NFS_PORT" "$TMP/udpsrc.tbbt" "127.0.0.1:$TBBT_EXPORT" >/dev/null
    check "tbbt-play --udp ran under tcpdump" [ $? = 0 ]
fi
tbbt_ganesha_stop "$TMP/srv"
"$DROP" --fragment 1500 "$TMP/udp.pcap" "$TMP/udpfrag.pcap" >"$TMP/udpfrag.drop"
echo "UDP capture: $(cat "$TMP/udpfrag.drop")"
PORTS=(--port "$TBBT_NFS_PORT" --port "$TBBT_MNT_PORT")
prep udpfrag "$TMP/udpfrag.pcap" "${PORTS[@]}" --summary-json "$TMP/udpfrag.json"
calls "$TMP/udpfrag.tbbt" >"$TMP/udpfrag.calls"
nudp=$(wc -l <"$TMP/udpsrc.calls")
check "the UDP capture holds the trace's calls ($(wc -l <"$TMP/udpfrag.calls") of $nudp)" \
    [ "$(wc -l <"$TMP/udpfrag.calls")" -ge $((nudp * 9 / 10)) ]
BASE=$TMP/udpfrag.calls
damage frags "$TMP/udpfrag.pcap" --drop-frags 3

echo "runtime $((SECONDS - T0)) s"
e2e_end
