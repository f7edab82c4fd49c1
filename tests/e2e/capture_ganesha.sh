#!/bin/bash
# End-to-end: scripts/tbbt-capture records tbbt-workload against a private
# nfs-ganesha on lo, given the server's NFS and MOUNT ports:
#  - into rotating files (-w DIR --rotate-size 1): several .pcap.zst files,
#    nothing left uncompressed, each read by tbbt-prep on its own; their
#    calls add up to the workload's calls plus its set-up calls (mount,
#    fsinfo, the lookups and mkdir of its directory), less at most one call
#    per connection at each file boundary (a call cut by the rotation);
#    merged by tbbt-merge, they decode as one capture, every call paired;
#  - streamed into tbbt-prep (--prep OUT.tbbt): the records are the
#    workload's calls plus the same set-up calls, none missing.
# Each run prints tcpdump's figures in one line ("N packets captured, N
# received by filter, N dropped by kernel"); the first is stopped by SIGINT
# (a user's ^C), the second by SIGTERM, a third by --duration 1 (one
# compressed file). A fourth keeps the 2 newest files (--keep 2), on
# -i any for --host 127.0.0.1. A fifth, with a 1 MiB kernel buffer under
# 1 MiB writes, usually loses packets: the warning must say how many and
# what to do, and the exit be 3. A run whose kernel dropped packets (a busy machine) exits 3 and
# is tried again, up to 3 times.
# Usage (ctest): bash capture_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: capture_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: capture_ganesha.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-1500}
CLIENTS=3

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require tcpdump zstd perl
WL=$BUILD/tests/tools/tbbt-workload
PREP=$BUILD/transform/tbbt-prep
DUMP=$BUILD/tools/tbbt-dump
CAPTURE=$SRC/scripts/tbbt-capture
for t in "$WL" "$PREP" "$DUMP"; do
    [ -x "$t" ] || { echo "FAIL: $t not built"; exit 1; }
done
export TBBT_BUILD=$BUILD

e2e_begin capture
CAP_PID=
# stop a tbbt-capture still running (its tcpdump stops with it), then the
# usual clean-up
trap '[ -n "$CAP_PID" ] && kill -INT "$CAP_PID" 2>/dev/null && wait "$CAP_PID"; _e2e_cleanup' EXIT

tbbt_ganesha_start "$TMP/srv" || { FAILS=1; echo "FAIL: ganesha did not start"; exit 1; }
echo "server on 127.0.0.1 nfs $TBBT_NFS_PORT mount $TBBT_MNT_PORT"

# run SIGNAL NAME ARGS...: tbbt-capture ARGS on lo in the background
# (stdout in NAME.out, stderr in NAME.err), tbbt-workload once it listens
# (summary in NAME.wl), then SIGNAL to tbbt-capture; sets CAP_RC and WL_RC.
run() {
    local sig=$1 name=$2 i
    shift 2
    perl "$CAPTURE" -i lo --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT" "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err" &
    CAP_PID=$!
    for i in $(seq 1 100); do
        grep -q 'listening on' "$TMP/$name.err" 2>/dev/null && break
        sleep 0.1
    done
    "$WL" --quiet --clients $CLIENTS --ops "$OPS" --seed 7 --max-io 65536 --dir "$name" "$TBBT_NFS_URL" >"$TMP/$name.wl"
    WL_RC=$?
    # without --immediate, the last packets wait up to a second in a kernel block
    sleep 1.5
    kill -"$sig" "$CAP_PID"
    wait "$CAP_PID"
    CAP_RC=$?
    CAP_PID=
    echo "$name: tbbt-capture exit $CAP_RC, workload exit $WL_RC"
    sed 's/^/    /' "$TMP/$name.out" "$TMP/$name.err"
}

# run_retry SIGNAL NAME ARGS...: run, again (in a fresh NAME-2, NAME-3)
# when the kernel dropped packets; sets RUN to the name of the last try.
run_retry() {
    local sig=$1 name=$2 i
    shift 2
    for i in 1 2 3; do
        RUN=$name-$i
        run "$sig" "$RUN" "${@//@RUN@/$RUN}"
        [ "$CAP_RC" = 3 ] && grep -q 'warning: .* packets lost' "$TMP/$RUN.err" || return 0
        echo "NOTE: the kernel dropped packets (machine busy): capturing again"
    done
}

# calls FILE: the records of FILE that were on the wire (not inserted by pass 2)
calls() {
    "$DUMP" "$1" | awk '$9 !~ /I/' | wc -l
}

REPORT='^tbbt-capture: tcpdump: [0-9]+ packets captured, [0-9]+ received by filter, 0 dropped by kernel$'

