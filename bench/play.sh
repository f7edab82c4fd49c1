#!/bin/bash
# bench/play.sh -- how fast and how punctual tbbt-play is (issue
# "tbbt-play", its Benchmark part, and issue 23). Three parts, each figure the
# median of BENCH_RUNS runs (default 5), CPU and peak RSS from GNU time around the
# whole program (bench/lib.sh's way), interleaved so that the shared
# machine's noise falls on every variant alike.
#
# 1. Full speed against nfs-ganesha (tests/lib/ganesha.sh, VFS FSAL, an
#    export on the plain disk): the first BENCH_PLAY_RECORDS (default
#    100000) records of the million-call capture (bench/make-capture.sh,
#    tbbt-prep'd here), on tbbt-init's image of its map, played by
#      tbbt-play --order fsdep, tbbt-play --order conservative, and
#      tbbt-asyncpeer: the same records' calls through libnfs's raw async
#        API (rpc_nfs3_*_async) in trace order, the only dependency "a
#        handle must be known" (bench/tools/tbbt-asyncpeer.c).
#    In flight: BENCH_PLAY_DEPTH (default 64) for all three (tbbt-play
#    --max-outstanding, tbbt-asyncpeer --depth): the capture was made by 4
#    clients keeping at most 16 calls each in flight, so 64 is the trace's
#    own ceiling; conservative order cannot use more, and fsdep and the
#    peer get exactly as much. Connections: one per traced client for both
#    programs (tbbt-play's default, tbbt-asyncpeer's the same). Every run
#    starts on a fresh server and a fresh image (ganesha stopped, export
#    emptied, started, tbbt-init), so every run does the same work.
#    Printed: ops/s (replies / the program's own wall), CPU per op (the
#    program's own CPU, set-up excluded, / requests sent; GNU time's CPU
#    of the whole process beside it), status matches, peak RSS, and the
#    ratios with the targets: fsdep > conservative; fsdep >= the peer's
#    ops/s (the CPU per op below the peer's was a target until issue 23
#    retired it: on this machine a cross-CPU wake-up decides it). Then what explains most of the CPU per op
#    on a machine where sleeping is dear: each client's sleeps per request
#    (GNU time's voluntary context switches / requests sent; the player
#    has a send and a receive thread that each sleep, the peer one thread)
#    and what one sleep and the wake-up that ends it cost here, across two
#    CPUs and on one (bench/tools/tbbt-wakecost).
# 2. The player's ceiling: tbbt-play --order fsdep (its default window and
#    cap) against tests/tools/tbbt-nullserver, a MINIMAL RESPONDER FOR BENCHMARKS
#    ONLY (answers every call NFS3_OK from memory), on the first
#    BENCH_PLAY_CEIL_RECORDS (default 500000) records of the same trace,
#    with every traced status set to 0 (the responder always says OK; a
#    traced error would count as a failure and fsdep would skip its
#    dependants: less work, a flattering figure) and a fake manifest
#    (bench/play-fakemanifest.pl), beside tbbt-asyncpeer (--depth 1024) on
#    the same records, interleaved, and beside tbbt-asyncpeer kept to fsdep's
#    concurrency (--depth: fsdep's requests out just after a send, median
#    of this benchmark's fsdep runs so far), the like-for-like comparison:
#    the peer waits only for handles, so at depth 1024 it keeps ten times
#    the requests out that fsdep's dependencies allow on this trace.
#    Responder pinned to one core, client to
#    the other (taskset), so the client's three threads share one core
#    against the peer's one thread. Target: fsdep's ops/s >= the peer's
#    (issue 23) and >= 200000. Printed for both: ops/s, CPU per request,
#    system calls per request (the kernel's count, perf stat on runs of
#    their own; strace -c -f on a short run where perf cannot), with the
#    sleeping tasks the client woke (its own threads, and over loopback the
#    responder: sched:sched_waking in the client's context), user-space
#    instructions per request (valgrind's callgrind on one run each of the
#    first BENCH_PLAY_IR_RECORDS, default 50000, records; the player's per
#    thread too: a count the machine's load does not move), hand-offs
#    between threads per request (tbbt-play's threads count their wakes of
#    each other: TBBT_PLAY_COUNTS; the peer has one thread), sleeps per
#    request (voluntary context switches), the responder's calls per read,
#    peak RSS, and the ratio; each client's core busy (ops/s x CPU per
#    request: near 1, bound by its CPU). Then what bounds the player here: the
#    requests each client keeps out (time-weighted mean, and just after
#    each send: tbbt-play's JSON, tbbt-asyncpeer's), where tbbt-play's
#    round trip goes (TBBT_PLAY_COUNTS: offered -> written -> the reply's
#    arrival -> read -> taken by the send thread, and for the requests that
#    waited on a dependency, the hop from the reply that freed them to
#    their write), and what its send thread sleeps on (a full window, a
#    dependency, records not loaded, the cap).
# 3. Timing: synthesized traces of GETATTRs of one file at exactly
#    BENCH_PLAY_RATES (default "2000 5000 10000 20000") calls a second for
#    BENCH_PLAY_SECONDS (default 5), played with --speedup 1 against
#    ganesha (an image of a root and a file); issue error (actual minus
#    scheduled send) p50, p99, max from tbbt-play's JSON, beside
#    bench/tools/tbbt-timerloop at the same rate and duration (tbbt-play's own
#    sleep method: a futex wait, then spinning the last 100 us; no
#    work), in the same run, and tbbt-timerloop --method nanosleep: the
#    issue's bare timer loop (sleeping until each deadline). Targets: p99
#    <= 100 us at 10k/s (Buttress's bar), and the player's p99 <= 2 x the
#    sleeping bare timer's; the difference to the spinning loop is printed
#    as the cost of the player's work. 2000/s is not in the issue: it
#    is there because below 5000/s the gap between calls exceeds the
#    player's 200 us spinning threshold and its poll() timeout, rounded UP
#    to whole milliseconds, oversleeps (p50 ~0.4 ms late; the bare timer
#    loop, sleeping the same way, shows it too).
#
# Knobs: BENCH_RUNS, BENCH_PLAY_RECORDS, BENCH_PLAY_DEPTH,
# BENCH_PLAY_CEIL_RECORDS, BENCH_PLAY_IR_RECORDS (0: no callgrind), BENCH_PLAY_RATES, BENCH_PLAY_SECONDS,
# BENCH_PLAY_PARTS (default "full ceiling timing"), TBBT_BUILD.
# Needs root (ganesha's VFS FSAL) unless BENCH_PLAY_PARTS=ceiling: exits 77
# with the reason otherwise.
# Everything made (server dir, image, traces) is removed on exit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
. "$src/tests/lib/ganesha.sh"
build=${TBBT_BUILD:-$src/build}
runs=${BENCH_RUNS:-5}
nrec=${BENCH_PLAY_RECORDS:-100000}
depth=${BENCH_PLAY_DEPTH:-64}
ceilrec=${BENCH_PLAY_CEIL_RECORDS:-500000}
irrec=${BENCH_PLAY_IR_RECORDS:-50000}
rates=${BENCH_PLAY_RATES:-2000 5000 10000 20000}
secs=${BENCH_PLAY_SECONDS:-5}
parts=${BENCH_PLAY_PARTS:-full ceiling timing}

