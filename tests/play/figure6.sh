#!/bin/bash
# The paper's Figure 6 for every trace we have (issue 23): fsdep's
# simulated throughput never falls as the lookahead window grows.
#
# For every capture and text trace of the suite (traces/, tests/data/:
# fusenfs-build.txt.zst is a real client's build, where a larger window
# once cut the throughput by 80%) and, when
# ../shared/captures is there, every shared capture, tbbt-prep'd here:
# tbbt-play --simulate --order fsdep at windows 100, 200, 500, 1000, 2000,
# 5000, 10000, in each deps mode (reply, send, strict), with the trace's
# own latencies. At each window the throughput must be at least 98% of
# the best at any smaller window. The simulator runs in virtual time (no
# clock is read): the figures are the same on any machine, so the bound
# is no timing assertion. A capture tbbt-prep refuses, or one with no
# replayable record, is skipped and said.
# Usage (ctest): bash figure6.sh BUILD_DIR SRC_DIR
set -u
BUILD=${1:?usage: figure6.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: figure6.sh BUILD_DIR SRC_DIR}
PLAY=$BUILD/player/tbbt-play
PREP=$BUILD/transform/tbbt-prep
work=$(mktemp -d /tmp/tbbt-figure6.XXXXXX)
trap 'rm -rf "$work"' EXIT
perl -MJSON::PP -e 1 2>/dev/null || {
    echo "skipped: perl JSON::PP missing"
    exit 77
}
fail=0
n=0
inputs=("$SRC"/traces/*.pcap.zst "$SRC"/tests/data/*.zst "$SRC"/tests/data/*.txt)
[ -d "$SRC/../shared/captures" ] && inputs+=("$SRC"/../shared/captures/*/*.zst "$SRC"/../shared/captures/public/*.txt)
for f in "${inputs[@]}"; do
    [ -s "$f" ] || continue
    name=$(basename "$f")
    name=${name%%.*}
    t=$work/$name.tbbt
    if ! "$PREP" -q -o "$t" "$f" >/dev/null 2>"$work/prep.err"; then
        echo "skipped $name: tbbt-prep: $(tail -1 "$work/prep.err")"
        continue
    fi
    for deps in reply send strict; do
        if ! "$PLAY" --simulate -q --deps $deps --json "$work/s.json" "$t" 2>"$work/s.err"; then
            if grep -q "no record has both" "$work/s.err"; then
                echo "skipped $name: $(cat "$work/s.err")"
                break
            fi
            echo "FAIL: $name deps $deps: $(cat "$work/s.err")"
            fail=1
            continue
        fi
        perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my ($best, $bad, @row) = (0, 0);
            for my $w (@{$j->{windows}}) {
                my $r = $best > 0 ? $w->{ops_per_s} / $best : 1;
                push @row, sprintf "%d:%.0f(%.3f)", $w->{window}, $w->{ops_per_s}, $r;
                $bad = 1 if $r < 0.98;
                $best = $w->{ops_per_s} if $w->{ops_per_s} > $best;
            }
            printf "%s%-46s %-6s %6d records  %s\n", $bad ? "FAIL: " : "", $ARGV[0], $ARGV[1], $j->{records}, join " ", @row;
            exit $bad' "$name" "$deps" <"$work/s.json" || fail=1
    done
    n=$((n + 1))
done
[ $n -gt 0 ] || {
    echo "FAIL: no trace simulated"
    exit 1
}
[ $fail = 0 ] && echo "PASS: $n traces, every window at least 98% of the best smaller one (window:ops/s(ratio))"
exit $fail