# 1. Rotating files.
run_retry INT rot -w "$TMP/@RUN@" --rotate-size 1
check "rotation: exit 0" [ "$CAP_RC" = 0 ]
check "rotation: the workload ran" [ "$WL_RC" = 0 ]
check "rotation: the drop report line" grep -Eq "$REPORT" "$TMP/$RUN.out"
said=$(awk '$1 == "total" {print $2}' "$TMP/$RUN.wl")
nzst=$(ls "$TMP/$RUN" | grep -c '^tbbt-.*-[0-9]\{5\}\.pcap\.zst$')
other=$(ls "$TMP/$RUN" | grep -vc '\.pcap\.zst$')
check "rotation: several .pcap.zst files ($nzst)" [ "$nzst" -ge 3 ]
check "rotation: nothing else left in the directory ($other)" [ "$other" = 0 ]
check "rotation: the report counts them" grep -q "^tbbt-capture: $nzst compressed files in " "$TMP/$RUN.out"
sum=0
bad=0
mkdir "$TMP/pieces"
for f in "$TMP/$RUN"/*.pcap.zst; do
    p=$TMP/pieces/$(basename "$f" .pcap.zst)
    if zstd -tq "$f" && "$PREP" -q --no-correct --no-map -o "$p.tbbt" "$f" 2>"$p.err"; then
        sum=$((sum + $(calls "$p.tbbt")))
    elif grep -q 'no NFS' "$p.err" && [ "$(zstdcat "$f" | wc -c)" -lt 4096 ]; then
        : # a last file of a few packets after the workload (connections closing)
    else
        bad=$((bad + 1))
        echo "    $(basename "$f"): $(cat "$p.err")"
    fi
done
check "rotation: every file is read by tbbt-prep ($bad failed)" [ "$bad" = 0 ]
# the set-up calls: libnfs's NULL pings as each client connects (1 or 2
# each, seen), which the workload does not count
SETUP_MAX=$((2 * CLIENTS))
cut=$(((nzst - 1) * CLIENTS))
echo "rotation: $sum calls in $nzst files, the workload counted ${said:-none}"
check "rotation: calls add up ($((said - cut)) <= $sum <= $((said + SETUP_MAX)))" \
    [ -n "$said" ] && [ "$sum" -ge $((said - cut)) ] && [ "$sum" -le $((said + SETUP_MAX)) ]

# The files decode as one capture through tbbt-merge (mergecap, one
# tbbt-prep run): a call whose reply went into the next file pairs.
if command -v mergecap >/dev/null; then
    perl "$SRC/scripts/tbbt-merge" -o "$TMP/merged.tbbt" "$TMP/$RUN"/*.pcap.zst >"$TMP/merged.out" 2>&1
    rc=$?
    m=$([ -s "$TMP/merged.tbbt" ] && calls "$TMP/merged.tbbt" || echo 0)
    lost=$("$DUMP" "$TMP/merged.tbbt" 2>/dev/null | awk '$9 ~ /L/' | wc -l)
    check "rotation: tbbt-merge reads the files as one capture (exit $rc)" [ $rc = 0 ]
    check "rotation: merged, $m calls ($said <= $m <= $((said + SETUP_MAX))), $lost without a reply" \
        [ -n "$said" ] && [ "$m" -ge "$said" ] && [ "$m" -le $((said + SETUP_MAX)) ] && [ "$lost" = 0 ]
else
    echo "NOTE: mergecap not installed: the files are not merged"
fi

# 2. Streaming into tbbt-prep.
run_retry TERM prep --prep "$TMP/@RUN@.tbbt"
check "stream: exit 0" [ "$CAP_RC" = 0 ]
check "stream: the drop report line" grep -Eq "$REPORT" "$TMP/$RUN.out"
check "stream: no packets stored" [ -z "$(ls "$TMP" | grep -E '\.pcap')" ]
said=$(awk '$1 == "total" {print $2}' "$TMP/$RUN.wl")
n=$([ -s "$TMP/$RUN.tbbt" ] && calls "$TMP/$RUN.tbbt" || echo 0)
setup=$("$DUMP" "$TMP/$RUN.tbbt" 2>/dev/null | awk '{print $7}' | sort | uniq -c | tr -s '\n ' ' ')
echo "stream: $n records, the workload counted ${said:-none}; per procedure: $setup"
check "stream: records = the workload's calls + its set-up calls ($said <= $n <= $((said + SETUP_MAX)))" \
    [ -n "$said" ] && [ "$n" -ge "$said" ] && [ "$n" -le $((said + SETUP_MAX)) ]
# per procedure: the workload's own table against the records' procedures
"$DUMP" "$TMP/$RUN.tbbt" | awk '$9 !~ /I/ {print $7}' | sort | uniq -c | awk '{print $2, $1}' >"$TMP/stream.procs"
awk '$2 ~ /^[0-9]+$/ && $1 != "total" {print $1, $2}' "$TMP/$RUN.wl" | sort >"$TMP/wl.procs"
diffs=$(join -a1 -a2 -e 0 -o 0,1.2,2.2 "$TMP/wl.procs" "$TMP/stream.procs" | awk '$2 != $3 {print $1 ": " $2 " counted, " $3 " recorded"}' | tr '\n' ';')
check "stream: every procedure's records = the workload's count, but for set-up NULLs (${diffs:-none differ})" \
    eval '[ -z "$(echo "$diffs" | tr ";" "\n" | grep -v "^null: " | grep .)" ]'
check "stream: no record lost its reply" [ "$("$DUMP" "$TMP/$RUN.tbbt" | awk '$9 ~ /L/' | wc -l)" = 0 ]

# 3. --duration: stops by itself, the last file compressed.
perl "$CAPTURE" -q -i lo --nfs-port "$TBBT_NFS_PORT" -w "$TMP/dur" --duration 1 >"$TMP/dur.out" 2>"$TMP/dur.err"
rc=$?
sed 's/^/    /' "$TMP/dur.out" "$TMP/dur.err"
check "--duration 1: exit 0, the report" eval '[ $rc = 0 ] && grep -Eq "$REPORT" "$TMP/dur.out"'
check "--duration 1: one compressed file, nothing else" eval '[ "$(ls "$TMP/dur")" = "$(ls "$TMP/dur" | grep -x "tbbt-.*-00000\.pcap\.zst")" ] && [ "$(ls "$TMP/dur" | wc -l)" = 1 ]'

# 4. --keep 2, on -i any (the default; Linux SLL2) for one server: the two
# newest files are kept, the report counts the deleted ones.
run_retry INT keep -i any --host 127.0.0.1 -w "$TMP/@RUN@" --rotate-size 1 --keep 2
check "--keep 2: exit 0" [ "$CAP_RC" = 0 ]
pruned=$(sed -n 's/^tbbt-capture: 2 compressed files in .*, \([0-9]*\) older ones deleted (--keep 2)$/\1/p' "$TMP/$RUN.out")
kept=$(ls "$TMP/$RUN" | tr '\n' ' ')
want=$(printf -- "-%05d.pcap.zst -%05d.pcap.zst " $((${pruned:-0})) $((${pruned:-0} + 1)))
check "--keep 2: the report says how many were deleted (${pruned:-none})" [ "${pruned:-0}" -ge 1 ]
check "--keep 2: the two newest are left ($kept)" eval '[ "$(echo "$kept" | sed "s/tbbt-[0-9]*-[0-9]*//g")" = "$want" ]'

