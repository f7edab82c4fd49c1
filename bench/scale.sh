#!/bin/bash
# bench/scale.sh -- scaling (issue "Scaling", its Benchmark part; issue 23,
# the paper's Figure 6). Parts, chosen by BENCH_SCALE_PARTS (default
# "windows sim live clones"):
#
# windows  The simulator's throughput for windows 100, 200, 500, 1000, 2000,
#        5000 and 10000 (tbbt-play --simulate, fsdep, the trace's own
#        latencies) on every trace it has: the large benchmark capture's
#        records (BENCH_SCALE_TRACE, below), the bundled traces/, the
#        fixtures of tests/data/, ../shared/captures when present, and any
#        capture or trace named in BENCH_SCALE_EXTRA (space-separated
#        paths); in each deps mode of BENCH_SCALE_DEPS (default "reply send
#        strict"). Per window: simulated ops/s and the ratio to the best
#        smaller window of the same run (issue 23 wants >= 0.98; below is
#        flagged "<"); per trace: the simulator's CPU (median of BENCH_RUNS)
#        and peak RSS (largest). Each trace is tbbt-prep'd once, untimed.
#
# sim    The simulator's speed: tbbt-play --simulate (default windows 100 ...
#        10000, fsdep) on the large benchmark capture's records
#        (BENCH_SCALE_TRACE, default bench/cache/bench-1000000.tbbt, made
#        from bench/make-capture.sh's capture by tbbt-prep when missing),
#        in records/s, beside the floor measured in the same run on the
#        same file: tbbt-dump reading it to /dev/null (decoding every
#        record and formatting it: reading the records costs at least
#        that). Two variants: the latencies taken from the trace (the
#        default: one more pass over the file for the medians) and given
#        (--sim-latency 200: one pass). Medians of BENCH_RUNS (default 3),
#        CPU and peak RSS from GNU time (bench/lib.sh), interleaved so the
#        shared machine's noise falls on every variant alike. The last
#        run's answer (the throughput table) is printed too.
#
# live   A live fsdep replay at full speed against nfs-ganesha, one per
#        window of BENCH_SCALE_LIVE_WINDOWS (default "200 1000 10000"), a
#        fresh server and tbbt-init image each run, windows interleaved, of
#        tests/data/fusenfs-build.txt.zst (a real client's build) and of
#        every capture or trace in BENCH_SCALE_LIVE (space-separated): ops/s
#        (median of BENCH_RUNS), its ratio to the first window's median,
#        the share of records matched, the player's CPU (median) and peak
#        RSS. Issue 23 wants window 10,000 not slower than 200. Needs root.
#
# clones One player with --clones 1, 2, 4, 8 against nfs-ganesha at full
#        speed, ops/s and latency for each, and the simulator's prediction
#        for the same window beside each (the ratio of prediction to
#        measurement). Needs root (ganesha). See part_clones below.
#
# Knobs: BENCH_RUNS, BENCH_SCALE_TRACE, BENCH_SCALE_PARTS, BENCH_SCALE_EXTRA,
# BENCH_SCALE_DEPS, BENCH_SCALE_LIVE, BENCH_SCALE_LIVE_WINDOWS, TBBT_BUILD.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
runs=${BENCH_RUNS:-3}
parts=${BENCH_SCALE_PARTS:-windows sim live clones}
trace=${BENCH_SCALE_TRACE:-$here/cache/bench-1000000.tbbt}
PLAY=$build/player/tbbt-play DUMP=$build/tools/tbbt-dump PREP=$build/transform/tbbt-prep
for b in "$PLAY" "$DUMP" "$PREP"; do
    if [ ! -x "$b" ]; then
        cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
        cmake --build "$build" -j2 --target tbbt-play tbbt-dump tbbt-prep >/dev/null
        break
    fi
done
# cleanup: what the parts left: their servers stopped, their directories
# (globals set by part_live and part_clones) and BENCH_TMP removed.
lwork= work= gdir=
cleanup() {
    if [ -n "$lwork" ]; then tbbt_ganesha_stop "$lwork/g" >/dev/null 2>&1 || true; fi
    if [ -n "$gdir" ]; then tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true; fi
    rm -rf "$BENCH_TMP" ${lwork:+"$lwork"} ${work:+"$work"}
}
trap cleanup EXIT
echo "bench/scale: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs"