skip() {
    echo "bench/play: skipped: $*"
    exit 77
}
if [ "$parts" != ceiling ]; then # the ceiling part needs no ganesha
    [ "$(id -u)" = 0 ] || skip "needs root (ganesha's VFS FSAL)"
    tbbt_ganesha_usable 2>/dev/null || skip "$(tbbt_ganesha_usable 2>&1)"
fi
perl -MJSON::PP -e 1 2>/dev/null || skip "perl JSON::PP missing"

progs="tbbt-prep tbbt-init tbbt-play tbbt-dump tbbt-asyncpeer tbbt-nullserver tbbt-timerloop tbbt-wakecost"
PREP=$build/transform/tbbt-prep INIT=$build/hierarchy/tbbt-init PLAY=$build/player/tbbt-play
DUMP=$build/tools/tbbt-dump PEER=$build/bench/tools/tbbt-asyncpeer NULLSRV=$build/tests/tools/tbbt-nullserver
TLOOP=$build/bench/tools/tbbt-timerloop WAKECOST=$build/bench/tools/tbbt-wakecost
for b in "$PREP" "$INIT" "$PLAY" "$DUMP" "$PEER" "$NULLSRV" "$TLOOP" "$WAKECOST"; do
    if [ ! -x "$b" ]; then
        cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
        # shellcheck disable=SC2086
        cmake --build "$build" -j2 --target $progs >/dev/null
        break
    fi
done

work=$(mktemp -d /tmp/tbbt-bench-play.XXXXXX)
gdir=$work/g
nspid=
# cleanup: the responder, the server, every file made.
cleanup() {
    [ -n "$nspid" ] && kill "$nspid" 2>/dev/null && wait "$nspid" 2>/dev/null
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true
    rm -rf "$work" "$BENCH_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# timed LABEL CMD...: one run under GNU time; its figures (wall, user,
# system, peak RSS, voluntary context switches) appended to
# $BENCH_TMP/LABEL.times, its output in $BENCH_TMP/LABEL.out.
timed() {
    local label=$1
    shift
    /usr/bin/time -f '%e %U %S %M %w' -o "$BENCH_TMP/t1" "$@" >"$BENCH_TMP/$label.out" 2>"$BENCH_TMP/$label.err" || {
        echo "bench/play: $label: command failed: $*" >&2
        tail -3 "$BENCH_TMP/$label.err" >&2
        return 1
    }
    cat "$BENCH_TMP/t1" >>"$BENCH_TMP/$label.times"
}

# keep LABEL JSON: appends the figures of a run's JSON document (tbbt-play's,
# tbbt-asyncpeer's or tbbt-timerloop's) to $BENCH_TMP/LABEL.figs as
# "ops_per_s cpu_per_op_us matched_share issue_p50 issue_p99 issue_max sent"
# (issue error in ns).
keep() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $t = $j->{totals} // {};
        my $ie = $j->{issue_error_ns} // {};
        my $sent = $t->{sent} // 0;
        printf "%.3f %.4f %.6f %d %d %d %d\n", $t->{ops_per_s} // 0, $sent ? $t->{cpu_s} * 1e6 / $sent : 0,
            $t->{records} ? $t->{matched} / $t->{records} : 0, $ie->{p50} // 0, $ie->{p99} // 0, $ie->{max} // 0,
            $sent' \
        <"$2" >>"$BENCH_TMP/$1.figs"
}

# med LABEL COL: the median of column COL of LABEL's figures (1-based).
med() {
    awk -v c="$2" '{print $c}' "$BENCH_TMP/$1.figs" | _bench_median
}

# sleeps LABEL: the median over LABEL's runs of its voluntary context
# switches (GNU time, the whole process) per request sent: how often its
# threads slept. .times and .figs have a line per run, in the same order.
sleeps() {
    paste -d' ' "$BENCH_TMP/$1.times" "$BENCH_TMP/$1.figs" | awk '$12 > 0 {print $5 / $12}' | _bench_median
}

# times LABEL: sets CPU (median, s) and RSS (largest, KiB) of LABEL's runs.
times() {
    CPU=$(awk '{print $2 + $3}' "$BENCH_TMP/$1.times" | _bench_median)
    RSS=$(awk '$4 > m {m = $4} END {print m}' "$BENCH_TMP/$1.times")
}

# fresh_server: ganesha stopped, its export emptied, started again.
fresh_server() {
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true
    rm -rf "$gdir/export"
    tbbt_ganesha_start "$gdir" >/dev/null || { echo "bench/play: ganesha did not start" >&2; return 1; }
}

