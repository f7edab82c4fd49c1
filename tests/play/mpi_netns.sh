#!/bin/bash
# End-to-end for tbbt-play under MPI with every rank on its own "host": a
# network namespace with its own address on a bridge that nfs-ganesha
# listens on (tests/lib/netns.sh), the ranks launched there by Open MPI
# through its remote-shell agent (tests/lib/netns_agent.sh: `ip netns exec`
# where a real job would use ssh), as a job across machines would be.
#
#   A fresh concurrent capture (tbbt-workload, 3 clients, 3 uids, on
#   loopback) -> tbbt-prep; then for 2 and 3 hosts, each on a fresh server
#   bound to the bridge's address and a fresh tbbt-init --clones N:
#   mpirun -np N --hostfile (the namespaces) tbbt-play --json merged
#   --json-rank rank, with tcpdump on the bridge.
#   Checks, for each N:
#   - mpirun exits 0; rank r ran on host r (its namespace's name, which the
#     agent makes its hostname) and played clone r alone: clones 0..N-1
#     each replayed by exactly one rank, and in the ranks' send logs
#     (--send-log FILE: FILE.RANK each) every record of every clone sent
#     exactly once;
#   - the traffic: the NFS calls on the bridge (decoded by tshark, not by
#     tbbt) came from exactly the N namespaces' addresses, never the
#     server's own; from each address as many as its rank says it sent and
#     one more, the NULL call of its check of the server (its MOUNT calls
#     counted apart),
#     and no file handle from two addresses (each played its own clone);
#   - the merged report is the sum of the ranks': totals, each procedure's
#     counts and its latency histogram's n;
#   - each rank replayed every record and matched at least 99.9%, and each
#     clone ends as the tree the trace implies.
# Prints the figures of each run (per rank: host, address, calls seen,
# matched; a bare `mpirun true` into the namespaces and the replay, each
# from mpirun to exit).
# Needs root and `ip netns` (exit 77 otherwise, saying why), Open MPI,
# tcpdump, tshark. Cleans up the namespaces, veths and bridge whatever
# happens (trap). Knobs: TBBT_E2E_OPS (workload calls, default 1000),
# TBBT_E2E_SEED, TBBT_MPIRUN (default mpirun).
# Usage (ctest): bash mpi_netns.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: mpi_netns.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: mpi_netns.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-1000}
SEED=${TBBT_E2E_SEED:-23}
MPIRUN=${TBBT_MPIRUN:-mpirun}
HOSTS_RUNS=(2 3)

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
. "$SRC/tests/lib/netns.sh"

PREP=$BUILD/transform/tbbt-prep
INIT=$BUILD/hierarchy/tbbt-init
PLAY=$BUILD/player/tbbt-play
DUMP=$BUILD/tools/tbbt-dump
WL=$BUILD/tests/tools/tbbt-workload
TREE=(perl "$SRC/tests/play/tree_compare.pl")
for b in "$PREP" "$INIT" "$PLAY" "$DUMP" "$WL"; do
    [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIP: not root (network namespaces and nfs-ganesha need root)"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: ip (iproute2) not installed, no 'ip netns'"; exit 77; }
"$PLAY" --help | grep -q '^MPI.*: built' || { echo "SKIP: tbbt-play was built without MPI"; exit 77; }
command -v "$MPIRUN" >/dev/null || { echo "SKIP: $MPIRUN not installed"; exit 77; }
e2e_require tcpdump tshark perl
perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }
why=$(tbbt_netns_usable 2>&1) || { echo "SKIP: 'ip netns' is not usable here: ${why#netns.sh: }"; exit 77; }
MPIOPTS=(--allow-run-as-root)
# under AddressSanitizer: the full stack of every allocation, so that the
# leaks Open MPI leaves at exit reach its libraries, which scripts/lsan.supp
# names (as in mpi_ganesha.sh; the agent passes the environment on)
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
T0=$SECONDS

e2e_begin play-mpi-netns
# the namespaces first (what runs in them is ended), then server and capture
trap 'tbbt_netns_down; _e2e_cleanup' EXIT

# 1. The capture (on loopback), the tree it implies, the records.
e2e_capture_workload "$TMP/wl.pcap" "$OPS" "$SEED" 65536 wl
"${TREE[@]}" list "$TMP/srv/export" >"$TMP/truth.tree"
rm -rf "$TMP/srv/export"
read -r -a CAPPORTS <<<"$PORTS"
"$PREP" -q "${CAPPORTS[@]}" -o "$TMP/wl.tbbt" "$TMP/wl.pcap"
check "tbbt-prep: records and map written" [ $? = 0 -a -s "$TMP/wl.tbbt" -a -s "$TMP/wl.hmap" ]
NRECS=$("$DUMP" "$TMP/wl.tbbt" | wc -l)
echo "wl: $NRECS records; the trace implies $(wc -l <"$TMP/truth.tree") names"

