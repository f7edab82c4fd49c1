#!/bin/bash
# End-to-end for tbbt-play under MPI on nfs-ganesha: two ranks on loopback.
#
#   A fresh concurrent capture (tbbt-workload, 3 clients, 3 uids, as in
#   replay_ganesha.sh) -> tbbt-prep -> tbbt-init --clones 2, then
#     single  one tbbt-play on clone 0 (a fresh server and image): what a
#             single player matches;
#     mpi     mpirun -np 2 tbbt-play --json merged --json-rank rank (a fresh
#             server and image): rank r plays clone r.
#   Checks:
#   - mpirun exits 0; one text report (rank 0's), naming 2 ranks; the
#     merged JSON has meta.ranks 2 and one rank_totals row per rank, each
#     equal to that rank's own JSON (--json-rank);
#   - the merged totals, and each procedure's counts, equal the sum of the
#     ranks';
#   - every merged histogram (each procedure's latency and latency from
#     schedule, the issue error, outstanding, the trace's outstanding) has
#     the buckets, n, min, max and p50/p90/p99/p99.9 of the union of the
#     ranks' histograms, computed here in Perl from their buckets (the
#     quantile rule of lib/hist.c: the middle of the bucket holding the
#     rank, clamped to [min, max]);
#   - each rank replayed every record of the trace, matched at least 99.9%
#     of them (what replay_ganesha.sh asks of a single player) and no fewer
#     than the single player matched less 0.1% of the records; each rank's
#     clone ends as the tree the trace implies (so each played its own).
# Prints mpirun's own cost: a bare `mpirun -np 2 true`, and the MPI run's
# elapsed time beside its ranks' replay time.
# Open MPI as root needs --allow-run-as-root; --oversubscribe lets 2 ranks
# run on fewer cores; nothing else was needed in this container.
# Knobs: TBBT_E2E_OPS (workload calls, default 2000), TBBT_E2E_SEED,
# TBBT_MPIRUN (default mpirun).
# Usage (ctest): bash mpi_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: mpi_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: mpi_ganesha.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-2000}
SEED=${TBBT_E2E_SEED:-23}
MPIRUN=${TBBT_MPIRUN:-mpirun}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

PREP=$BUILD/transform/tbbt-prep
INIT=$BUILD/hierarchy/tbbt-init
PLAY=$BUILD/player/tbbt-play
DUMP=$BUILD/tools/tbbt-dump
WL=$BUILD/tests/tools/tbbt-workload
TREE=(perl "$SRC/tests/play/tree_compare.pl")
for b in "$PREP" "$INIT" "$PLAY" "$DUMP" "$WL"; do
    [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done
"$PLAY" --help | grep -q '^MPI.*: built' || { echo "SKIP: tbbt-play was built without MPI"; exit 77; }
command -v "$MPIRUN" >/dev/null || { echo "SKIP: $MPIRUN not installed"; exit 77; }
e2e_require tcpdump perl
perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }
MPIOPTS=(--oversubscribe)
[ "$(id -u)" = 0 ] && MPIOPTS+=(--allow-run-as-root)
T0=$SECONDS

e2e_begin play-mpi

# fresh_image: a fresh server, and tbbt-init --clones 2 of wl.hmap on it
# (one retry after a second, as in replay_ganesha.sh). Returns its status.
fresh_image() {
    tbbt_ganesha_stop "$TMP/srv"
    rm -rf "$TMP/srv/export"
    tbbt_ganesha_start "$TMP/srv" || return 1
    local args=(-q --clones 2 --map "$TMP/wl.hmap" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT"
        "127.0.0.1:$TBBT_EXPORT")
    "$INIT" "${args[@]}" 2>"$TMP/init.err" && return 0
    echo "NOTE tbbt-init failed ($(head -1 "$TMP/init.err")); retrying once"
    sleep 1
    "$INIT" --replace "${args[@]}"
}

# 1. The capture, the tree it implies, the records.
e2e_capture_workload "$TMP/wl.pcap" "$OPS" "$SEED" 65536 wl
"${TREE[@]}" list "$TMP/srv/export" >"$TMP/truth.tree"
rm -rf "$TMP/srv/export"
read -r -a CAPPORTS <<<"$PORTS"
"$PREP" -q "${CAPPORTS[@]}" -o "$TMP/wl.tbbt" "$TMP/wl.pcap"
check "tbbt-prep: records and map written" [ $? = 0 -a -s "$TMP/wl.tbbt" -a -s "$TMP/wl.hmap" ]
NRECS=$("$DUMP" "$TMP/wl.tbbt" | wc -l)
echo "wl: $NRECS records; the trace implies $(wc -l <"$TMP/truth.tree") names"

# Both replays by the trace's timestamps (--speedup 1), so that every
# histogram (issue error, latency from schedule) has samples to merge.
# 2. One player on clone 0.
fresh_image
check "single: tbbt-init --clones 2 built the image" [ $? = 0 ]
"$PLAY" -q --speedup 1 --nfs-port "$TBBT_NFS_PORT" --clone 0 --json "$TMP/single.json" "$TMP/wl.tbbt" "127.0.0.1:$TBBT_EXPORT"
check "single: tbbt-play exit 0" [ $? = 0 ]
SINGLE=$(perl -MJSON::PP -e 'local $/; my $t = decode_json(<STDIN>)->{totals}; print "$t->{matched}\n"' \
    <"$TMP/single.json")