# init_image MAP: tbbt-init's image of MAP on the running server (manifest
# beside MAP); one retry, as tests/play does (a just-started server may hang
# up the first MOUNT).
init_image() {
    local args=(-q --map "$1" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$TBBT_EXPORT")
    "$INIT" "${args[@]}" 2>/dev/null && return 0
    sleep 1
    "$INIT" --replace "${args[@]}"
}

echo "bench/play: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM," \
    "load $(cut -d' ' -f1-3 /proc/loadavg), kernel $(uname -r), $(ganesha.nfsd -v 2>&1 | grep -o 'Release.*' | head -1)"
echo "bench/play: medians of $runs runs (interleaved); CPU = the program's own (set-up excluded) per request sent"

# ---- the trace ----
need_trace() {
    [ -s "$work/bench.tbbt" ] && return 0
    local pcap=$here/cache/bench-1000000.pcap
    # the cached capture as it is (make-capture.sh would remake it when this
    # build's tbbt-workload differs from the one that made it: minutes)
    if [ ! -s "$pcap" ]; then
        cmake --build "$build" -j2 --target tbbt-workload >/dev/null
        pcap=$(TBBT_BUILD=$build "$here/make-capture.sh")
    fi
    "$PREP" -q -o "$work/bench.tbbt" -m "$work/bench.hmap" "$pcap"
}

# ---- 1. full speed against ganesha ----
part_full() {
    need_trace
    local i v
    echo
    echo "1. Full speed against nfs-ganesha: the first $nrec records of the million-call capture, $depth in flight"
    for i in $(seq 1 "$runs"); do
        for v in fsdep conservative peer; do
            fresh_server
            init_image "$work/bench.hmap" >/dev/null
            local common=(--nfs-port "$TBBT_NFS_PORT" --manifest "$work/bench.manifest" --json "$BENCH_TMP/r.json")
            if [ "$v" = peer ]; then
                timed "full-$v" "$PEER" -q --depth "$depth" --limit "$nrec" "${common[@]}" \
                    "$work/bench.tbbt" "127.0.0.1:$TBBT_EXPORT"
            else
                timed "full-$v" "$PLAY" -q --order "$v" --max-outstanding "$depth" --limit "$nrec" "${common[@]}" \
                    "$work/bench.tbbt" "127.0.0.1:$TBBT_EXPORT"
            fi
            keep "full-$v" "$BENCH_TMP/r.json"
        done
    done
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true
    printf "%-26s %10s %11s %12s %9s %10s  %s\n" client ops/s "CPU/op us" "procCPU s" matched peakRSS "runs ops/s"
    for v in fsdep conservative peer; do
        times "full-$v"
        local name="tbbt-play $v"
        [ "$v" = peer ] && name="tbbt-asyncpeer (libnfs)"
        printf "%-26s %10.0f %11.2f %12.2f %8.2f%% %7d KB  %s\n" "$name" "$(med "full-$v" 1)" "$(med "full-$v" 2)" \
            "$CPU" "$(awk '{print $1 * 100}' <<<"$(med "full-$v" 3)")" "$RSS" \
            "$(awk '{printf "%s%.0f", (NR > 1 ? " " : ""), $1}' "$BENCH_TMP/full-$v.figs")"
        eval "ops_$v=$(med "full-$v" 1) cpu_$v=$(med "full-$v" 2)"
    done
    awk -v f="$ops_fsdep" -v c="$ops_conservative" -v p="$ops_peer" -v cf="$cpu_fsdep" -v cp="$cpu_peer" 'BEGIN {
        printf "fsdep / conservative ops/s: %.2f (expected > 1) %s\n", f / c, (f > c ? "met" : "NOT met")
        printf "fsdep / peer ops/s:         %.2f (target >= 1.00) %s\n", f / p, (f >= p ? "met" : "NOT met")
        printf "fsdep / peer CPU per op:    %.2f (a retired target, issue 23)\n", cf / cp }'
    # where CPU per op goes besides the work: the sleeps, and what one costs here
    printf "sleeps per request (voluntary context switches / sent): fsdep %.3f, conservative %.3f, peer %.3f\n" \
        "$(sleeps full-fsdep)" "$(sleeps full-conservative)" "$(sleeps full-peer)"
    if "$WAKECOST" --round-trips 50000 --json "$BENCH_TMP/wc.json" >/dev/null; then
        perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $t = $j->{two_cpus};
            printf "one thread hand-off here (tbbt-wakecost, a wake and the sleep it ends): %s, %.2f us on one\n",
                $t ? sprintf("%.2f us of CPU across two CPUs", $t->{cpu_us}) : "two CPUs n/a (one here)",
                $j->{same_cpu}{cpu_us}' <"$BENCH_TMP/wc.json"
    else
        echo "one thread hand-off here: tbbt-wakecost failed (above), not measured"
    fi
}

# ---- 2. the ceiling against the minimal responder ----
# syscounts LABEL CMD...: one run of CMD counting its system calls (every
# thread, the whole process) by the kernel's own count: perf stat on the
# raw_syscalls:sys_enter tracepoint and a few syscalls:sys_enter_* ones,
# plus the context switches. A run of its own, not one of the timed ones:
# counting costs a little on every system call, and the peer makes six
# times as many, so counting in the timed runs would tilt the ratio.
# Appends "total sends receives waits futex switches" to LABEL.sys.
syscounts() {
    local label=$1
    shift
    local ev=raw_syscalls:sys_enter,context-switches$wake_ev s
    for s in write writev sendto sendmsg read recvfrom recvmsg poll ppoll epoll_wait futex; do
        ev=$ev,syscalls:sys_enter_$s
    done
    perf stat -x, -e "$ev" -o "$BENCH_TMP/perf.csv" -- "$@" >/dev/null 2>"$BENCH_TMP/$label.err" || {
        echo "bench/play: $label: command failed under perf stat: $*" >&2
        tail -3 "$BENCH_TMP/$label.err" >&2
        return 1
    }
    awk -F, '/^[0-9]/ { n = $1; e = $3; sub(/^syscalls:sys_enter_/, "", e)
        if (e == "raw_syscalls:sys_enter") t = n
        else if (e == "context-switches") cs = n
        else if (e ~ /^(write|writev|sendto|sendmsg)$/) snd += n
        else if (e ~ /^(read|recvfrom|recvmsg)$/) rcv += n
        else if (e ~ /^(poll|ppoll|epoll_wait)$/) w += n
        else if (e == "sched:sched_waking") wk = n
        else if (e == "futex") f += n }
        END { printf "%d %d %d %d %d %d %d\n", t, snd, rcv, w, f, cs, (wk == "" ? -1 : wk) }' "$BENCH_TMP/perf.csv" >>"$BENCH_TMP/$label.sys"
}

