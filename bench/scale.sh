#!/bin/bash
# bench/scale.sh -- scaling (issue "Scaling", its Benchmark part). Parts,
# chosen by BENCH_SCALE_PARTS (default "sim clones"):
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
# clones One player with --clones 1, 2, 4, 8 against nfs-ganesha at full
#        speed, ops/s and latency for each, and the simulator's prediction
#        for the same window beside each (the ratio of prediction to
#        measurement). Needs root (ganesha). See part_clones below.
#
# Knobs: BENCH_RUNS, BENCH_SCALE_TRACE, BENCH_SCALE_PARTS, TBBT_BUILD.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
runs=${BENCH_RUNS:-3}
parts=${BENCH_SCALE_PARTS:-sim clones}
trace=${BENCH_SCALE_TRACE:-$here/cache/bench-1000000.tbbt}
PLAY=$build/player/tbbt-play DUMP=$build/tools/tbbt-dump PREP=$build/transform/tbbt-prep
for b in "$PLAY" "$DUMP" "$PREP"; do
    if [ ! -x "$b" ]; then
        cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
        cmake --build "$build" -j2 --target tbbt-play tbbt-dump tbbt-prep >/dev/null
        break
    fi
done
trap 'rm -rf "$BENCH_TMP"' EXIT
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
part_sim() {
    if [ ! -s "$trace" ]; then
        local pcap=$here/cache/bench-1000000.pcap
        [ -s "$pcap" ] || pcap=$("$here/make-capture.sh")
        echo "bench/scale: prepping $(basename "$pcap") once to $trace"
        "$PREP" -q --no-correct -o "$trace" "$pcap"
    fi
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
    work=$(mktemp -d /tmp/tbbt-bench-scale.XXXXXX) # global: the EXIT trap needs it
    gdir=$work/g
    trap 'tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true; rm -rf "$work" "$BENCH_TMP"' EXIT
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
    sim) part_sim ;;
    clones) part_clones ;;
    *)
        echo "bench/scale: unknown part '$p' (sim, clones)" >&2
        exit 2
        ;;
    esac
done
