#!/bin/bash
# bench/tools/tbbt-wakecost, whose figures bench/play.sh prints beside the
# player's CPU per request: the counts it reports are the hand-offs it was
# asked for, the JSON says what the lines say, and bad usage or an output
# it cannot write is one line and an exit status, not a figure.
#   1. --round-trips 300: "same CPU" 600 hand-offs, a positive CPU time;
#      "two CPUs" the same where two CPUs may be used, else n/a; the JSON
#      document holds the same counts, and null for two CPUs where n/a.
#   2. Pinned to one CPU (taskset), "two CPUs" is n/a and null.
#   3. --round-trips 0 and a stray operand: exit 2, one line on stderr.
#   4. --json into a missing directory: exit 1, one line naming it.
set -euo pipefail
build=$1
wc=$build/bench/tools/tbbt-wakecost
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1.
"$wc" --round-trips 300 --json "$tmp/w.json" >"$tmp/out"
grep -Eq '^same CPU +600 hand-offs .* [0-9.]+ us CPU each' "$tmp/out" || fail "same CPU line: $(cat "$tmp/out")"
perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
    $j->{same_cpu}{handoffs} == 600 or die "same_cpu handoffs\n";
    $j->{same_cpu}{cpu_us} > 0 or die "same_cpu cpu_us\n";
    my $two = $ARGV[0] >= 2;
    if ($two) { $j->{two_cpus}{handoffs} == 600 or die "two_cpus handoffs\n" }
    else { defined $j->{two_cpus} and die "two_cpus should be null\n" }' "$(nproc)" <"$tmp/w.json" ||
    fail "JSON: $(cat "$tmp/w.json")"
if [ "$(nproc)" -ge 2 ]; then
    grep -Eq '^two CPUs +600 hand-offs' "$tmp/out" || fail "two CPUs line: $(cat "$tmp/out")"
fi

# 2.
taskset -c "$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')" "$wc" -n 50 --json "$tmp/one.json" >"$tmp/one"
grep -q '^two CPUs   n/a' "$tmp/one" || fail "pinned to one CPU: $(cat "$tmp/one")"
grep -q '"two_cpus":null' "$tmp/one.json" || fail "pinned JSON: $(cat "$tmp/one.json")"

# 3.
for args in "--round-trips 0" "stray"; do
    rc=0
    # shellcheck disable=SC2086
    "$wc" $args >"$tmp/o" 2>"$tmp/e" || rc=$?
    [ "$rc" = 2 ] || fail "$args: exit $rc, want 2"
    [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q '^tbbt-wakecost: ' "$tmp/e" || fail "$args: stderr $(cat "$tmp/e")"
    [ ! -s "$tmp/o" ] || fail "$args: printed figures"
done

# 4.
rc=0
"$wc" -n 10 --json "$tmp/no/such/w.json" >/dev/null 2>"$tmp/e" || rc=$?
[ "$rc" = 1 ] || fail "unwritable --json: exit $rc, want 1"
[ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "$tmp/no/such/w.json" "$tmp/e" || fail "unwritable --json: $(cat "$tmp/e")"
echo "wakecost: ok"