# straced LABEL CMD...: the same counts from strace -c -f, where perf
# cannot count (no perf, or tracepoints not allowed): slower, so the run
# it counts is a short one (CMD says so).
straced() {
    local label=$1
    shift
    strace -c -f -o "$BENCH_TMP/strace.txt" -- "$@" >/dev/null 2>"$BENCH_TMP/$label.err" || {
        echo "bench/play: $label: command failed under strace: $*" >&2
        return 1
    }
    # "% time, seconds, usecs/call, calls, [errors,] syscall": calls is the 4th
    awk '$1 ~ /^[0-9.]+$/ && $NF ~ /^[a-z_0-9]+$/ && $NF != "total" {
        e = $NF; n = $4
        t += n
        if (e ~ /^(write|writev|sendto|sendmsg)$/) snd += n
        else if (e ~ /^(read|recvfrom|recvmsg)$/) rcv += n
        else if (e ~ /^(poll|ppoll|epoll_wait)$/) w += n
        else if (e == "futex") f += n }
        END { printf "%d %d %d %d %d -1 -1\n", t, snd, rcv, w, f }' "$BENCH_TMP/strace.txt" >>"$BENCH_TMP/$label.sys"
}

# persent LABEL COL N: the median over LABEL's counting runs of column COL
# of its .sys lines divided by N, the requests each of those runs sent.
persent() {
    awk -v c="$2" -v n="$3" '$c >= 0 {print $c / n}' "$BENCH_TMP/$1.sys" | _bench_median
}

# nullserver_start: a responder of its own on $port, on the second core;
# returns once it listens (a client started sooner would be refused).
nullserver_start() {
    "${pin1[@]}" "$NULLSRV" --port "$port" >"$BENCH_TMP/nullserver.out" 2>&1 &
    nspid=$!
    local k
    for k in $(seq 1 200); do
        grep -qi ":$(printf '%04X' "$port") 00000000:0000 0A" /proc/net/tcp && return 0
        sleep 0.05
    done
    echo "bench/play: tbbt-nullserver did not listen on port $port" >&2
    return 1
}

# nullserver_stop: TERM, not INT: a background job of a script starts
# with SIGINT ignored, and a responder that has not set its handler yet
# would never see it.
nullserver_stop() {
    kill -TERM "$nspid" 2>/dev/null || true
    wait "$nspid" 2>/dev/null || true
    nspid=
}

# instructions LABEL [PIN...] valgrind CMD...: one run of CMD under
# callgrind (PIN, e.g. taskset -c 0, around valgrind), one output
# file per thread; appends "total thread1 thread2 ..." (instructions, user
# space, every thread) to LABEL.ir. Callgrind runs one thread at a time,
# so the player's batching there is not its batching at full speed: the
# count is of the work per request, not of its timing.
instructions() {
    local label=$1 f
    shift
    rm -f "$BENCH_TMP/cg.$label"*
    local pre=()
    while [ "$1" != valgrind ]; do pre+=("$1") && shift; done # the pinning, around valgrind
    shift
    "${pre[@]}" valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$BENCH_TMP/cg.$label" -- "$@" \
        >/dev/null 2>"$BENCH_TMP/$label.err" || {
        echo "bench/play: $label: command failed under callgrind: $*" >&2
        tail -3 "$BENCH_TMP/$label.err" >&2
        return 1
    }
    for f in "$BENCH_TMP/cg.$label"-*; do sed -n 's/^summary: //p' "$f"; done |
        awk '{t += $1; s = s " " $1} END {print t s}' >>"$BENCH_TMP/$label.ir"
}