# timed LABEL CMD...: one run under GNU time, appended to LABEL.times;
# its standard output kept in LABEL.out.
timed() {
    local label=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/t1" "$@" >"$BENCH_TMP/$label.out" 2>"$BENCH_TMP/$label.err" || {
        echo "bench/scale: $label: command failed: $*" >&2
        tail -3 "$BENCH_TMP/$label.err" >&2
        return 1
    }
    cat "$BENCH_TMP/t1" >>"$BENCH_TMP/$label.times"
}

# figs LABEL: sets WALL, CPU (medians, s) and RSS (largest, KiB) of LABEL's runs.
figs() {
    WALL=$(awk '{print $1}' "$BENCH_TMP/$1.times" | _bench_median)
    CPU=$(awk '{print $2 + $3}' "$BENCH_TMP/$1.times" | _bench_median)
    RSS=$(awk '$4 > m {m = $4} END {print m}' "$BENCH_TMP/$1.times")
}

# ---- part sim: the simulator's speed ----
# need_trace: makes $trace (the large capture's records) when missing.
need_trace() {
    [ -s "$trace" ] && return 0
    local pcap=$here/cache/bench-1000000.pcap
    [ -s "$pcap" ] || pcap=$("$here/make-capture.sh")
    echo "bench/scale: prepping $(basename "$pcap") once to $trace"
    "$PREP" -q --no-correct -o "$trace" "$pcap"
}

part_sim() {
    need_trace
    local i n
    for i in $(seq 1 "$runs"); do
        timed floor sh -c 'exec "$0" "$1" >/dev/null' "$DUMP" "$trace"
        timed sim_trace "$PLAY" --simulate --json "$BENCH_TMP/sim.json" "$trace"
        timed sim_given "$PLAY" --simulate --sim-latency 200 "$trace"
    done
    n=$(perl -MJSON::PP -e 'local $/; print decode_json(<STDIN>)->{records}' <"$BENCH_TMP/sim.json")
    echo "Simulator on $(basename "$trace") ($n records; $(tbbt_meta)):"
    figs floor
    local fwall=$WALL fcpu=$CPU
    row() {
        awk -v l="$1" -v n="$n" -v w="$WALL" -v c="$CPU" -v m="$RSS" -v fw="$fwall" -v fc="$fcpu" 'BEGIN {
            printf "  %-44s %7.3f s %10.0f records/s  CPU %7.3f s %10.0f records/CPU-s  %7.1f MiB peak  %5.2fx the floor wall, %5.2fx CPU\n",
                l, w, n / w, c, n / c, m / 1024, w / fw, c / fc}'
    }
    row "floor: tbbt-dump > /dev/null"
    figs sim_trace
    row "--simulate, 7 windows, latencies from trace"
    figs sim_given
    row "--simulate, 7 windows, --sim-latency 200"
    echo "The answer (last run, latencies from the trace):"
    sed 's/^/  /' "$BENCH_TMP/sim_trace.out" | grep -v '^  (outstanding'
}

# ---- part windows: the simulator's throughput per window, every trace ----
# prep_to NAME FILE: FILE's records in $BENCH_TMP/w/NAME.tbbt (and .hmap),
# made once; a .tbbt is taken as it is. Returns 1 (said) when tbbt-prep
# refuses FILE.
prep_to() {
    local name=$1 f=$2 t=$BENCH_TMP/w/$1.tbbt
    mkdir -p "$BENCH_TMP/w"
    [ -s "$t" ] && return 0
    case $f in
    *.tbbt) ln -s "$f" "$t" ;;
    *) "$PREP" -q -o "$t" "$f" >/dev/null 2>"$BENCH_TMP/w/$name.err" || {
        echo "  $name: skipped, tbbt-prep: $(tail -1 "$BENCH_TMP/w/$name.err")"
        return 1
    } ;;
    esac
}