echo "figures single player: $SINGLE of $NRECS records matched"

# 3. Two ranks: mpirun's bare cost first, then the replay.
# since T: seconds from EPOCHREALTIME T to now.
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'; }
t=$EPOCHREALTIME
"$MPIRUN" "${MPIOPTS[@]}" -np 2 true
LAUNCH=$(since "$t")
fresh_image
check "mpi: tbbt-init --clones 2 built the image" [ $? = 0 ]
t=$EPOCHREALTIME
# under AddressSanitizer: the full stack of every allocation, so that the
# leaks Open MPI leaves at exit reach its libraries, which
# dev/lsan.supp names (its plugins are unloaded by then)
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0"
"$MPIRUN" "${MPIOPTS[@]}" -np 2 "$PLAY" --no-live --speedup 1 --nfs-port "$TBBT_NFS_PORT" --json "$TMP/merged.json" \
    --json-rank "$TMP/rank.json" "$TMP/wl.tbbt" "127.0.0.1:$TBBT_EXPORT" >"$TMP/mpi.out" 2>"$TMP/mpi.err"
rc=$?
ELAPSED=$(since "$t")
tbbt_ganesha_stop "$TMP/srv"
cat "$TMP/mpi.err"
check "mpi: mpirun -np 2 tbbt-play exit 0" [ $rc = 0 ]
check "mpi: the merged JSON and both ranks' own written" \
    [ -s "$TMP/merged.json" -a -s "$TMP/rank.json.0" -a -s "$TMP/rank.json.1" ]
check "mpi: one text report (rank 0's), with 2 ranks and a line for each" \
    [ "$(grep -c '^Replayed ' "$TMP/mpi.out")" = 1 -a "$(grep -c '^Ranks: 2,' "$TMP/mpi.out")" = 1 \
    -a "$(grep -c '^  rank [01] on ' "$TMP/mpi.out")" = 2 ]
sed -n '/^Replayed /,$p' "$TMP/mpi.out"

# The merged document against the ranks' own: prints "ok"/"FAIL" lines and
# a "figures" line; exits with the number of failures.
perl -MJSON::PP - "$TMP/merged.json" "$TMP/rank.json.0" "$TMP/rank.json.1" "$NRECS" "$SINGLE" <<'PERL'
use strict;
use warnings;
my ($mf, @rf) = @ARGV[0 .. 2];
my ($nrecs, $single) = @ARGV[3, 4];
sub load { local (@ARGV, $/) = ($_[0]); decode_json(<>) }
my $m = load($mf);
my @r = map { load($_) } @rf;
my $fails = 0;
sub ok { my ($what, $c) = @_; print $c ? "ok   $what\n" : "FAIL $what\n"; $fails++ unless $c; }

# lib/hist.c's bucket bounds and quantile, from the buckets.
sub bounds {
    my $i = shift;
    return ($i, $i) if $i < 128;
    my ($e, $sub) = (int($i / 128) + 6, $i % 128);
    my $lo = (128 + $sub) << ($e - 7);
    return ($lo, $lo + (1 << ($e - 7)) - 1);
}
sub quantile {
    my ($h, $q) = @_;
    return 0 unless $h->{n};
    return $h->{min} if $q <= 0;
    return $h->{max} if $q >= 1;
    my $rank = int($q * $h->{n});
    $rank = $h->{n} - 1 if $rank >= $h->{n};
    my $seen = 0;
    for my $b (@{ $h->{buckets} }) {
        $seen += $b->[1];
        next unless $seen > $rank;
        my ($lo, $hi) = bounds($b->[0]);
        my $mid = $lo + int(($hi - $lo) / 2);
        return $mid < $h->{min} ? $h->{min} : $mid > $h->{max} ? $h->{max} : $mid;
    }
    return $h->{max};
}
# The union of histograms, from their buckets.
sub union {
    my %b;
    my $u = {n => 0, max => 0, overflow => 0};
    for my $h (grep { defined } @_) {
        $b{ $_->[0] } += $_->[1] for @{ $h->{buckets} };
        next unless $h->{n};
        $u->{n} += $h->{n};
        $u->{overflow} += $h->{overflow};
        $u->{max} = $h->{max} if $h->{max} > $u->{max};
        $u->{min} = $h->{min} if !defined $u->{min} || $h->{min} < $u->{min};
    }
    $u->{min} //= 0;
    $u->{buckets} = [map { [$_, $b{$_}] } sort { $a <=> $b } keys %b];
    $u->{$_->[0]} = quantile($u, $_->[1]) for [p50 => .5], [p90 => .9], [p99 => .99], [p999 => .999];
    return $u;
}
my $nh = 0;
sub same_hist {
    my ($what, $got, @parts) = @_;
    my $u = union(@parts);
    my @bad = grep { $got->{$_} != $u->{$_} } qw(n min max overflow p50 p90 p99 p999);
    my $bdiff = encode_json($got->{buckets}) ne encode_json($u->{buckets});
    $nh++;
    ok("merged $what: n $got->{n}, p50 $got->{p50}, p99 $got->{p99}, p99.9 $got->{p999} are the union's"
        . (@bad ? " (differ: " . join(",", map { "$_ $got->{$_} vs $u->{$_}" } @bad) . ")" : "")
        . ($bdiff ? " (buckets differ)" : ""), !@bad && !$bdiff);
}