part_ceiling() {
    need_trace
    local i v port=$((21000 + RANDOM % 8000)) pin0=() pin1=() counter=none wake_ev=
    if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then pin0=(taskset -c 0) pin1=(taskset -c 1); fi
    if command -v perf >/dev/null && perf stat -x, -e raw_syscalls:sys_enter -o /dev/null -- true 2>/dev/null; then
        counter=perf
        # the tasks woken, where the kernel lets perf count them
        perf stat -x, -e sched:sched_waking -o /dev/null -- true 2>/dev/null && wake_ev=,sched:sched_waking
    elif command -v strace >/dev/null; then
        counter=strace
    fi
    echo
    echo "2. The player's ceiling: tbbt-play fsdep (default window 4096, cap 1024) against tbbt-nullserver,"
    echo "   THE MINIMAL RESPONDER FOR BENCHMARKS ONLY (NFS3_OK from memory), first $ceilrec records, statuses set to 0;"
    echo "   beside tbbt-asyncpeer (libnfs async, --depth 1024) on the same records and responder; one connection per"
    echo "   traced client for both; ${pin0[*]:-(not pinned)} client, ${pin1[*]:-(not pinned)} responder;"
    echo "   load at the start $(cut -d' ' -f1-3 /proc/loadavg)"
    (   # head closes the pipe early: tbbt-dump's SIGPIPE is expected
        set +o pipefail
        "$DUMP" "$work/bench.tbbt" | head -n "$ceilrec" | awk '{ if ($8 != "-") $8 = 0; print }' >"$work/ceil.txt"
    )
    "$DUMP" --text-in "$work/ceil.txt" -o "$work/ceil.tbbt"
    rm -f "$work/ceil.txt"
    perl "$here/play-fakemanifest.pl" "$work/bench.hmap" >"$work/ceil.manifest"
    local common=(--nfs-port "$port" --manifest "$work/ceil.manifest")
    local play=("${pin0[@]}" "$PLAY" -q --order fsdep "${common[@]}") peer=("${pin0[@]}" "$PEER" -q --depth 1024 "${common[@]}")
    for i in $(seq 1 "$runs"); do
        for v in fsdep peer peerd; do
            # a responder of its own for each run: its calls per read() tell
            # how many calls each client puts in one send
            nullserver_start
            if [ "$v" = peer ]; then
                timed "ceil-$v" "${peer[@]}" --json "$BENCH_TMP/r.json" "$work/ceil.tbbt" 127.0.0.1:/null
            elif [ "$v" = peerd ]; then
                # like for like: the peer kept to fsdep's concurrency (its requests
                # out just after a send, median of this benchmark's fsdep runs so far)
                peerd_depth=$(awk '{print $2}' "$BENCH_TMP/ceil-fsdep.outs" | _bench_median | awk '{d = int($1 + 0.5); print (d > 0 ? d : 1)}')
                timed "ceil-$v" "${pin0[@]}" "$PEER" -q --depth "$peerd_depth" "${common[@]}" --json "$BENCH_TMP/r.json" \
                    "$work/ceil.tbbt" 127.0.0.1:/null
                echo "$peerd_depth" >>"$BENCH_TMP/ceil-peerd.depth"
            else
                TBBT_PLAY_COUNTS=$BENCH_TMP/counts.json timed "ceil-$v" "${play[@]}" --json "$BENCH_TMP/r.json" \
                    "$work/ceil.tbbt" 127.0.0.1:/null
                perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
                    printf "%d %d %d %d %d\n", $j->{sent}, $j->{handoffs}, $j->{sleeps_send}, $j->{sleeps_io}, $j->{polls_rx}' \
                    <"$BENCH_TMP/counts.json" >>"$BENCH_TMP/ceil-$v.hand"
                # each thread's own CPU (user, system) and context switches (slept, preempted)
                perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $t = $j->{threads} // {};
                    print join(" ", $j->{sent}, map { my $u = $t->{$_} // {};
                        ($u->{user_s} // 0, $u->{sys_s} // 0, $u->{vcsw} // 0, $u->{ivcsw} // 0) } qw(send receive io)), "\n"' \
                    <"$BENCH_TMP/counts.json" >>"$BENCH_TMP/ceil-$v.thr"
                # where a request's round trip goes, and what the send thread slept on
                perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $r = $j->{round_trip_us};
                    my $w = $j->{send_waits};
                    print join(" ", (map { $r->{$_} } qw(ready_write write_arrival arrival_read read_taken
                        dep_taken_ready dep_ready_write)), (map { $w->{$_}{s}, $w->{$_}{n} } qw(deps window records cap)),
                        $j->{rx_poll_s}), "\n"' <"$BENCH_TMP/counts.json" >>"$BENCH_TMP/ceil-$v.rt"
            fi
            keep "ceil-$v" "$BENCH_TMP/r.json"
            # requests out over the run: time-weighted mean, and mean just after each send
            perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>);
                if ($j->{outstanding} && defined $j->{outstanding}{mean_at_send}) {
                    printf "%.2f %.2f\n", $j->{outstanding}{mean}, $j->{outstanding}{mean_at_send} }
                else { printf "%.2f %.2f %.2f %d\n", $j->{load}{replay}{outstanding_mean}, $j->{outstanding}{mean},
                    $j->{load}{trace}{outstanding_mean} // 0, $j->{load}{trace}{outstanding_max} // 0 }' \
                <"$BENCH_TMP/r.json" >>"$BENCH_TMP/ceil-$v.outs"
            nullserver_stop
            sed -n 's/.*(\([0-9.]*\) calls per read).*CPU \([0-9.]*\) s.*/\1 \2/p' "$BENCH_TMP/nullserver.out" \
                >>"$BENCH_TMP/ceil-$v.ns"
        done
        # the system calls, counted on runs of their own (interleaved too)
        for v in fsdep peer; do
            local cmd=("${play[@]}")
            [ "$v" = peer ] && cmd=("${peer[@]}")
            nullserver_start
            if [ "$counter" = perf ]; then
                syscounts "ceil-$v" "${cmd[@]}" "$work/ceil.tbbt" 127.0.0.1:/null
                echo "$ceilrec" >>"$BENCH_TMP/ceil-$v.sysn"
            elif [ "$counter" = strace ] && [ "$i" = 1 ]; then
                straced "ceil-$v" "${cmd[@]}" --limit 50000 "$work/ceil.tbbt" 127.0.0.1:/null
                echo 50000 >>"$BENCH_TMP/ceil-$v.sysn"
            fi
            nullserver_stop
        done
    done
    # instructions per request: one callgrind run each on the first $irrec records
    if [ "$irrec" -gt 0 ] && command -v valgrind >/dev/null; then
        for v in fsdep peer; do # valgrind inside taskset: it does not follow taskset's exec
            local cmd=("${play[@]:${#pin0[@]}}")
            [ "$v" = peer ] && cmd=("${peer[@]:${#pin0[@]}}")
            nullserver_start
            instructions "ceil-$v" "${pin0[@]}" valgrind "${cmd[@]}" --limit "$irrec" "$work/ceil.tbbt" 127.0.0.1:/null ||
                true
            nullserver_stop
        done
    fi
    printf "%-30s %9s %9s %8s %9s %9s %9s %9s %10s  %s\n" client ops/s "CPU/op us" matched syscalls \
        "hand-offs" sleeps "calls/read" peakRSS "runs ops/s"
    printf "%-30s %9s %9s %8s %9s %9s %9s %9s %10s\n" "" "" "" "" "per req" "per req" "per req" "" ""
    for v in fsdep peer peerd; do
        times "ceil-$v"
        local name="tbbt-play fsdep" hand sys="n/a" n
        if [ "$v" = peer ]; then
            name="tbbt-asyncpeer depth 1024"
            hand="0, 1 thr"
        elif [ "$v" = peerd ]; then
            name="tbbt-asyncpeer depth $(_bench_median <"$BENCH_TMP/ceil-peerd.depth" | awk '{printf "%.0f", $1}')"
            hand="0, 1 thr"
        else
            hand=$(awk '$1 > 0 {print $2 / $1}' "$BENCH_TMP/ceil-$v.hand" | _bench_median)
        fi
        if [ -s "$BENCH_TMP/ceil-$v.sys" ]; then
            n=$(head -1 "$BENCH_TMP/ceil-$v.sysn")
            sys=$(printf "%.3f" "$(persent "ceil-$v" 1 "$n")")
            eval "sys_$v=\$sys"
        fi
        printf "%-30s %9.0f %9.2f %7.2f%% %9s %9s %9.3f %9.2f %7d KB  %s\n" "$name" "$(med "ceil-$v" 1)" \
            "$(med "ceil-$v" 2)" "$(awk '{print $1 * 100}' <<<"$(med "ceil-$v" 3)")" "$sys" \
            "$(printf '%s' "$hand" | awk '{ if ($0 ~ /thr/) print; else printf "%.4f", $1 }')" \
            "$(sleeps "ceil-$v")" "$(awk '{print $1}' "$BENCH_TMP/ceil-$v.ns" | _bench_median)" "$RSS" \
            "$(awk '{printf "%s%.0f", (NR > 1 ? " " : ""), $1}' "$BENCH_TMP/ceil-$v.figs")"
    done
    echo "  CPU/op: the client's own CPU (set-up excluded) per request sent; peak RSS: GNU time, largest run."
    echo "  The second tbbt-asyncpeer is kept to fsdep's concurrency (--depth: fsdep's requests out at a send, median"
    echo "  of the fsdep runs before it): like for like. At depth 1024 the peer, waiting only for handles, keeps ten"
    echo "  times the requests out that fsdep's dependencies allow on this trace (the trace's own calls out: below)."
    # the client's core, busy: ops/s x CPU per op. Near 1, the client is bound by its
    # CPU, and the ops/s ratio of two such clients is the inverse of their CPU per op
    local busy="" v2
    for v2 in fsdep peer peerd; do
        busy="$busy $(awk '{print $1 * $2 / 1e6}' "$BENCH_TMP/ceil-$v2.figs" | _bench_median)"
    done
    awk -v b="$busy" 'BEGIN { split(b, a, " ")
        printf "  the client'"'"'s core busy (ops/s x CPU/op, medians; 1.00: bound by its CPU): tbbt-play fsdep %.2f, tbbt-asyncpeer\n", a[1]
        printf "  depth 1024 %.2f, tbbt-asyncpeer at fsdep'"'"'s concurrency %.2f\n", a[2], a[3] }'
    if [ "$counter" = perf ]; then
        echo "  syscalls: every system call of the whole process (all threads, trace reading and set-up included) per"
        echo "  request, counted by the kernel (perf stat, tracepoint raw_syscalls:sys_enter) on $runs runs of their"
        echo "  own, interleaved with the timed ones; per request, medians:"
        for v in fsdep peer; do
            n=$(head -1 "$BENCH_TMP/ceil-$v.sysn")
            printf "    %-26s sends %.3f  receives %.3f  poll %.3f  futex %.3f  context switches %.3f  wake-ups %s\n" \
                "$([ "$v" = peer ] && echo tbbt-asyncpeer || echo tbbt-play fsdep)" "$(persent "ceil-$v" 2 "$n")" \
                "$(persent "ceil-$v" 3 "$n")" "$(persent "ceil-$v" 4 "$n")" "$(persent "ceil-$v" 5 "$n")" \
                "$(persent "ceil-$v" 6 "$n")" "$([ -n "$wake_ev" ] && printf %.3f "$(persent "ceil-$v" 7 "$n")" || echo n/a)"
        done
        echo "  wake-ups: sleeping tasks woken in the client's context (tracepoint sched:sched_waking): its own threads"
        echo "  and, over loopback, the responder, whose socket's receive path and wake-up (a cross-CPU interrupt) run"
        echo "  inside the client's write(); on a real network the server's host would pay for them"
    elif [ "$counter" = strace ]; then
        echo "  syscalls: strace -c -f on one run of the first 50000 records each (perf cannot count here)"
    else
        echo "  syscalls: not measured (neither perf nor strace here)"
    fi
    local hs="" c
    for c in 3 4 5; do
        hs="$hs $(awk -v c="$c" '$1 > 0 {print $c / $1}' "$BENCH_TMP/ceil-fsdep.hand" | _bench_median)"
    done
    if [ -s "$BENCH_TMP/ceil-fsdep.ir" ] && [ -s "$BENCH_TMP/ceil-peer.ir" ]; then
        awk -v n="$irrec" 'FNR == 1 { if (NR == 1) { f = $1; s = $2; io = $3; rx = $4 } else p = $1 } END {
            printf "  instructions per request (callgrind, user space, whole process with set-up, first %d records, one run\n", n
            printf "  each; the load does not move them): tbbt-play fsdep %.0f (send thread %.0f, I/O %.0f, receive %.0f),\n",
                f / n, s / n, io / n, rx / n
            printf "  tbbt-asyncpeer %.0f; fsdep / peer %s\n", p / n, (p > 0 ? sprintf("%.2f", f / p) : "n/a") }' "$BENCH_TMP/ceil-fsdep.ir" "$BENCH_TMP/ceil-peer.ir"
    else
        echo "  instructions per request: not measured (no valgrind, or BENCH_PLAY_IR_RECORDS=0)"
    fi
    echo "  hand-offs: wakes one of tbbt-play's threads made of another (the receive and I/O threads waking the send"
    echo "  thread, the send thread waking the I/O thread), as the threads counted them (TBBT_PLAY_COUNTS); the peer"
    echo "  has one thread. Per request, send-thread sleeps, I/O-thread sleeps and receive-thread polls:" \
        "$(awk '{printf "%.4f, %.4f, %.4f", $1, $2, $3}' <<<"$hs")."
    # requests out, both clients; where tbbt-play's round trip goes; what its send thread waits for
    local oc="" c2
    for v in fsdep peer peerd; do
        oc="$oc $(awk '{print $1}' "$BENCH_TMP/ceil-$v.outs" | _bench_median) $(awk '{print $2}' "$BENCH_TMP/ceil-$v.outs" | _bench_median)"
    done
    oc="$oc $(head -1 "$BENCH_TMP/ceil-fsdep.outs" | awk '{print $3 + 0, $4 + 0}')"
    awk -v o="$oc" 'BEGIN { split(o, a, " ")
        printf "  requests out (time-weighted mean over the run; mean just after each send), medians: tbbt-play fsdep %.1f (%.1f),", a[1], a[2]
        printf " tbbt-asyncpeer %.1f (%.1f), at fsdep'"'"'s concurrency %.1f (%.1f);\n", a[3], a[4], a[5], a[6]
        printf "  the trace'"'"'s own calls out (time-weighted mean, max): %.1f, %d\n", a[7], a[8] }'
    local rt=""
    for c2 in 1 2 3 4 5 6; do rt="$rt $(awk -v c="$c2" '{print $c}' "$BENCH_TMP/ceil-fsdep.rt" | _bench_median)"; done
    awk -v r="$rt" 'BEGIN { split(r, a, " ")
        printf "  tbbt-play round trip, means in us (medians of the runs): offered -> its connection written %.1f; written -> the reply\n", a[1]
        printf "  arrives (kernel time; the responder and loopback) %.1f; arrives -> read by the receive thread %.1f; read -> taken by\n", a[2], a[3]
        printf "  the send thread %.1f. For the requests that waited on a dependency: the reply that freed them taken -> offered %.1f,\n", a[4], a[5]
        printf "  offered -> written %.1f: the player'"'"'s own share of a dependency hop %.1f us, the responder'"'"'s side %.1f us\n", a[6],
            a[3] + a[4] + a[5] + a[6], a[2] }'
    # send-thread sleep seconds by reason, as a share of the replay's wall (sent / ops/s), medians
    paste -d' ' "$BENCH_TMP/ceil-fsdep.rt" "$BENCH_TMP/ceil-fsdep.figs" | awk '{ w = $22 / $16
        printf "%.4f %.4f %.4f %.4f %.4f %d %d %d %d\n", $7 / w, $9 / w, $11 / w, $13 / w, $15 / w, $8, $10, $12, $14 }' \
        >"$BENCH_TMP/ceil-fsdep.waits"
    local ws=""
    for c2 in 1 2 3 4 5 6 7 8 9; do ws="$ws $(awk -v c="$c2" '{print $c}' "$BENCH_TMP/ceil-fsdep.waits" | _bench_median)"; done
    awk -v r="$ws" 'BEGIN { split(r, a, " ")
        printf "  tbbt-play send thread asleep, share of the replay'"'"'s wall (sleeps), medians: on a full window (the reply to its\n"
        printf "  oldest record) %.1f%% (%d), on dependencies %.1f%% (%d), on records not loaded %.1f%% (%d), on the cap %.1f%% (%d);\n",
            100 * a[2], a[7], 100 * a[1], a[6], 100 * a[3], a[8], 100 * a[4], a[9]
        printf "  its receive thread in poll() %.1f%% of it\n", 100 * a[5] }'
    # per thread, per request: CPU in us (user, system) and context switches (slept, preempted), medians
    local th=""
    for c2 in 2 3 4 5 6 7 8 9 10 11 12 13; do
        th="$th $(awk -v c="$c2" '$1 > 0 {print (c % 4 == 2 || c % 4 == 3 ? 1e6 : 1) * $c / $1}' "$BENCH_TMP/ceil-fsdep.thr" | _bench_median)"
    done
    awk -v r="$th" 'BEGIN { split(r, a, " ")
        if (a[1] + a[2] + a[5] + a[6] == 0) { print "  tbbt-play per thread: not counted by this build (TBBT_PLAY_COUNTS without \"threads\")"; exit }
        printf "  tbbt-play per thread, per request (TBBT_PLAY_COUNTS, getrusage per thread, medians): CPU us user + system,\n"
        printf "  context switches slept / preempted: send %.2f + %.2f, %.4f / %.4f; receive %.2f + %.2f, %.4f / %.4f;\n", a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
        printf "  I/O %.2f + %.2f, %.4f / %.4f\n", a[9], a[10], a[11], a[12] }'
    # the whole process's user and system CPU per request (GNU time, set-up included), both clients
    local v2 us=""
    for v2 in fsdep peer; do
        us="$us $(paste -d' ' "$BENCH_TMP/ceil-$v2.times" "$BENCH_TMP/ceil-$v2.figs" | awk '$12 > 0 {print 1e6 * $2 / $12}' | _bench_median)"
        us="$us $(paste -d' ' "$BENCH_TMP/ceil-$v2.times" "$BENCH_TMP/ceil-$v2.figs" | awk '$12 > 0 {print 1e6 * $3 / $12}' | _bench_median)"
    done
    awk -v r="$us" 'BEGIN { split(r, a, " ")
        printf "  CPU per request, user + system us (GNU time, whole process with set-up, medians): tbbt-play fsdep %.2f + %.2f,\n", a[1], a[2]
        printf "  tbbt-asyncpeer depth 1024 %.2f + %.2f\n", a[3], a[4] }'
    echo "  sleeps: voluntary context switches (GNU time, whole process) per request. calls/read: calls the responder"
    echo "  got per read() (median). Responder CPU (medians):" \
        "$(awk '{print $2}' "$BENCH_TMP/ceil-fsdep.ns" | _bench_median) s for tbbt-play's runs," \
        "$(awk '{print $2}' "$BENCH_TMP/ceil-peer.ns" | _bench_median) s for the peer's"
    awk -v f="$(med ceil-fsdep 1)" -v p="$(med ceil-peer 1)" -v pd="$(med ceil-peerd 1)" -v sf="${sys_fsdep:-0}" -v sp="${sys_peer:-0}" \
        -v lo="$(awk '{print $1}' "$BENCH_TMP/ceil-fsdep.figs" | sort -g | head -1)" \
        -v hi="$(awk '{print $1}' "$BENCH_TMP/ceil-fsdep.figs" | sort -g | tail -1)" 'BEGIN {
        printf "tbbt-play fsdep / peer ops/s: %.2f (target >= 1.00) %s; fsdep runs spread %.0f-%.0f ops/s\n", f / p,
            (f >= p ? "met" : "NOT met"), lo, hi
        if (pd > 0) printf "tbbt-play fsdep / peer at fsdep'"'"'s concurrency (like for like: as many requests out) ops/s: %.2f\n", f / pd
        if (sf > 0 && sp > 0) printf "tbbt-play fsdep / peer system calls per request: %.2f\n", sf / sp
        printf "tbbt-play fsdep ceiling: %.0f ops/s (target >= 200000) %s\n", f, (f >= 200000 ? "met" : "NOT met") }'
    echo "  load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
}

