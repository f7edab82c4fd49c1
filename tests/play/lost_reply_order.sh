#!/bin/bash
# A lost reply holds what depends on it until the replay's reply (issue 21,
# point 2), whatever order the server answers pipelined calls in.
#
# A hand-made trace (tbbt-dump's text form, below): a REMOVE of "journal"
# whose reply the capture lost, a GETATTR of another file, a LOOKUP of
# "journal" (traced NOENT), a CREATE of it again and a GETATTR of the new
# file. The server is tests/tools/tbbt-nullserver --names (from memory: a REMOVE
# takes effect when its reply goes, a LOOKUP of a removed name answers
# NOENT); with --delay-proc remove --delay-ms 300 it sends the remove's
# reply 300 ms late and answers the calls after it at once, as nfs-ganesha
# may when it runs one connection's requests concurrently. For
# conservative, fsdep (deps reply) and fsdep --deps send, with the delay and
# without:
#   1. exit 0, every record matched (--json totals; --fail-log empty): the
#      lookup found the name gone, as traced;
#   2. the responder's log (--log): the lookup came after the remove's reply
#      went;
#   3. with the delay, the unrelated getattr came before the remove's reply
#      went: a record that shares nothing with the lost one is not held.
# TBBT_PLAY=PATH checks another tbbt-play (one built without the rule fails
# 1 and 2 with the delay).
# Usage (ctest): bash lost_reply_order.sh BUILD_DIR SRC_DIR
set -u
BUILD=${1:?usage: lost_reply_order.sh BUILD_DIR SRC_DIR}
PLAY=${TBBT_PLAY:-$BUILD/player/tbbt-play}
DUMP=$BUILD/tools/tbbt-dump
NULLSRV=$BUILD/tests/tools/tbbt-nullserver
work=$(mktemp -d /tmp/tbbt-lostorder.XXXXXX)
nspid=
trap '[ -n "$nspid" ] && kill "$nspid" 2>/dev/null; rm -rf "$work"' EXIT
fail=0
bad() {
    echo "FAIL: $*"
    fail=1
}
perl -MJSON::PP -e 1 2>/dev/null || {
    echo "skipped: perl JSON::PP missing"
    exit 77
}
for p in "$PLAY" "$DUMP" "$NULLSRV"; do
    [ -x "$p" ] || {
        echo "FAIL: $p not built"
        exit 1
    }
done

# The trace: IDs 1 (the directory), 2 ("journal"), 3 ("other") exist before
# it; the getattr's traced reply comes after the lookup's call, so only the
# lost remove can hold the lookup back.
cat >"$work/t.txt" <<'EOF'
1700000000.000000000 - 10.0.0.5:801 10.0.0.1:2049 0x00000001 v3 remove - LT cred=1:0:0 dir=1 name="journal" victim=2
1700000000.000100000 1700000000.000900000 10.0.0.5:801 10.0.0.1:2049 0x00000002 v3 getattr 0 T cred=1:0:0 obj=3
1700000000.000200000 1700000000.000300000 10.0.0.5:801 10.0.0.1:2049 0x00000003 v3 lookup 2 T cred=1:0:0 dir=1 name="journal"
1700000000.000400000 1700000000.000500000 10.0.0.5:801 10.0.0.1:2049 0x00000004 v3 create 0 T cred=1:0:0 dir=1 name="journal" createhow=0 newobj=4
1700000000.000600000 1700000000.000700000 10.0.0.5:801 10.0.0.1:2049 0x00000005 v3 getattr 0 T cred=1:0:0 obj=4
EOF
"$DUMP" --text-in "$work/t.txt" -o "$work/t.tbbt" || {
    echo "FAIL: tbbt-dump --text-in"
    exit 1
}
# a manifest as bench/play-fakemanifest.pl makes them: "tbbtfake" and the ID
fh() { printf '7462627466616b65%016x' "$1"; }
printf '# tbbt-manifest 1\n# clones 1\n0 1 %s "."\n0 2 %s "journal"\n0 3 %s "other"\n# end 3\n' \
    "$(fh 1)" "$(fh 2)" "$(fh 3)" >"$work/t.manifest"