# 5. A 1 MiB kernel buffer under 1 MiB writes: the kernel usually drops
# packets; then the report says how many and what to do, and the exit is 3.
perl "$CAPTURE" -i lo --nfs-port "$TBBT_NFS_PORT" -B 1 -w "$TMP/small" >"$TMP/small.out" 2>"$TMP/small.err" &
CAP_PID=$!
for i in $(seq 1 100); do
    grep -q 'listening on' "$TMP/small.err" 2>/dev/null && break
    sleep 0.1
done
"$WL" --quiet --ops 1500 --max-io 1048576 --dir small "$TBBT_NFS_URL" >/dev/null
sleep 1.5
kill -INT "$CAP_PID"
wait "$CAP_PID"
rc=$?
CAP_PID=
sed 's/^/    /' "$TMP/small.out" "$TMP/small.err"
dropped=$(sed -n 's/^tbbt-capture: tcpdump: .* \([0-9]*\) dropped by kernel.*/\1/p' "$TMP/small.out")
if [ "${dropped:-0}" -gt 0 ]; then
    check "-B 1: $dropped dropped: exit 3, a warning with the count and the fixes" \
        eval '[ $rc = 3 ] && grep -Eq "^tbbt-capture: warning: $dropped packets lost .*incomplete.*bigger -B.*mirror port" "$TMP/small.err"'
else
    check "-B 1: no drop here (a fast machine): exit 0, the report line" eval '[ $rc = 0 ] && grep -Eq "$REPORT" "$TMP/small.out"'
fi

tbbt_ganesha_stop "$TMP/srv"
e2e_end
