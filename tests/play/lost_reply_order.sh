#!/bin/bash
# A lost reply holds what depends on it until the replay's reply (issue 21,
# point 2), whatever order the server answers pipelined calls in, and the
# replay's result does not depend on that order.
#
# Two hand-made traces (tbbt-dump's text form, below):
#   remove: a REMOVE of "journal" whose reply the capture lost, a GETATTR of
#           another file, a LOOKUP of "journal" (traced NOENT), a CREATE of
#           it again and a GETATTR of the new file;
#   lookup: a LOOKUP of "journal" whose reply the capture lost (taken as
#           found), a GETATTR of another file, a REMOVE of "journal".
# The server is tests/tools/tbbt-nullserver --names (from memory: a REMOVE
# takes effect when its reply goes, a LOOKUP of a removed name answers
# NOENT); with --delay-proc PROC --delay-ms 300 it runs the lost call's
# procedure 300 ms late (its reply computed then) and answers the calls
# after it at once, as nfs-ganesha may when it runs one connection's
# requests concurrently. For each trace, for conservative, fsdep (deps
# reply), fsdep --deps send and fsdep --deps strict, three runs with the
# delay and one without:
#   1. exit 0, every record matched (--json totals; --fail-log empty): the
#      lookup found the name as traced;
#   2. the responder's log (--log): the later call on the name came after
#      the lost call's reply went;
#   3. with the delay, the unrelated getattr came before the lost call's
#      reply went: a record that shares nothing with the lost one is not
#      held;
#   4. the three delayed runs give one result (totals and failures).
# TBBT_PLAY=PATH checks another tbbt-play (one built without the rules fails
# 1 and 2 with the delay: the remove trace in every order, the lookup trace
# in fsdep --deps send and strict when a lost reply's read locks went at
# the send).
# Usage (ctest): bash lost_reply_order.sh BUILD_DIR SRC_DIR
set -u
BUILD=${1:?usage: lost_reply_order.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: lost_reply_order.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/nullserver.sh"
nullsrv_setup lostorder "$BUILD"

# The traces: IDs 1 (the directory), 2 ("journal"), 3 ("other") exist
# before them; the getattr's traced reply comes after the next call, so
# only the lost call can hold that one back.
cat >"$work/remove.txt" <<'EOF'
1700000000.000000000 - 10.0.0.5:801 10.0.0.1:2049 0x00000001 v3 remove - LT cred=1:0:0 dir=1 name="journal" victim=2
1700000000.000100000 1700000000.000900000 10.0.0.5:801 10.0.0.1:2049 0x00000002 v3 getattr 0 T cred=1:0:0 obj=3
1700000000.000200000 1700000000.000300000 10.0.0.5:801 10.0.0.1:2049 0x00000003 v3 lookup 2 T cred=1:0:0 dir=1 name="journal"
1700000000.000400000 1700000000.000500000 10.0.0.5:801 10.0.0.1:2049 0x00000004 v3 create 0 T cred=1:0:0 dir=1 name="journal" createhow=0 newobj=4
1700000000.000600000 1700000000.000700000 10.0.0.5:801 10.0.0.1:2049 0x00000005 v3 getattr 0 T cred=1:0:0 obj=4
EOF
cat >"$work/lookup.txt" <<'EOF'
1700000000.000000000 - 10.0.0.5:801 10.0.0.1:2049 0x00000011 v3 lookup - LT cred=1:0:0 dir=1 name="journal"
1700000000.000100000 1700000000.000900000 10.0.0.5:801 10.0.0.1:2049 0x00000012 v3 getattr 0 T cred=1:0:0 obj=3
1700000000.000200000 1700000000.000300000 10.0.0.5:801 10.0.0.1:2049 0x00000013 v3 remove 0 T cred=1:0:0 dir=1 name="journal" victim=2
EOF
for t in remove lookup; do
    "$DUMP" --text-in "$work/$t.txt" -o "$work/$t.tbbt" || {
        echo "FAIL: tbbt-dump --text-in $t"
        exit 1
    }
done
printf '# tbbt-manifest 1\n# clones 1\n0 1 %s "."\n0 2 %s "journal"\n0 3 %s "other"\n# end 3\n' \
    "$(nullsrv_fh 1)" "$(nullsrv_fh 2)" "$(nullsrv_fh 3)" >"$work/t.manifest"


# line EVENT PROC [NTH]: the line number in the log of the NTH (default 1st)
# EVENT (call|reply) of PROC, or 0
line() {
    awk -v ev="$1" -v p="$2" -v nth="${3:-1}" '$2 == ev && $4 == p && ++k == nth {print NR; f = 1; exit}
        END {if (!f) print 0}' "$work/ns.log"
}

# run TRACE DELAY_MS NAME ARGS...: one replay, checked; its result (totals
# and failures) in $result. TRACE is the lost call's procedure; the later
# call on the name is the other of lookup and remove.
run() {
    local trace=$1 delay=$2 name=$3 rc later n
    shift 3
    if [ "$trace" = remove ]; then later=lookup n=5; else later=remove n=3; fi
    local args=(--names --log "$work/ns.log")
    [ "$delay" -gt 0 ] && args+=(--delay-proc "$trace" --delay-ms "$delay")
    nullsrv_start "${args[@]}"
    "$PLAY" -q --no-live "$@" --nfs-port "$port" --manifest "$work/t.manifest" --json "$work/p.json" \
        --fail-log "$work/f.log" "$work/$trace.tbbt" 127.0.0.1:/null >"$work/p.out" 2>&1
    rc=$?
    nullsrv_stop
    local what="lost $trace, $name, delay $delay ms"
    [ $rc = 0 ] || bad "$what: tbbt-play exit $rc: $(cat "$work/p.out")"
    local tot
    tot=$(perl -MJSON::PP -e 'local $/; my $t = decode_json(<STDIN>)->{totals};
        print "$t->{records} $t->{sent} $t->{matched}"' <"$work/p.json" 2>/dev/null)
    [ "$tot" = "$n $n $n" ] || bad "$what: records sent matched '$tot', want '$n $n $n'"
    [ ! -s "$work/f.log" ] || bad "$what: failed records: $(tr '\n' ';' <"$work/f.log")"
    result="$tot; $(tr '\n' ';' <"$work/f.log" 2>/dev/null)"
    local lost_call lost_reply later_call ga_call
    lost_call=$(line call "$trace") lost_reply=$(line reply "$trace") later_call=$(line call "$later")
    ga_call=$(line call getattr)
    if [ "$lost_reply" = 0 ] || [ "$later_call" -le "$lost_reply" ]; then
        bad "$what: the $later came (log line $later_call) before the $trace's reply went (line $lost_reply)"
    fi
    if [ "$delay" -gt 0 ] && { [ "$ga_call" = 0 ] || [ "$ga_call" -ge "$lost_reply" ]; }; then
        bad "$what: the unrelated getattr (log line $ga_call) waited for the $trace's reply (line $lost_reply)"
    fi
    # the figures: the later call's wait after the lost call, in the log's seconds
    awk -v a="$lost_call" -v b="$lost_reply" -v c="$later_call" -v g="$ga_call" -v w="$what" -v tot="$tot" \
        -v lp="$trace" -v cp="$later" '
        NR == a {ta = $1} NR == b {tb = $1} NR == c {tc = $1} NR == g {tg = $1}
        END {split(tot, t, " "); printf "%-46s %s/%s matched; %s reply +%.3f s, getattr +%.3f s, %s +%.3f s (after the %s call)\n",
             w ":", t[3], t[1], lp, tb - ta, tg - ta, cp, tc - ta, lp}' "$work/ns.log"
}

# three runs with the delay, one result; one run without
orders=("conservative|--order conservative" "fsdep|--order fsdep" "fsdep --deps send|--order fsdep --deps send"
    "fsdep --deps strict|--order fsdep --deps strict")
for trace in remove lookup; do
    for o in "${orders[@]}"; do
        name=${o%%|*}
        read -r -a args <<<"${o#*|}"
        first=
        for k in 1 2 3; do
            run "$trace" 300 "$name" "${args[@]}"
            [ -z "$first" ] && first=$result
            [ "$result" = "$first" ] || bad "lost $trace, $name: run $k gave '$result', run 1 '$first'"
        done
        run "$trace" 0 "$name" "${args[@]}"
    done
done
[ $fail = 0 ] && echo "PASS"
exit $fail