ok("meta.ranks is 2, meta.clone 0", ($m->{meta}{ranks} // -1) == 2 && $m->{meta}{clone} == 0);
my @rows = @{ $m->{rank_totals} // [] };
ok("2 rank_totals rows, ranks 0 and 1 on clones 0 and 1",
    @rows == 2 && join(",", map { "$_->{rank}:$_->{clone}:$_->{clones}" } @rows) eq "0:0:1,1:1:1");
my @keys = qw(records sent replies matched mismatched skipped timeouts no_handle not_replayable);
for my $i (0, 1) {
    my @bad = grep { ($rows[$i]{$_} // -1) != $r[$i]{totals}{$_} } @keys;
    ok("rank_totals[$i] equals rank $i\'s own totals" . (@bad ? " (differ: @bad)" : ""), !@bad);
    ok("rank $i\'s own JSON is a single player's (no ranks)", !exists $r[$i]{meta}{ranks} && $r[$i]{meta}{clone} == $i);
}
my @bad = grep { $m->{totals}{$_} != $r[0]{totals}{$_} + $r[1]{totals}{$_} } (@keys, qw(warmup late_replies reconnects));
ok("merged totals (@keys) are the sums of the ranks'" . (@bad ? " (differ: @bad)" : ""), !@bad);

my %rp;
for my $i (0, 1) { $rp{"$_->{vers} $_->{proc}"}[$i] = $_ for @{ $r[$i]{procedures} } }
my %mp = map { ("$_->{vers} $_->{proc}" => $_) } @{ $m->{procedures} };
ok("merged procedures are the ranks' (" . scalar(keys %mp) . ")", join(",", sort keys %mp) eq join(",", sort keys %rp));
for my $k (sort keys %mp) {
    my ($p, @q) = ($mp{$k}, @{ $rp{$k} });
    my @bad = grep { my $f = $_; $p->{$f} != eval { my $s = 0; $s += $_->{$f} // 0 for grep { defined } @q; $s } }
        qw(count matched mismatched skipped timeouts);
    ok("merged $k counts are the sums of the ranks'" . (@bad ? " (differ: @bad)" : ""), !@bad) if @bad;
    same_hist("$k latency", $p->{latency_ns}, map { $_ && $_->{latency_ns} } @q);
    same_hist("$k latency from schedule", $p->{latency_from_schedule_ns}, map { $_ && $_->{latency_from_schedule_ns} } @q);
}
for my $k (qw(issue_error_ns outstanding trace_outstanding)) { same_hist($k, $m->{$k}, map { $_->{$k} } @r) }

for my $i (0, 1) {
    my $t = $r[$i]{totals};
    my $pct = $t->{records} ? 100 * $t->{matched} / $t->{records} : 0;
    printf "figures rank %d: %d records, %d matched = %.3f%% (single player: %d); %d mismatched, %d skipped, %d timeouts; %.0f ops/s over %.3f s\n",
        $i, $t->{records}, $t->{matched}, $pct, $single, $t->{mismatched}, $t->{skipped}, $t->{timeouts}, $t->{ops_per_s}, $t->{wall_s};
    ok("rank $i replayed every record ($t->{records} of $nrecs), not partial", $t->{records} == $nrecs && !$r[$i]{meta}{partial});
    ok("rank $i matched >= 99.9% of the records", $pct >= 99.9);
    ok("rank $i matched no fewer than the single player less 0.1% ($t->{matched} vs $single)",
        $t->{matched} >= $single - 0.001 * $nrecs);
}
printf "figures merged: %d records, %d matched; %.0f ops/s over %.3f s (%d histograms compared)\n",
    $m->{totals}{records}, $m->{totals}{matched}, $m->{totals}{ops_per_s}, $m->{totals}{wall_s}, $nh;
exit $fails;
PERL
FAILS=$((FAILS + $?))
for c in 0 1; do
    "${TREE[@]}" list "$TMP/srv/export/tbbt-run/clone.$c" >"$TMP/clone$c.tree"
    check "mpi: rank $c's clone.$c ends as the tree the trace implies" "${TREE[@]}" diff "$TMP/truth.tree" "$TMP/clone$c.tree"
done
WALL=$(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{totals}{wall_s}' <"$TMP/merged.json")
echo "figures mpirun: a bare 'mpirun -np 2 true' took $LAUNCH s; the 2-rank replay took $ELAPSED s" \
    "from mpirun to exit, of which the ranks replayed for $WALL s"
echo "runtime $((SECONDS - T0)) s"
e2e_end