# 2. The hosts, and the server on the bridge's address from now on.
MAXH=${HOSTS_RUNS[-1]}
tbbt_netns_up "$MAXH" || { FAILS=$((FAILS + 1)); echo "FAIL: could not make $MAXH namespaces"; exit 1; }
echo "bridge $TBBT_NETNS_BR $TBBT_NETNS_NET, server at $TBBT_NETNS_SERVER; hosts:" \
    "$(for i in "${!TBBT_NETNS_HOSTS[@]}"; do printf '%s=%s ' "${TBBT_NETNS_HOSTS[$i]}" "${TBBT_NETNS_ADDRS[$i]}"; done)"
export TBBT_GANESHA_ADDR=$TBBT_NETNS_SERVER

# fresh_image N: a fresh server, and tbbt-init --clones N of wl.hmap on it
# (one retry after a second, as in replay_ganesha.sh). Returns its status.
fresh_image() {
    tbbt_ganesha_stop "$TMP/srv"
    rm -rf "$TMP/srv/export"
    tbbt_ganesha_start "$TMP/srv" || return 1
    local args=(-q --clones "$1" --map "$TMP/wl.hmap" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT"
        "$TBBT_NFS_ADDR:$TBBT_EXPORT")
    "$INIT" "${args[@]}" 2>"$TMP/init.err" && return 0
    echo "NOTE tbbt-init failed ($(head -1 "$TMP/init.err")); retrying once"
    sleep 1
    "$INIT" --replace "${args[@]}"
}

# since T: seconds from EPOCHREALTIME T to now.
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'; }

# calls PCAP OUT: the RPC calls to the server in PCAP, a line per frame:
# source address, then its calls' programs and the file handles they name
# (tshark's hash of each), each a comma-separated list, tab-separated.
# The bridge's capture may hold a stream's segments out of order (each
# veth's packets reach the bridge from their own CPU): a TSan run saw a
# 64 KB WRITE whose last segment came before the one ahead of it, and
# tshark, reassembling in order only, lost that call. So reassemble out
# of order too.
calls() {
    tshark -n -r "$1" -o tcp.reassemble_out_of_order:TRUE \
        -d "tcp.port==$TBBT_NFS_PORT,rpc" -d "tcp.port==$TBBT_MNT_PORT,rpc" \
        -Y "rpc.msgtyp == 0 && ip.dst == $TBBT_NFS_ADDR" \
        -T fields -E separator=/t -E occurrence=a -E aggregator=, \
        -e ip.src -e rpc.program -e nfs.fh.hash >"$2" 2>"$2.err"
}