# start_server DELAY_MS: the responder on a free port ($port, $nspid)
start_server() {
    local args=(--names --log "$work/ns.log")
    [ "$1" -gt 0 ] && args+=(--delay-proc remove --delay-ms "$1")
    for _ in 1 2 3 4 5; do
        port=$((21000 + RANDOM % 8000))
        "$NULLSRV" --port "$port" "${args[@]}" >"$work/ns.out" 2>&1 &
        nspid=$!
        for _ in $(seq 1 40); do
            grep -q 'MINIMAL RESPONDER' "$work/ns.out" && sleep 0.05 && kill -0 "$nspid" 2>/dev/null && return 0
            kill -0 "$nspid" 2>/dev/null || break
            sleep 0.05
        done
        kill "$nspid" 2>/dev/null
        wait "$nspid" 2>/dev/null
        nspid=
    done
    echo "FAIL: tbbt-nullserver would not start: $(cat "$work/ns.out")"
    exit 1
}

# line EVENT PROC [NTH]: the line number in the log of the NTH (default 1st)
# EVENT (call|reply) of PROC, or 0
line() {
    awk -v ev="$1" -v p="$2" -v nth="${3:-1}" '$2 == ev && $4 == p && ++k == nth {print NR; f = 1; exit}
        END {if (!f) print 0}' "$work/ns.log"
}

# run DELAY_MS NAME ARGS...: one replay, checked
run() {
    local delay=$1 name=$2 rc
    shift 2
    start_server "$delay"
    "$PLAY" -q --no-live "$@" --nfs-port "$port" --manifest "$work/t.manifest" --json "$work/p.json" \
        --fail-log "$work/f.log" "$work/t.tbbt" 127.0.0.1:/null >"$work/p.out" 2>&1
    rc=$?
    kill -INT "$nspid"
    wait "$nspid"
    nspid=
    local what="$name, delay $delay ms"
    [ $rc = 0 ] || bad "$what: tbbt-play exit $rc: $(cat "$work/p.out")"
    local tot
    tot=$(perl -MJSON::PP -e 'local $/; my $t = decode_json(<STDIN>)->{totals};
        print "$t->{records} $t->{sent} $t->{matched}"' <"$work/p.json" 2>/dev/null)
    [ "$tot" = "5 5 5" ] || bad "$what: records sent matched '$tot', want '5 5 5'"
    [ ! -s "$work/f.log" ] || bad "$what: failed records: $(tr '\n' ';' <"$work/f.log")"
    local rm_call rm_reply lk_call ga_call
    rm_call=$(line call remove) rm_reply=$(line reply remove) lk_call=$(line call lookup)
    ga_call=$(line call getattr)
    if [ "$rm_reply" = 0 ] || [ "$lk_call" -le "$rm_reply" ]; then
        bad "$what: the lookup came (log line $lk_call) before the remove's reply went (line $rm_reply)"
    fi
    if [ "$delay" -gt 0 ] && { [ "$ga_call" = 0 ] || [ "$ga_call" -ge "$rm_reply" ]; }; then
        bad "$what: the unrelated getattr (log line $ga_call) waited for the remove's reply (line $rm_reply)"
    fi
    # the figures: the lookup's wait after the remove's call, in the log's seconds
    awk -v a="$rm_call" -v b="$rm_reply" -v c="$lk_call" -v g="$ga_call" -v w="$what" -v tot="$tot" '
        NR == a {ta = $1} NR == b {tb = $1} NR == c {tc = $1} NR == g {tg = $1}
        END {split(tot, t, " "); printf "%-32s %s/%s matched; remove reply +%.3f s, getattr +%.3f s, lookup +%.3f s (after the call of the remove)\n",
             w ":", t[3], t[1], tb - ta, tg - ta, tc - ta}' "$work/ns.log"
}

for delay in 300 0; do
    run "$delay" conservative --order conservative
    run "$delay" "fsdep" --order fsdep
    run "$delay" "fsdep --deps send" --order fsdep --deps send
done
[ $fail = 0 ] && echo "PASS"
exit $fail
