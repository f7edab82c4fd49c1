#!/bin/bash
# tbbt-play when the server misbehaves, on nfs-ganesha, with the bundled
# trace replayed at x0.04 (about 5.6 s):
#   1. replies delayed past --timeout: ganesha is stopped (SIGSTOP) for
#      2.5 s with --timeout 1, then continued. The player must finish
#      (exit 0), count the records that timed out per procedure and per
#      second of the replay (the JSON's series), and say so;
#   2. the connection reset: ganesha is stopped for 0.7 s so requests are
#      out, the player's TCP connection is destroyed (ss -K), ganesha
#      continued. The player must make the connection again, finish (exit
#      0), and say how many connections it lost and how many records failed
#      with them (totals.conn_lost, per second in the series).
# Each time its JSON must be whole and add up: matched + mismatched +
# skipped + not replayable = records; the procedures' counts, matched and
# timeouts sum to the totals; the series' done, timeouts, conn_lost and
# reconnects sum to the totals; not partial.
# Usage (ctest): bash faults_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: faults_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: faults_ganesha.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_require perl ss
e2e_begin play-faults
PREP=$BUILD/transform/tbbt-prep INIT=$BUILD/hierarchy/tbbt-init PLAY=$BUILD/player/tbbt-play

"$PREP" -q -o "$TMP/s.tbbt" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst"
tbbt_ganesha_start "$TMP/srv" >/dev/null || { check "ganesha started" false; e2e_end; exit 1; }
PORT=$TBBT_NFS_PORT GPID=$TBBT_GANESHA_PID

# figures FILE: the JSON's sums, one "name=value" a word; "bad ..." when it does not add up
figures() {
    perl -MJSON::PP -e '
        local $/; my $j = eval { decode_json(<>) } or do { print "bad json\n"; exit };
        my $t = $j->{totals};
        my %p; for my $x (@{ $j->{procedures} }) { $p{$_} += $x->{$_} for qw(count matched timeouts) }
        my %s; for my $x (@{ $j->{series} }) { $s{$_} += $x->{$_} // 0 for qw(done timeouts conn_lost reconnects) }
        my @bad;
        push @bad, "records" if $t->{matched} + $t->{mismatched} + $t->{skipped} + $t->{not_replayable} != $t->{records};
        push @bad, "procedures" if $p{count} != $t->{matched} + $t->{mismatched} + $t->{skipped}
            || $p{matched} != $t->{matched} || $p{timeouts} != $t->{timeouts};
        push @bad, "series" if $s{done} != $p{count} || $s{timeouts} != $t->{timeouts}
            || $s{conn_lost} != $t->{conn_lost} || $s{reconnects} != $t->{reconnects};
        push @bad, "partial" if $j->{meta}{partial};
        my @when = map { $_->{t} } grep { $_->{timeouts} || $_->{conn_lost} } @{ $j->{series} };
        print join(" ", (map { "$_=$t->{$_}" } qw(records matched mismatched timeouts conn_lost reconnects)),
            "when=" . join(",", @when), @bad ? "bad=" . join(",", @bad) : ()), "\n";' "$1"
}

# play NAME TIMEOUT: a fresh image, then the replay in the background (pid in $pid)
play() {
    "$INIT" -q --replace --map "$TMP/s.hmap" --nfs-port "$PORT" --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$TBBT_EXPORT"
    check "tbbt-init built the image ($1)" [ $? = 0 ]
    timeout 120 "$PLAY" --speedup 0.04 --timeout "$2" --nfs-port "$PORT" --no-live --json "$TMP/$1.json" \
        "$TMP/s.tbbt" "127.0.0.1:$TBBT_EXPORT" >"$TMP/$1.txt" 2>&1 &
    pid=$!
}

# finish NAME LABEL: waits for the replay NAME, prints its status lines,
# checks that it finished and that its JSON is whole; sets f to its figures.
finish() {
    wait $pid
    local rc=$?
    grep -E "^(Status|Connections)" "$TMP/$1.txt"
    check "$2: tbbt-play finished (exit 0)" [ $rc = 0 ]
    f=$(figures "$TMP/$1.json")
    echo "figures ($2): $f"
    check "$2: the JSON is whole and adds up" eval '[[ "$f" != *bad* ]]'
}

# 1. delayed replies
play delay 1
sleep 1.5
kill -STOP "$GPID"
sleep 2.5
kill -CONT "$GPID"
finish delay delays
to=$(sed 's/.*timeouts=\([0-9]*\).*/\1/' <<<"$f")
check "delays: records timed out ($to), and the series says when" eval '[ "${to:-0}" -gt 0 ] && [[ "$f" =~ when=[0-9] ]]'
check "delays: the report says how many timed out" grep -q "[1-9][0-9]* timed out" "$TMP/delay.txt"
check "delays: the table names the procedures that timed out" grep -q "got timeout: [1-9]" "$TMP/delay.txt"

# 2. the connection reset while requests are out
play reset 10
sleep 2
kill -STOP "$GPID"
sleep 0.7
ss -K -tn state established "( dport = :$PORT )" >/dev/null
kill -CONT "$GPID"
finish reset reset
check "reset: the connection was made again" eval '[[ "$f" == *reconnects=[1-9]* ]]'
check "reset: the report says the connection was lost and made again" \
    grep -q "^Connections: [1-9][0-9]* lost and made again" "$TMP/reset.txt"
e2e_end