# ---- 3. timing ----
# synth RATE FILE: GETATTRs of ID 2 at exactly RATE a second for $secs s.
synth() {
    awk -v r="$1" -v s="$secs" 'BEGIN {
        n = int(r * s); t0 = 1800000000; step = 1e9 / r
        for (i = 0; i < n; i++) {
            ns = int(i * step); rs = ns + 50000
            printf "%d.%09d %d.%09d 127.0.0.1:800 127.0.0.1:2049 0x%08x v3 getattr 0 T cred=1:0:0 obj=2\n",
                t0 + int(ns / 1e9), ns % 1e9, t0 + int(rs / 1e9), rs % 1e9, i + 1
        } }' >"$work/t.txt"
    "$DUMP" --text-in "$work/t.txt" -o "$2"
    rm -f "$work/t.txt"
}

part_timing() {
    local r i
    echo
    echo "3. Timing: GETATTRs at exactly R calls/s for $secs s, tbbt-play --speedup 1 against nfs-ganesha,"
    echo "   beside tbbt-timerloop (the player's futex-then-spin sleep, no work) and clock_nanosleep, same run"
    printf '# tbbt-hmap 1\n1 0 0 - dir - 0755 0 0 r "." -\n2 1 0 - reg 4096 0644 0 0 t "f" -\n# end 2\n' >"$work/t.hmap"
    for r in $rates; do synth "$r" "$work/t$r.tbbt"; done
    fresh_server
    init_image "$work/t.hmap" >/dev/null
    for i in $(seq 1 "$runs"); do
        for r in $rates; do
            timed "tp-$r" "$PLAY" -q --speedup 1 --nfs-port "$TBBT_NFS_PORT" --manifest "$work/t.manifest" \
                --json "$BENCH_TMP/r.json" "$work/t$r.tbbt" "127.0.0.1:$TBBT_EXPORT"
            keep "tp-$r" "$BENCH_TMP/r.json"
            timed "tl-$r" "$TLOOP" --rate "$r" --duration "$secs" --json "$BENCH_TMP/r.json"
            keep "tl-$r" "$BENCH_TMP/r.json"
            timed "tn-$r" "$TLOOP" --method nanosleep --rate "$r" --duration "$secs" --json "$BENCH_TMP/r.json"
            keep "tn-$r" "$BENCH_TMP/r.json"
        done
    done
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true
    printf "%-8s %-24s %9s %9s %10s %9s  %s\n" rate who "p50 us" "p99 us" "max us" "CPU s" "runs p99 us"
    for r in $rates; do
        for w in tp tl tn; do
            local name
            case $w in tp) name="tbbt-play" ;; tl) name="timerloop (player's)" ;; tn) name="timerloop (nanosleep)" ;; esac
            times "$w-$r"
            printf "%-8s %-24s %9.1f %9.1f %10.1f %9.2f  %s\n" "$r/s" "$name" "$(med "$w-$r" 4 | awk '{print $1 / 1e3}')" \
                "$(med "$w-$r" 5 | awk '{print $1 / 1e3}')" "$(med "$w-$r" 6 | awk '{print $1 / 1e3}')" "$CPU" \
                "$(awk '{printf "%s%.1f", (NR > 1 ? " " : ""), $5 / 1e3}' "$BENCH_TMP/$w-$r.figs")"
        done
        # the issue's bare timer sleeps until each deadline (clock_nanosleep);
        # the player's own futex-then-spin loop with no work is shown beside
        awk -v r="$r" -v p="$(med "tp-$r" 5)" -v t="$(med "tn-$r" 5)" -v s="$(med "tl-$r" 5)" 'BEGIN {
            if (r != 5000 && r != 10000 && r != 20000) { printf "  %s/s: (not in the issue) player p99 / sleeping timer p99 = %.2f\n", r, (t > 0 ? p / t : 0); exit }
            printf "  %s/s: player p99 / bare (sleeping) timer p99 = %.2f (target <= 2) %s", r, (t > 0 ? p / t : 0), (p <= 2 * t ? "met" : "NOT met")
            if (r == 10000) printf "; player p99 %.1f us (target <= 100 us) %s", p / 1e3, (p <= 100000 ? "met" : "NOT met")
            printf "; player p99 - spinning loop p99 = %.1f us (the cost of the work)\n", (p - s) / 1e3 }'
    done
}

for p in $parts; do
    case $p in
    full) part_full ;;
    ceiling) part_ceiling ;;
    timing) part_timing ;;
    *) echo "bench/play: unknown part $p (full ceiling timing)" >&2; exit 2 ;;
    esac
done
echo "bench/play: load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
