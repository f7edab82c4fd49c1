#!/bin/bash
# tbbt-play --simulate on the bundled trace (traces/ganesha-libnfs-mixed,
# tbbt-prep'd here); no server, no network.
#
#   1. The default run (fsdep, deps reply, the trace's own latencies): exit
#      0; the report names the latency source of every procedure, the
#      captured figures, and one row per default window (100 ... 10000) in
#      order; --json has the same windows, every record done in each, peak
#      outstanding within the window.
#   2. fsdep's throughput does not fall as the window grows: each window at
#      least 98% of the best smaller one (issue 23; figure6.sh checks every
#      trace in every deps mode); the largest window is at least as fast as
#      the smallest, and fsdep is at least as fast as conservative at every
#      window.
#   3. Conservative keeps the trace's own concurrency: its peak never
#      exceeds the captured peak. --max-outstanding 1: one at a time.
#   4. Bad input: a bad --sim-latency spec, a bad window list, a server
#      argument: one line on stderr, exit 2; a missing trace: exit 1.
# Usage (ctest): bash simulate.sh BUILD_DIR SRC_DIR
set -u
BUILD=${1:?usage: simulate.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: simulate.sh BUILD_DIR SRC_DIR}
PLAY=$BUILD/player/tbbt-play
PREP=$BUILD/transform/tbbt-prep
work=$(mktemp -d /tmp/tbbt-simulate.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
bad() {
    echo "FAIL: $*"
    fail=1
}
perl -MJSON::PP -e 1 2>/dev/null || {
    echo "skipped: perl JSON::PP missing"
    exit 77
}

T=$work/mixed.tbbt
"$PREP" -o "$T" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst" >/dev/null 2>"$work/prep.err" || {
    cat "$work/prep.err"
    echo "FAIL: tbbt-prep"
    exit 1
}

# 1. the default run
"$PLAY" --simulate --json "$work/fsdep.json" "$T" >"$work/fsdep.out" 2>"$work/fsdep.err"
rc=$?
cat "$work/fsdep.out"
[ $rc = 0 ] || bad "default run exit $rc: $(cat "$work/fsdep.err")"
grep -q '^Simulated: .*order fsdep (deps reply), no cap' "$work/fsdep.out" || bad "no header line"
grep -q '^As captured: [0-9.]* ops/s' "$work/fsdep.out" || bad "no captured line"
grep -Eq '^  (getattr|lookup|write) +[0-9.]+ +trace median' "$work/fsdep.out" || bad "latency source not said"
rows=$(awk '$1 ~ /^[0-9]+$/ && NF == 6 {printf "%s ", $1}' "$work/fsdep.out")
[ "$rows" = "100 200 500 1000 2000 5000 10000 " ] || bad "window rows: '$rows'"

# figures FILE: "window ops_per_s peak records" per window, then "captured ops peak records"
figures() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
        printf "%d %.3f %d %d\n", $_->{window}, $_->{ops_per_s}, $_->{peak_outstanding}, $_->{records}
            for @{$j->{windows}};
        printf "captured %.3f %d %d\n", $j->{captured}{ops_per_s}, $j->{captured}{peak_outstanding}, $j->{records}' <"$1"
}
figures "$work/fsdep.json" >"$work/fsdep.fig" || bad "fsdep JSON unreadable"
nrec=$(awk '$1 == "captured" {print $4}' "$work/fsdep.fig")
[ "${nrec:-0}" -gt 1000 ] || bad "records in JSON: '$nrec'"
awk -v n="$nrec" '$1 != "captured" && ($4 != n || $3 > $1 || $2 <= 0) {print "FAIL: window " $1 ": " $0; exit 1}' \
    "$work/fsdep.fig" || fail=1
[ "$(grep -vc captured "$work/fsdep.fig")" = 7 ] || bad "JSON windows: $(grep -vc captured "$work/fsdep.fig")"

# 2. fsdep does not fall with the window (98%), grows overall
awk '$1 != "captured" {
        if (best && $2 < 0.98 * best) {printf "FAIL: window %d: %.1f ops/s, below 98%% of %.1f at a smaller window\n", $1, $2, best; bad = 1}
        if ($2 > best) best = $2
        if (!first) first = $2
        last = $2
    } END {
        if (last < first) {printf "FAIL: the largest window (%.1f ops/s) is slower than the smallest (%.1f)\n", last, first; bad = 1}
        exit bad
    }' "$work/fsdep.fig" || fail=1

# 3. conservative: the trace's own concurrency; fsdep at least as fast
"$PLAY" --simulate --order conservative --json "$work/cons.json" "$T" >/dev/null 2>"$work/cons.err" ||
    bad "conservative run: $(cat "$work/cons.err")"
figures "$work/cons.json" >"$work/cons.fig" || bad "conservative JSON unreadable"
cpeak=$(awk '$1 == "captured" {print $3}' "$work/cons.fig")
awk -v p="$cpeak" '$1 != "captured" && $3 > p {print "FAIL: conservative window " $1 ": peak " $3 " > captured " p; exit 1}' \
    "$work/cons.fig" || fail=1
paste "$work/fsdep.fig" "$work/cons.fig" | awk '$1 != "captured" && $2 < $6 {print "FAIL: window " $1 ": fsdep " $2 " < conservative " $6 " ops/s"; exit 1}' ||
    fail=1
for d in send strict; do
    "$PLAY" --simulate --deps $d --sim-windows 10,1000 "$T" >"$work/$d.out" 2>&1 || bad "--deps $d: $(cat "$work/$d.out")"
    grep -q "deps $d" "$work/$d.out" || bad "--deps $d not said"
done
"$PLAY" --simulate --max-outstanding 1 --sim-windows 10,10000 --json "$work/cap.json" "$T" >/dev/null 2>&1 || bad "cap run"
figures "$work/cap.json" | awk '$1 != "captured" && $3 != 1 {print "FAIL: --max-outstanding 1: peak " $3; exit 1}' || fail=1

# 4. bad input
badrun() { # WHAT EXPECTED_RC ARGS...
    local what=$1 want=$2
    shift 2
    "$PLAY" "$@" >"$work/bad.out" 2>"$work/bad.err"
    local rc=$? n
    n=$(grep -vc '^Usage:\|^   or:\|^Try ' "$work/bad.err")
    [ $rc = "$want" ] || bad "$what: exit $rc, want $want"
    [ "$n" = 1 ] || bad "$what: $n lines on stderr besides the usage, want 1: $(cat "$work/bad.err")"
    # a usage error (exit 2) is followed by the synopsis (lib/usage.h)
    [ $rc != 2 ] || grep -q '^Usage: tbbt-play' "$work/bad.err" || bad "$what: no usage synopsis"
    echo "$what: exit $rc: $(head -1 "$work/bad.err")"
}
badrun "bad latency value" 2 --simulate --sim-latency getattr=fast "$T"
badrun "unknown procedure" 2 --simulate --sim-latency getatr=10 "$T"
grep -q "getatr" "$work/bad.err" || bad "the unknown procedure is not named"
badrun "bad window list" 2 --simulate --sim-windows 100,0 "$T"
badrun "server given" 2 --simulate "$T" 127.0.0.1:/x
badrun "missing trace" 1 --simulate "$work/none.tbbt"

[ $fail = 0 ] && echo "PASS"
exit $fail