# trace_list: "NAME PATH" per trace the windows part runs on.
trace_list() {
    local f n
    for f in "$trace" "$src"/traces/*.pcap.zst "$src"/tests/data/*.zst "$src"/tests/data/*.txt \
        "$src"/../shared/captures/*/*.zst "$src"/../shared/captures/public/*.txt ${BENCH_SCALE_EXTRA:-}; do
        [ -s "$f" ] || continue
        n=$(basename "$f")
        n=${n%%.*}
        case $f in "$src"/../shared/*) n=shared-$n ;; esac
        echo "$n $f"
    done
}

part_windows() {
    need_trace
    local deps_list=${BENCH_SCALE_DEPS:-reply send strict} name f deps i n=0 low=0
    echo
    echo "Windows: tbbt-play --simulate, fsdep, the trace's own latencies; per window the simulated ops/s and"
    echo "its ratio to the best smaller window in the same run ('<' below 0.98); CPU median of $runs runs, peak RSS"
    printf "  %-50s %-6s %8s" trace deps records
    for w in 100 200 500 1000 2000 5000 10000; do printf " %15s" "$w"; done
    printf " %9s %9s\n" "CPU s" "peak MiB"
    while read -r name f <&3; do
        prep_to "$name" "$f" </dev/null || continue
        for deps in $deps_list; do
            rm -f "$BENCH_TMP/win.times"
            for i in $(seq 1 "$runs"); do
                timed win "$PLAY" --simulate -q --deps "$deps" --json "$BENCH_TMP/win.json" "$BENCH_TMP/w/$name.tbbt" ||
                    continue 2
            done
            figs win
            perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my ($best, $low) = (0, 0);
                printf "  %-50s %-6s %8d", @ARGV[0, 1], $j->{records};
                for my $w (@{$j->{windows}}) {
                    my $r = $best > 0 ? $w->{ops_per_s} / $best : 1;
                    $low++ if $r < 0.98;
                    printf " %9.0f %4.2f%s", $w->{ops_per_s}, $r, $r < 0.98 ? "<" : " ";
                    $best = $w->{ops_per_s} if $w->{ops_per_s} > $best;
                }
                printf " %9.3f %9.1f\n", $ARGV[2], $ARGV[3] / 1024;
                exit($low ? 1 : 0)' "$name" "$deps" "$CPU" "$RSS" <"$BENCH_TMP/win.json" || low=$((low + 1))
            n=$((n + 1))
        done
    done 3< <(trace_list)
    echo "  ($n runs of trace x deps; $low with a window below 0.98 of the best smaller one)"
}

# ---- part live: fsdep on nfs-ganesha, window 200 against 10000 ----
part_live() {
    [ "$(id -u)" = 0 ] || { echo "bench/scale: part live skipped: needs root (ganesha's VFS FSAL)"; return 0; }
    . "$src/tests/lib/ganesha.sh"
    tbbt_ganesha_usable 2>/dev/null || { echo "bench/scale: part live skipped: $(tbbt_ganesha_usable 2>&1)"; return 0; }
    local INIT=$build/hierarchy/tbbt-init
    [ -x "$INIT" ] || cmake --build "$build" -j2 --target tbbt-init >/dev/null
    local wins=${BENCH_SCALE_LIVE_WINDOWS:-200 1000 10000} f name w i
    lwork=$(mktemp -d /tmp/tbbt-bench-live.XXXXXX) # global: cleanup() needs it
    echo
    echo "Live: tbbt-play --order fsdep at full speed against nfs-ganesha (fresh server and image each run,"
    echo "windows interleaved); ops/s median of $runs runs and its ratio to window $(set -- $wins; echo "$1")'s"
    printf "  %-24s %8s %7s %11s %7s %9s %8s %9s\n" trace records window "ops/s" ratio matched "CPU s" "peak MiB"
    for f in "$src/tests/data/fusenfs-build.txt.zst" ${BENCH_SCALE_LIVE:-}; do
        name=$(basename "$f")
        name=${name%%.*}
        "$PREP" -q -o "$lwork/$name.tbbt" -m "$lwork/$name.hmap" "$f" >/dev/null 2>"$lwork/prep.err" || {
            echo "  $name: skipped, tbbt-prep: $(tail -1 "$lwork/prep.err")"
            continue
        }
        for i in $(seq 1 "$runs"); do
            for w in $wins; do
                tbbt_ganesha_stop "$lwork/g" >/dev/null 2>&1 || true
                rm -rf "$lwork/g/export"
                tbbt_ganesha_start "$lwork/g" >/dev/null || { echo "bench/scale: ganesha did not start" >&2; return 1; }
                local iargs=(-q --map "$lwork/$name.hmap" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT"
                    "127.0.0.1:$TBBT_EXPORT")
                "$INIT" "${iargs[@]}" 2>/dev/null || { sleep 1; "$INIT" --replace "${iargs[@]}" >/dev/null; }
                timed "live-$name-$w" "$PLAY" -q --order fsdep --window "$w" --nfs-port "$TBBT_NFS_PORT" \
                    --manifest "$lwork/$name.manifest" --json "$lwork/$name-$w-$i.json" "$lwork/$name.tbbt" \
                    "127.0.0.1:$TBBT_EXPORT" || return 1
            done
        done
        tbbt_ganesha_stop "$lwork/g" >/dev/null 2>&1 || true
        local first=
        for w in $wins; do
            figs "live-$name-$w"
            local m
            m=$(perl -MJSON::PP -e 'my (@o, $rec, $ok);
                for my $f (@ARGV) { local $/; open my $h, "<", $f or next; my $t = decode_json(<$h>)->{totals};
                    push @o, $t->{ops_per_s}; $rec = $t->{records}; $ok = $t->{records} ? $t->{matched} / $t->{records} : 0 }
                my @s = sort { $a <=> $b } @o; printf "%d %.1f %.4f", $rec, $s[$#s / 2], $ok' "$lwork/$name-$w-"*.json)
            set -- $m
            [ -n "$first" ] || first=$2
            awk -v n="$name" -v r="$1" -v w="$w" -v o="$2" -v f="$first" -v ok="$3" -v c="$CPU" -v m="$RSS" 'BEGIN {
                printf "  %-24s %8d %7d %11.0f %7.2f %8.2f%% %9.3f %9.1f\n", n, r, w, o, o / f, ok * 100, c, m / 1024}'
        done
    done
}

# tbbt_meta: what the records file says it is.
tbbt_meta() {
    "$DUMP" -m "$trace" | tr -d '\n'
}

# ---- part clones: one player, 1, 2, 4, 8 clones, against nfs-ganesha ----
# For each N (BENCH_SCALE_CLONES): a fresh server and export, tbbt-init
# --clones N of the capture's map, then tbbt-play --clones N --order fsdep
# at full speed on the first BENCH_SCALE_RECORDS records (default 20000)
# of each copy; ops/s, the latency (mean over every matched request, and
# the worst procedure's p99), the player's CPU per request and peak RSS.
# Beside each, the simulator's prediction for the same window and cap:
# tbbt-play --simulate --sim-windows W --limit R with the latencies the
# 1-clone run measured per procedure (its JSON's lat_mean_ns), so the
# prediction asks "with this server's latency, how fast do the trace's
# dependencies let N copies go": the N copies are independent, so N times
# the prediction for one copy under a cap of max-outstanding / N. The
# ratio prediction / measurement says where the server, not the trace,
# limits (2 cores shared by player and server here).
part_clones() {
    [ "$(id -u)" = 0 ] || { echo "bench/scale: part clones skipped: needs root (ganesha's VFS FSAL)"; return 0; }
    . "$src/tests/lib/ganesha.sh"
    tbbt_ganesha_usable 2>/dev/null || { echo "bench/scale: part clones skipped: $(tbbt_ganesha_usable 2>&1)"; return 0; }
    local INIT=$build/hierarchy/tbbt-init
    [ -x "$INIT" ] || cmake --build "$build" -j2 --target tbbt-init >/dev/null
    local nrec=${BENCH_SCALE_RECORDS:-20000} cl=${BENCH_SCALE_CLONES:-1 2 4 8} win=4096 cap=1024 i n
    work=$(mktemp -d /tmp/tbbt-bench-scale.XXXXXX) # global: cleanup() needs it
    gdir=$work/g
    local pcap=$here/cache/bench-1000000.pcap
    [ -s "$pcap" ] || pcap=$("$here/make-capture.sh")
    "$PREP" -q -o "$work/bench.tbbt" -m "$work/bench.hmap" "$pcap"
    echo
    echo "Clones: one player, fsdep, full speed, window $win per copy, $cap out at most, the first $nrec records"
    echo "of each copy of the million-call capture's trace, against nfs-ganesha (fresh server and image each run)"
    for i in $(seq 1 "$runs"); do
        for n in $cl; do
            tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true
            rm -rf "$gdir/export"
            tbbt_ganesha_start "$gdir" >/dev/null || { echo "bench/scale: ganesha did not start" >&2; return 1; }
            local iargs=(-q --clones "$n" --map "$work/bench.hmap" --nfs-port "$TBBT_NFS_PORT"
                --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$TBBT_EXPORT")
            "$INIT" "${iargs[@]}" 2>/dev/null || { sleep 1; "$INIT" --replace "${iargs[@]}" >/dev/null; }
            timed "clones$n" "$PLAY" -q --order fsdep --clones "$n" --limit "$nrec" --window "$win" \
                --max-outstanding "$cap" --nfs-port "$TBBT_NFS_PORT" --manifest "$work/bench.manifest" \
                --json "$BENCH_TMP/c$n.$i.json" "$work/bench.tbbt" "127.0.0.1:$TBBT_EXPORT"
        done
    done
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true
    # the latencies of the 1-clone runs (mean per procedure, the runs' median)
    local lat
    lat=$(perl -MJSON::PP -e 'my %v; for my $f (@ARGV) { local $/; open my $h, "<", $f or next;
            my $j = decode_json(<$h>); for my $p (@{$j->{procedures}}) {
                push @{$v{$p->{proc}}}, $p->{latency_ns}{mean} if $p->{matched} && $p->{latency_ns}{n} } }
        print join ",", map { my @s = sort { $a <=> $b } @{$v{$_}}; sprintf "%s=%.1f", $_, $s[$#s / 2] / 1e3 } sort keys %v' \
        "$BENCH_TMP"/c1.*.json)
    printf "  %6s %9s %11s %9s %11s %10s %9s %12s %8s\n" clones requests "ops/s" "lat mean" "worst p99" \
        "CPU/req" "peakRSS" "sim ops/s" "sim/meas"
    for n in $cl; do
        local m
        m=$(perl -MJSON::PP -e 'my (@o, @l, @p, @c, $req, $ok);
            for my $f (@ARGV) { local $/; open my $h, "<", $f or next; my $j = decode_json(<$h>); my $t = $j->{totals};
                push @o, $t->{ops_per_s}; push @c, $t->{sent} ? $t->{cpu_s} * 1e6 / $t->{sent} : 0;
                $req = $t->{sent}; $ok = $t->{records} ? $t->{matched} / $t->{records} : 0;
                my ($sum, $k, $w) = (0, 0, 0);
                for my $p (@{$j->{procedures}}) { my $h = $p->{latency_ns}; next unless $h->{n};
                    $sum += $h->{mean} * $h->{n}; $k += $h->{n}; $w = $h->{p99} if $h->{p99} > $w }
                push @l, $k ? $sum / $k : 0; push @p, $w }
            my $med = sub { my @s = sort { $a <=> $b } @_; $s[$#s / 2] };
            printf "%d %.0f %.1f %.1f %.2f %.4f", $req, $med->(@o), $med->(@l) / 1e3, $med->(@p) / 1e3, $med->(@c), $ok' \
            "$BENCH_TMP"/c$n.*.json)
        set -- $m
        local sim=0
        if [ -n "$lat" ]; then
            "$PLAY" --simulate -q --order fsdep --sim-windows "$win" --max-outstanding $((cap / n)) --limit "$nrec" \
                --sim-latency "$lat" --json "$BENCH_TMP/s$n.json" "$work/bench.tbbt" >/dev/null 2>"$BENCH_TMP/s$n.err" &&
                sim=$(perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); printf "%.0f", $j->{windows}[0]{ops_per_s} * $ARGV[0]' \
                    "$n" <"$BENCH_TMP/s$n.json")
        fi
        times_rss "clones$n"
        awk -v n="$n" -v r="$1" -v o="$2" -v l="$3" -v p="$4" -v c="$5" -v m="$RSS" -v s="$sim" -v ok="$6" 'BEGIN {
            printf "  %6d %9d %11.0f %7.1f us %8.1f us %7.2f us %6.1f MiB %12.0f %8.2f   (matched %.2f%%)\n",
                n, r, o, l, p, c, m / 1024, s, (o > 0 ? s / o : 0), ok * 100}'
    done
    echo "  (sim ops/s: tbbt-play --simulate with the 1-clone runs' mean latency per procedure, N x one copy"
    echo "   under a cap of $cap / N; sim/meas > 1: the server, not the trace's dependencies, limits)"
}

# times_rss LABEL: sets RSS (largest, KiB) of LABEL's runs.
times_rss() {
    RSS=$(awk '$4 > m {m = $4} END {print m}' "$BENCH_TMP/$1.times")
}

for p in $parts; do
    case $p in
    windows) part_windows ;;
    sim) part_sim ;;
    live) part_live ;;
    clones) part_clones ;;
    *)
        echo "bench/scale: unknown part '$p' (windows, sim, live, clones)" >&2
        exit 2
        ;;
    esac
done