# run_hosts N: the replay on N hosts and its checks.
run_hosts() {
    local n=$1 d="$TMP/h$1" rc t elapsed r
    mkdir -p "$d"
    fresh_image "$n"
    check "$n hosts: tbbt-init --clones $n built the image" [ $? = 0 ]
    tbbt_netns_hostfile "$d/hostfile" "$n"
    t=$EPOCHREALTIME
    "$MPIRUN" "${MPIOPTS[@]}" "${TBBT_NETNS_MPIOPTS[@]}" --hostfile "$d/hostfile" -np "$n" true
    check "$n hosts: a bare mpirun -np $n true into the namespaces exits 0" [ $? = 0 ]
    local bare
    bare=$(since "$t")
    TBBT_CAPTURE_IF=$TBBT_NETNS_BR tbbt_capture_start "$d/bridge.pcap" \
        "host $TBBT_NFS_ADDR and (port $TBBT_NFS_PORT or port $TBBT_MNT_PORT)"
    check "$n hosts: tcpdump on the bridge started" [ $? = 0 ]
    t=$EPOCHREALTIME
    "$MPIRUN" "${MPIOPTS[@]}" "${TBBT_NETNS_MPIOPTS[@]}" --hostfile "$d/hostfile" -np "$n" \
        "$PLAY" --no-live --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT" \
        --json "$d/merged.json" --json-rank "$d/rank.json" --send-log "$d/sent" "$TMP/wl.tbbt" "$TBBT_NFS_ADDR:$TBBT_EXPORT" \
        >"$d/mpi.out" 2>"$d/mpi.err"
    rc=$?
    elapsed=$(since "$t")
    tbbt_capture_stop
    check "$n hosts: the capture on the bridge is complete" [ $? = 0 ]
    tbbt_ganesha_stop "$TMP/srv"
    cat "$d/mpi.err"
    check "$n hosts: mpirun -np $n tbbt-play exit 0" [ $rc = 0 ]
    sed -n '/^Ranks: /,$p' "$d/mpi.out"
    calls "$d/bridge.pcap" "$d/calls.tsv"
    check "$n hosts: tshark read the bridge's capture" [ $? = 0 -a -s "$d/calls.tsv" ]
    check "$n hosts: no send log without a rank's suffix (each rank wrote its own)" [ ! -e "$d/sent" ]
    local jr=()
    for r in $(seq 0 $((n - 1))); do jr+=("$d/rank.json.$r"); done
    perl -MJSON::PP - "$n" "$NRECS" "$TBBT_NFS_ADDR" "$d/calls.tsv" "$d/merged.json" "$d/sent" "${jr[@]}" \
        "${TBBT_NETNS_HOSTS[@]:0:$n}" "${TBBT_NETNS_ADDRS[@]:0:$n}" <<'PERL'
use strict;
use warnings;
my ($n, $nrecs, $server, $callf, $mf, $sentf) = splice(@ARGV, 0, 6);
my @rf = splice(@ARGV, 0, $n);
my @host = splice(@ARGV, 0, $n);
my @addr = splice(@ARGV, 0, $n);
my $fails = 0;
sub ok { my ($what, $c) = @_; print $c ? "ok   $n hosts: $what\n" : "FAIL $n hosts: $what\n"; $fails++ unless $c; }
sub load { my $f = shift; open(my $fh, '<', $f) or return undef; local $/; my $j = eval { decode_json(<$fh>) }; $j }
my $m = load($mf);
my @r = map { load($_) } @rf;
ok("the merged JSON and every rank's own were written", $m && !grep { !$_ } @r);
exit 1 unless $m && !grep { !$_ } @r;

# Who ran where, and which clones.
my @rows = @{ $m->{rank_totals} // [] };
ok("meta.ranks $n, one rank_totals row a rank", ($m->{meta}{ranks} // -1) == $n && @rows == $n);
my %byclone;
for my $i (0 .. $#rows) {
    my $w = $rows[$i];
    ok("rank $i ran on host $host[$i] (its namespace), clone $i alone (got $w->{host}, clones $w->{clone}+$w->{clones})",
        $w->{rank} == $i && $w->{host} eq $host[$i] && $w->{clone} == $i && $w->{clones} == 1);
    $byclone{ $w->{clone} + $_ }++ for 0 .. $w->{clones} - 1;
}
ok("clones 0.." . ($n - 1) . " each replayed by exactly one rank",
    join(",", map { "$_:" . ($byclone{$_} // 0) } 0 .. $n - 1) eq join(",", map { "$_:1" } 0 .. $n - 1)
        && keys %byclone == $n);
# The ranks' send logs ("CLONE RECORD" per request sent, FILE.RANK): rank
# r sent every record of the trace once, all to clone r.
my %sent;
for my $i (0 .. $n - 1) {
    my ($lines, $other) = (0, 0);
    if (open(my $sf, '<', "$sentf.$i")) {
        while (<$sf>) {
            my ($c, $rec) = split;
            $lines++;
            $other++ if $c != $i;
            $sent{"$c $rec"}++;
        }
    }
    ok("rank ${i}'s send log: $lines requests, all to clone $i ($other to another)", $lines == $nrecs && !$other);
}
my @twice = grep { $sent{$_} != 1 } keys %sent;
ok("every record of every clone sent exactly once: " . scalar(keys %sent) . " of " . $n * $nrecs
    . " (" . scalar(@twice) . " more than once)", keys %sent == $n * $nrecs && !@twice);

# The traffic on the bridge: per source address, NFS calls and handles.
my (%nfs, %mnt, %fh, %other);
open(my $cf, '<', $callf) or die "$callf: $!";
while (<$cf>) {
    chomp;
    my ($src, $progs, $fhs) = split /\t/;
    next unless defined $progs;
    # one frame may carry many calls (and one call be reassembled from many)
    for my $prog (split /,/, $progs) {
        if ($prog == 100003) {
            $nfs{$src}++;
        } elsif ($prog == 100005) {
            $mnt{$src}++;
        } else {
            $other{$src}++;
        }
    }
    $fh{$_}{$src} = 1 for grep { length } split /,/, $fhs // "";
}
my %want = map { $_ => 1 } @addr;
my @srcs = sort keys %{ { %nfs, %mnt, %other } };
ok("calls came from exactly the $n namespaces' addresses (@addr), not from $server or elsewhere (seen: @srcs)",
    join(",", @srcs) eq join(",", sort @addr));
for my $i (0 .. $n - 1) {
    my $t = $r[$i]{totals};
    my $seen = $nfs{ $addr[$i] } // 0;
    # + 1: the NULL call of its check of the server (player/engine.c)
    ok("host $host[$i] ($addr[$i]): its NFS calls on the wire ($seen) are the $t->{sent} its rank sent and its check's NULL",
        $seen == $t->{sent} + 1);
    printf "figures %d hosts: rank %d on %s at %s: %d NFS and %d MOUNT calls on the bridge; %d records sent,"
        . " %d matched of %d, %d mismatched, %d skipped, %d timeouts; %.0f ops/s over %.3f s\n",
        $n, $i, $host[$i], $addr[$i], $seen, $mnt{ $addr[$i] } // 0, $t->{sent},
        $t->{matched}, $t->{records},
        $t->{mismatched}, $t->{skipped}, $t->{timeouts}, $t->{ops_per_s}, $t->{wall_s};
}
my @shared = grep { keys %{ $fh{$_} } > 1 } keys %fh;
ok(scalar(keys %fh) . " file handles on the wire, none named from two hosts (" . scalar(@shared) . " were)",
    keys %fh > 0 && !@shared);

# The merged report is the sum of the ranks'.
my @keys = qw(records sent replies matched mismatched skipped timeouts no_handle not_replayable warmup late_replies reconnects);
my @bad = grep { my $k = $_; my $s = 0; $s += $_->{totals}{$k} for @r; $m->{totals}{$k} != $s } @keys;
ok("merged totals are the sums of the ranks'" . (@bad ? " (differ: @bad)" : ""), !@bad);
for my $i (0 .. $n - 1) {
    my @b = grep { ($rows[$i]{$_} // -1) != $r[$i]{totals}{$_} } qw(records sent matched mismatched skipped timeouts);
    ok("rank_totals[$i] is rank ${i}'s own totals" . (@b ? " (differ: @b)" : ""), !@b);
}
my (%sum, %mp);
for my $x (@r) {
    for my $p (@{ $x->{procedures} }) {
        my $k = "$p->{vers} $p->{proc}";
        $sum{$k}{$_} += $p->{$_} for qw(count matched mismatched skipped timeouts);
        $sum{$k}{lat} += $p->{latency_ns}{n};
    }
}
for my $p (@{ $m->{procedures} }) {
    $mp{"$p->{vers} $p->{proc}"} = { (map { $_ => $p->{$_} } qw(count matched mismatched skipped timeouts)), lat => $p->{latency_ns}{n} };
}
my @pbad = grep { my $k = $_; !$mp{$k} || !$sum{$k} || grep { $mp{$k}{$_} != $sum{$k}{$_} } keys %{ $sum{$k} } }
    sort(keys %{ { %sum, %mp } });
ok(scalar(keys %mp) . " merged procedures: counts and latency n are the sums of the ranks'"
    . (@pbad ? " (differ: @pbad)" : ""), !@pbad);

for my $i (0 .. $n - 1) {
    my $t = $r[$i]{totals};
    my $pct = $t->{records} ? 100 * $t->{matched} / $t->{records} : 0;
    ok(sprintf("rank %d replayed all %d records and matched %.3f%% (>= 99.9%%)", $i, $nrecs, $pct),
        $t->{records} == $nrecs && !$r[$i]{meta}{partial} && $pct >= 99.9);
}
printf "figures %d hosts: merged %d records, %d matched; %.0f ops/s over %.3f s\n",
    $n, $m->{totals}{records}, $m->{totals}{matched}, $m->{totals}{ops_per_s}, $m->{totals}{wall_s};
exit $fails;
PERL
    FAILS=$((FAILS + $?))
    for r in $(seq 0 $((n - 1))); do
        "${TREE[@]}" list "$TMP/srv/export/tbbt-run/clone.$r" >"$d/clone$r.tree"
        check "$n hosts: clone.$r ends as the tree the trace implies" "${TREE[@]}" diff "$TMP/truth.tree" "$d/clone$r.tree"
    done
    echo "figures $n hosts: a bare 'mpirun -np $n true' took $bare s; the replay $elapsed s from mpirun to exit"
}

for n in "${HOSTS_RUNS[@]}"; do run_hosts "$n"; done
tbbt_netns_down
check "no namespace, veth or bridge of this run is left" \
    [ -z "$(ip netns list | grep "^tbbt$$h")" -a -z "$(ip -o link show | grep -E "tb(br|v)$$")" ]
echo "runtime $((SECONDS - T0)) s"
e2e_end
